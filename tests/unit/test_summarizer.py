"""The deterministic summarizer: sections, exclusions, budget, determinism."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from graph.models import (
    CheckpointNode,
    FileDiffStat,
    RunItem,
    RunItemKind,
    RunNode,
    RunStatus,
)
from resolvers.handoffs import quality, summarizer
from resolvers.handoffs.selection import left_out_line
from resolvers.handoffs.summarizer import (
    Summary,
    _shorten,
    digest_of,
    material,
    token_estimate,
)

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def item(kind: RunItemKind, text: str, **extra: Any) -> RunItem:
    return RunItem(kind=kind, text=text, **extra)


def run(
    ordinal: int,
    *items: RunItem,
    status: RunStatus = RunStatus.COMPLETED,
    checkpoint: CheckpointNode | None = None,
    reason: str | None = None,
    text: str | None = None,
) -> RunNode:
    return RunNode(
        id=f"r{ordinal}",
        threadId="t",
        ordinal=ordinal,
        provider="codex",
        status=status,
        input=text or f"message {ordinal}",
        startedAt=T0,
        items=list(items),
        checkpoint=checkpoint,
        failureReason=reason,
    )


def titles(runs: list[RunNode]) -> list[str]:
    return [s.title for s in summarize(runs, title="# H").sections]


def test_sections_in_order_and_empty_ones_omitted() -> None:
    checkpoint = CheckpointNode(
        id="c",
        runId="r2",
        ref="abc123",
        createdAt=T0,
        diffSummary=[FileDiffStat(path="app.py", additions=3, deletions=1, changeKind="modified")],
    )
    runs = [
        run(
            1,
            item(RunItemKind.CONSTRAINT, "keep the API stable"),
            item(RunItemKind.DECISION, "use JWT"),
            item(RunItemKind.COMMAND, "pytest", attributes={"outcome": "passed"}),
            item(RunItemKind.PLAN, "1. fix 2. test"),
            item(RunItemKind.TODO, "write docs", key="docs"),
            item(RunItemKind.QUESTION, "which db?", key="q1"),
            item(RunItemKind.SUBAGENT_RESULT, "linter found 2 issues"),
        ),
        run(2, checkpoint=checkpoint),
        run(3, status=RunStatus.FAILED, reason="timeout"),
    ]
    assert titles(runs) == [
        "Goals and constraints",
        "Decisions",
        "Files changed",
        "Commands and tests",
        "Plan and todos",
        "Open approvals and questions",
        "Checkpoint",
        "Known failures",
        "Subagent results",
    ]
    text = summarize(runs, title="# H").text
    assert "Constraint: keep the API stable" in text
    assert "Command: pytest -> passed" in text
    assert "app.py (modified, +3/-1)" in text
    assert "Checkpoint abc123 after run 2" in text
    assert "Run 3 failed: timeout" in text
    assert titles([run(1)]) == ["Goals and constraints"]


def test_excluded_content() -> None:
    runs = [
        run(
            1,
            item(RunItemKind.REASONING, "SECRET-THOUGHT"),
            item(RunItemKind.PROTOCOL, "PROTOCOL-NOISE"),
            item(RunItemKind.TOOL_OUTPUT, "OLD-OUTPUT", key="build"),
            item(
                RunItemKind.FILE_CHANGE,
                "@@ -1 +1 @@ DIFF-BODY",
                path="a.py",
                attributes={"additions": 1, "deletions": 1, "changeKind": "modified"},
            ),
            item(RunItemKind.QUESTION, "RESOLVED-QUESTION", key="q"),
            item(RunItemKind.FAILURE, "FIXED-FAILURE", key="f"),
        ),
        run(
            2,
            item(RunItemKind.TOOL_OUTPUT, "NEW-OUTPUT", key="build"),
            item(RunItemKind.QUESTION, "RESOLVED-QUESTION", key="q", attributes={"resolved": True}),
            item(RunItemKind.FAILURE, "FIXED-FAILURE", key="f", attributes={"resolved": True}),
            item(RunItemKind.TODO, "ship", key="t", attributes={"done": True}),
        ),
    ]
    text = summarize(runs, title="# H").text
    for absent in (
        "SECRET-THOUGHT",
        "PROTOCOL-NOISE",
        "OLD-OUTPUT",
        "DIFF-BODY",
        "RESOLVED-QUESTION",
        "FIXED-FAILURE",
    ):
        assert absent not in text
    assert "NEW-OUTPUT" in text
    assert "a.py (modified, +1/-1)" in text
    assert "[x] ship" in text


def test_todos_latest_state_wins() -> None:
    runs = [
        run(1, item(RunItemKind.TODO, "tests", key="t")),
        run(2, item(RunItemKind.TODO, "tests", key="t", attributes={"status": "done"})),
    ]
    text = summarize(runs, title="# H").text
    assert "[x] tests" in text and "[ ] tests" not in text


def test_long_user_messages_are_shortened() -> None:
    text = summarize([run(1, text="x" * 5000)], title="# H").text
    assert len(text) < 600


def test_a_long_item_is_cut_saying_where_its_whole_text_is() -> None:
    goal = "Ship the importer. " * 200  # about 3,800 characters
    text = summarize(
        [run(1), run(2, item(RunItemKind.DECISION, "d"), item(RunItemKind.USER_GOAL, goal))],
        title="# H",
    ).text
    (line,) = [line for line in text.splitlines() if "Goal:" in line]
    assert line.endswith("… [cut; the whole item: run 2, index 1, in Thread.items]"), line
    assert len(line) < summarizer.LINE_LIMIT + 20  # the item's line, not its three pages
    short = summarize([run(1, item(RunItemKind.USER_GOAL, "Ship it"))], title="# H").text
    assert "cut;" not in short


def test_budget_keeps_protected_items_and_fills_newest_first() -> None:
    runs = [
        run(
            n,
            item(RunItemKind.DECISION, f"decision {n}"),
            *[item(RunItemKind.COMMAND, f"command {n}.{k} " + "y" * 50) for k in range(20)],
            *([item(RunItemKind.CONSTRAINT, "keep the API")] if n == 2 else []),
        )
        for n in range(1, 6)
    ]
    full = summarize(runs, title="# H")
    small = summarize(runs, title="# H", max_tokens=full.tokenEstimate // 3)
    assert small.fits and small.tokenEstimate <= full.tokenEstimate // 3
    assert "Constraint: keep the API" in small.text  # protected
    assert "Run 1 asked" in small.text and "Run 5 asked" in small.text  # protected inputs
    assert "command 5.19" in small.text and "command 1.0" not in small.text  # newest first
    assert small.text.endswith(left_out_line(len(small.omitted)) + "\n")
    assert {(o.runOrdinal, o.kind) for o in small.omitted} >= {(1, RunItemKind.COMMAND)}


def test_a_decision_said_again_is_one_line_and_a_blank_one_none() -> None:
    runs = [
        run(1, item(RunItemKind.DECISION, "Stay on Postgres")),
        run(2, item(RunItemKind.DECISION, "Use an LRU"), item(RunItemKind.DECISION, "  ")),
        run(3, item(RunItemKind.DECISION, "Stay on Postgres")),
    ]
    summary = summarize(runs, title="# H")
    (decisions,) = [s for s in summary.sections if s.title == summarizer.DECISIONS]
    assert decisions.lines == ["Stay on Postgres", "Use an LRU"]  # first said first
    graded = quality.assess(summary.text, [digest_of(r) for r in runs], summary.omitted)
    assert {f.kind: (f.kept, f.total) for f in graded.facets}[RunItemKind.DECISION] == (3, 3)


def test_a_line_said_in_many_runs_is_kept_while_its_newest_saying_would_be() -> None:
    runs = [
        run(n, item(RunItemKind.DECISION, "Stay on Postgres" if n in (1, 9) else f"d{n} " * 30))
        for n in range(1, 10)
    ]
    full = summarize(runs, title="# H")
    small = summarize(runs, title="# H", max_tokens=full.tokenEstimate // 2)
    assert "Stay on Postgres" in small.text  # said in run 9, newer than what was left out
    assert (1, RunItemKind.DECISION) not in {(o.runOrdinal, o.kind) for o in small.omitted}


def test_left_out_inputs_are_listed_with_index_minus_one() -> None:
    runs = [run(n, text=f"please do step {n} " + "z" * 250) for n in range(1, 30)]
    small = summarize(runs, title="# H", max_tokens=300)
    dropped = [o for o in small.omitted if o.index == -1]
    assert dropped and all(o.kind is RunItemKind.USER_GOAL for o in dropped)
    shown = {n for n in range(1, 30) if f"Run {n} asked" in small.text}
    assert shown | {o.runOrdinal for o in dropped} == set(range(1, 30))


def test_the_latest_reply_is_kept_and_earlier_ones_are_not_material() -> None:
    runs = [
        run(1, item(RunItemKind.ASSISTANT_MESSAGE, "first answer")),
        run(
            2,
            item(RunItemKind.ASSISTANT_MESSAGE, "draft answer"),
            item(RunItemKind.ASSISTANT_MESSAGE, "final answer"),
        ),
    ]
    text = summarize(runs, title="# H", max_tokens=30).text
    assert "final answer" in text and "draft answer" not in text and "first answer" not in text
    kinds = [ref.kind for ref in material([digest_of(r) for r in runs])]
    assert kinds.count(RunItemKind.ASSISTANT_MESSAGE) == 1


def test_protected_items_that_do_not_fit_say_so() -> None:
    runs = [run(1, item(RunItemKind.CONSTRAINT, "c" * 400))]
    summary = summarize(runs, title="# H", max_tokens=20)
    assert not summary.fits and summary.protectedTokens > 20
    assert "c" * 100 in summary.text  # still carried: the caller decides what to do


def test_same_input_same_bytes() -> None:
    runs = [run(1, item(RunItemKind.DECISION, "d")), run(2, item(RunItemKind.PLAN, "p"))]
    assert summarize(runs, title="# H").text == summarize(list(reversed(runs)), title="# H").text


def summarize(runs: list[RunNode], **options: Any) -> Summary:
    """Summaries read runs as the digests kept when they end."""
    return summarizer.summarize([digest_of(r) for r in runs], **options)


@given(st.text(max_size=600), st.integers(min_value=2, max_value=500))
def test_shortening_twice_changes_nothing(text: str, limit: int) -> None:
    """Why a digest may keep texts already shortened: sections shorten them again."""
    assert _shorten(_shorten(text, limit), limit) == _shorten(text, limit)


kinds = st.sampled_from(list(RunItemKind))
items = st.builds(
    item, kinds, st.text(max_size=300), key=st.one_of(st.none(), st.sampled_from(["a", "b"]))
)


def shown_refs(summary: Summary, runs: list[RunNode]) -> set[tuple[int, int]]:
    everything = {(ref.runOrdinal, ref.index) for ref in material([digest_of(r) for r in runs])}
    return everything - {(ref.runOrdinal, ref.index) for ref in summary.omitted}


@given(
    st.lists(st.lists(items, max_size=8), min_size=1, max_size=6),
    st.integers(min_value=1, max_value=2000),
)
def test_selection_keeps_its_promises(run_items: list[list[RunItem]], budget: int) -> None:
    """Whatever the budget: within it when the protected lines fit; protected items always
    in the text; omitted and shown split the material exactly."""
    runs = [run(n + 1, *its) for n, its in enumerate(run_items)]
    digests = [digest_of(r) for r in runs]
    summary = summarize(runs, title="# Context handoff", max_tokens=budget)
    assert summary.tokenEstimate == token_estimate(summary.text)
    if summary.fits:
        assert summary.tokenEstimate <= budget
    omitted = [(ref.runOrdinal, ref.index) for ref in summary.omitted]
    assert len(omitted) == len(set(omitted))
    every = [(ref.runOrdinal, ref.index) for ref in material(digests)]
    assert set(omitted) <= set(every) and len(every) == len(set(every))
    latest = runs[-1].ordinal
    for digest in digests:
        for it in digest.items:
            if it.kind in (RunItemKind.USER_GOAL, RunItemKind.CONSTRAINT):
                assert (digest.ordinal, it.index) not in omitted
    assert (1, -1) not in omitted and (latest, -1) not in omitted
    full = summarize(runs, title="# Context handoff")
    assert full.omitted == [] and shown_refs(full, runs) == set(every)


def test_a_delta_says_which_requests_asked_before_it_it_resolves() -> None:
    """A native thread that saw a question open learns from the delta that it closed."""
    asked = run(1, item(RunItemKind.QUESTION, "Postgres or SQLite?", key="db"))
    answered = run(
        3,
        item(RunItemKind.QUESTION, "SQLite, decided", key="db", attributes={"resolved": True}),
        item(RunItemKind.APPROVAL, "deploy now?", key="go"),
    )
    short_lived = run(
        2,
        item(RunItemKind.QUESTION, "which port?", key="port"),
        item(RunItemKind.QUESTION, "8080", key="port", attributes={"resolved": True}),
    )
    delta = summarize([short_lived, answered], title="# D").text
    assert "- Question now resolved: SQLite, decided" in delta
    assert "- Approval: deploy now?" in delta
    assert "which port?" not in delta and "8080" not in delta  # asked and closed within it
    # From the first run on, the reader saw no question open: nothing to close.
    full = summarize([asked, short_lived, answered], title="# F").text
    assert "now resolved" not in full and "SQLite" not in full
