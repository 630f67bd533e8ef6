"""The local deterministic summarizer (SEMANTICS "Handoff content").

Same runs in, byte-identical text out: no clocks, no ids, no dict-order luck.
Each section drafts its lines and the items they show; `resolvers.handoffs.selection`
keeps the protected ones and fills the budget with the rest, newest first. Sections read
runs as their digests keep them (`digest_of`): texts already flat and shortened.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from functools import cached_property
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from graph.models import (
    DigestItem,
    HandoffSection,
    OmittedItem,
    RunDigest,
    RunItem,
    RunItemKind,
    RunNode,
    RunStatus,
)
from resolvers.handoffs.selection import CHARS_PER_TOKEN, Drafted, Line, omitted_item, select

GOALS = "Goals and constraints"
DECISIONS = "Decisions"
FILES = "Files changed"
COMMANDS = "Commands and tests"
PLAN = "Plan and todos"
OPEN = "Open approvals and questions"
CHECKPOINT = "Checkpoint"
FAILURES = "Known failures"
SUBAGENTS = "Subagent results"
LATEST_REPLY = "Latest reply"
INTERRUPTED = "Interrupted by a usage limit"
TASK = "Task"
TASK_LIMIT = 4000
INPUT_LIMIT = 300
SHORT_INPUT_LIMIT = 100  # a run's input is shortened to this before it is left out
LINE_LIMIT = 400
# Where a run's checkpoint and failure sit among its items for "newest first": after them.
CHECKPOINT_INDEX = 1_000_000


class Summary(BaseModel):
    model_config = ConfigDict(frozen=True)

    text: str
    sections: list[HandoffSection]
    tokenEstimate: int
    omitted: list[OmittedItem] = Field(default_factory=list)
    # The shortest text it can be made: its protected lines and the closing line.
    protectedTokens: int = 0
    fits: bool = True  # whether that fits the budget it was made for


def token_estimate(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def tokens_held(run_input: str, item_texts: Iterable[str]) -> int:
    """About how many tokens an ended run left in its native thread: its input and the
    text of its items."""
    return token_estimate(run_input) + sum(token_estimate(text) for text in item_texts)


def summarize(
    runs: Sequence[RunDigest],
    *,
    title: str,
    max_tokens: int | None = None,
    subagent_results: Sequence[str] = (),
    task: str | None = None,
) -> Summary:
    """Summary of `runs` (history runs, any order) under `title`, within `max_tokens`
    (`resolvers.handoffs.selection`: protected lines always, the rest newest first).

    A `task` (a subagent's assignment) leads the text; it and the `subagent_results`
    delivered with it are protected, like the items of "Context that fits".
    """
    ordered = Covered(sorted(runs, key=lambda run: run.ordinal))
    drafted = [builder(ordered) for builder in _BUILDERS]
    if subagent_results:
        drafted = _with_results(drafted, subagent_results)
    if task:
        drafted = [Drafted(TASK, [_given(task)]), *drafted]
    chosen = select(title, drafted, None if max_tokens is None else max_tokens * CHARS_PER_TOKEN)
    text = render(title, chosen.sections, chosen.tail)
    return Summary(
        text=text,
        sections=chosen.sections,
        tokenEstimate=token_estimate(text),
        omitted=chosen.omitted,
        protectedTokens=math.ceil(chosen.needed_chars / CHARS_PER_TOKEN),
        fits=chosen.fits,
    )


def render(title: str, sections: Iterable[HandoffSection], tail: str | None = None) -> str:
    parts = [title]
    for section in sections:
        body = "\n".join(f"- {line}" for line in section.lines)
        parts.append(f"## {section.title}\n{body}")
    if tail is not None:
        parts.append(tail)
    return "\n\n".join(parts) + "\n"


def material(runs: Sequence[RunDigest]) -> list[OmittedItem]:
    """Every item of `runs` a summary with room for all would show (run inputs as index
    -1): what the shown and the omitted items of any summary of them add up to."""
    ordered = Covered(sorted(runs, key=lambda run: run.ordinal))
    every = [
        omitted_item(shown, line.text)
        for builder in _BUILDERS
        for line in builder(ordered).lines
        for shown in line.shows
    ]
    return sorted(every, key=lambda item: (item.runOrdinal, item.index))


# ---- digests ----------------------------------------------------------------

# Items no summary reads (SEMANTICS "Never included"); of a run's ASSISTANT_MESSAGEs the
# digest keeps the last (a protected item when its run is the latest covered).
_NEVER_READ = frozenset({RunItemKind.REASONING, RunItemKind.PROTOCOL})
# The only attributes a section reads.
_READ_ATTRIBUTES = frozenset(
    {"additions", "deletions", "changeKind", "outcome", "status", "result", "exitCode"}
    | {"done", "resolved"}
)


def digest_of(run: RunNode) -> RunDigest:
    """What summaries read of `run`, texts already shortened as every section shortens
    them (shortening twice changes nothing), so a summary built from digests is
    byte-identical to one built from the run. Each item keeps its index in the run. The
    failure reason stays as given: a blank one reads differently from a missing one."""
    last_reply = max(
        (n for n, item in enumerate(run.items) if item.kind is RunItemKind.ASSISTANT_MESSAGE),
        default=None,
    )
    return RunDigest(
        ordinal=run.ordinal,
        status=run.status,
        input=_shorten(run.input, INPUT_LIMIT),
        failureReason=run.failureReason,
        providerThreadId=run.providerThreadId,
        items=[
            _item_digest(item, n, run.ordinal)
            for n, item in enumerate(run.items)
            if item.kind not in _NEVER_READ
            and (item.kind is not RunItemKind.ASSISTANT_MESSAGE or n == last_reply)
        ],
        checkpointRef=run.checkpoint.ref if run.checkpoint else None,
        diffSummary=list(run.checkpoint.diffSummary) if run.checkpoint else None,
    )


def _item_digest(item: RunItem, index: int, ordinal: int) -> DigestItem:
    attributes = {k: v for k, v in (item.attributes or {}).items() if k in _READ_ATTRIBUTES}
    shown = "" if item.kind is RunItemKind.FILE_CHANGE else _line_of(item.text, ordinal, index)
    return DigestItem(
        kind=item.kind,
        text=shown,
        key=item.key,
        path=item.path,
        attributes=attributes or None,
        index=index,
    )


# ---- sections ---------------------------------------------------------------

Found = tuple[RunDigest, DigestItem]


class Covered(list[RunDigest]):
    """The covered runs in ordinal order, their items found by kind in one pass (every
    section asks for some kinds: ten passes over a thousand runs' items otherwise)."""

    @cached_property
    def by_kind(self) -> dict[RunItemKind, list[Found]]:
        found: dict[RunItemKind, list[Found]] = {}
        for run in self:
            for item in run.items:
                found.setdefault(item.kind, []).append((run, item))
        return found


def _items(runs: Sequence[RunDigest], *kinds: RunItemKind) -> list[Found]:
    """The items of `kinds` in run and item order."""
    if not isinstance(runs, Covered):
        return [(run, item) for run in runs for item in run.items if item.kind in kinds]
    found = [pair for kind in kinds for pair in runs.by_kind.get(kind, [])]
    if len(kinds) > 1:
        found.sort(key=lambda pair: (pair[0].ordinal, pair[1].index))
    return found


def _item_line(run: RunDigest, item: DigestItem, text: str, *, protected: bool = False) -> Line:
    return _said_line(text, [(run, item)], protected=protected)


def _said_line(text: str, found: Sequence[Found], *, protected: bool = False) -> Line:
    """A line showing the items `found` (in run order), as new as the newest of them."""
    newest_run, newest_item = found[-1]
    return Line(
        text=text,
        newest=(newest_run.ordinal, newest_item.index),
        shows=tuple((run.ordinal, item) for run, item in found),
        protected=protected,
    )


def _input_line(run: RunDigest, *, protected: bool) -> Line:
    text = f"Run {run.ordinal} asked: {run.input}"
    short = None
    if len(run.input) > SHORT_INPUT_LIMIT:
        short = f"Run {run.ordinal} asked: {_shorten(run.input, SHORT_INPUT_LIMIT)}"
    return Line(
        text=text,
        newest=(run.ordinal, -1),
        shows=((run.ordinal, None),),
        protected=protected,
        short=short,
    )


def _given(text: str) -> Line:
    """The caller's own words (a task, a subagent's result): protected, no item."""
    return Line(text=_shorten(text, TASK_LIMIT), newest=(0, 0), protected=True)


def _goals(runs: Sequence[RunDigest]) -> Drafted:
    """Run inputs (the first run's and the latest covered run's protected), then goals
    and constraints (all protected)."""
    latest = runs[-1].ordinal if runs else None
    lines = [_input_line(run, protected=run.ordinal in (1, latest)) for run in runs]
    for run, item in _items(runs, RunItemKind.USER_GOAL, RunItemKind.CONSTRAINT):
        label = "Goal" if item.kind is RunItemKind.USER_GOAL else "Constraint"
        lines.append(_item_line(run, item, f"{label}: {item.text}", protected=True))
    return Drafted(GOALS, lines)


def _interrupted(runs: Sequence[RunDigest]) -> Drafted:
    """Runs a usage limit stopped. The latest covered run's request is unfinished: its line
    (protected, as its input is) asks the reader to go
    on with it; an earlier one was followed by later runs."""
    latest = runs[-1].ordinal if runs else None
    lines = [
        Line(
            text=f"Run {run.ordinal} was interrupted by a usage limit "
            f"({_shorten(run.failureReason or 'no reason given', LINE_LIMIT)}) before it "
            + (
                "finished: continue its request where it stopped."
                if run.ordinal == latest
                else "finished; later runs went on."
            ),
            newest=(run.ordinal, CHECKPOINT_INDEX),
            protected=run.ordinal == latest,
        )
        for run in runs
        if run.status is RunStatus.INTERRUPTED
    ]
    return Drafted(INTERRUPTED, lines)


def _latest_reply(runs: Sequence[RunDigest]) -> Drafted:
    """The latest covered run's last ASSISTANT_MESSAGE (protected)."""
    replies = _items(runs[-1:], RunItemKind.ASSISTANT_MESSAGE)
    lines = [_item_line(run, item, item.text, protected=True) for run, item in replies[-1:]]
    return Drafted(LATEST_REPLY, lines)


def _every(title: str, kind: RunItemKind) -> Callable[[Sequence[RunDigest]], Drafted]:
    """A section showing every item of `kind` as written (decisions, subagent results): one
    line per text, in the order the texts first came, showing every item that says it. A
    decision restated in later runs is read once, not once a run, and the line stays as
    long as its newest saying would; a blank item says nothing and shows no line."""

    def drafted(runs: Sequence[RunDigest]) -> Drafted:
        said: dict[str, list[Found]] = {}
        for run, item in _items(runs, kind):
            if item.text.strip():
                said.setdefault(item.text, []).append((run, item))
        return Drafted(title, [_said_line(text, found) for text, found in said.items()])

    return drafted


def _files(runs: Sequence[RunDigest]) -> Drafted:
    """One line per path: stats summed over the runs (a checkpoint's win over the
    run's FILE_CHANGE items), showing every FILE_CHANGE item of that path."""
    totals: dict[str, tuple[int, int, str]] = {}
    shown: dict[str, list[Found]] = {}
    newest: dict[str, tuple[int, int]] = {}
    for run in runs:
        for path, additions, deletions, kind in _run_file_stats(run):
            old_add, old_del, _ = totals.get(path, (0, 0, kind))
            totals[path] = (old_add + additions, old_del + deletions, kind)
            newest[path] = (run.ordinal, CHECKPOINT_INDEX)
        for item in run.items:
            if item.kind is RunItemKind.FILE_CHANGE and item.path:
                shown.setdefault(item.path, []).append((run, item))
    lines = []
    for path, (add, dele, kind) in totals.items():
        text = f"{path} ({kind}, +{add}/-{dele})"
        items = tuple((run.ordinal, item) for run, item in shown.get(path, []))
        lines.append(Line(text=text, newest=newest[path], shows=items))
    return Drafted(FILES, lines)


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


def _commands(runs: Sequence[RunDigest]) -> Drafted:
    lines: list[Line] = []
    for run, item in _items(runs, RunItemKind.COMMAND, RunItemKind.TEST):
        outcome = _outcome(item.attributes or {})
        label = "Test" if item.kind is RunItemKind.TEST else "Command"
        suffix = f" -> {outcome}" if outcome else ""
        lines.append(_item_line(run, item, f"{label}: {item.text}{suffix}"))
    for run, item in _latest_by_key(_items(runs, RunItemKind.TOOL_OUTPUT)):
        lines.append(_item_line(run, item, f"Output: {item.text}"))
    return Drafted(COMMANDS, lines)


def _plan(runs: Sequence[RunDigest]) -> Drafted:
    lines: list[Line] = []
    for run, item in _items(runs, RunItemKind.PLAN)[-1:]:
        lines.append(_item_line(run, item, f"Plan: {item.text}"))
    for run, item in _latest_by_key(_items(runs, RunItemKind.TODO)):
        attrs = item.attributes or {}
        done = attrs.get("done") is True or str(attrs.get("status", "")).lower() in {
            "done",
            "completed",
        }
        mark = "x" if done else " "
        lines.append(_item_line(run, item, f"[{mark}] {item.text}"))
    return Drafted(PLAN, lines)


def open_requests(runs: Sequence[RunDigest]) -> list[Found]:
    """Approvals and questions still open: the latest state of each key, not resolved."""
    asked = _latest_by_key(_items(runs, RunItemKind.APPROVAL, RunItemKind.QUESTION))
    return [(run, item) for run, item in asked if not _resolved(item)]


def answered_requests(runs: Sequence[RunDigest]) -> list[Found]:
    """Approvals and questions these runs resolve but were asked before them: a summary
    that does not start at the thread's first run says so, for a reader that saw them
    open (a delta into the native thread that asked them)."""
    if not runs or runs[0].ordinal <= 1:
        return []
    asked = _items(runs, RunItemKind.APPROVAL, RunItemKind.QUESTION)
    opened_here = {item.key for _, item in asked if not _resolved(item)}
    return [
        (run, item)
        for run, item in _latest_by_key(asked)
        if _resolved(item) and item.key is not None and item.key not in opened_here
    ]


def _open_questions(runs: Sequence[RunDigest]) -> Drafted:
    lines = [
        _item_line(run, item, f"{_request_kind(item)}: {item.text}", protected=True)
        for run, item in open_requests(runs)
    ]
    lines.extend(
        _item_line(run, item, f"{_request_kind(item)} now resolved: {item.text}")
        for run, item in answered_requests(runs)
    )
    return Drafted(OPEN, lines)


def _request_kind(item: DigestItem) -> str:
    return "Approval" if item.kind is RunItemKind.APPROVAL else "Question"


def _checkpoint(runs: Sequence[RunDigest]) -> Drafted:
    latest = next((run for run in reversed(runs) if run.diffSummary is not None), None)
    if latest is None or latest.diffSummary is None:
        return Drafted(CHECKPOINT, [])
    at = (latest.ordinal, CHECKPOINT_INDEX)
    texts = [f"Checkpoint {latest.checkpointRef or '(no ref)'} after run {latest.ordinal}"]
    texts.extend(
        f"{stat.path} ({stat.changeKind}, +{stat.additions}/-{stat.deletions})"
        for stat in latest.diffSummary
    )
    return Drafted(CHECKPOINT, [Line(text=text, newest=at) for text in texts])


def unresolved_failures(runs: Sequence[RunDigest]) -> list[Found]:
    """FAILURE items not resolved later: the latest state of each key."""
    found = _latest_by_key(_items(runs, RunItemKind.FAILURE))
    return [(run, item) for run, item in found if not _resolved(item)]


def _failures(runs: Sequence[RunDigest]) -> Drafted:
    lines = [
        Line(
            text=f"Run {run.ordinal} failed: "
            f"{_shorten(run.failureReason or 'no reason given', LINE_LIMIT)}",
            newest=(run.ordinal, CHECKPOINT_INDEX),
        )
        for run in runs
        if run.status is RunStatus.FAILED
    ]
    lines.extend(_item_line(run, item, item.text) for run, item in unresolved_failures(runs))
    return Drafted(FAILURES, lines)


_BUILDERS: tuple[Callable[[Sequence[RunDigest]], Drafted], ...] = (
    _goals,
    _interrupted,
    _latest_reply,
    _every(DECISIONS, RunItemKind.DECISION),
    _files,
    _commands,
    _plan,
    _open_questions,
    _checkpoint,
    _failures,
    _every(SUBAGENTS, RunItemKind.SUBAGENT_RESULT),
)


def _with_results(drafted: list[Drafted], results: Sequence[str]) -> list[Drafted]:
    given = [_given(result) for result in results]
    return [Drafted(d.title, [*d.lines, *given]) if d.title == SUBAGENTS else d for d in drafted]


# ---- helpers ----------------------------------------------------------------


def _latest_by_key(pairs: Sequence[Found]) -> list[Found]:
    """Items in first-seen order; a later item with the same key replaces an earlier one."""
    keyed: dict[str, Found] = {}
    order: list[str] = []
    for index, (run, item) in enumerate(pairs):
        slot = item.key if item.key is not None else f"#{run.ordinal}:{index}"
        if slot not in keyed:
            order.append(slot)
        keyed[slot] = (run, item)
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


def _line_of(text: str, ordinal: int, index: int) -> str:
    """An item's text as a summary shows it: one line of at most LINE_LIMIT characters. A
    longer one says where the whole text is, so that the reader can fetch it: a protected
    goal of three pages is cut as any other item, not silently."""
    flat = " ".join(text.split())
    if len(flat) <= LINE_LIMIT:
        return flat
    where = f" [cut; the whole item: run {ordinal}, index {index}, in Thread.items]"
    return _shorten(flat, LINE_LIMIT - len(where)) + where


def _shorten(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"
