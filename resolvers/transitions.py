"""Every status change of a node the graph already holds, with its event: one function
each, called wherever the change happens, so a node and its thread's log never tell two
stories. (A node is born with its first status where it is made: a start's run and
handoffs in resolvers/start/writes.py, a fork's thread in resolvers/lineage/writes.py.)

A change that has no event of its own says which event tells it."""

from __future__ import annotations

from graph import events
from graph.models import (
    DIGEST_VERSION,
    CheckpointNode,
    HandoffStatus,
    HistoryMode,
    ProviderThreadNode,
    ProviderThreadStatus,
    ResolutionStrategy,
    RunItem,
    RunNode,
    RunStatus,
    StalenessSignal,
    TransferStatus,
)
from graph.plan import HandoffChange, ProviderThreadChange, RunChange, TransferChange
from resolvers.draft import Draft
from resolvers.handoffs.digests import digest_of, tokens_held

# A run's end: what its ending may report besides its status.
ENDINGS = frozenset({RunStatus.COMPLETED, RunStatus.FAILED, RunStatus.INTERRUPTED})


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


# ---- runs ------------------------------------------------------------------------


def run_running(draft: Draft, run_id: str) -> None:
    """STARTING to RUNNING: the caller may act on the provider now (its provider thread is
    attached, and no summary the run injects is still awaited). No event of its own: the
    attach (PROVIDER_THREAD_ATTACHED) or the summary (HANDOFF_SUMMARIZED, HANDOFF_SUBMITTED)
    that let it run is logged."""
    draft.change(RunChange(id=run_id, status=RunStatus.RUNNING))


def run_waits_or_runs(draft: Draft, run_id: str, status: RunStatus) -> None:
    """A run in progress whose summaries were replaced: STARTING while one it injects is
    awaited, else RUNNING. Logged by the HANDOFF_FAILED and HANDOFF_CREATED events of the
    replacement."""
    if status not in (RunStatus.STARTING, RunStatus.RUNNING):
        raise ValueError(f"a run in progress is STARTING or RUNNING, not {status}")
    draft.change(RunChange(id=run_id, status=status))


def end_run(
    draft: Draft,
    thread_id: str,
    in_progress: RunNode,
    pt: ProviderThreadNode | None,
    ended: events.Payload,
    *,
    status: RunStatus,
    nativeTurnRef: str | None = None,
    failureReason: str | None = None,
    items: list[RunItem] | None = None,
    checkpoint: CheckpointNode | None = None,
) -> RunNode:
    """A run becomes history (completed, failed or interrupted): its new status, what it
    reported, its digest for summaries, a native run of its provider thread `pt`, and
    `ended` logged on the thread."""
    if status not in ENDINGS:
        raise ValueError(f"a run ends COMPLETED, FAILED or INTERRUPTED, not {status}")
    run = in_progress.model_copy(
        update={
            "status": status,
            "nativeTurnRef": nativeTurnRef,
            "failureReason": failureReason,
            "completedAt": draft.at,
            "items": items or [],
            "checkpoint": checkpoint,
        }
    )
    digest = digest_of(run)
    draft.change(
        RunChange(
            id=run.id,
            status=run.status,
            nativeTurnRef=run.nativeTurnRef,
            failureReason=run.failureReason,
            completedAt=run.completedAt,
            digest=digest,
            digestVersion=DIGEST_VERSION,
        )
    )
    if items is not None:
        draft.content(run.id, items, checkpoint)
    if pt is not None:
        draft.change(
            ProviderThreadChange(
                id=pt.id,
                nativeRanges=pt.native.with_ordinal(run.ordinal).flatten(),
                heldTokens=pt.heldTokens + tokens_held(run, digest),
            )
        )
    draft.event(thread_id, ended, run.id)
    return run


def roll_back_run(draft: Draft, run_id: str, to_ordinal: int) -> None:
    """A run its thread went back past. Logged by the rollback's THREAD_ROLLED_BACK."""
    draft.change(RunChange(id=run_id, status=RunStatus.ROLLED_BACK, rolledBackTo=to_ordinal))


# ---- handoffs --------------------------------------------------------------------


def ready_handoff(
    draft: Draft,
    thread_id: str,
    run_id: str | None,
    handoff_id: str,
    told: events.Payload,
    *,
    generation_ms: float | None = None,
) -> None:
    """PENDING to READY: the awaited summary came (its text is written beside this), and
    `told` says who wrote it (HANDOFF_SUMMARIZED, HANDOFF_SUBMITTED)."""
    draft.change(
        HandoffChange(
            id=handoff_id,
            status=HandoffStatus.READY,
            updatedAt=draft.at,
            **({"generationMs": generation_ms} if generation_ms is not None else {}),
        )
    )
    draft.event(thread_id, told, run_id)


# ---- provider threads ------------------------------------------------------------


def attach_provider_thread(
    draft: Draft, thread_id: str, pt: ProviderThreadNode, native_ref: str, history_mode: HistoryMode
) -> ProviderThreadStatus:
    """A provider thread learns its native ref: PENDING becomes ACTIVE (another status
    stays), logged as PROVIDER_THREAD_ATTACHED. Its status after."""
    status = ProviderThreadStatus.ACTIVE if pt.status is ProviderThreadStatus.PENDING else pt.status
    draft.change(
        ProviderThreadChange(
            id=pt.id, nativeRef=native_ref, historyMode=history_mode, status=status
        )
    )
    draft.event(
        thread_id,
        events.ProviderThreadAttached(
            providerThreadId=pt.id, nativeRef=native_ref, historyMode=history_mode
        ),
    )
    return status


def fail_provider_thread(
    draft: Draft, thread_id: str, run_id: str, provider_thread_id: str, reason: str
) -> None:
    """reportStartFailure: the provider could not resume or create it, for good; logged as
    the run's RUN_START_FAILED."""
    draft.change(
        ProviderThreadChange(
            id=provider_thread_id, status=ProviderThreadStatus.FAILED, failureReason=reason
        )
    )
    draft.event(
        thread_id, events.RunStartFailed(providerThreadId=provider_thread_id, reason=reason), run_id
    )


def retire_provider_thread(
    draft: Draft, provider_thread_id: str, signals: list[StalenessSignal]
) -> None:
    """A start found it stale: never continued again. No event of its own: its
    `staleSignals` say why, and the start that retired it logs RUN_STARTED."""
    draft.change(
        ProviderThreadChange(
            id=provider_thread_id, status=ProviderThreadStatus.STALE, staleSignals=signals
        )
    )


def reuse_provider_thread(draft: Draft, pt: ProviderThreadNode, model: str | None) -> None:
    """A start continues it: with a native ref it is ACTIVE again (a rolled-back one
    included); logged by the start's RUN_STARTED."""
    draft.change(
        ProviderThreadChange(
            id=pt.id,
            status=ProviderThreadStatus.ACTIVE if pt.nativeRef else pt.status,
            model=model,
            lastUsedAt=draft.at,
        )
    )
