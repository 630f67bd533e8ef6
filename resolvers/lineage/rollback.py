"""rollbackThread's decision (docs/SEMANTICS.md, "Rollback"; docs/MODEL.md "Coverage after a
rollback"): the runs it rolls back, the handoffs and transfers that go with them, and what
becomes of each provider thread."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from graph import events
from graph.errors import conflict, invalid
from graph.models import (
    LIVE_HANDOFF,
    SETTLED,
    HandoffNode,
    ProviderThreadStatus,
    RunNode,
    TransferNode,
    TransferStatus,
)
from graph.plan import ProviderThreadChange, ThreadChange
from graph.ranges import Ranges
from graph.thread_state import ThreadState
from resolvers import transitions
from resolvers.draft import Draft
from resolvers.providers import ProviderRegistry


class AffectedHandoff(BaseModel):
    """A handoff for the thread, not superseded, that a rollback may take (`taken`): one
    about the thread whose range reaches past the rollback point, or one whose consuming
    run (its target run) comes after it, with that run (if any)."""

    model_config = ConfigDict(frozen=True)

    handoff: HandoffNode
    consumerOrdinal: int | None = None
    consumerProviderThreadId: str | None = None


class Delivered(BaseModel):
    """A merge-back or subagent result the thread consumed, with whether the handoff that
    carried it is still live."""

    model_config = ConfigDict(frozen=True)

    transfer: TransferNode
    handoffLive: bool = True


class PendingResult(BaseModel):
    """A subagent result the thread has not consumed yet, with the run of the thread that
    spawned its subagent."""

    model_config = ConfigDict(frozen=True)

    transferId: str
    spawnedByRunId: str | None = None


class RollbackInputs(BaseModel):
    """What a rollback to `toOrdinal` reads besides the thread's state."""

    model_config = ConfigDict(frozen=True)

    toOrdinal: int
    rolledRuns: list[RunNode] = Field(default_factory=list)  # ordinal > toOrdinal, live
    affected: list[AffectedHandoff] = Field(default_factory=list)  # candidates: see `taken`
    # consumed by a live run after toOrdinal
    delivered: list[Delivered] = Field(default_factory=list)
    pendingResults: list[PendingResult] = Field(default_factory=list)


class RollbackDecision(BaseModel):
    model_config = ConfigDict(frozen=True)

    rolledBack: Ranges
    rolledBackRunIds: list[str]
    supersededHandoffIds: list[str]
    providerThreadStatuses: dict[str, ProviderThreadStatus]
    nativeRanges: dict[str, Ranges]  # every provider thread whose native runs shrink
    supersededTransferIds: list[str]


def check_rollback(state: ThreadState, to_ordinal: int) -> None:
    latest = state.thread.lastOrdinal
    if not 0 <= to_ordinal <= latest:
        raise invalid(f"toRunOrdinal must be between 0 and {latest}, got {to_ordinal}.")
    busy = state.run_in_progress
    if busy is not None:
        raise conflict(f"Run {busy.ordinal} is in progress; finish it before rolling back.")


