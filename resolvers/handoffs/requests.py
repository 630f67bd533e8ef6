"""What a summary is made from, and the request that asks someone else to write it.

The local summarizer, a provider (the one being left or the one entered) and the
configured summarizer summarise the same material under the same rules (SEMANTICS
"Handoff content"): the digests of the covered runs, a task or subagent results, a title
and the entering provider's token budget. A request carries that material with the rules
spelled out, and the key a configured summary of it is cached under.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from graph.models import RunDigest, RunItemKind, SummarySource
from resolvers.handoffs import tokenizer
from resolvers.handoffs.summarizer import Summary, summarize

# The rules of SEMANTICS "Handoff content", as a summarizer other than ours reads them.
INCLUDE = (
    "Goals and constraints: each covered run's user message, USER_GOAL and CONSTRAINT items",
    "Decisions: DECISION items",
    "Files changed: path, change kind and +/- lines (checkpoint stats, FILE_CHANGE items)",
    "Commands and tests: COMMAND and TEST items with their outcome; the latest TOOL_OUTPUT per key",
    "Plan and todos: the latest PLAN; TODOs by key, the latest state wins",
    "Open approvals and questions: APPROVAL and QUESTION items by key, unless resolved",
    "Checkpoint: the latest covered checkpoint's ref and diff summary",
    "Known failures: failed runs with their reason, FAILURE items not later resolved",
    "Subagent results: SUBAGENT_RESULT items and the results given",
    "Conversation: the other requests and ASSISTANT_MESSAGE items, whole, newest kept longest",
)
EXCLUDE = (
    "REASONING items (hidden chain-of-thought)",
    "PROTOCOL items (provider protocol noise)",
    "a TOOL_OUTPUT superseded by a later TOOL_OUTPUT with the same key",
    "diff bodies: name a changed file with its stats, never its diff",
)


class SummaryMaterial(BaseModel):
    """Everything a summary of one handoff reads."""

    model_config = ConfigDict(frozen=True)

    title: str
    runs: list[RunDigest] = Field(default_factory=list)
    task: str | None = None
    subagentResults: list[str] = Field(default_factory=list)

    @property
    def summarisable(self) -> bool:
        """Whether there is anything to summarise: a handoff of no run carries only the
        caller's own words (a task, subagent results), which are given as they are."""
        return bool(self.runs)

    def local(self, max_tokens: int) -> Summary:
        """The local deterministic summary of this material within `max_tokens`."""
        return summarize(
            self.runs,
            title=self.title,
            max_tokens=max_tokens,
            subagent_results=self.subagentResults,
            task=self.task,
        )

    def wire(self) -> dict[str, Any]:
        """The material as another summarizer receives it: JSON, runs in order, tool
            output already superseded by a later one with the same key left out, and no ids or
        item indexes
            (which say nothing to a summarizer, and would make the same runs of two threads
            two requests)."""
        runs = _without_superseded_output(sorted(self.runs, key=lambda run: run.ordinal))
        return {
            "title": self.title,
            "task": self.task,
            "subagentResults": list(self.subagentResults),
            "runs": [
                run.model_dump(
                    mode="json",
                    exclude_none=True,
                    exclude={
                        "providerThreadId": True,
                        "inputTokens": True,
                        "inputCutTokens": True,
                        "items": {"__all__": {"index", "tokens", "cutTokens"}},
                    },
                )
                for run in runs
            ],
        }


class SummaryRequest(BaseModel):
    """A summary the service asks a provider (or the configured summarizer) to write."""

    model_config = ConfigDict(frozen=True)

    handoffId: str
    source: SummarySource
    provider: str  # who is asked: a provider kind, or the configured summarizer's name
    maxTokens: int
    instructions: str
    material: SummaryMaterial
    key: str  # hash of the instructions, the material and the model asked

    @property
    def include(self) -> list[str]:
        return list(INCLUDE)

    @property
    def exclude(self) -> list[str]:
        return list(EXCLUDE)


class SummaryResult(BaseModel):
    """What the configured summarizer answered for one request: its text, or why the
    local summarizer stands in."""

    model_config = ConfigDict(frozen=True)

    key: str
    text: str | None = None
    createdBy: str | None = None
    model: str | None = None
    generationMs: float = 0.0
    fallbackReason: str | None = None


def instructions(entering: str, title: str, max_tokens: int) -> str:
    include = "\n".join(f"- {line}" for line in INCLUDE)
    exclude = "\n".join(f"- {line}" for line in EXCLUDE)
    return (
        f"Write the context handoff for a coding agent ({entering}) that continues an app "
        "thread other agents worked on. The user message is the material as JSON: the "
        "covered runs (user message, status, items, checkpoint stats), and any task or "
        "subagent results.\n\n"
        f"Start with this line: {title}\n"
        "Then these sections as Markdown, in this order, leaving out empty ones:\n"
        f"{include}\n"
        f"Never include:\n{exclude}\n"
        f"Stay within {max_tokens} tokens (counted with the cl100k_base tokenizer). "
        "Answer with the summary only."
    )


def request_for(
    handoff_id: str,
    source: SummarySource,
    provider: str,
    entering: str,
    material: SummaryMaterial,
    max_tokens: int,
    model: str | None = None,
) -> SummaryRequest:
    text = instructions(entering, material.title, max_tokens)
    return SummaryRequest(
        handoffId=handoff_id,
        source=source,
        provider=provider,
        maxTokens=max_tokens,
        instructions=text,
        material=material,
        key=summary_key(text, material, model),
    )


def summary_key(text: str, material: SummaryMaterial, model: str | None) -> str:
    """The same instructions, material and model always give the same key: a configured
    summary is paid for once per key."""
    canonical = json.dumps(
        {"instructions": text, "material": material.wire(), "model": model},
        sort_keys=True,
        ensure_ascii=False,
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


def refusal(text: str | None, max_tokens: int) -> str | None:
    """Why an answer cannot be the handoff's text (then the local summary stands in)."""
    if text is None or not text.strip():
        return "empty: the answer has no text"
    estimate = tokenizer.count(text)
    if estimate > max_tokens:
        return f"oversized: the answer is about {estimate} tokens; the budget is {max_tokens}"
    return None


def _without_superseded_output(runs: Sequence[RunDigest]) -> list[RunDigest]:
    last: dict[str, tuple[int, int]] = {}
    for run_index, run in enumerate(runs):
        for item_index, item in enumerate(run.items):
            if item.kind is RunItemKind.TOOL_OUTPUT and item.key is not None:
                last[item.key] = (run_index, item_index)
    kept: list[RunDigest] = []
    for run_index, run in enumerate(runs):
        items = [
            item
            for item_index, item in enumerate(run.items)
            if item.kind is not RunItemKind.TOOL_OUTPUT
            or item.key is None
            or last[item.key] == (run_index, item_index)
        ]
        kept.append(run.model_copy(update={"items": items}))
    return kept
