"""The local deterministic summarizer (docs/MODEL.md, "Handoff content" and "Faithful
handoffs").

Same runs in, byte-identical text out: no clocks, no ids, no dict-order luck. Each section
drafts its lines, each showing some items of the covered runs whole, with a shortened form
for a long one; `resolvers.handoffs.selection` keeps the protected lines and fills the
budget with the rest. The digest's sections come first; "Conversation" follows with the
requests and assistant messages the digest does not show, whole, for what room is left.

Every item a summary could show is *material* (`material`): the covered runs' inputs and
items less those never included (REASONING and PROTOCOL, a TOOL_OUTPUT superseded by a
later one with the same key, a PLAN older than the latest, a TODO superseded by a later
state of its key, a QUESTION or APPROVAL resolved within the covered runs). Each is drafted
in exactly one line, so what a summary shows whole, what it lists as omitted, and what is
never included add up to the covered items exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import cached_property
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from graph.models import (
    DigestItem,
    HandoffEntry,
    HandoffSection,
    OmittedItem,
    RunDigest,
    RunItemKind,
    RunStatus,
)
from resolvers.handoffs import tokenizer
from resolvers.handoffs.digests import as_int, file_line, shorten, whole
from resolvers.handoffs.selection import (
    CONVERSATION,
    Cut,
    Drafted,
    Form,
    Line,
    Shown,
    place,
    select,
)

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
REASON_LIMIT = 400
NO_PATH = "(no path given)"
# Where a run's checkpoint and failure sit among its items for "newest first": after them.
CHECKPOINT_INDEX = 1_000_000


class Summary(BaseModel):
    model_config = ConfigDict(frozen=True)

    text: str
    sections: list[HandoffSection]
    entries: list[HandoffEntry] = Field(default_factory=list)
    tokenEstimate: int
    omitted: list[OmittedItem] = Field(default_factory=list)
    # The share, by tokens, of the material the text shows whole (1.0 with none).
    fidelity: float = 1.0
    # The fewest tokens the text can be made to take: its protected lines in their
    # shortest forms and its closing line, or everything whole when that is fewer.
    leastTokens: int = 0
    fits: bool = True  # whether that fits the budget it was made for


class Material(NamedTuple):
    """An item a summary of its runs could show: where it is, and its whole form's cost."""

    place: tuple[int, int]  # (run ordinal, index in its run; -1: the run's input)
    kind: RunItemKind
    tokens: int
    text: str  # its whole form (a FILE_CHANGE's path; a run input's text)
    key: str | None = None
    path: str | None = None


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
    drafted = _drafted(ordered, subagent_results, task)
    chosen = select(title, drafted, max_tokens)
    return Summary(
        text=chosen.text,
        sections=chosen.sections,
        entries=chosen.entries,
        tokenEstimate=chosen.tokens,
        omitted=chosen.omitted,
        fidelity=chosen.fidelity,
        leastTokens=chosen.least,
        fits=chosen.fits,
    )


def material(runs: Sequence[RunDigest]) -> list[Material]:
    """Every item of `runs` a summary with room for all would show (run inputs as index
    -1), oldest first: what the shown and the omitted items of any summary of them add up
    to."""
    ordered = Covered(sorted(runs, key=lambda run: run.ordinal))
    return _material_of(ordered, _drafted(ordered, (), None))


def fidelity(every: Iterable[Material], shown: Iterable[tuple[int, int]]) -> float:
    """The share, by tokens, of `every` item of material that is `shown` whole."""
    seen = set(shown)
    total = kept = 0
    for item in every:
        total += item.tokens
        if m_place(item) in seen:
            kept += item.tokens
    return round(kept / total, 4) if total else 1.0


def m_place(item: Material) -> tuple[int, int]:
    return item.place


def _drafted(ordered: Covered, subagent_results: Sequence[str], task: str | None) -> list[Drafted]:
    drafted = [builder(ordered) for builder in _BUILDERS]
    if subagent_results:
        given = [_given(result) for result in subagent_results]
        drafted = [
            Drafted(d.title, [*d.lines, *given]) if d.title == SUBAGENTS else d for d in drafted
        ]
    if task:
        drafted = [Drafted(TASK, [_given(task)]), *drafted]
    return drafted


