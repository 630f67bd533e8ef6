"""Lineage transfers decided from states (SEMANTICS "Forks", "Merge-back, subagents")."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from graph.errors import ErrorCode, ThreadlineError
from graph.models import (
    HistoryMode,
    ProviderThreadStatus,
    RunStatus,
    SourcePoint,
    ThreadRelationship,
    TransferNode,
    TransferStatus,
    TransferType,
)
from graph.thread_state import ThreadState
from resolvers.handoffs.planning import NativeForkPlan
from resolvers.lineage import points
from resolvers.providers import registry_from_toml
from resolvers.start import transfers
from tests.support.scenario import Scenario

AT = datetime(2026, 1, 1, tzinfo=UTC)
PROVIDERS = registry_from_toml(None)


def source(history: HistoryMode = HistoryMode.LEGACY, runs: int = 3) -> Scenario:
    sc = Scenario(history=history)
    for _ in range(runs):
        sc.run("codex")
    return sc


def fork_at(sc: Scenario, ordinal: int) -> TransferNode:
    state = sc.state
    run = next(r for r in sc.runs.values() if r.ordinal == ordinal)
    return TransferNode(
        id="x",
        type=TransferType.FORK,
        sourceThreadId="t",
        targetThreadId="f",
        sourcePoint=points.point_at(state, run),
        sourceProvider="codex",
        status=TransferStatus.PENDING,
        createdAt=AT,
    )


def test_codex_forks_natively_at_the_source_turn() -> None:
    sc = source()
    plan = transfers.native_fork(fork_at(sc, 2), PROVIDERS.get("codex"), sc.state)
    assert isinstance(plan, NativeForkPlan)
    assert (plan.lastTurnId, plan.rollbackTurns) == ("turn-2", 0)


def test_claude_forks_the_latest_state_only_when_nothing_ran_after() -> None:
    sc = source()
    claude_fork = fork_at(sc, 3).model_copy(update={"sourceProvider": "claude"})
    claude = PROVIDERS.get("claude")
    # The source ran on codex, so a claude start is portable whatever claude can do.
    assert isinstance(transfers.native_fork(claude_fork, claude, None), str)
    sc2 = Scenario()
    for _ in range(3):
        sc2.run("claude")
    at_last = fork_at(sc2, 3).model_copy(update={"sourceProvider": "claude"})
    latest = transfers.native_fork(at_last, claude, sc2.state)
    assert isinstance(latest, NativeForkPlan) and latest.rollbackTurns == 0
    earlier = fork_at(sc2, 1).model_copy(update={"sourceProvider": "claude"})
    reason = transfers.native_fork(earlier, claude, sc2.state)
    assert isinstance(reason, str) and "2 native rollback turns" in reason


def test_weak_native_refs_make_a_fork_portable() -> None:
    sc = source()
    pt = sc.state.providerThreads[0]
    sc.provider_threads[pt.id] = pt.model_copy(update={"status": ProviderThreadStatus.DIVERGENT})
    reason = transfers.native_fork(fork_at(sc, 2), PROVIDERS.get("codex"), sc.state)
    assert reason == "the source provider thread has no strong native reference"


def test_fork_source_run_refusals() -> None:
    sc = source(runs=2)
    sc.run("codex", status=RunStatus.RUNNING)
    state = sc.state
    busy = state.lastRun
    assert busy is not None
    elsewhere = busy.model_copy(update={"threadId": "thr_other", "status": RunStatus.COMPLETED})
    for args, code in (
        ((None, None, None, False), ErrorCode.INVALID_INPUT),  # none given
        ((None, "r1", "c1", False), ErrorCode.INVALID_INPUT),  # two given
        ((busy, busy.id, None, False), ErrorCode.CONFLICT),  # still running
        ((None, "nope", None, False), ErrorCode.NOT_FOUND),  # no such run in the workspace
        ((None, None, "nope", False), ErrorCode.NOT_FOUND),  # no such checkpoint
        ((elsewhere, elsewhere.id, None, False), ErrorCode.INVALID_INPUT),  # another thread's
        ((None, None, None, True), ErrorCode.INVALID_INPUT),  # no checkpoint yet
    ):
        with pytest.raises(ThreadlineError) as error:
            points.fork_source_run(state, *args)  # type: ignore[arg-type]
        assert error.value.code is code


def test_merge_back_needs_a_fork_with_a_completed_run() -> None:
    sc = source(runs=1)
    with pytest.raises(ThreadlineError) as error:
        points.merge_back_points(sc.state)
    assert error.value.code is ErrorCode.INVALID_INPUT
    fork = forked(sc.state)
    point, base = points.merge_back_points(fork)
    assert point.runOrdinal == 1 and base == SourcePoint(threadId="parent")


def forked(state: ThreadState) -> ThreadState:
    thread = state.thread.model_copy(
        update={"parentId": "parent", "relationshipToParent": ThreadRelationship.FORK}
    )
    return state.model_copy(update={"thread": thread})


def test_a_newer_delivery_supersedes_pending_ones_from_the_same_child() -> None:
    older = TransferNode(
        id="old",
        type=TransferType.MERGE_BACK,
        sourceThreadId="f",
        targetThreadId="t",
        sourcePoint=SourcePoint(threadId="f"),
        status=TransferStatus.PENDING,
        createdAt=AT,
    )
    other = older.model_copy(update={"id": "other", "sourceThreadId": "g"})
    parent = source(runs=1).state.model_copy(update={"transfers": [older, other]})
    assert points.superseded_by_new(parent, TransferType.MERGE_BACK, "f") == ["old"]
    assert points.superseded_by_new(parent, TransferType.SUBAGENT_RESULT, "f") == []
