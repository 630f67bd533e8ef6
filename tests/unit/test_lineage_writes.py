"""What the lineage commands write (forks, merge-back, subagents), as plans, without a
database: the new threads and transfers, the transfers they replace, and the events on
both threads."""

from __future__ import annotations

from datetime import UTC, datetime
from itertools import count

import pytest

from graph.errors import ErrorCode, ThreadlineError
from graph.events import EventType
from graph.models import (
    Actor,
    ProviderThreadStatus,
    ResolutionStrategy,
    RunNode,
    RunStatus,
    ThreadRelationship,
    TransferNode,
    TransferStatus,
    TransferType,
)
from graph.plan import WritePlan
from graph.thread_state import ThreadState
from resolvers.draft import Draft
from resolvers.lineage import writes
from tests.support.scenario import Scenario

AT = datetime(2026, 3, 1, tzinfo=UTC)


def draft() -> Draft:
    ids = count(1)
    return Draft(lambda prefix: f"{prefix}_{next(ids)}", AT)


def parent_with_runs(runs: int = 2) -> Scenario:
    scenario = Scenario()
    for _ in range(runs):
        scenario.run("codex")
    return scenario


def events_on(plan: WritePlan, thread_id: str) -> list[EventType]:
    return [event.type for event in plan.events if event.threadId == thread_id]


def child_state(plan: WritePlan, transfer: TransferNode, *, completed: int = 0) -> ThreadState:
    """The child a plan created, with its origin and `completed` runs done on claude."""
    [new] = plan.threads
    runs = [
        RunNode(
            id=f"c{n}",
            threadId=new.thread.id,
            ordinal=n,
            provider="claude",
            status=RunStatus.COMPLETED,
            input=f"child step {n}",
            startedAt=AT,
        )
        for n in range(1, completed + 1)
    ]
    thread = new.thread.model_copy(update={"lastOrdinal": completed})
    return ThreadState(
        thread=thread,
        lastRun=runs[-1] if runs else None,
        transfers=[transfer],
        latestCompleted=runs[-1] if runs else None,
    )


def test_a_fork_is_a_child_thread_and_a_pending_transfer_nothing_more() -> None:
    parent = parent_with_runs()
    run = parent.runs[next(iter(parent.runs))]
    d = draft()
    child = writes.fork(d, parent.state, writes.ForkRequest(run), "  try   the cache  ")
    plan = d.build()
    assert (child.parentId, child.rootId, child.relationshipToParent) == (
        "t",
        "t",
        ThreadRelationship.FORK,
    )
    assert child.title == "try the cache"
    [transfer] = plan.transfers
    assert (transfer.type, transfer.status, transfer.targetThreadId) == (
        TransferType.FORK,
        TransferStatus.PENDING,
        child.id,
    )
    assert (transfer.sourcePoint.runId, transfer.sourcePoint.providerTurnRef) == (
        run.id,
        f"turn-{run.ordinal}",
    )
    assert plan.providerThreads == [] and plan.handoffs == [] and plan.runs == []
    assert events_on(plan, "t") == [EventType.THREAD_FORKED]
    assert events_on(plan, child.id) == [EventType.THREAD_CREATED, EventType.TRANSFER_CREATED]


def test_merge_back_needs_a_fork_with_a_completed_run() -> None:
    parent = parent_with_runs()
    with pytest.raises(ThreadlineError) as not_fork:
        writes.merge_back(draft(), parent.state, parent.state)
    assert not_fork.value.code is ErrorCode.INVALID_INPUT
    d = draft()
    writes.fork(d, parent.state, writes.ForkRequest(parent.runs[next(iter(parent.runs))]), None)
    forked = d.build()
    idle = child_state(forked, forked.transfers[0])
    with pytest.raises(ThreadlineError) as no_run:
        writes.merge_back(draft(), idle, parent.state)
    assert no_run.value.code is ErrorCode.INVALID_INPUT


