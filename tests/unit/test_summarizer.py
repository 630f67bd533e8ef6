"""The deterministic summarizer: sections, exclusions, budget, determinism."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from graph.models import (
    CheckpointNode,
    FileDiffStat,
    HandoffSection,
    RunItem,
    RunItemKind,
    RunNode,
    RunStatus,
)
from resolvers.handoffs import summarizer
from resolvers.handoffs.summarizer import (
    SHORTEN_ORDER,
    Summary,
    _fit,
    _shorten,
    digest_of,
    render,
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


def test_budget_shortens_lower_sections_first() -> None:
    runs = [
        run(
            n,
            item(RunItemKind.DECISION, f"decision {n}"),
            *[item(RunItemKind.COMMAND, f"command {n}.{k} " + "y" * 50) for k in range(20)],
        )
        for n in range(1, 6)
    ]
    full = summarize(runs, title="# H")
    small = summarize(runs, title="# H", max_tokens=full.tokenEstimate // 3)
    assert small.tokenEstimate <= full.tokenEstimate // 3
    assert "decision 5" in small.text  # decisions kept, commands gave way
    assert "more not shown" in small.text


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


@given(
    st.lists(st.lists(items, max_size=8), min_size=1, max_size=6),
    st.integers(min_value=1, max_value=400),
)
def test_summary_never_exceeds_budget(run_items: list[list[RunItem]], budget: int) -> None:
    runs = [run(n + 1, *its) for n, its in enumerate(run_items)]
    summary = summarize(runs, title="# Context handoff: runs", max_tokens=budget)
    assert summary.tokenEstimate <= budget
    assert summary.tokenEstimate == token_estimate(summary.text)


def fit_by_rendering(
    sections: list[HandoffSection], title: str, max_chars: int
) -> tuple[list[HandoffSection], str]:
    """The fitting rule stated plainly (re-render after every dropped line): the spec the
    fast `_fit` must match byte for byte."""
    lines = {section.title: list(section.lines) for section in sections}
    omitted = dict.fromkeys(lines, 0)

    def current() -> list[HandoffSection]:
        shown = [t for t in lines if lines[t] or omitted[t]]
        return [
            HandoffSection(
                title=t,
                lines=[*lines[t], f"({omitted[t]} more not shown)"] if omitted[t] else lines[t],
            )
            for t in shown
        ]

    for name in SHORTEN_ORDER:
        if name not in lines:
            continue
        while lines[name] and len(render(title, current())) > max_chars:
            lines[name].pop()
            omitted[name] += 1
        if not lines[name]:
            omitted[name] = 0
        if len(render(title, current())) <= max_chars:
            return current(), title
    return [], title[: max(0, max_chars - 1)]


section_lists = st.lists(
    st.builds(
        HandoffSection,
        title=st.sampled_from(SHORTEN_ORDER),
        lines=st.lists(st.text(max_size=40), min_size=1, max_size=8),
    ),
    max_size=len(SHORTEN_ORDER),
    unique_by=lambda section: section.title,
)


@given(section_lists, st.text(max_size=20), st.integers(min_value=0, max_value=800))
def test_fitting_keeps_the_rule_it_states(
    sections: list[HandoffSection], title: str, max_chars: int
) -> None:
    assert _fit(sections, title, max_chars) == fit_by_rendering(sections, title, max_chars)
