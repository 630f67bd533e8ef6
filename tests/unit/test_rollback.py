"""rollbackThread's decision (SEMANTICS "Rollback"), on the canonical example."""

from __future__ import annotations

import pytest

from graph.errors import ErrorCode, ThreadlineError
from graph.models import (
    HandoffStatus,
    HistoryMode,
    ProviderThreadStatus,
    RunStatus,
    SourcePoint,
    StartStrategy,
    TransferNode,
    TransferStatus,
    TransferType,
)
from graph.ranges import Ranges
from resolvers.lineage import rollback as rollbacks
from tests.support.scenario import T0, Scenario


def canonical(history: HistoryMode) -> Scenario:
    sc = Scenario(history=history)
    for provider in ["codex"] * 5 + ["claude"] * 3 + ["codex"]:
        sc.run(provider)
    return sc


@pytest.mark.parametrize(
    ("history", "c1_after"),
    [
        (HistoryMode.LEGACY, ProviderThreadStatus.ROLLED_BACK),
        (HistoryMode.PAGINATED, ProviderThreadStatus.DIVERGENT),
    ],
)
def test_canonical_rollback_to_five(history: HistoryMode, c1_after: ProviderThreadStatus) -> None:
    sc = canonical(history)
    c1, l1 = sc.state.providerThreads
    h1, h2 = sorted(sc.handoffs.values(), key=lambda h: h.coveredFrom)
    decision = sc.rollback(5)
    assert decision.rolledBack == Ranges.span(6, 9)
    assert [sc.runs[r].ordinal for r in decision.rolledBackRunIds] == [6, 7, 8, 9]
    # H2 covers rolled-back runs; H1 (1-5) was injected into run 6, which left the history
    # (docs/MODEL.md "Coverage after a rollback": the seed's "H1 stays READY" gave way).
    assert decision.supersededHandoffIds == [h1.id, h2.id]
    assert decision.providerThreadStatuses == {
        c1.id: c1_after,
        l1.id: ProviderThreadStatus.DIVERGENT,
    }
    assert sc.handoffs[h1.id].status is HandoffStatus.SUPERSEDED
    assert sc.thread.rolled_back == Ranges.span(6, 9)
    assert all(r.status is RunStatus.ROLLED_BACK for r in sc.runs.values() if r.ordinal > 5)
    state = sc.state
    assert state.provider_thread(c1.id).native == Ranges.span(1, 5)  # type: ignore[union-attr]
    assert state.provider_thread(l1.id).native == Ranges()  # type: ignore[union-attr]
    if history is HistoryMode.LEGACY:
        assert sc.decide("codex").strategy is StartStrategy.NO_HANDOFF
    assert sc.decide("claude").strategy is StartStrategy.FULL_HANDOFF_NEW_THREAD


def test_next_runs_take_the_next_unused_ordinal() -> None:
    sc = canonical(HistoryMode.LEGACY)
    sc.rollback(5)
    sc.run("codex")
    assert max(r.ordinal for r in sc.runs.values()) == 10
    assert sc.state.history == Ranges.span(1, 5) | Ranges.span(10, 10)


def test_a_settled_provider_thread_keeps_its_status() -> None:
    sc = canonical(HistoryMode.LEGACY)
    _, l1 = sc.state.providerThreads
    sc.provider_threads[l1.id] = l1.model_copy(update={"status": ProviderThreadStatus.STALE})
    decision = sc.rollback(5)
    assert l1.id not in decision.providerThreadStatuses
    assert decision.nativeRanges[l1.id] == Ranges()  # its native runs still shrink


@pytest.mark.parametrize("to", [-1, 10])
def test_out_of_range_is_invalid(to: int) -> None:
    with pytest.raises(ThreadlineError) as error:
        canonical(HistoryMode.LEGACY).rollback(to)
    assert error.value.code is ErrorCode.INVALID_INPUT


def test_a_run_in_progress_is_a_conflict() -> None:
    sc = Scenario()
    sc.run("codex")
    sc.run("codex", status=RunStatus.RUNNING)
    with pytest.raises(ThreadlineError) as error:
        sc.rollback(1)
    assert error.value.code is ErrorCode.CONFLICT


def delivered(name: str, consumer: str, handoff_live: bool = True) -> rollbacks.Delivered:
    merge_back = TransferNode(
        id=name,
        type=TransferType.MERGE_BACK,
        sourceThreadId="fork",
        targetThreadId="t",
        sourcePoint=SourcePoint(threadId="fork", runOrdinal=1),
        status=TransferStatus.CONSUMED,
        createdAt=T0,
        handoffId=f"{name}-handoff",
        consumedByRunId=consumer,
    )
    return rollbacks.Delivered(transfer=merge_back, handoffLive=handoff_live)


def back_to_5(
    sc: Scenario,
    delivered: list[rollbacks.Delivered] | None = None,
    pending: list[rollbacks.PendingResult] | None = None,
) -> rollbacks.RollbackDecision:
    """The canonical example rolled back to run 5, with what else the rollback reads."""
    inputs = rollbacks.RollbackInputs(
        toOrdinal=5,
        rolledRuns=[run for run in sc.runs.values() if run.ordinal > 5],
        delivered=delivered or [],
        pendingResults=pending or [],
    )
    return rollbacks.decide_rollback(sc.state, inputs, sc.registry)


def test_what_a_rolled_back_run_consumed_from_a_child_is_superseded() -> None:
    sc = canonical(HistoryMode.LEGACY)
    by_ordinal = {run.ordinal: run.id for run in sc.runs.values()}
    decision = back_to_5(
        sc,
        delivered=[
            delivered("kept", consumer=by_ordinal[3]),
            delivered("undone", consumer=by_ordinal[7]),
            delivered("replaced", consumer=by_ordinal[8], handoff_live=False),
        ],
    )
    assert decision.supersededTransferIds == ["undone", "replaced"]
    # Only a live carrier is superseded (one already superseded is left as it is).
    assert decision.supersededHandoffIds == ["undone-handoff"]


def test_a_pending_result_of_a_subagent_a_rolled_back_run_spawned_is_superseded() -> None:
    sc = canonical(HistoryMode.LEGACY)
    by_ordinal = {run.ordinal: run.id for run in sc.runs.values()}
    decision = back_to_5(
        sc,
        pending=[
            rollbacks.PendingResult(transferId="asked-before", spawnedByRunId=by_ordinal[4]),
            rollbacks.PendingResult(transferId="unasked", spawnedByRunId=by_ordinal[6]),
        ],
    )
    assert decision.supersededTransferIds == ["unasked"]
