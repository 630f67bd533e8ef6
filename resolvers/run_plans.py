"""What the run commands write: threads, starts and restarts, attach, complete, fail,
rollback, clean context. Each function checks the command's rules on the thread's state
and adds the command's writes and events to a `Draft`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from graph.errors import conflict
from graph.models import (
    Actor,
    CheckpointNode,
    FileDiffStat,
    HandoffNode,
    HandoffStatus,
    HandoffStrategy,
    HistoryMode,
    ProviderThreadNode,
    ProviderThreadStatus,
    RunItem,
    RunNode,
    RunStatus,
    SummarySource,
    ThreadNode,
    ThreadState,
    TransferNode,
    TransferStatus,
)
from graph.plan import EventType
from resolvers import summary_plans
from resolvers.draft import Draft
from resolvers.rollback import RollbackDecision
from resolvers.start import StartDecision, StartRequest
from resolvers.summarizer import digest_of
from resolvers.summary_requests import SummaryRequest
from resolvers.summary_sources import LOCAL, Assignment


@dataclass(frozen=True)
class StartOutcome:
    """What a start wrote, as the nodes now are: the answer needs no second read."""

    run: RunNode
    provider_thread: ProviderThreadNode
    handoffs: list[HandoffNode]
    transfers: list[TransferNode]
    decision: StartDecision
    # Summaries someone else writes: a provider (the caller runs these and submits the
    # text) or the configured summarizer (the service calls it after the transaction).
    requests: list[SummaryRequest] = field(default_factory=list)

    @property
    def context_text(self) -> str | None:
        """The text to inject, in order; None when there is none or a summary is pending."""
        if not self.handoffs or any(h.status is HandoffStatus.PENDING for h in self.handoffs):
            return None
        return "\n".join(handoff.summaryText for handoff in self.handoffs)

    @property
    def waiting_requests(self) -> list[SummaryRequest]:
        """The requests whose handoff still waits for its summary."""
        waiting = {h.id for h in self.handoffs if h.status is HandoffStatus.PENDING}
        return [r for r in self.requests if r.handoffId in waiting]

    @property
    def configured_requests(self) -> list[SummaryRequest]:
        """The requests the service itself still has to make (CONFIGURED, still pending)."""
        return [r for r in self.waiting_requests if r.source is SummarySource.CONFIGURED]

    @property
    def run_id(self) -> str:
        return self.run.id

    @property
    def provider_thread_id(self) -> str:
        return self.provider_thread.id

    @property
    def handoff_ids(self) -> list[str]:
        return [handoff.id for handoff in self.handoffs]


def create_thread(draft: Draft, workspace: str, title: str | None, ident: str | None) -> ThreadNode:
    chosen = ident or draft.new_id("thr")
    thread = ThreadNode(
        id=chosen,
        workspace=workspace,
        title=title,
        createdBy=Actor.USER,
        createdAt=draft.at,
        rootId=chosen,
    )
    draft.thread(thread)
    draft.event(chosen, EventType.THREAD_CREATED, title=title)
    return thread


def request_clean_context(draft: Draft, state: ThreadState) -> None:
    draft.change("thread", state.thread.id, cleanContextRequested=True)
    draft.event(state.thread.id, EventType.THREAD_CLEAN_CONTEXT_REQUESTED)


def in_progress(state: ThreadState, run: RunNode, verb: str) -> RunNode:
    """`run` (read after the thread's lock was taken) if it is in progress; else CONFLICT.

    The run in progress, if any, is always the thread's latest: a run starts only when
    none is in progress, and a rollback needs none in progress.
    """
    current = state.run_in_progress
    if current is None or current.id != run.id:
        raise conflict(f"Run {run.ordinal} is {run.status}; only a run in progress can {verb}.")
    return current


# ---- starts ----------------------------------------------------------------------


def start(
    draft: Draft,
    state: ThreadState,
    request: StartRequest,
    decision: StartDecision,
    *,
    restart: RunNode | None = None,
    reason: str = "",
    assignments: Sequence[Assignment] = (),
    cached: Mapping[str, HandoffNode] | None = None,
) -> StartOutcome:
    """A new run (or, with `restart`, the same run on a new provider thread).

    `assignments` say who writes each handoff's summary (all LOCAL when empty);
    `cached` holds configured summaries already paid for, by their key.
    """
    thread_id = state.thread.id
    pt, created = _provider_thread(draft, state, request, decision)
    run_id = restart.id if restart else draft.new_id("run")
    handoffs: list[HandoffNode] = []
    requests: list[SummaryRequest] = []
    for plan, assignment in zip(
        decision.handoffs, assignments or [LOCAL] * len(decision.handoffs), strict=True
    ):
        node = plan.to_node(draft.new_id("hnd"), thread_id, pt.id, draft.at).model_copy(
            update={"targetRunId": run_id}
        )
        node, asked = summary_plans.sourced(node, assignment, cached or {})
        handoffs.append(node)
        requests.extend([asked] if asked else [])
        draft.handoff(node)
    for stale in decision.staleProviderThreadIds:
        draft.change(
            "providerThread",
            stale,
            status=ProviderThreadStatus.STALE,
            staleSignals=decision.stalenessSignals,
        )
    if not created:
        draft.change(
            "providerThread",
            pt.id,
            status=ProviderThreadStatus.ACTIVE if pt.nativeRef else pt.status,
            model=request.model or pt.model,
            lastUsedAt=draft.at,
        )
    status = summary_plans.run_status(pt, handoffs)
    started_with_delta = any(
        h.strategy is HandoffStrategy.DELTA_SINCE_TARGET_LAST_SEEN for h in handoffs
    )
    chain = (0 if created else state.deltaChains.get(pt.id, 0)) + 1 if started_with_delta else 0
    handoff_ids = [h.id for h in handoffs]
    if restart is None:
        run = RunNode(
            id=run_id,
            threadId=thread_id,
            ordinal=state.thread.lastOrdinal + 1,
            provider=request.provider,
            model=request.model,
            runtimeMode=request.runtimeMode,
            status=status,
            input=request.input,
            providerThreadId=pt.id,
            startedAt=draft.at,
            deltaChain=chain,
            startStrategy=decision.strategy,
            providerAction=decision.providerAction,
            consumedHandoffIds=handoff_ids,
        )
        draft.run(run)
        draft.change("thread", thread_id, lastOrdinal=run.ordinal, cleanContextRequested=False)
        draft.event(
            thread_id,
            EventType.RUN_STARTED,
            run.id,
            ordinal=run.ordinal,
            provider=run.provider,
            strategy=decision.strategy.value,
            providerAction=decision.providerAction.value,
        )
    else:
        run = restart.model_copy(
            update={"consumedHandoffIds": [*restart.consumedHandoffIds, *handoff_ids]}
        )
        _record_failure(draft, state, restart, reason, decision, handoff_ids)
        draft.move(run.id, pt.id, handoff_ids)
        draft.change(
            "run",
            run.id,
            providerThreadId=pt.id,
            status=status,
            deltaChain=chain,
            startStrategy=decision.strategy,
            providerAction=decision.providerAction,
        )
        draft.event(
            thread_id,
            EventType.RUN_RESTARTED,
            run.id,
            ordinal=run.ordinal,
            strategy=decision.strategy.value,
        )
    _resolve_transfers(draft, thread_id, decision, run.id, pt.id, handoff_ids)
    for handoff in handoffs:
        summary_plans.created_event(draft, thread_id, run.id, handoff)
    consumed = {resolution.transferId for resolution in decision.transfers}
    return StartOutcome(
        run=draft.updated("run", run),
        provider_thread=draft.updated("providerThread", pt),
        handoffs=handoffs,
        transfers=[draft.updated("transfer", x) for x in state.transfers if x.id in consumed],
        decision=summary_plans.explained(decision, requests),
        requests=requests,
    )


def _provider_thread(
    draft: Draft, state: ThreadState, request: StartRequest, decision: StartDecision
) -> tuple[ProviderThreadNode, bool]:
    """The provider thread the run executes on, and whether it is new."""
    if decision.providerThread is not None:
        return decision.providerThread, False
    pt = ProviderThreadNode(
        id=draft.new_id("pth"),
        threadId=state.thread.id,
        provider=request.provider,
        status=ProviderThreadStatus.PENDING,
        model=request.model,
        runtimeMode=request.runtimeMode,
        createdAt=draft.at,
        lastUsedAt=draft.at,
        forkedFromId=decision.nativeFork.sourceProviderThreadId if decision.nativeFork else None,
    )
    draft.provider_thread(pt)
    draft.event(
        state.thread.id,
        EventType.PROVIDER_THREAD_CREATED,
        providerThreadId=pt.id,
        provider=pt.provider,
    )
    return pt, True


def _record_failure(
    draft: Draft,
    state: ThreadState,
    run: RunNode,
    reason: str,
    decision: StartDecision,
    new_handoff_ids: list[str],
) -> None:
    """reportStartFailure: the provider thread fails, its handoffs for this run give way."""
    failed_pt = run.providerThreadId or ""
    draft.change(
        "providerThread", failed_pt, status=ProviderThreadStatus.FAILED, failureReason=reason
    )
    by_transfer = {
        plan.transferId: new for plan, new in zip(decision.handoffs, new_handoff_ids, strict=True)
    }
    superseded = [
        h
        for h in state.handoffs
        if h.id in run.consumedHandoffIds
        and h.toProviderThreadId == failed_pt
        and h.status is not HandoffStatus.SUPERSEDED
    ]
    for handoff in superseded:
        draft.change(
            "handoff",
            handoff.id,
            status=HandoffStatus.SUPERSEDED,
            supersededById=by_transfer.get(handoff.transferId),
            updatedAt=draft.at,
        )
    draft.event(
        state.thread.id,
        EventType.RUN_START_FAILED,
        run.id,
        providerThreadId=failed_pt,
        reason=reason,
    )
    for handoff in superseded:
        draft.event(
            state.thread.id,
            EventType.HANDOFF_SUPERSEDED,
            run.id,
            handoffId=handoff.id,
            reason="start failure",
        )


def _resolve_transfers(
    draft: Draft,
    thread_id: str,
    decision: StartDecision,
    run_id: str,
    pt_id: str,
    handoff_ids: list[str],
) -> None:
    """Pending transfers this start resolved: resolved, then consumed by the run."""
    for resolution in decision.transfers:
        index = resolution.handoffIndex
        draft.change(
            "transfer",
            resolution.transferId,
            status=TransferStatus.CONSUMED,
            resolutionStrategy=resolution.strategy,
            resolvedProviderThreadId=pt_id,
            handoffId=handoff_ids[index] if index is not None else None,
            consumedAt=draft.at,
            consumedByRunId=run_id,
        )
        resolved = (
            TransferStatus.RESOLVED_NATIVE
            if resolution.native
            else TransferStatus.RESOLVED_PORTABLE
        )
        draft.event(
            thread_id,
            EventType.TRANSFER_RESOLVED,
            run_id,
            transferId=resolution.transferId,
            status=resolved.value,
            strategy=resolution.strategy.value,
        )
        draft.event(
            thread_id, EventType.TRANSFER_CONSUMED, run_id, transferId=resolution.transferId
        )


# ---- after the start ---------------------------------------------------------------


def attach(
    draft: Draft,
    state: ThreadState,
    pt: ProviderThreadNode,
    native_ref: str,
    history_mode: HistoryMode,
) -> ProviderThreadNode:
    if pt.nativeRef and pt.nativeRef != native_ref:
        raise conflict(f"Provider thread {pt.id} is already attached to {pt.nativeRef!r}.")
    if pt.status in (ProviderThreadStatus.FAILED, ProviderThreadStatus.STALE):
        raise conflict(f"Provider thread {pt.id} is {pt.status}; it cannot be attached.")
    status = ProviderThreadStatus.ACTIVE if pt.status is ProviderThreadStatus.PENDING else pt.status
    draft.change(
        "providerThread", pt.id, nativeRef=native_ref, historyMode=history_mode, status=status
    )
    waiting = state.run_in_progress
    # The run starts running once no handoff it consumes still waits for its summary too.
    if (
        waiting
        and waiting.providerThreadId == pt.id
        and waiting.status is RunStatus.STARTING
        and not summary_plans.pending_of(state, waiting.id)
    ):
        draft.change("run", waiting.id, status=RunStatus.RUNNING)
    draft.event(
        state.thread.id,
        EventType.PROVIDER_THREAD_ATTACHED,
        providerThreadId=pt.id,
        nativeRef=native_ref,
        historyMode=history_mode.value,
    )
    return draft.updated("providerThread", pt)


def complete(
    draft: Draft,
    state: ThreadState,
    run: RunNode,
    native_turn_ref: str | None,
    items: Sequence[RunItem],
    checkpoint_ref: str | None,
    diff_summary: Sequence[FileDiffStat] | None,
) -> RunNode:
    summary_plans.require_settled(state, run)
    checkpoint = None
    if diff_summary is not None:
        checkpoint = CheckpointNode(
            id=draft.new_id("ckp"),
            runId=run.id,
            ref=checkpoint_ref,
            diffSummary=list(diff_summary),
            createdAt=draft.at,
        )
    done = run.model_copy(
        update={
            "status": RunStatus.COMPLETED,
            "nativeTurnRef": native_turn_ref,
            "completedAt": draft.at,
            "items": list(items),
            "checkpoint": checkpoint,
        }
    )
    _ended(draft, state, done)
    draft.content(run.id, list(items), checkpoint)
    draft.event(
        state.thread.id,
        EventType.RUN_COMPLETED,
        run.id,
        ordinal=run.ordinal,
        items=len(items),
        checkpointId=checkpoint.id if checkpoint else None,
    )
    return done


def fail(draft: Draft, state: ThreadState, run: RunNode, reason: str) -> RunNode:
    summary_plans.fail_pending(draft, state, run, reason)
    failed = run.model_copy(
        update={"status": RunStatus.FAILED, "failureReason": reason, "completedAt": draft.at}
    )
    _ended(draft, state, failed)
    draft.event(state.thread.id, EventType.RUN_FAILED, run.id, ordinal=run.ordinal, reason=reason)
    return failed


def _ended(draft: Draft, state: ThreadState, run: RunNode) -> None:
    """A run becomes history: its new status, its digest for summaries, and a native run
    of its provider thread."""
    draft.change(
        "run",
        run.id,
        status=run.status,
        nativeTurnRef=run.nativeTurnRef,
        failureReason=run.failureReason,
        completedAt=run.completedAt,
        digest=digest_of(run),
    )
    pt = state.provider_thread(run.providerThreadId)
    if pt is not None:
        draft.change(
            "providerThread", pt.id, nativeRanges=pt.native.with_ordinal(run.ordinal).flatten()
        )


# ---- rollback -----------------------------------------------------------------------


def rollback(draft: Draft, state: ThreadState, decision: RollbackDecision, to_ordinal: int) -> None:
    thread_id = state.thread.id
    for run_id in decision.rolledBackRunIds:
        draft.change("run", run_id, status=RunStatus.ROLLED_BACK, rolledBackTo=to_ordinal)
    for handoff_id in decision.supersededHandoffIds:
        draft.change("handoff", handoff_id, status=HandoffStatus.SUPERSEDED, updatedAt=draft.at)
    for pt_id, ranges in decision.nativeRanges.items():
        draft.change("providerThread", pt_id, nativeRanges=ranges.flatten())
    for pt_id, status in decision.providerThreadStatuses.items():
        draft.change("providerThread", pt_id, status=status)
    for transfer_id in decision.supersededTransferIds:
        draft.change("transfer", transfer_id, status=TransferStatus.SUPERSEDED)
    rolled_back = state.thread.rolled_back | decision.rolledBack
    draft.change("thread", thread_id, rolledBack=rolled_back.flatten())
    draft.event(
        thread_id,
        EventType.THREAD_ROLLED_BACK,
        toRunOrdinal=to_ordinal,
        rolledBackRuns=len(decision.rolledBackRunIds),
    )
    for handoff_id in decision.supersededHandoffIds:
        draft.event(
            thread_id, EventType.HANDOFF_SUPERSEDED, handoffId=handoff_id, reason="rollback"
        )
    for pt_id, status in decision.providerThreadStatuses.items():
        draft.event(
            thread_id, EventType.PROVIDER_THREAD_STATUS, providerThreadId=pt_id, status=status.value
        )
    for transfer_id in decision.supersededTransferIds:
        draft.event(
            thread_id, EventType.TRANSFER_SUPERSEDED, transferId=transfer_id, reason="rollback"
        )
