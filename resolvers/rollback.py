"""rollbackThread's decision (SEMANTICS "Rollback", seed "Rollback Interaction")."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from graph.errors import conflict, invalid
from graph.models import (
    IN_PROGRESS,
    HandoffStatus,
    ProviderThreadStatus,
    RunStatus,
    ThreadSnapshot,
    TransferStatus,
)
from resolvers.providers import ProviderRegistry

SETTLED = frozenset(
    {ProviderThreadStatus.FAILED, ProviderThreadStatus.STALE, ProviderThreadStatus.DIVERGENT}
)


class RollbackDecision(BaseModel):
    model_config = ConfigDict(frozen=True)

    rolledBackRunIds: list[str]
    supersededHandoffIds: list[str]
    providerThreadStatuses: dict[str, ProviderThreadStatus]
    supersededTransferIds: list[str]


def decide_rollback(
    snapshot: ThreadSnapshot, to_ordinal: int, registry: ProviderRegistry
) -> RollbackDecision:
    latest = snapshot.thread.lastOrdinal
    if not 0 <= to_ordinal <= latest:
        raise invalid(f"toRunOrdinal must be between 0 and {latest}, got {to_ordinal}.")
    busy = [run.ordinal for run in snapshot.runs if run.status in IN_PROGRESS]
    if busy:
        raise conflict(f"Run {busy[0]} is in progress; finish it before rolling back.")
    rolled = {
        run.id: run.ordinal
        for run in snapshot.runs
        if run.ordinal > to_ordinal and run.status is not RunStatus.ROLLED_BACK
    }
    rolled_ordinals = set(rolled.values())
    thread_id = snapshot.thread.id
    affected_handoffs = [
        h
        for h in snapshot.handoffs
        if h.status is not HandoffStatus.SUPERSEDED
        and h.sourceThreadId == thread_id
        and any(h.coveredFrom <= ordinal <= h.coveredTo for ordinal in rolled_ordinals)
    ]
    affected_ids = {h.id for h in affected_handoffs}
    statuses: dict[str, ProviderThreadStatus] = {}
    for pt in snapshot.providerThreads:
        if pt.status in SETTLED:
            continue  # a failed, stale or divergent thread never becomes reusable again
        native_hit = any(
            run.providerThreadId == pt.id and run.id in rolled for run in snapshot.runs
        )
        received = [h for h in affected_handoffs if h.toProviderThreadId == pt.id]
        if not native_hit and not received:
            continue
        consumers_kept = any(
            run.providerThreadId == pt.id
            and run.id not in rolled
            and run.status is not RunStatus.ROLLED_BACK
            and affected_ids.intersection(run.consumedHandoffIds)
            for run in snapshot.runs
        )
        can_roll_back = registry.get(pt.provider).can_roll_back(pt.historyMode)
        statuses[pt.id] = (
            ProviderThreadStatus.ROLLED_BACK
            if can_roll_back and not consumers_kept
            else ProviderThreadStatus.DIVERGENT
        )
    superseded_transfers = [
        transfer.id
        for transfer in [*snapshot.transfers, *snapshot.outgoingTransfers]
        if transfer.status is TransferStatus.PENDING
        and transfer.sourcePoint.threadId == thread_id
        and transfer.sourcePoint.runId in rolled
    ]
    return RollbackDecision(
        rolledBackRunIds=sorted(rolled, key=lambda run_id: rolled[run_id]),
        supersededHandoffIds=[h.id for h in affected_handoffs],
        providerThreadStatuses=statuses,
        supersededTransferIds=superseded_transfers,
    )
