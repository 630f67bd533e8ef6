"""What a start (or a restart on a new provider thread) writes: the run, its provider
thread, the handoffs it injects and the transfers it consumes; the decision itself is
`resolvers.start.decision`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from graph import events
from graph.models import (
    HandoffNode,
    HandoffStatus,
    HandoffStrategy,
    ProviderThreadNode,
    ProviderThreadStatus,
    RunNode,
    SummarySource,
    TransferNode,
)
from graph.plan import HandoffChange, ProviderThreadChange, RunChange, ThreadChange
from graph.thread_state import ThreadState
from resolvers import transitions
from resolvers.draft import Draft
from resolvers.handoffs import awaited
from resolvers.handoffs.requests import SummaryRequest
from resolvers.handoffs.sources import LOCAL, Assignment
from resolvers.start.decision import StartDecision, StartRequest


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
        if plan.preparedId is not None:
            handoffs.append(_injected(draft, state, plan.preparedId, run_id, pt.id))
            continue
        node = plan.to_node(draft.new_id("hnd"), thread_id, pt.id, draft.at).model_copy(
            update={"targetRunId": run_id, "budget": decision.budget}
        )
        node, asked = awaited.sourced(node, assignment, cached or {})
        handoffs.append(node)
        requests.extend([asked] if asked else [])
        draft.handoff(node)
    for stale in decision.staleProviderThreadIds:
        transitions.retire_provider_thread(draft, stale, decision.stalenessSignals)
    if not created:
        transitions.reuse_provider_thread(draft, pt, request.model or pt.model)
    if handoffs:  # what the native thread will hold besides its own runs
        injected = sum(h.tokenEstimate for h in handoffs)
        draft.change(ProviderThreadChange(id=pt.id, heldTokens=pt.heldTokens + injected))
    status = awaited.run_status(pt, handoffs)
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
            model=request.model or pt.model,  # named, else the native thread's
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
        draft.change(
            ThreadChange(id=thread_id, lastOrdinal=run.ordinal, cleanContextRequested=False)
        )
        opened: events.Payload = events.RunStarted(
            ordinal=run.ordinal,
            provider=run.provider,
            strategy=decision.strategy,
            providerAction=decision.providerAction,
        )
    else:
        run = restart.model_copy(
            update={"consumedHandoffIds": [*restart.consumedHandoffIds, *handoff_ids]}
        )
        _record_failure(draft, state, restart, reason, decision, handoff_ids)
        draft.move(run.id, pt.id, handoff_ids)
        draft.change(
            RunChange(
                id=run.id,
                providerThreadId=pt.id,
                status=status,
                deltaChain=chain,
                startStrategy=decision.strategy,
                providerAction=decision.providerAction,
            )
        )
        opened = events.RunRestarted(
            ordinal=run.ordinal, strategy=decision.strategy, providerAction=decision.providerAction
        )
    draft.event(thread_id, opened, run.id)
    _resolve_transfers(draft, thread_id, decision, run.id, pt.id, handoff_ids)
    for handoff in handoffs:
        if handoff.id != decision.preparedHandoffId:  # made before, when it was prepared
            awaited.created_event(draft, thread_id, run.id, handoff)
    _supersede_prepared(draft, state, decision, handoffs, run.id)
    consumed = {resolution.transferId for resolution in decision.transfers}
    return StartOutcome(
        run=draft.updated(run),
        provider_thread=draft.updated(pt),
        handoffs=handoffs,
        transfers=[draft.updated(x) for x in state.transfers if x.id in consumed],
        decision=awaited.explained(decision, requests),
        requests=requests,
    )


def _injected(
    draft: Draft, state: ThreadState, handoff_id: str, run_id: str, pt_id: str
) -> HandoffNode:
    """The prepared handoff the start injects as it is: it gets its run and provider
    thread now (it had neither while it waited)."""
    found = next(h for h in state.prepared if h.id == handoff_id)
    change = HandoffChange(
        id=handoff_id, targetRunId=run_id, toProviderThreadId=pt_id, updatedAt=draft.at
    )
    draft.change(change)
    return found.model_copy(update=change.props)


def _supersede_prepared(
    draft: Draft,
    state: ThreadState,
    decision: StartDecision,
    handoffs: Sequence[HandoffNode],
    run_id: str,
) -> None:
    """A prepared handoff whose plan moved gives way to the fresh handoff of the thread's
    own runs, when the start builds one."""
    fresh = next(
        (
            h.id
            for h in handoffs
            if h.sourceThreadId == state.thread.id and h.transferId is None and h.coveredTo > 0
        ),
        None,
    )
    for handoff_id, reason in decision.supersededPrepared.items():
        transitions.supersede_handoff(
            draft,
            state.thread.id,
            handoff_id,
            run_id=run_id,
            reason=f"the plan moved: {reason}",
            by=fresh,
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
        state.thread.id, events.ProviderThreadCreated(providerThreadId=pt.id, provider=pt.provider)
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
    transitions.fail_provider_thread(draft, state.thread.id, run.id, failed_pt, reason)
    by_transfer = {
        plan.transferId: new for plan, new in zip(decision.handoffs, new_handoff_ids, strict=True)
    }
    for handoff in state.handoffs:
        if (
            handoff.id in run.consumedHandoffIds
            and handoff.toProviderThreadId == failed_pt
            and handoff.status is not HandoffStatus.SUPERSEDED
        ):
            transitions.supersede_handoff(
                draft,
                state.thread.id,
                handoff.id,
                run_id=run.id,
                reason="start failure",
                by=by_transfer.get(handoff.transferId),
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
        transitions.consume_transfer(
            draft,
            thread_id,
            run_id,
            resolution.transferId,
            resolution.strategy,
            pt_id,
            handoff_ids[index] if index is not None else None,
        )