def _material_of(ordered: Covered, drafted: Sequence[Drafted]) -> list[Material]:
    found = {
        place(shown): _material(shown, ordered)
        for section in drafted
        for line in section.lines
        for shown in line.shows
    }
    for shown in _blank(ordered):
        found.setdefault(place(shown), _material(shown, ordered))
    return [found[key] for key in sorted(found)]


def _material(shown: Shown, ordered: Covered) -> Material:
    ordinal, item = shown
    if item is None:
        run = ordered.by_ordinal[ordinal]
        return Material((ordinal, -1), RunItemKind.USER_GOAL, run.inputTokens, run.input)
    text = (item.path or NO_PATH) if item.kind is RunItemKind.FILE_CHANGE else item.text
    return Material((ordinal, item.index), item.kind, item.tokens, text, item.key, item.path)


# ---- lines ------------------------------------------------------------------

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

    @cached_property
    def by_ordinal(self) -> dict[int, RunDigest]:
        return {run.ordinal: run for run in self}


def _items(runs: Sequence[RunDigest], *kinds: RunItemKind) -> list[Found]:
    """The items of `kinds` in run and item order, blank ones left out (they say nothing,
    and show no line)."""
    if isinstance(runs, Covered):
        found = [pair for kind in kinds for pair in runs.by_kind.get(kind, [])]
        if len(kinds) > 1:
            found.sort(key=lambda pair: (pair[0].ordinal, pair[1].index))
    else:
        found = [(run, item) for run in runs for item in run.items if item.kind in kinds]
    # A digest's texts are whole already (`digests.whole`): a blank one is empty.
    return [(run, item) for run, item in found if item.text]


def _blank(runs: Covered) -> list[Shown]:
    """Inputs and items with nothing to show: material, and shown by any text (their text
    is empty), so no line is drafted for them."""
    found: list[Shown] = [(run.ordinal, None) for run in runs if not run.input]
    found.extend(
        (run.ordinal, item)
        for run in runs
        for item in run.items
        if item.kind is not RunItemKind.FILE_CHANGE and not item.text
    )
    return found


def _item_line(
    run: RunDigest,
    item: DigestItem,
    label: str = "",
    suffix: str = "",
    *,
    also: Sequence[Found] = (),
    protected: bool = False,
) -> Line:
    """A line showing `item` whole as `label` + its text + `suffix` (and the items `also`
    that say the same, older ones), with its shortened form when it has one."""
    frame = tokenizer.label(label) + tokenizer.label(suffix) if label or suffix else 0
    shortened = None
    if item.cutTokens:
        shortened = Cut(frame + item.cutTokens, label, item.text, run.ordinal, item.index, suffix)
    shows: tuple[Shown, ...] = ((run.ordinal, item),)
    weight = item.tokens
    if also:
        shows = (*((r.ordinal, i) for r, i in also), *shows)
        weight += sum(i.tokens for _, i in also)
    return Line(
        whole=Form(item.text, frame + item.tokens, label, suffix),
        newest=(run.ordinal, item.index),
        shows=shows,
        protected=protected,
        cut=shortened,
        weight=weight,
    )


def _input_line(run: RunDigest, *, protected: bool) -> Line:
    label = f"Run {run.ordinal} asked: "
    frame = tokenizer.label(label)
    shortened = None
    if run.inputCutTokens:
        shortened = Cut(frame + run.inputCutTokens, label, run.input, run.ordinal, -1)
    return Line(
        whole=Form(run.input, frame + run.inputTokens, label),
        newest=(run.ordinal, -1),
        shows=((run.ordinal, None),),
        protected=protected,
        cut=shortened,
        weight=run.inputTokens,
    )


def _plain(text: str, at: tuple[int, int], *, protected: bool = False) -> Line:
    """A line about no single item (a run's status, a checkpoint, stats)."""
    return Line(whole=Form(text, tokenizer.count(text)), newest=at, protected=protected)


