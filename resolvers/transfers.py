"""Thread lineage transfers (SEMANTICS "Forks", "Merge-back, subagents").

One model for all four features: a source point, a lazily resolved transfer,
and, when native continuity cannot carry the context, a portable handoff.
"""

from __future__ import annotations

from collections.abc import Mapping

from graph.errors import conflict, invalid
from graph.models import (
    IN_PROGRESS,
    HandoffHead,
    HandoffKind,
    HandoffStrategy,
    ProviderThreadStatus,
    RunNode,
    RunStatus,
    SourcePoint,
    ThreadRelationship,
    ThreadState,
    TransferNode,
    TransferStatus,
    TransferType,
)
from graph.ranges import Ranges
from resolvers.content import Content
from resolvers.handoffs import NativeForkPlan, PlannedHandoff, plan_handoff, span
from resolvers.providers import ProviderCapabilities

ORIGINS = frozenset({TransferType.FORK, TransferType.SUBAGENT_SPAWN})
DELIVERED_TO_PARENT = frozenset({TransferType.MERGE_BACK, TransferType.SUBAGENT_RESULT})
WEAK = frozenset({ProviderThreadStatus.DIVERGENT, ProviderThreadStatus.FAILED})

# ---- source points -------------------------------------------------------------


def fork_source_run(
    state: ThreadState,
    chosen: RunNode | None,
    run_id: str | None,
    checkpoint_id: str | None,
    latest_stable: bool,
) -> tuple[RunNode, bool]:
    """The run a fork starts from and whether it was chosen as a checkpoint.

    `chosen` is the run `run_id` or `checkpoint_id` named, as the store found it in
    this thread (None: it is not a run of this thread).
    """
    if sum([run_id is not None, checkpoint_id is not None, latest_stable]) != 1:
        raise invalid("Give exactly one of at.runId, at.checkpointId or at.latestStable: true.")
    if latest_stable:
        if state.latestStable is None:
            raise invalid(
                f"Thread {state.thread.id} has no completed run with a checkpoint to fork from."
            )
        return state.latestStable, True
    if chosen is None:
        if checkpoint_id is not None:
            raise invalid(f"Checkpoint {checkpoint_id!r} belongs to no run of this thread.")
        raise invalid(f"Run {run_id!r} is not a run of thread {state.thread.id}.")
    return _forkable(chosen), checkpoint_id is not None


def _forkable(run: RunNode) -> RunNode:
    if run.status in IN_PROGRESS:
        raise conflict(f"Run {run.ordinal} is still {run.status}; fork from a completed run.")
    if run.status is not RunStatus.COMPLETED:
        raise invalid(f"Run {run.ordinal} is {run.status}; only a completed run can be forked.")
    return run


def point_at(state: ThreadState, run: RunNode, *, at_checkpoint: bool = False) -> SourcePoint:
    """A source point at `run` with the native refs of the provider thread it ran on."""
    pt = state.provider_thread(run.providerThreadId)
    return SourcePoint(
        threadId=state.thread.id,
        runId=run.id,
        runOrdinal=run.ordinal,
        checkpointId=run.checkpoint.id if run.checkpoint else None,
        providerThreadId=pt.id if pt else None,
        providerThreadRef=pt.nativeRef if pt else None,
        providerTurnRef=run.nativeTurnRef,
        atCheckpoint=at_checkpoint,
    )


def latest_point(state: ThreadState) -> SourcePoint:
    """The thread's latest completed run, or the bare thread when it has none."""
    completed = state.latestCompleted
    return point_at(state, completed) if completed else SourcePoint(threadId=state.thread.id)


# ---- origin and inherited context ------------------------------------------------


def origin(state: ThreadState) -> TransferNode | None:
    """The transfer that created this thread (fork or subagent spawn), if any."""
    return next(
        (
            x
            for x in state.transfers
            if x.type in ORIGINS and x.status is not TransferStatus.SUPERSEDED
        ),
        None,
    )


def history_up_to(state: ThreadState, ordinal: int | None) -> Ranges:
    return Ranges() if ordinal is None else state.history.through(ordinal)


def inherited_context(
    state: ThreadState,
    threads: Mapping[str, ThreadState],
    provider: ProviderCapabilities,
    content: Content,
) -> list[PlannedHandoff]:
    """Portable handoffs for every ancestor's context up to each source point, root first."""
    plans: list[PlannedHandoff] = []
    current = state
    while (transfer := origin(current)) is not None:
        source = threads.get(transfer.sourceThreadId)
        if source is None:
            break
        plans.append(portable_context(transfer, source, provider, content))
        current = source
    return list(reversed(plans))


