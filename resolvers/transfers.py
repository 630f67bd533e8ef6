"""Thread lineage transfers (SEMANTICS "Forks", "Merge-back, subagents").

One model for all four features: a source point, a lazily resolved transfer,
and, when native continuity cannot carry the context, a portable handoff.
"""

from __future__ import annotations

from collections.abc import Mapping

from graph.errors import conflict, invalid
from graph.models import (
    IN_PROGRESS,
    HandoffKind,
    HandoffNode,
    HandoffStrategy,
    ProviderThreadStatus,
    RunNode,
    RunStatus,
    SourcePoint,
    ThreadRelationship,
    ThreadSnapshot,
    TransferNode,
    TransferStatus,
    TransferType,
)
from resolvers.coverage import history
from resolvers.handoffs import NativeForkPlan, PlannedHandoff, plan_handoff, span
from resolvers.providers import ProviderCapabilities

ORIGINS = frozenset({TransferType.FORK, TransferType.SUBAGENT_SPAWN})
DELIVERED_TO_PARENT = frozenset({TransferType.MERGE_BACK, TransferType.SUBAGENT_RESULT})
TERMINAL = frozenset({RunStatus.COMPLETED, RunStatus.FAILED, RunStatus.INTERRUPTED})
WEAK = frozenset({ProviderThreadStatus.DIVERGENT, ProviderThreadStatus.FAILED})

# ---- source points -------------------------------------------------------------


def fork_source_point(
    snapshot: ThreadSnapshot,
    run_id: str | None,
    checkpoint_id: str | None,
    latest_stable: bool,
) -> SourcePoint:
    """The stable point a fork starts from: exactly one of run, checkpoint, latest stable."""
    chosen = [run_id is not None, checkpoint_id is not None, latest_stable]
    if sum(chosen) != 1:
        raise invalid("Give exactly one of at.runId, at.checkpointId or at.latestStable: true.")
    if latest_stable:
        stable = [r for r in snapshot.runs if r.status is RunStatus.COMPLETED and r.checkpoint]
        if not stable:
            raise invalid(
                f"Thread {snapshot.thread.id} has no completed run with a checkpoint to fork from."
            )
        return point_at(snapshot, stable[-1], at_checkpoint=True)
    if checkpoint_id is not None:
        run = next(
            (r for r in snapshot.runs if r.checkpoint and r.checkpoint.id == checkpoint_id), None
        )
        if run is None:
            raise invalid(f"Checkpoint {checkpoint_id!r} belongs to no run of this thread.")
        return point_at(snapshot, _forkable(run), at_checkpoint=True)
    run = next((r for r in snapshot.runs if r.id == run_id), None)
    if run is None:
        raise invalid(f"Run {run_id!r} is not a run of thread {snapshot.thread.id}.")
    return point_at(snapshot, _forkable(run), at_checkpoint=False)


def _forkable(run: RunNode) -> RunNode:
    if run.status in IN_PROGRESS:
        raise conflict(f"Run {run.ordinal} is still {run.status}; fork from a completed run.")
    if run.status is not RunStatus.COMPLETED:
        raise invalid(f"Run {run.ordinal} is {run.status}; only a completed run can be forked.")
    return run


def point_at(snapshot: ThreadSnapshot, run: RunNode, *, at_checkpoint: bool = False) -> SourcePoint:
    """A source point at `run` with the native refs of the provider thread it ran on."""
    pt = next((p for p in snapshot.providerThreads if p.id == run.providerThreadId), None)
    return SourcePoint(
        threadId=snapshot.thread.id,
        runId=run.id,
        runOrdinal=run.ordinal,
        checkpointId=run.checkpoint.id if run.checkpoint else None,
        providerThreadId=pt.id if pt else None,
        providerThreadRef=pt.nativeRef if pt else None,
        providerTurnRef=run.nativeTurnRef,
        atCheckpoint=at_checkpoint,
    )