def test_a_new_merge_back_replaces_the_pending_one_and_says_so_on_the_parent() -> None:
    parent = parent_with_runs()
    d = draft()
    writes.fork(d, parent.state, writes.ForkRequest(parent.runs[next(iter(parent.runs))]), None)
    forked = d.build()
    origin = forked.transfers[0]
    fork = child_state(forked, origin, completed=2)
    first = writes.merge_back(draft(), fork, parent.state)
    waiting = parent.state.model_copy(update={"transfers": [first]})
    d2 = draft()
    second = writes.merge_back(d2, fork, waiting)
    plan = d2.build()
    assert (second.type, second.status, second.sourcePoint.runId) == (
        TransferType.MERGE_BACK,
        TransferStatus.PENDING,
        "c2",
    )
    assert second.basePoint == origin.sourcePoint  # where the fork left its parent
    assert [(c.id, c.status) for c in plan.transferChanges] == [
        (first.id, TransferStatus.SUPERSEDED)
    ]
    assert events_on(plan, "t") == [EventType.TRANSFER_CREATED, EventType.TRANSFER_SUPERSEDED]
    superseded = next(e for e in plan.events if e.type is EventType.TRANSFER_SUPERSEDED)
    assert superseded.payload.stored() == {"transferId": first.id, "supersededBy": second.id}
    assert events_on(plan, fork.thread.id) == [EventType.TRANSFER_CREATED]


def test_a_spawned_subagent_gets_the_parents_latest_completed_run_and_its_task() -> None:
    parent = parent_with_runs()
    busy = parent.runs[next(reversed(parent.runs))]
    with pytest.raises(ThreadlineError) as empty:
        writes.spawn_subagent(draft(), parent.state, busy, "  ", None)
    assert empty.value.code is ErrorCode.INVALID_INPUT
    d = draft()
    child = writes.spawn_subagent(d, parent.state, busy, "find the flaky test", "claude")
    plan = d.build()
    [transfer] = plan.transfers
    assert (child.relationshipToParent, child.createdBy) == (
        ThreadRelationship.SUBAGENT,
        Actor.AGENT,
    )
    assert (transfer.type, transfer.status, transfer.payload, transfer.targetProvider) == (
        TransferType.SUBAGENT_SPAWN,
        TransferStatus.PENDING,
        "find the flaky test",
        "claude",
    )
    assert transfer.sourcePoint.runId == parent.state.latestCompleted.id  # type: ignore[union-attr]
    assert transfer.spawnedByRunId == busy.id
    [spawned] = [e for e in plan.events if e.threadId == "t"]
    assert (spawned.type, spawned.runId) == (EventType.SUBAGENT_SPAWNED, busy.id)


def test_a_subagent_the_provider_spawned_is_resolved_natively_at_once() -> None:
    parent = parent_with_runs()
    busy = parent.runs[next(reversed(parent.runs))]
    d = draft()
    child = writes.record_native_subagent(d, parent.state, busy, "claude", "sess-9", "probe")
    plan = d.build()
    [pt] = plan.providerThreads
    [transfer] = plan.transfers
    assert (pt.threadId, pt.nativeRef, pt.status) == (
        child.id,
        "sess-9",
        ProviderThreadStatus.ACTIVE,
    )
    assert (transfer.status, transfer.resolutionStrategy, transfer.resolvedProviderThreadId) == (
        TransferStatus.RESOLVED_NATIVE,
        ResolutionStrategy.NATIVE_FORK,
        pt.id,
    )
    recorded = next(e for e in plan.events if e.type is EventType.SUBAGENT_RECORDED)
    assert recorded.payload.stored() == {
        "childThreadId": child.id,
        "transferId": transfer.id,
        "nativeRef": "sess-9",
    }


def test_a_subagent_result_replaces_the_pending_one_and_waits_for_the_parent() -> None:
    parent = parent_with_runs()
    busy = parent.runs[next(reversed(parent.runs))]
    d = draft()
    writes.spawn_subagent(d, parent.state, busy, "look", None)
    spawned = d.build()
    child = child_state(spawned, spawned.transfers[0], completed=1)
    with pytest.raises(ThreadlineError) as empty:
        writes.complete_subagent(draft(), child, parent.state, "")
    assert empty.value.code is ErrorCode.INVALID_INPUT
    running = child.model_copy(
        update={"lastRun": child.lastRun.model_copy(update={"status": RunStatus.RUNNING})}  # type: ignore[union-attr]
    )
    with pytest.raises(ThreadlineError) as busy_child:
        writes.complete_subagent(draft(), running, parent.state, "found it")
    assert busy_child.value.code is ErrorCode.CONFLICT
    first = writes.complete_subagent(draft(), child, parent.state, "found it")
    d2 = draft()
    second = writes.complete_subagent(
        d2, child, parent.state.model_copy(update={"transfers": [first]}), "found it, really"
    )
    plan = d2.build()
    assert (second.type, second.payload, second.targetThreadId) == (
        TransferType.SUBAGENT_RESULT,
        "found it, really",
        "t",
    )
    assert [(c.id, c.status) for c in plan.transferChanges] == [
        (first.id, TransferStatus.SUPERSEDED)
    ]