def _given(text: str) -> Line:
    """The caller's own words (a task, a subagent's result): protected, no item."""
    return _plain(shorten(whole(text), TASK_LIMIT), (0, 0), protected=True)


def _protected_inputs(runs: Sequence[RunDigest]) -> set[int]:
    """The thread's first run's input (when covered) and the latest covered run's."""
    return {run.ordinal for run in runs if run.ordinal == 1} | (
        {runs[-1].ordinal} if runs else set()
    )


def _goals(runs: Sequence[RunDigest]) -> Drafted:
    """The protected run inputs, then goals and constraints (all protected)."""
    kept = _protected_inputs(runs)
    lines = [_input_line(run, protected=True) for run in runs if run.ordinal in kept]
    for run, item in _items(runs, RunItemKind.USER_GOAL, RunItemKind.CONSTRAINT):
        label = "Goal: " if item.kind is RunItemKind.USER_GOAL else "Constraint: "
        lines.append(_item_line(run, item, label, protected=True))
    return Drafted(GOALS, lines)


def _interrupted(runs: Sequence[RunDigest]) -> Drafted:
    """Runs a usage limit stopped. The latest covered run's request is unfinished: its line
    (protected, as its input is) asks the reader to go on with it; an earlier one was
    followed by later runs."""
    latest = runs[-1].ordinal if runs else None
    lines = [
        _plain(
            f"Run {run.ordinal} was interrupted by a usage limit "
            f"({shorten(run.failureReason or 'no reason given', REASON_LIMIT)}) before it "
            + (
                "finished: continue its request where it stopped."
                if run.ordinal == latest
                else "finished; later runs went on."
            ),
            (run.ordinal, CHECKPOINT_INDEX),
            protected=run.ordinal == latest,
        )
        for run in runs
        if run.status is RunStatus.INTERRUPTED
    ]
    return Drafted(INTERRUPTED, lines)


def latest_reply(runs: Sequence[RunDigest]) -> Found | None:
    """The latest covered run's last ASSISTANT_MESSAGE (protected)."""
    replies = _items(runs[-1:], RunItemKind.ASSISTANT_MESSAGE)
    return replies[-1] if replies else None


def _latest_reply(runs: Sequence[RunDigest]) -> Drafted:
    found = latest_reply(runs)
    lines = [_item_line(*found, protected=True)] if found else []
    return Drafted(LATEST_REPLY, lines)


def _every(title: str, kind: RunItemKind) -> Callable[[Sequence[RunDigest]], Drafted]:
    """A section showing every item of `kind` as written (decisions, subagent results): one
    line per text, in the order the texts first came, showing every item that says it. A
    decision restated in later runs is read once, not once a run, as new as its newest
    saying."""

    def drafted(runs: Sequence[RunDigest]) -> Drafted:
        said: dict[str, list[Found]] = {}
        for run, item in _items(runs, kind):
            said.setdefault(item.text, []).append((run, item))
        lines = [_item_line(*found[-1], also=found[:-1]) for found in said.values()]
        return Drafted(title, lines)

    return drafted


def _files(runs: Sequence[RunDigest]) -> Drafted:
    """One line per path: stats summed over the runs (a checkpoint's win over the run's
    FILE_CHANGE items), showing every FILE_CHANGE item of that path whole (its path and
    stats: its diff is never shown)."""
    totals: dict[str, tuple[int, int, str]] = {}
    shown: dict[str, list[Found]] = {}
    newest: dict[str, tuple[int, int]] = {}
    for run in runs:
        for path, additions, deletions, kind in _run_file_stats(run):
            old_add, old_del, _ = totals.get(path, (0, 0, kind))
            totals[path] = (old_add + additions, old_del + deletions, kind)
            newest[path] = (run.ordinal, CHECKPOINT_INDEX)
        for item in run.items:
            if item.kind is RunItemKind.FILE_CHANGE:
                shown.setdefault(item.path or "", []).append((run, item))
                totals.setdefault(item.path or "", (0, 0, "modified"))
                newest.setdefault(item.path or "", (run.ordinal, item.index))
    lines = []
    for path, (add, dele, kind) in totals.items():
        text = file_line(path or NO_PATH, kind, add, dele)
        found = shown.get(path, [])
        weight = sum(item.tokens for _, item in found)
        items = tuple((run.ordinal, item) for run, item in found)
        form = Form(text, tokenizer.label(text))
        lines.append(Line(whole=form, newest=newest[path], shows=items, weight=weight))
    return Drafted(FILES, lines)