def decide_rollback(
    state: ThreadState, inputs: RollbackInputs, registry: ProviderRegistry
) -> RollbackDecision:
    to_ordinal = inputs.toOrdinal
    check_rollback(state, to_ordinal)
    rolled = {run.id: run.ordinal for run in inputs.rolledRuns}
    rolled_ordinals = Ranges.of(rolled.values())
    affected = [a for a in inputs.affected if taken(a, state.thread.id, rolled_ordinals)]
    surviving = state.thread.not_rolled_back.through(to_ordinal)
    statuses: dict[str, ProviderThreadStatus] = {}
    native_ranges: dict[str, Ranges] = {}
    for pt in state.providerThreads:
        kept = pt.native.through(to_ordinal)
        native_hit = kept != pt.native
        if native_hit:
            native_ranges[pt.id] = kept
        if pt.status in SETTLED:
            continue  # a failed, stale or divergent thread never becomes reusable again
        received = [a for a in affected if a.handoff.toProviderThreadId == pt.id]
        if not native_hit and not received:
            continue
        # A native run that consumed an affected handoff and is not rolled back keeps it.
        consumers_kept = any(
            a.consumerProviderThreadId == pt.id and a.consumerOrdinal in surviving for a in affected
        )
        can_roll_back = registry.get(pt.provider).can_roll_back(pt.historyMode)
        statuses[pt.id] = (
            ProviderThreadStatus.ROLLED_BACK
            if can_roll_back and not consumers_kept
            else ProviderThreadStatus.DIVERGENT
        )
    superseded_transfers = [
        transfer.id
        for transfer in [*state.transfers, *state.outgoingTransfers]
        if transfer.status is TransferStatus.PENDING
        and transfer.sourcePoint.threadId == state.thread.id
        and transfer.sourcePoint.runId in rolled
    ]
    undelivered = [d for d in inputs.delivered if d.transfer.consumedByRunId in rolled]
    # A subagent spawned by a rolled-back run answers a task the thread no longer gave.
    unasked = [p.transferId for p in inputs.pendingResults if p.spawnedByRunId in rolled]
    return RollbackDecision(
        rolledBack=rolled_ordinals,
        rolledBackRunIds=sorted(rolled, key=lambda run_id: rolled[run_id]),
        supersededHandoffIds=list(
            dict.fromkeys([*(a.handoff.id for a in affected), *carriers(undelivered)])
        ),
        providerThreadStatuses=statuses,
        nativeRanges=native_ranges,
        supersededTransferIds=[
            *superseded_transfers,
            *(d.transfer.id for d in undelivered),
            *unasked,
        ],
    )


def taken(candidate: AffectedHandoff, thread_id: str, rolled: Ranges) -> bool:
    """Whether a rollback of the runs `rolled` supersedes the handoff: it summarises one of
    them, or one of them consumed it. A handoff lives in a provider thread only as long as
    the run it was injected into; once that run leaves the history the delivery has too,
    whether the provider rolled back natively or not, so it may cover nothing any more
    (a fork's inherited context included: the next start sends it again)."""
    handoff = candidate.handoff
    summarises_rolled = handoff.sourceThreadId == thread_id and bool(handoff.covered & rolled)
    delivered_to_rolled = (
        handoff.status in LIVE_HANDOFF
        and candidate.consumerOrdinal is not None
        and candidate.consumerOrdinal in rolled
    )
    return summarises_rolled or delivered_to_rolled


def carriers(undelivered: list[Delivered]) -> list[str]:
    """The live handoffs that carried merge-backs or subagent results whose consuming run
    is rolled back: what they carried is no longer in the thread's history, so no provider
    thread may count it as seen (the child sends it again, docs/SEMANTICS.md "Rollback")."""
    return [d.transfer.handoffId for d in undelivered if d.handoffLive and d.transfer.handoffId]


def record(draft: Draft, state: ThreadState, decision: RollbackDecision, to_ordinal: int) -> None:
    """What a rollback writes: its runs rolled back, and what they took with them."""
    thread_id = state.thread.id
    for run_id in decision.rolledBackRunIds:
        transitions.roll_back_run(draft, run_id, to_ordinal)
    for pt_id, ranges in decision.nativeRanges.items():
        draft.change(ProviderThreadChange(id=pt_id, nativeRanges=ranges.flatten()))
    rolled_back = state.thread.rolled_back | decision.rolledBack
    draft.change(ThreadChange(id=thread_id, rolledBack=rolled_back.flatten()))
    draft.event(
        thread_id,
        events.ThreadRolledBack(
            toRunOrdinal=to_ordinal, rolledBackRuns=len(decision.rolledBackRunIds)
        ),
    )
    for handoff_id in decision.supersededHandoffIds:
        transitions.supersede_handoff(draft, thread_id, handoff_id, reason="rollback")
    for pt_id, status in decision.providerThreadStatuses.items():
        transitions.set_provider_thread_status(draft, thread_id, pt_id, status)
    for transfer_id in decision.supersededTransferIds:
        transitions.supersede_transfer(draft, thread_id, transfer_id, reason="rollback")