def portable_context(
    transfer: TransferNode,
    source: ThreadState,
    provider: ProviderCapabilities,
    content: Content,
) -> PlannedHandoff:
    point = transfer.sourcePoint
    runs = content.runs(source.thread.id, history_up_to(source, point.runOrdinal))
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
        clock=content.clock,
    )


# ---- native fork -----------------------------------------------------------------


def native_fork(
    transfer: TransferNode,
    provider: ProviderCapabilities,
    source: ThreadState | None,
) -> NativeForkPlan | str:
    """The native fork plan for a pending fork, or why the native path is impossible."""
    point = transfer.sourcePoint
    if transfer.type is not TransferType.FORK:
        return "a subagent spawn is carried as portable context"
    if transfer.sourceProvider != provider.kind:
        return f"the source ran on {transfer.sourceProvider}, not {provider.kind}"
    if not provider.supports_native_fork:
        return f"{provider.kind} cannot fork natively"
    pt = source.provider_thread(point.providerThreadId) if source else None
    if source is None or pt is None or not pt.nativeRef or pt.status in WEAK:
        return "the source provider thread has no strong native reference"
    if provider.supports_native_fork_at_turn and point.providerTurnRef:
        return NativeForkPlan(
            sourceProviderThreadId=pt.id,
            sourceProviderThreadRef=pt.nativeRef,
            lastTurnId=point.providerTurnRef,
            rollbackTurns=0,
        )
    # Turns the provider thread ran after the source run and that are still history.
    later = (pt.native & source.history).after(point.runOrdinal or 0)
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
    source: ThreadState,
    provider: ProviderCapabilities,
    content: Content,
) -> PlannedHandoff:
    """The handoff a merge-back or subagent result becomes on the parent's next run."""
    runs = content.runs(source.thread.id, history_up_to(source, transfer.sourcePoint.runOrdinal))
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
            clock=content.clock,
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
        clock=content.clock,
    )


def replan(
    handoff: HandoffHead,
    transfer: TransferNode | None,
    state: ThreadState,
    threads: Mapping[str, ThreadState],
    provider: ProviderCapabilities,
    content: Content,
) -> PlannedHandoff:
    """The plan that builds `handoff` again from the graph as it is now (regeneration).

    `transfer` is the one the handoff was made for, if any.
    """
    source = (
        state if handoff.sourceThreadId == state.thread.id else threads.get(handoff.sourceThreadId)
    )
    if source is None:
        raise conflict(f"The thread handoff {handoff.id} covers is gone.")
    if transfer is not None and transfer.type in ORIGINS:
        return portable_context(transfer, source, provider, content)
    if transfer is not None and transfer.type in DELIVERED_TO_PARENT:
        return parent_delivery(transfer, source, provider, content)
    covered = source.history & handoff.covered
    if not covered:
        raise conflict(f"Handoff {handoff.id} covers no run any more.")
    return plan_handoff(
        source.thread.id,
        content.runs(source.thread.id, covered),
        provider,
        handoff.strategy,
        handoff.kind,
        exclude_pt=handoff.toProviderThreadId,
        clock=content.clock,
    )


def merge_back_points(fork: ThreadState) -> tuple[SourcePoint, SourcePoint]:
    """(source point, base point) of a merge-back: the fork's latest completed run, its origin."""
    if fork.thread.relationshipToParent is not ThreadRelationship.FORK:
        raise invalid(f"Thread {fork.thread.id} is not a fork; only forks merge back.")
    if fork.latestCompleted is None:
        raise invalid(f"Fork {fork.thread.id} has no completed run to merge back yet.")
    start = origin(fork)
    base = start.sourcePoint if start else SourcePoint(threadId=fork.thread.parentId or "")
    return point_at(fork, fork.latestCompleted), base


def require_subagent(child: ThreadState) -> None:
    if child.thread.relationshipToParent is not ThreadRelationship.SUBAGENT:
        raise invalid(f"Thread {child.thread.id} is not a subagent thread.")
    busy = child.run_in_progress
    if busy is not None:
        raise conflict(f"Subagent run {busy.ordinal} is still in progress; finish it first.")


def superseded_by_new(parent: ThreadState, kind: TransferType, source_thread_id: str) -> list[str]:
    """Pending transfers of `kind` from the same source that a new one replaces."""
    return [
        x.id
        for x in parent.transfers
        if x.type is kind
        and x.status is TransferStatus.PENDING
        and x.sourceThreadId == source_thread_id
    ]
