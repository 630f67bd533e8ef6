"""Status changes that always come with their event: one function each, called wherever
the change happens, so a node and its thread's log never tell two stories."""

from __future__ import annotations

from graph import events
from graph.models import (
    HandoffStatus,
    ProviderThreadStatus,
    ResolutionStrategy,
    TransferStatus,
)
from graph.plan import HandoffChange, ProviderThreadChange, TransferChange
from resolvers.draft import Draft


def given(**values: str | None) -> dict[str, str]:
    """The optional fields a caller named: the others stay unset (left out of the log)."""
    return {key: value for key, value in values.items() if value is not None}


def supersede_handoff(
    draft: Draft,
    thread_id: str,
    handoff_id: str,
    *,
    run_id: str | None = None,
    reason: str | None = None,
    by: str | None = None,
) -> None:
    """A handoff no run may inject any more: rolled back, replaced, or its run moved on."""
    draft.change(
        HandoffChange(
            id=handoff_id,
            status=HandoffStatus.SUPERSEDED,
            updatedAt=draft.at,
            **given(supersededById=by),
        )
    )
    draft.event(
        thread_id,
        events.HandoffSuperseded(handoffId=handoff_id, **given(reason=reason, supersededBy=by)),
        run_id,
    )


def fail_handoff(
    draft: Draft,
    thread_id: str,
    run_id: str,
    handoff_id: str,
    reason: str,
    *,
    replaced_by: str | None = None,
) -> None:
    """A summary that will never come: the handoff keeps its record, `FAILED`."""
    draft.change(
        HandoffChange(
            id=handoff_id,
            status=HandoffStatus.FAILED,
            failureReason=reason,
            updatedAt=draft.at,
            **given(supersededById=replaced_by),
        )
    )
    draft.event(
        thread_id,
        events.HandoffFailed(handoffId=handoff_id, reason=reason, **given(replacedBy=replaced_by)),
        run_id,
    )


def supersede_transfer(
    draft: Draft,
    thread_id: str,
    transfer_id: str,
    *,
    reason: str | None = None,
    by: str | None = None,
) -> None:
    """A transfer no run will consume (again): its source point, the run that spawned its
    subagent, or the run that consumed it rolled back, or a newer one from the same source
    replaced it (logged on `thread_id`, the thread that held it)."""
    draft.change(TransferChange(id=transfer_id, status=TransferStatus.SUPERSEDED))
    draft.event(
        thread_id,
        events.TransferSuperseded(transferId=transfer_id, **given(reason=reason, supersededBy=by)),
    )


def consume_transfer(
    draft: Draft,
    thread_id: str,
    run_id: str,
    transfer_id: str,
    strategy: ResolutionStrategy,
    provider_thread_id: str,
    handoff_id: str | None,
) -> None:
    """A start resolves a pending transfer (natively or with a portable handoff) and
    consumes it, in one step: the stored status is the last, the log keeps both."""
    resolved = (
        TransferStatus.RESOLVED_NATIVE
        if strategy is ResolutionStrategy.NATIVE_FORK
        else TransferStatus.RESOLVED_PORTABLE
    )
    draft.change(
        TransferChange(
            id=transfer_id,
            status=TransferStatus.CONSUMED,
            resolutionStrategy=strategy,
            resolvedProviderThreadId=provider_thread_id,
            handoffId=handoff_id,
            consumedAt=draft.at,
            consumedByRunId=run_id,
        )
    )
    draft.event(
        thread_id,
        events.TransferResolved(transferId=transfer_id, status=resolved, strategy=strategy),
        run_id,
    )
    draft.event(thread_id, events.TransferConsumed(transferId=transfer_id), run_id)


def set_provider_thread_status(
    draft: Draft, thread_id: str, provider_thread_id: str, status: ProviderThreadStatus
) -> None:
    draft.change(ProviderThreadChange(id=provider_thread_id, status=status))
    draft.event(
        thread_id,
        events.ProviderThreadStatusChanged(providerThreadId=provider_thread_id, status=status),
    )
