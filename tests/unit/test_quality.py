"""Handoff quality: what must survive, found in a text by key, path or distinctive words."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graph.models import OmittedItem, RunItem, RunItemKind, RunNode
from resolvers.handoffs.digests import digest_of
from resolvers.handoffs.quality import assess, distinctive_words
from resolvers.handoffs.summarizer import summarize

pytestmark = pytest.mark.unit
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def item(kind: RunItemKind, text: str = "", **extra: Any) -> RunItem:
    return RunItem(kind=kind, text=text, **extra)


def run(ordinal: int, *items: RunItem, text: str | None = None) -> RunNode:
    return RunNode(
        id=f"r{ordinal}",
        threadId="t",
        ordinal=ordinal,
        provider="codex",
        status="COMPLETED",
        input=text or f"Refactor the billing module, part {ordinal}",
        startedAt=T0,
        items=list(items),
    )


RUNS = [
    run(
        1,
        item(RunItemKind.CONSTRAINT, "Never touch the public GraphQL schema"),
        item(RunItemKind.DECISION, "Use Neo4j transactions for every invoice write"),
        item(RunItemKind.FILE_CHANGE, "@@ diff", path="billing/invoice.py"),
        item(RunItemKind.QUESTION, "Should refunds keep their original currency?", key="q-cur"),
    ),
    run(
        2,
        item(RunItemKind.FILE_CHANGE, "@@ diff", path="billing/refund.py"),
        item(RunItemKind.FAILURE, "pytest billing failed on rounding", key="rounding"),
        item(RunItemKind.APPROVAL, "May I drop the legacy table?", key="drop", attributes={}),
    ),
]


def test_a_local_summary_with_room_for_everything_scores_one() -> None:
    digests = [digest_of(r) for r in RUNS]
    quality = assess(summarize(digests, title="# H").text, digests)
    assert quality.score == 1.0
    assert {f.kind: (f.kept, f.total) for f in quality.facets} == {
        RunItemKind.USER_GOAL: (2, 2),
        RunItemKind.CONSTRAINT: (1, 1),
        RunItemKind.DECISION: (1, 1),
        RunItemKind.FILE_CHANGE: (2, 2),
        RunItemKind.QUESTION: (1, 1),
        RunItemKind.APPROVAL: (1, 1),
        RunItemKind.FAILURE: (1, 1),
    }


def test_a_text_that_misses_a_file_names_it() -> None:
    digests = [digest_of(r) for r in RUNS]
    text = summarize(digests, title="# H").text.replace("billing/refund.py", "a file")
    quality = assess(text, digests)
    files = next(f for f in quality.facets if f.kind is RunItemKind.FILE_CHANGE)
    assert (files.kept, files.total, files.missing) == (1, 2, ["billing/refund.py"])
    assert quality.score == pytest.approx(8 / 9, abs=1e-4)


def test_resolved_and_superseded_requests_are_not_must_keep() -> None:
    runs = [
        run(1, item(RunItemKind.QUESTION, "Which database?", key="db")),
        run(
            2,
            item(RunItemKind.QUESTION, "Which database?", key="db", attributes={"resolved": True}),
        ),
    ]
    quality = assess("nothing", [digest_of(r) for r in runs])
    assert [f.kind for f in quality.facets] == [RunItemKind.USER_GOAL]


def test_nothing_to_keep_scores_one() -> None:
    assert assess("", []).score == 1.0


def test_distinctive_words_skip_short_and_common_words_and_the_cut_edge() -> None:
    assert distinctive_words("Use the Neo4j driver with retries") == ["neo4j", "driver", "retries"]
    long = "alpha " * 33 + "betagamma"  # the last word starts before 200 and ends after it
    assert distinctive_words(long) == ["alpha"]


words = st.text(alphabet="abcdefghij ", min_size=1, max_size=120)


@given(st.lists(words, min_size=1, max_size=6))
def test_every_decision_is_carried_by_a_text_that_quotes_it(decisions: list[str]) -> None:
    runs = [run(1, *[item(RunItemKind.DECISION, d) for d in decisions])]
    digests = [digest_of(r) for r in runs]
    quoted = [*(d.text for r in digests for d in r.items), runs[0].input]
    quality = assess("\n".join(quoted), digests)
    assert quality.score == 1.0


def test_a_decision_the_local_selection_left_out_is_missing_even_when_its_words_appear() -> None:
    """Decisions worded alike: the kept ones carry the words of the one left out."""
    decisions = [
        item(RunItemKind.DECISION, f"Cache invoice totals per customer account {n}")
        for n in range(1, 31)
    ]
    runs = [digest_of(run(1, *decisions))]
    summary = summarize(runs, title="# H", max_tokens=150)
    left_out = [place for place in summary.omitted if place.index >= 0]
    assert left_out  # the budget leaves some decisions out

    def decisions_kept(*omitted: list[OmittedItem]) -> tuple[int, int]:
        facets = assess(summary.text, runs, *omitted).facets
        found = next(f for f in facets if f.kind is RunItemKind.DECISION)
        return found.kept, found.total

    assert decisions_kept(summary.omitted) == (30 - len(left_out), 30)
    assert decisions_kept() == (30, 30)  # by words alone every one would read as kept
