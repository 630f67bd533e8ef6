"""How a start turns the transfers waiting for its thread into context: a fork's or a
spawn's origin (native fork, or a portable handoff), the context a forked thread
inherits (and whether the provider thread it goes into still holds it), and merge-backs
and subagent results delivered to the parent."""

from __future__ import annotations

from collections.abc import Mapping

from graph.errors import conflict
from graph.models import (
    WEAK,
    HandoffHead,
    HandoffKind,
    HandoffStrategy,
    ProviderThreadNode,
    ResolutionStrategy,
    RunDigest,
    SourcePoint,
    TransferNode,
    TransferType,
)
from graph.ranges import Ranges
from graph.thread_state import ThreadState
from resolvers.content import Content
from resolvers.coverage import received_ready
from resolvers.handoffs.digests import up_to_item
from resolvers.handoffs.planning import NativeForkPlan, PlannedHandoff, plan_handoff, runs_named
from resolvers.lineage.points import DELIVERED_TO_PARENT, ORIGINS, origin
from resolvers.providers import ProviderCapabilities

# ---- origin and inherited context ------------------------------------------------


def history_up_to(state: ThreadState, ordinal: int | None) -> Ranges:
    return Ranges() if ordinal is None else state.history.through(ordinal)


def inherited_context(
    state: ThreadState,
    threads: Mapping[str, ThreadState],
    provider: ProviderCapabilities,
    content: Content,
    *,
    into: ProviderThreadNode | None = None,
) -> list[PlannedHandoff]:
    """Portable handoffs for every ancestor's context up to each source point, root first;
    with `into` (a provider thread the start reuses), only those it does not hold."""
    if into is not None and holds_natively(state, into):
        return []
    held = inherited_held(state, into) if into is not None else frozenset()
    plans: list[PlannedHandoff] = []
    current = state
    while (transfer := origin(current)) is not None:
        source = threads.get(transfer.sourceThreadId)
        if source is None:
            break
        if source.thread.id not in held:
            plans.append(portable_context(transfer, source, provider, content))
        current = source
    return list(reversed(plans))


def holds_natively(state: ThreadState, pt: ProviderThreadNode) -> bool:
    """`pt` was made by a native fork of its source's provider thread (or recorded as a
    native subagent): its own history holds everything the thread inherited."""
    start = origin(state)
    resolved_here = (
        start is not None
        and start.resolutionStrategy is ResolutionStrategy.NATIVE_FORK
        and start.resolvedProviderThreadId == pt.id
    )
    return pt.forkedFromId is not None or resolved_here


def inherited_held(state: ThreadState, pt: ProviderThreadNode) -> frozenset[str]:
    """The ancestors whose context `pt` holds: a ready portable handoff about each, injected
    into a run that is still history. A rollback of that run supersedes the handoff
    (docs/MODEL.md "Coverage after a rollback"), and the ancestor drops out of this set."""
    return frozenset(
        h.sourceThreadId
        for h in received_ready(pt.id, state.handoffs)
        if h.kind is HandoffKind.PORTABLE_CONTEXT and h.sourceThreadId != state.thread.id
    )


def portable_context(
    transfer: TransferNode,
    source: ThreadState,
    provider: ProviderCapabilities,
    content: Content,
) -> PlannedHandoff:
    point = transfer.sourcePoint
    runs = _cut(content.runs(source.thread.id, history_up_to(source, point.runOrdinal)), point)
    strategy = (
        HandoffStrategy.CHECKPOINT_SUMMARY
        if point.atCheckpoint
        else HandoffStrategy.FULL_THREAD_SUMMARY
    )
    label = "forked from" if transfer.type is TransferType.FORK else "spawned by"
    task = transfer.payload if transfer.type is TransferType.SUBAGENT_SPAWN else None
    title = f"# Context inherited: this thread was {label} thread {source.thread.id}"
    if runs:
        title += f" ({runs_named(runs)}{_stops(point)})"
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


def _cut(runs: list[RunDigest], point: SourcePoint) -> list[RunDigest]:
    """A fork at an item inherits its source run only up to that item."""
    if point.itemIndex is None:
        return runs
    index = point.itemIndex
    return [up_to_item(run, index) if run.ordinal == point.runOrdinal else run for run in runs]


def _stops(point: SourcePoint) -> str:
    """Where a fork at an item stops, as its handoff's title says it."""
    if point.itemIndex is None:
        return ""
    if point.itemIndex < 0:
        return f"; it stops after the request of run {point.runOrdinal}, before any of its items"
    return f"; it stops after item {point.itemIndex} of run {point.runOrdinal}"


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
    if point.itemIndex is not None:
        return _native_fork_at_item(point, provider, pt)
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


def _native_fork_at_item(
    point: SourcePoint, provider: ProviderCapabilities, pt: ProviderThreadNode
) -> NativeForkPlan | str:
    """A fork at an item forks natively only up to a native message: the provider must fork
    at one, and the item's key must hold its id (`SourcePoint.turnItemId`)."""
    where = f"item {point.itemIndex} of run {point.runOrdinal}"
    if not provider.supports_native_fork_at_item:
        return f"{provider.kind} cannot fork natively at an item ({where})"
    if not point.turnItemId:
        return f"{where} has no native message id in its key"
    return NativeForkPlan(
        sourceProviderThreadId=pt.id,
        sourceProviderThreadRef=pt.nativeRef or "",
        lastTurnId=point.turnItemId,
        rollbackTurns=0,
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
        exclude_pt=handoff.toProviderThreadId or handoff.preparedInto,
        clock=content.clock,
    )