def latest_point(snapshot: ThreadSnapshot) -> SourcePoint:
    """The thread's latest completed run, or the bare thread when it has none."""
    completed = [r for r in snapshot.runs if r.status is RunStatus.COMPLETED]
    return (
        point_at(snapshot, completed[-1]) if completed else SourcePoint(threadId=snapshot.thread.id)
    )


# ---- origin and inherited context ------------------------------------------------


def origin(snapshot: ThreadSnapshot) -> TransferNode | None:
    """The transfer that created this thread (fork or subagent spawn), if any."""
    return next(
        (
            x
            for x in snapshot.transfers
            if x.type in ORIGINS and x.status is not TransferStatus.SUPERSEDED
        ),
        None,
    )


def runs_up_to(snapshot: ThreadSnapshot, ordinal: int | None) -> list[RunNode]:
    if ordinal is None:
        return []
    return [run for run in history(snapshot.runs) if run.ordinal <= ordinal]


def inherited_context(
    snapshot: ThreadSnapshot,
    threads: Mapping[str, ThreadSnapshot],
    provider: ProviderCapabilities,
) -> list[PlannedHandoff]:
    """Portable handoffs for every ancestor's context up to each source point, root first."""
    plans: list[PlannedHandoff] = []
    current = snapshot
    while (transfer := origin(current)) is not None:
        source = threads.get(transfer.sourceThreadId)
        if source is None:
            break
        plans.append(portable_context(transfer, source, provider))
        current = source
    return list(reversed(plans))


def portable_context(
    transfer: TransferNode, source: ThreadSnapshot, provider: ProviderCapabilities
) -> PlannedHandoff:
    point = transfer.sourcePoint
    runs = runs_up_to(source, point.runOrdinal)
    strategy = (
        HandoffStrategy.CHECKPOINT_SUMMARY
        if point.atCheckpoint
        else HandoffStrategy.FULL_THREAD_SUMMARY
    )
    label = "forked from" if transfer.type is TransferType.FORK else "spawned by"
    task = transfer.payload if transfer.type is TransferType.SUBAGENT_SPAWN else None
    title = f"# Context inherited: this thread was {label} thread {source.thread.id}"
    if runs:
        title += f" (runs {span(runs)})"
    return plan_handoff(
        source.thread.id,
        runs,
        provider,
        strategy,
        HandoffKind.PORTABLE_CONTEXT,
        title=title,
        transfer_id=transfer.id,
        task=task,
    )


# ---- native fork -----------------------------------------------------------------


def native_fork(
    transfer: TransferNode,
    provider: ProviderCapabilities,
    source: ThreadSnapshot | None,
) -> NativeForkPlan | str:
    """The native fork plan for a pending fork, or why the native path is impossible."""
    point = transfer.sourcePoint
    if transfer.type is not TransferType.FORK:
        return "a subagent spawn is carried as portable context"
    if transfer.sourceProvider != provider.kind:
        return f"the source ran on {transfer.sourceProvider}, not {provider.kind}"
    if not provider.supports_native_fork:
        return f"{provider.kind} cannot fork natively"
    pt = next(
        (p for p in (source.providerThreads if source else []) if p.id == point.providerThreadId),
        None,
    )
    if pt is None or not pt.nativeRef or pt.status in WEAK:
        return "the source provider thread has no strong native reference"
    if provider.supports_native_fork_at_turn and point.providerTurnRef:
        return NativeForkPlan(
            sourceProviderThreadId=pt.id,
            sourceProviderThreadRef=pt.nativeRef,
            lastTurnId=point.providerTurnRef,
            rollbackTurns=0,
        )
    later = [
        run
        for run in (source.runs if source else [])
        if run.providerThreadId == pt.id
        and run.status in TERMINAL
        and run.ordinal > (point.runOrdinal or 0)
    ]
    if later and not provider.can_roll_back(pt.historyMode):
        return (
            f"forking the latest state would need {len(later)} native rollback turns, which "
            f"{provider.kind} cannot do on {pt.historyMode} history"
        )
    return NativeForkPlan(
        sourceProviderThreadId=pt.id,
        sourceProviderThreadRef=pt.nativeRef,
        lastTurnId=None,
        rollbackTurns=len(later),
    )