def _run_file_stats(run: RunDigest) -> list[tuple[str, int, int, str]]:
    """Per-file stats of one run: checkpoint stats win over FILE_CHANGE items."""
    stats: dict[str, tuple[str, int, int, str]] = {}
    for item in run.items:
        if item.kind is RunItemKind.FILE_CHANGE and item.path:
            attrs = item.attributes or {}
            stats[item.path] = (
                item.path,
                as_int(attrs.get("additions")),
                as_int(attrs.get("deletions")),
                str(attrs.get("changeKind", "modified")),
            )
    for stat in run.diffSummary or []:
        stats[stat.path] = (stat.path, stat.additions, stat.deletions, stat.changeKind)
    return list(stats.values())


def _commands(runs: Sequence[RunDigest]) -> Drafted:
    lines: list[Line] = []
    for run, item in _items(runs, RunItemKind.COMMAND, RunItemKind.TEST):
        outcome = _outcome(item.attributes or {})
        label = "Test: " if item.kind is RunItemKind.TEST else "Command: "
        lines.append(_item_line(run, item, label, f" -> {outcome}" if outcome else ""))
    for run, item in latest_by_key(_items(runs, RunItemKind.TOOL_OUTPUT)):
        lines.append(_item_line(run, item, "Output: "))
    return Drafted(COMMANDS, lines)


def _plan(runs: Sequence[RunDigest]) -> Drafted:
    lines = [_item_line(run, item, "Plan: ") for run, item in _items(runs, RunItemKind.PLAN)[-1:]]
    for run, item in latest_by_key(_items(runs, RunItemKind.TODO)):
        attrs = item.attributes or {}
        done = attrs.get("done") is True or str(attrs.get("status", "")).lower() in {
            "done",
            "completed",
        }
        lines.append(_item_line(run, item, "[x] " if done else "[ ] "))
    return Drafted(PLAN, lines)


def open_requests(runs: Sequence[RunDigest]) -> list[Found]:
    """Approvals and questions still open: the latest state of each key, not resolved."""
    asked = latest_by_key(_items(runs, RunItemKind.APPROVAL, RunItemKind.QUESTION))
    return [(run, item) for run, item in asked if not resolved(item)]


def _restated_requests(runs: Sequence[RunDigest]) -> list[Found]:
    """Earlier states of approvals and questions still open: material, shown unprotected."""
    asked = _items(runs, RunItemKind.APPROVAL, RunItemKind.QUESTION)
    latest = {place((run.ordinal, item)) for run, item in latest_by_key(asked)}
    still_open = {item.key for _, item in open_requests(runs) if item.key is not None}
    return [
        (run, item)
        for run, item in asked
        if (run.ordinal, item.index) not in latest and item.key in still_open
    ]


def answered_requests(runs: Sequence[RunDigest]) -> list[Found]:
    """Approvals and questions these runs resolve but were asked before them: a summary
    that does not start at the thread's first run says so, for a reader that saw them
    open (a delta into the native thread that asked them)."""
    if not runs or runs[0].ordinal <= 1:
        return []
    asked = _items(runs, RunItemKind.APPROVAL, RunItemKind.QUESTION)
    opened_here = {item.key for _, item in asked if not resolved(item)}
    return [
        (run, item)
        for run, item in latest_by_key(asked)
        if resolved(item) and item.key is not None and item.key not in opened_here
    ]


