"""The local deterministic summarizer (SEMANTICS "Handoff content").

Same runs in, byte-identical text out: no clocks, no ids, no dict-order luck.
The text never exceeds the target's token budget; lower sections give way first.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from graph.models import HandoffSection, RunDigest, RunItem, RunItemKind, RunNode, RunStatus

GOALS = "Goals and constraints"
DECISIONS = "Decisions"
FILES = "Files changed"
COMMANDS = "Commands and tests"
PLAN = "Plan and todos"
OPEN = "Open approvals and questions"
CHECKPOINT = "Checkpoint"
FAILURES = "Known failures"
SUBAGENTS = "Subagent results"
TASK = "Task"
TASK_LIMIT = 4000

# Lower sections give way first; goals, decisions, files and failures last.
SHORTEN_ORDER = (
    SUBAGENTS,
    CHECKPOINT,
    OPEN,
    PLAN,
    COMMANDS,
    FAILURES,
    FILES,
    DECISIONS,
    GOALS,
    TASK,
)
INPUT_LIMIT = 300
LINE_LIMIT = 400
CHARS_PER_TOKEN = 4


class Summary(BaseModel):
    model_config = ConfigDict(frozen=True)

    text: str
    sections: list[HandoffSection]
    tokenEstimate: int


def token_estimate(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def summarize(
    runs: Sequence[RunDigest],
    *,
    title: str,
    max_tokens: int | None = None,
    subagent_results: Sequence[str] = (),
    task: str | None = None,
) -> Summary:
    """Summary of `runs` (history runs, any order) under `title`, within `max_tokens`.

    A `task` (a subagent's assignment) leads the text and is the last to give way.
    """
    ordered = sorted(runs, key=lambda run: run.ordinal)
    sections = [section for section in (builder(ordered) for builder in _BUILDERS) if section.lines]
    if subagent_results:
        extra = [_shorten(result, TASK_LIMIT) for result in subagent_results]
        sections = _append_lines(sections, SUBAGENTS, extra)
    if task:
        sections = [HandoffSection(title=TASK, lines=[_shorten(task, TASK_LIMIT)]), *sections]
    if max_tokens is not None:
        sections, title = _fit(sections, title, max_tokens * CHARS_PER_TOKEN)
    text = render(title, sections)
    return Summary(text=text, sections=sections, tokenEstimate=token_estimate(text))


def render(title: str, sections: Iterable[HandoffSection]) -> str:
    parts = [title]
    for section in sections:
        body = "\n".join(f"- {line}" for line in section.lines)
        parts.append(f"## {section.title}\n{body}")
    return "\n\n".join(parts) + "\n"


# ---- digests ----------------------------------------------------------------

# Items a summary never shows (SEMANTICS "Never included"); a FILE_CHANGE keeps no text.
_NEVER_SHOWN = frozenset(
    {RunItemKind.REASONING, RunItemKind.PROTOCOL, RunItemKind.ASSISTANT_MESSAGE}
)
# The only attributes a section reads.
_READ_ATTRIBUTES = frozenset(
    {"additions", "deletions", "changeKind", "outcome", "status", "result", "exitCode"}
    | {"done", "resolved"}
)


def digest_of(run: RunNode) -> RunDigest:
    """What summaries read of `run`, texts already shortened as every section shortens
    them (shortening twice changes nothing), so a summary built from digests is
    byte-identical to one built from the run. The failure reason stays as given: a blank
    one reads differently from a missing one."""
    return RunDigest(
        ordinal=run.ordinal,
        status=run.status,
        input=_shorten(run.input, INPUT_LIMIT),
        failureReason=run.failureReason,
        providerThreadId=run.providerThreadId,
        items=[_item_digest(item) for item in run.items if item.kind not in _NEVER_SHOWN],
        checkpointRef=run.checkpoint.ref if run.checkpoint else None,
        diffSummary=list(run.checkpoint.diffSummary) if run.checkpoint else None,
    )


def _item_digest(item: RunItem) -> RunItem:
    attributes = {k: v for k, v in (item.attributes or {}).items() if k in _READ_ATTRIBUTES}
    shown = "" if item.kind is RunItemKind.FILE_CHANGE else _shorten(item.text, LINE_LIMIT)
    return item.model_copy(update={"text": shown, "attributes": attributes or None})


# ---- sections ---------------------------------------------------------------


def _items(runs: Sequence[RunDigest], *kinds: RunItemKind) -> list[tuple[RunDigest, RunItem]]:
    return [(run, item) for run in runs for item in run.items if item.kind in kinds]


def _goals(runs: Sequence[RunDigest]) -> HandoffSection:
    lines = [f"Run {run.ordinal} asked: {_shorten(run.input, INPUT_LIMIT)}" for run in runs]
    for _, item in _items(runs, RunItemKind.USER_GOAL, RunItemKind.CONSTRAINT):
        label = "Goal" if item.kind is RunItemKind.USER_GOAL else "Constraint"
        lines.append(f"{label}: {_shorten(item.text, LINE_LIMIT)}")
    return HandoffSection(title=GOALS, lines=lines)


def _decisions(runs: Sequence[RunDigest]) -> HandoffSection:
    lines = [_shorten(item.text, LINE_LIMIT) for _, item in _items(runs, RunItemKind.DECISION)]
    return HandoffSection(title=DECISIONS, lines=lines)


def _files(runs: Sequence[RunDigest]) -> HandoffSection:
    totals: dict[str, tuple[int, int, str]] = {}
    for run in runs:
        for path, additions, deletions, kind in _run_file_stats(run):
            old_add, old_del, _ = totals.get(path, (0, 0, kind))
            totals[path] = (old_add + additions, old_del + deletions, kind)
    lines = [f"{path} ({kind}, +{add}/-{dele})" for path, (add, dele, kind) in totals.items()]
    return HandoffSection(title=FILES, lines=lines)


def _run_file_stats(run: RunDigest) -> list[tuple[str, int, int, str]]:
    """Per-file stats of one run: checkpoint stats win over FILE_CHANGE items."""
    stats: dict[str, tuple[str, int, int, str]] = {}
    for item in run.items:
        if item.kind is RunItemKind.FILE_CHANGE and item.path:
            attrs = item.attributes or {}
            stats[item.path] = (
                item.path,
                _int(attrs.get("additions")),
                _int(attrs.get("deletions")),
                str(attrs.get("changeKind", "modified")),
            )
    for stat in run.diffSummary or []:
        stats[stat.path] = (stat.path, stat.additions, stat.deletions, stat.changeKind)
    return list(stats.values())


def _commands(runs: Sequence[RunDigest]) -> HandoffSection:
    lines: list[str] = []
    for _, item in _items(runs, RunItemKind.COMMAND, RunItemKind.TEST):
        outcome = _outcome(item.attributes or {})
        label = "Test" if item.kind is RunItemKind.TEST else "Command"
        suffix = f" -> {outcome}" if outcome else ""
        lines.append(f"{label}: {_shorten(item.text, LINE_LIMIT)}{suffix}")
    outputs = _latest_by_key(_items(runs, RunItemKind.TOOL_OUTPUT))
    lines.extend(f"Output: {_shorten(item.text, LINE_LIMIT)}" for item in outputs)
    return HandoffSection(title=COMMANDS, lines=lines)


def _plan(runs: Sequence[RunDigest]) -> HandoffSection:
    lines: list[str] = []
    plans = _items(runs, RunItemKind.PLAN)
    if plans:
        lines.append(f"Plan: {_shorten(plans[-1][1].text, LINE_LIMIT)}")
    for item in _latest_by_key(_items(runs, RunItemKind.TODO)):
        attrs = item.attributes or {}
        done = attrs.get("done") is True or str(attrs.get("status", "")).lower() in {
            "done",
            "completed",
        }
        lines.append(f"[{'x' if done else ' '}] {_shorten(item.text, LINE_LIMIT)}")
    return HandoffSection(title=PLAN, lines=lines)


def _open_questions(runs: Sequence[RunDigest]) -> HandoffSection:
    lines = [
        f"{'Approval' if item.kind is RunItemKind.APPROVAL else 'Question'}: "
        f"{_shorten(item.text, LINE_LIMIT)}"
        for item in _latest_by_key(_items(runs, RunItemKind.APPROVAL, RunItemKind.QUESTION))
        if not _resolved(item)
    ]
    return HandoffSection(title=OPEN, lines=lines)


def _checkpoint(runs: Sequence[RunDigest]) -> HandoffSection:
    latest = next((run for run in reversed(runs) if run.diffSummary is not None), None)
    if latest is None or latest.diffSummary is None:
        return HandoffSection(title=CHECKPOINT, lines=[])
    lines = [f"Checkpoint {latest.checkpointRef or '(no ref)'} after run {latest.ordinal}"]
    lines.extend(
        f"{stat.path} ({stat.changeKind}, +{stat.additions}/-{stat.deletions})"
        for stat in latest.diffSummary
    )
    return HandoffSection(title=CHECKPOINT, lines=lines)


def _failures(runs: Sequence[RunDigest]) -> HandoffSection:
    lines = [
        f"Run {run.ordinal} failed: {_shorten(run.failureReason or 'no reason given', LINE_LIMIT)}"
        for run in runs
        if run.status is RunStatus.FAILED
    ]
    lines.extend(
        _shorten(item.text, LINE_LIMIT)
        for item in _latest_by_key(_items(runs, RunItemKind.FAILURE))
        if not _resolved(item)
    )
    return HandoffSection(title=FAILURES, lines=lines)


def _subagents(runs: Sequence[RunDigest]) -> HandoffSection:
    lines = [
        _shorten(item.text, LINE_LIMIT) for _, item in _items(runs, RunItemKind.SUBAGENT_RESULT)
    ]
    return HandoffSection(title=SUBAGENTS, lines=lines)


_BUILDERS: tuple[Callable[[Sequence[RunDigest]], HandoffSection], ...] = (
    _goals,
    _decisions,
    _files,
    _commands,
    _plan,
    _open_questions,
    _checkpoint,
    _failures,
    _subagents,
)


# ---- budget -----------------------------------------------------------------


def _fit(
    sections: list[HandoffSection], title: str, max_chars: int
) -> tuple[list[HandoffSection], str]:
    """Drop trailing lines, lowest-priority section first, until the text fits.

    The rendered length is kept as a running sum (see `_Budget`), so fitting costs one
    pass over the lines however many have to go: a 1,000-run summary fits in milliseconds.
    """
    budget = _Budget(title, sections)
    for name in SHORTEN_ORDER:
        if name not in budget.lines:
            continue
        while budget.lines[name] and budget.length() > max_chars:
            budget.drop_last(name)
        if not budget.lines[name]:
            budget.omitted[name] = 0  # nothing left to point at: drop the section
        if budget.length() <= max_chars:
            return budget.sections(), title
    # Not even the title fits: cut it, keeping the trailing newline.
    return [], title[: max(0, max_chars - 1)]


class _Budget:
    """Sections being shortened, with the length `render` would give them, kept current.

    render(title, sections) is title, then per section "\n\n## {name}\n" and its lines
    as "- {line}" joined by "\n", then a final "\n"; a shortened section ends with a
    "(N more not shown)" line.
    """

    def __init__(self, title: str, sections: list[HandoffSection]) -> None:
        self.title = title
        self.lines = {section.title: list(section.lines) for section in sections}
        self.chars = {name: sum(len(line) for line in lines) for name, lines in self.lines.items()}
        self.omitted = dict.fromkeys(self.lines, 0)

    def drop_last(self, name: str) -> None:
        self.chars[name] -= len(self.lines[name].pop())
        self.omitted[name] += 1

    def length(self) -> int:
        return len(self.title) + 1 + sum(self._section_length(name) for name in self.lines)

    def _section_length(self, name: str) -> int:
        count, chars = len(self.lines[name]), self.chars[name]
        if not count:
            return 0
        if self.omitted[name]:
            count, chars = count + 1, chars + len(_omitted_marker(self.omitted[name]))
        body = chars + 2 * count + (count - 1)
        return 2 + 3 + len(name) + 1 + body

    def sections(self) -> list[HandoffSection]:
        return [
            _with_omitted(name, self.lines[name], self.omitted[name])
            for name in self.lines
            if self.lines[name] or self.omitted[name]
        ]


def _with_omitted(title: str, lines: list[str], omitted: int) -> HandoffSection:
    marker = [_omitted_marker(omitted)] if omitted and lines else []
    return HandoffSection(title=title, lines=[*lines, *marker])


def _omitted_marker(omitted: int) -> str:
    return f"({omitted} more not shown)"


# ---- helpers ----------------------------------------------------------------


def _append_lines(
    sections: list[HandoffSection], title: str, extra: list[str]
) -> list[HandoffSection]:
    for index, section in enumerate(sections):
        if section.title == title:
            sections[index] = HandoffSection(title=title, lines=[*section.lines, *extra])
            return sections
    return [*sections, HandoffSection(title=title, lines=extra)]


def _latest_by_key(pairs: Sequence[tuple[RunDigest, RunItem]]) -> list[RunItem]:
    """Items in first-seen order; a later item with the same key replaces an earlier one."""
    keyed: dict[str, RunItem] = {}
    order: list[str] = []
    for index, (run, item) in enumerate(pairs):
        slot = item.key if item.key is not None else f"#{run.ordinal}:{index}"
        if slot not in keyed:
            order.append(slot)
        keyed[slot] = item
    return [keyed[slot] for slot in order]


def _resolved(item: RunItem) -> bool:
    return bool((item.attributes or {}).get("resolved") is True)


def _outcome(attributes: dict[str, Any]) -> str:
    for key in ("outcome", "status", "result"):
        if attributes.get(key) is not None:
            return str(attributes[key])
    if attributes.get("exitCode") is not None:
        return f"exit {attributes['exitCode']}"
    return ""


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def _shorten(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"
