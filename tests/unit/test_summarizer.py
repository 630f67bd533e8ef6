"""The deterministic summarizer: sections, what is never included, whole when there is
room, nothing left out silently, entries, fidelity, determinism."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from graph.models import (
    CheckpointNode,
    FileDiffStat,
    RunDigest,
    RunItem,
    RunItemKind,
    RunNode,
    RunStatus,
)
from resolvers.handoffs import quality, summarizer
from resolvers.handoffs.digests import LINE_LIMIT, digest_of, shorten, whole
from resolvers.handoffs.summarizer import Summary, material

T0 = datetime(2026, 1, 1, tzinfo=UTC)
# The most a section's heading and its blank line can cost.
HEADING_BOUND = 12


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
        input=text if text is not None else f"message {ordinal}",
        startedAt=T0,
        items=list(items),
        checkpoint=checkpoint,
        failureReason=reason,
    )


def summarize(runs: list[RunNode], **options: Any) -> Summary:
    """Summaries read runs as the digests kept when they end."""
    return summarizer.summarize([digest_of(r) for r in runs], **options)


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
            item(RunItemKind.ASSISTANT_MESSAGE, "I chose JWT because sessions do not scale."),
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
        "Conversation",
    ]
    text = summarize(runs, title="# H").text
    assert "Constraint: keep the API stable" in text
    assert "Command: pytest -> passed" in text
    assert "app.py (modified, +3/-1)" in text
    assert "Checkpoint abc123 after run 2" in text
    assert "Run 3 failed: timeout" in text
    assert "- Run 1 replied: I chose JWT because sessions do not scale." in text
    assert "- Run 2 asked: message 2" in text  # not protected: in the conversation
    assert titles([run(1)]) == ["Goals and constraints"]


def test_never_included_content() -> None:
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
            item(RunItemKind.PLAN, "OLD-PLAN"),
            item(RunItemKind.TODO, "OLD-TODO-STATE", key="t"),
        ),
        run(
            2,
            item(RunItemKind.TOOL_OUTPUT, "NEW-OUTPUT", key="build"),
            item(RunItemKind.QUESTION, "ANSWERED", key="q", attributes={"resolved": True}),
            item(RunItemKind.TODO, "ship", key="t", attributes={"done": True}),
            item(RunItemKind.PLAN, "NEW-PLAN"),
        ),
    ]
    summary = summarize(runs, title="# H")
    for absent in (
        "SECRET-THOUGHT",
        "PROTOCOL-NOISE",
        "OLD-OUTPUT",
        "DIFF-BODY",
        "RESOLVED-QUESTION",
        "ANSWERED",
        "OLD-PLAN",
        "OLD-TODO-STATE",
    ):
        assert absent not in summary.text
    assert "NEW-OUTPUT" in summary.text and "Plan: NEW-PLAN" in summary.text
    assert "a.py (modified, +1/-1)" in summary.text
    assert "[x] ship" in summary.text
    assert summary.omitted == [] and summary.fidelity == 1.0


def test_failures_since_resolved_are_material_too() -> None:
    runs = [
        run(1, item(RunItemKind.FAILURE, "test_parse fails on blank lines", key="f")),
        run(
            2,
            item(
                RunItemKind.FAILURE, "blank lines skipped", key="f", attributes={"resolved": True}
            ),
        ),
    ]
    summary = summarize(runs, title="# H")
    (failures,) = [s for s in summary.sections if s.title == summarizer.FAILURES]
    assert failures.lines == [
        "Earlier: test_parse fails on blank lines",
        "Resolved: blank lines skipped",
    ]
    facets = quality.assess(summary.text, [digest_of(r) for r in runs]).facets
    assert RunItemKind.FAILURE not in {f.kind for f in facets}  # nothing left to fix


def test_every_assistant_message_is_material_and_shown_whole_when_there_is_room() -> None:
    explanation = (
        "The test failed because the parser reads a blank line as a record.\n"
        "I changed `parse_line` to skip it, and added a test for the case."
    )
    runs = [
        run(1, item(RunItemKind.ASSISTANT_MESSAGE, "Looking at the parser first.")),
        run(
            2,
            item(RunItemKind.ASSISTANT_MESSAGE, explanation),
            item(RunItemKind.ASSISTANT_MESSAGE, "Done: all 41 tests pass."),
        ),
    ]
    summary = summarize(runs, title="# H", max_tokens=32_000)
    kinds = [m.kind for m in material([digest_of(r) for r in runs])]
    assert kinds.count(RunItemKind.ASSISTANT_MESSAGE) == 3
    assert explanation in summary.text  # whole, its line breaks kept
    assert summary.omitted == [] and summary.fidelity == 1.0
    (reply,) = [e for e in summary.entries if e.section == summarizer.LATEST_REPLY and e.kind]
    assert reply.text == "- Done: all 41 tests pass." and not reply.cut
    assert summary.text.count("Done: all 41 tests pass.") == 1  # not repeated in Conversation


def test_a_long_item_is_whole_when_there_is_room_and_cut_only_under_pressure() -> None:
    goal = "Ship the importer. " * 200  # about 3,800 characters
    runs = [run(1), run(2, item(RunItemKind.DECISION, "d"), item(RunItemKind.USER_GOAL, goal))]
    roomy = summarize(runs, title="# H", max_tokens=32_000)
    assert whole(goal) in roomy.text and "cut;" not in roomy.text
    tight = summarize(runs, title="# H", max_tokens=200)
    (line,) = [line for line in tight.text.splitlines() if "Goal:" in line]
    assert line.endswith("… [cut; the whole item: run 2, index 1, in Thread.items]"), line
    assert len(line) < LINE_LIMIT + 20  # the item's line, not its three pages
    (cut,) = [o for o in tight.omitted if o.kind is RunItemKind.USER_GOAL]
    assert cut.cut and (cut.runOrdinal, cut.index) == (2, 1)


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
    assert "not shown whole here" in small.text.splitlines()[-1]
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
    assert summary.omitted == []  # the blank decision is shown by any text


def test_left_out_inputs_are_listed_with_index_minus_one() -> None:
    runs = [run(n, text=f"please do step {n} " + "z " * 250) for n in range(1, 30)]
    small = summarize(runs, title="# H", max_tokens=900)
    dropped = [o for o in small.omitted if o.index == -1]
    assert dropped and all(o.kind is RunItemKind.USER_GOAL for o in dropped)
    shown = {n for n in range(1, 30) if f"Run {n} asked" in small.text}
    assert shown | {o.runOrdinal for o in dropped} == set(range(1, 30))


def test_protected_items_that_do_not_fit_say_so() -> None:
    runs = [run(1, item(RunItemKind.CONSTRAINT, "c" * 400))]
    summary = summarize(runs, title="# H", max_tokens=20)
    assert not summary.fits and summary.leastTokens > 20
    assert "c" * 100 in summary.text  # still carried: the caller decides what to do


def test_a_text_that_fits_whole_fits_whatever_its_protected_items_need() -> None:
    """One rule of "fits": the least a text can take, everything whole when that is
    smaller than its protected items shortened with a closing line."""
    runs = [run(1, item(RunItemKind.DECISION, "Use SQLite"))]
    whole_text = summarize(runs, title="# H")
    exact = summarize(runs, title="# H", max_tokens=whole_text.tokenEstimate)
    assert exact.fits and exact.text == whole_text.text and exact.omitted == []
    assert exact.leastTokens <= whole_text.tokenEstimate


def test_control_characters_never_reach_the_text() -> None:
    runs = [
        run(
            1,
            item(RunItemKind.TOOL_OUTPUT, "ok\x00done \x1b[31mred\x1b[0m\r\nnext\x7f\x85", key="o"),
            text="fix\x00 it\x07",
        )
    ]
    text = summarize(runs, title="# H").text
    assert "Output: okdone red\nnext" in text and "Run 1 asked: fix it" in text
    assert not any(ord(ch) < 32 and ch not in "\n\t" for ch in text)
    assert not any(0x7F <= ord(ch) <= 0x9F for ch in text)


def test_same_input_same_bytes() -> None:
    runs = [run(1, item(RunItemKind.DECISION, "d")), run(2, item(RunItemKind.PLAN, "p"))]
    assert summarize(runs, title="# H").text == summarize(list(reversed(runs)), title="# H").text


@given(st.text(max_size=600), st.integers(min_value=2, max_value=500))
def test_shortening_twice_changes_nothing(text: str, limit: int) -> None:
    assert shorten(shorten(text, limit), limit) == shorten(text, limit)


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


# ---- properties over generated threads and budgets ------------------------------

texts = st.one_of(
    st.text(max_size=60),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=200),
    st.builds(
        lambda w, n: (w + " ") * n,
        st.sampled_from(["fix", "测试", '{"a":"\\n"}']),
        st.integers(1, 150),
    ),
)
kinds = st.sampled_from(list(RunItemKind))
items = st.builds(
    item,
    kinds,
    texts,
    key=st.one_of(st.none(), st.sampled_from(["a", "b"])),
    path=st.one_of(st.none(), st.sampled_from(["a.py", "b.py"])),
    attributes=st.one_of(st.none(), st.fixed_dictionaries({"resolved": st.booleans()})),
)
threads = st.lists(st.tuples(texts, st.lists(items, max_size=8)), min_size=1, max_size=6)


def digests_of(generated: list[tuple[str, list[RunItem]]]) -> list[RunDigest]:
    return [digest_of(run(n + 1, *its, text=said)) for n, (said, its) in enumerate(generated)]


def shown_whole(summary: Summary, digest: RunDigest, index: int) -> bool:
    """Whether the text shows the item whole: verbatim in one entry (white space folded
    within lines); a FILE_CHANGE by its path and stats line."""
    if index == -1:
        text = digest.input
    else:
        found = next(i for i in digest.items if i.index == index)
        if found.kind is RunItemKind.FILE_CHANGE:
            return any((found.path or "(no path given)") in e.text for e in summary.entries)
        text = found.text
    return any(whole(text) in e.text for e in summary.entries if not e.cut)


@settings(max_examples=150, deadline=None)
@given(threads, st.integers(min_value=1, max_value=4000))
def test_selection_keeps_its_promises(
    generated: list[tuple[str, list[RunItem]]], budget: int
) -> None:
    digests = digests_of(generated)
    summary = summarizer.summarize(digests, title="# Context handoff", max_tokens=budget)
    # Within the budget whenever it can be; the entries are the text.
    assert summary.fits == (summary.leastTokens <= budget)
    if summary.fits:
        assert summary.tokenEstimate <= budget
    assert "\n".join(e.text for e in summary.entries) == summary.text
    # Shown whole, omitted and never included are the covered items, exactly.
    every = {m.place for m in material(digests)}
    omitted = [(o.runOrdinal, o.index) for o in summary.omitted]
    assert len(omitted) == len(set(omitted)) and set(omitted) <= every
    by_ordinal = {d.ordinal: d for d in digests}
    for ordinal, index in every - set(omitted):
        assert shown_whole(summary, by_ordinal[ordinal], index), (ordinal, index)
    covered = {(d.ordinal, -1) for d in digests} | {
        (n + 1, i) for n, (_, its) in enumerate(generated) for i in range(len(its))
    }
    never = covered - every
    for ordinal, index in never:  # only the kinds and states no handoff shows
        if index >= 0:
            kind = generated[ordinal - 1][1][index].kind
            assert kind not in (RunItemKind.DECISION, RunItemKind.ASSISTANT_MESSAGE), kind
    # Protected items are present: the first and the latest request, goals, constraints.
    latest = digests[-1]
    for ordinal, index in ((1, -1), (latest.ordinal, -1)):
        assert (ordinal, index) not in omitted or summary.omitted[
            omitted.index((ordinal, index))
        ].cut
    # Fidelity: the share of material tokens shown whole.
    assert 0.0 <= summary.fidelity <= 1.0
    if not summary.omitted:
        assert summary.fidelity == 1.0
    # No item is left out while the room left holds it whole (with its section's heading
    # when its section shows nothing yet; tests/unit/test_selection.py holds it exactly).
    room = budget - summary.tokenEstimate
    for left in summary.omitted:
        if not left.cut:
            assert left.tokenEstimate + HEADING_BOUND > room, left


@settings(max_examples=60, deadline=None)
@given(threads)
def test_with_room_for_all_everything_is_shown_whole(
    generated: list[tuple[str, list[RunItem]]],
) -> None:
    digests = digests_of(generated)
    summary = summarizer.summarize(digests, title="# Context handoff", max_tokens=None)
    assert summary.omitted == [] and summary.fidelity == 1.0
    assert "not shown whole" not in summary.text