def _open_questions(runs: Sequence[RunDigest]) -> Drafted:
    lines = [
        _item_line(run, item, f"{_request_kind(item)}: ", protected=True)
        for run, item in open_requests(runs)
    ]
    lines.extend(
        _item_line(run, item, f"{_request_kind(item)} asked earlier: ")
        for run, item in _restated_requests(runs)
    )
    # Resolved within the covered runs: never material, so the line shows no item.
    lines.extend(
        _item_line(run, item, f"{_request_kind(item)} now resolved: ")._replace(shows=())
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
        file_line(stat.path, stat.changeKind, stat.additions, stat.deletions)
        for stat in latest.diffSummary
    )
    return Drafted(CHECKPOINT, [_plain(text, at) for text in texts])


def unresolved_failures(runs: Sequence[RunDigest]) -> list[Found]:
    """FAILURE items not resolved later: the latest state of each key."""
    found = latest_by_key(_items(runs, RunItemKind.FAILURE))
    return [(run, item) for run, item in found if not resolved(item)]


def _failures(runs: Sequence[RunDigest]) -> Drafted:
    """Failed runs, then each unresolved failure; failures since resolved or restated
    later are material too, shown after them."""
    lines = [
        _plain(
            f"Run {run.ordinal} failed: "
            f"{shorten(run.failureReason or 'no reason given', REASON_LIMIT)}",
            (run.ordinal, CHECKPOINT_INDEX),
        )
        for run in runs
        if run.status is RunStatus.FAILED
    ]
    every = _items(runs, RunItemKind.FAILURE)
    latest = {(run.ordinal, item.index) for run, item in latest_by_key(every)}
    for run, item in every:
        if (run.ordinal, item.index) not in latest:
            lines.append(_item_line(run, item, "Earlier: "))
        elif resolved(item):
            lines.append(_item_line(run, item, "Resolved: "))
        else:
            lines.append(_item_line(run, item))
    return Drafted(FAILURES, lines)


def _conversation(runs: Sequence[RunDigest]) -> Drafted:
    """The requests and assistant messages the digest does not show, in run order: the
    protected requests and the latest reply stand in their own sections already."""
    kept = _protected_inputs(runs)
    last = latest_reply(runs)
    shown_apart = {(last[0].ordinal, last[1].index)} if last else set()
    lines: list[Line] = []
    for run in runs:
        if run.ordinal not in kept and run.input:
            lines.append(_input_line(run, protected=False))
        lines.extend(
            _item_line(run, item, f"Run {run.ordinal} replied: ")
            for item in run.items
            if item.kind is RunItemKind.ASSISTANT_MESSAGE
            and item.text
            and (run.ordinal, item.index) not in shown_apart
        )
    return Drafted(CONVERSATION, lines)


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
    _conversation,
)


# ---- helpers ----------------------------------------------------------------


def latest_by_key(pairs: Sequence[Found]) -> list[Found]:
    """Items in first-seen order; a later item with the same key replaces an earlier one."""
    keyed: dict[str, Found] = {}
    order: list[str] = []
    for index, (run, item) in enumerate(pairs):
        slot = item.key if item.key is not None else f"#{run.ordinal}:{index}"
        if slot not in keyed:
            order.append(slot)
        keyed[slot] = (run, item)
    return [keyed[slot] for slot in order]


def resolved(item: DigestItem) -> bool:
    return bool((item.attributes or {}).get("resolved") is True)


def _outcome(attributes: dict[str, Any]) -> str:
    for key in ("outcome", "status", "result"):
        if attributes.get(key) is not None:
            return str(attributes[key])
    if attributes.get("exitCode") is not None:
        return f"exit {attributes['exitCode']}"
    return ""


def render(title: str, sections: Iterable[HandoffSection], tail: str | None = None) -> str:
    """A text of `sections` laid out as the summarizer lays its own out."""
    parts = [title]
    for section in sections:
        body = "\n".join(f"- {line}" for line in section.lines)
        parts.append(f"## {section.title}\n{body}")
    if tail is not None:
        parts.append(tail)
    return "\n\n".join(parts) + "\n"
