"""Coverage from ranges: native runs plus ready handoffs about the thread, over history."""

from __future__ import annotations

from datetime import UTC, datetime

from graph.models import HandoffStatus, ProviderThreadNode, ProviderThreadStatus
from graph.ranges import Ranges
from resolvers.coverage import coverage
from tests.support.nodes import handoff

AT = datetime(2026, 1, 1, tzinfo=UTC)


def pt(native: Ranges) -> ProviderThreadNode:
    return ProviderThreadNode(
        id="pt",
        threadId="t",
        provider="codex",
        status=ProviderThreadStatus.ACTIVE,
        createdAt=AT,
        lastUsedAt=AT,
        nativeRanges=native.flatten(),
    )


def test_the_canonical_example() -> None:
    # C1 ran 1-5 and 9 and received H2 (6-8); history is 1-9.
    c1 = coverage(pt(Ranges.of([1, 2, 3, 4, 5, 9])), Ranges.span(1, 9), [handoff("h2", 6, 8)])
    assert list(c1.covered) == list(range(1, 10)) and not c1.missing
    assert c1.handoffIds == ["h2"]


def test_only_ready_handoffs_about_the_thread_delivered_here_count() -> None:
    handoffs = [
        handoff("superseded", 1, 3, status=HandoffStatus.SUPERSEDED),
        handoff("pending", 1, 3, status=HandoffStatus.PENDING),
        handoff("inherited", 1, 3, about="parent"),
        handoff("elsewhere", 1, 3, to="other"),
    ]
    cov = coverage(pt(Ranges()), Ranges.span(1, 3), handoffs)
    assert list(cov.missing) == [1, 2, 3]
    assert cov.handoffIds == ["inherited"]  # received, ready, but about another thread


def test_rolled_back_runs_are_never_covered_nor_missing() -> None:
    history = Ranges.span(1, 3) | Ranges.span(7, 8)  # 4-6 rolled back
    cov = coverage(pt(Ranges.of([1, 2])), history, [handoff("h", 1, 8)])
    assert list(cov.covered) == [1, 2, 3, 7, 8] and not cov.missing


def test_a_gap_is_not_a_suffix() -> None:
    gap = coverage(pt(Ranges.of([1, 3])), Ranges.span(1, 3), [])
    assert list(gap.missing) == [2] and not gap.is_suffix()
    tail = coverage(pt(Ranges.of([1, 2])), Ranges.span(1, 4), [])
    assert list(tail.missing) == [3, 4] and tail.is_suffix()