# ---- transfers delivered to a parent ------------------------------------------------


def parent_delivery(
    transfer: TransferNode,
    source: ThreadSnapshot,
    provider: ProviderCapabilities,
) -> PlannedHandoff:
    """The handoff a merge-back or subagent result becomes on the parent's next run."""
    runs = runs_up_to(source, transfer.sourcePoint.runOrdinal)
    if transfer.type is TransferType.MERGE_BACK:
        title = f"# Merged back from fork {source.thread.id}"
        return plan_handoff(
            source.thread.id,
            runs,
            provider,
            HandoffStrategy.DELTA_SINCE_TARGET_LAST_SEEN,
            HandoffKind.DELTA_CONTEXT,
            title=title,
            transfer_id=transfer.id,
        )
    title = f"# Subagent result from thread {source.thread.id}"
    return plan_handoff(
        source.thread.id,
        runs,
        provider,
        HandoffStrategy.MANUAL_CONTEXT,
        HandoffKind.DELTA_CONTEXT,
        title=title,
        transfer_id=transfer.id,
        subagent_results=[transfer.payload or ""],
        results_only=True,
    )


def replan(
    handoff: HandoffNode,
    snapshot: ThreadSnapshot,
    threads: Mapping[str, ThreadSnapshot],
    provider: ProviderCapabilities,
) -> PlannedHandoff:
    """The plan that builds `handoff` again from the graph as it is now (regeneration)."""
    known = {x.id: x for snap in (snapshot, *threads.values()) for x in snap.transfers}
    transfer = known.get(handoff.transferId or "")
    source = (
        snapshot
        if handoff.sourceThreadId == snapshot.thread.id
        else threads.get(handoff.sourceThreadId)
    )
    if source is None:
        raise conflict(f"The thread handoff {handoff.id} covers is gone.")
    if transfer is not None and transfer.type in ORIGINS:
        return portable_context(transfer, source, provider)
    if transfer is not None and transfer.type in DELIVERED_TO_PARENT:
        return parent_delivery(transfer, source, provider)
    covered = [
        run
        for run in history(source.runs)
        if handoff.coveredFrom <= run.ordinal <= handoff.coveredTo
    ]
    if not covered:
        raise conflict(f"Handoff {handoff.id} covers no run any more.")
    return plan_handoff(
        source.thread.id,
        covered,
        provider,
        handoff.strategy,
        handoff.kind,
        exclude_pt=handoff.toProviderThreadId,
    )


def merge_back_points(fork: ThreadSnapshot) -> tuple[SourcePoint, SourcePoint]:
    """(source point, base point) of a merge-back: the fork's latest completed run, its origin."""
    if fork.thread.relationshipToParent is not ThreadRelationship.FORK:
        raise invalid(f"Thread {fork.thread.id} is not a fork; only forks merge back.")
    completed = [r for r in fork.runs if r.status is RunStatus.COMPLETED]
    if not completed:
        raise invalid(f"Fork {fork.thread.id} has no completed run to merge back yet.")
    start = origin(fork)
    base = start.sourcePoint if start else SourcePoint(threadId=fork.thread.parentId or "")
    return point_at(fork, completed[-1]), base


def require_subagent(child: ThreadSnapshot) -> None:
    if child.thread.relationshipToParent is not ThreadRelationship.SUBAGENT:
        raise invalid(f"Thread {child.thread.id} is not a subagent thread.")
    busy = next((r for r in child.runs if r.status in IN_PROGRESS), None)
    if busy is not None:
        raise conflict(f"Subagent run {busy.ordinal} is still in progress; finish it first.")


def superseded_by_new(
    parent: ThreadSnapshot, kind: TransferType, source_thread_id: str
) -> list[str]:
    """Pending transfers of `kind` from the same source that a new one replaces."""
    return [
        x.id
        for x in parent.transfers
        if x.type is kind
        and x.status is TransferStatus.PENDING
        and x.sourceThreadId == source_thread_id
    ]
