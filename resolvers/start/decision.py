"""startRun's decision: the strategy ladder of docs/SEMANTICS.md "startRun".

It reads the thread's state (ranges and a few nodes) and asks `Content` for the runs a
handoff summarises; a start that transfers no context reads no run at all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

from graph.errors import ErrorCode, ThreadlineError, conflict
from graph.models import (
    ContextBudget,
    HandoffKind,
    HandoffStatus,
    HandoffStrategy,
    InjectionMode,
    ProviderAction,
    ProviderThreadNode,
    ResolutionStrategy,
    RunNode,
    StalenessSignal,
    StartStrategy,
    TransferNode,
    TransferStatus,
    TransferType,
)
from graph.ranges import Ranges
from graph.thread_state import ThreadState
from resolvers.content import Content
from resolvers.coverage import Coverage, coverage, handoff_ranges
from resolvers.handoffs.budget import ContextPolicy, budget_into, explained, fits, fitted, too_large
from resolvers.handoffs.planning import NativeForkPlan, PlannedHandoff, plan_handoff, runs_named
from resolvers.lineage import points
from resolvers.providers import ProviderCapabilities, ProviderRegistry
from resolvers.start import injection, prepared, staleness, transfers
from resolvers.start.staleness import StalenessPolicy

DEFAULT_CONTEXT = ContextPolicy()


class StartRequest(BaseModel):
    model_config = ConfigDict(frozen=True)

    provider: str
    input: str
    model: str | None = None
    runtimeMode: str | None = None


class TransferResolution(BaseModel):
    """How one pending incoming transfer is resolved by this start."""

    model_config = ConfigDict(frozen=True)

    transferId: str
    strategy: ResolutionStrategy
    handoffIndex: int | None = None  # index into StartDecision.handoffs

    @property
    def native(self) -> bool:
        return self.strategy is ResolutionStrategy.NATIVE_FORK


class StartDecision(BaseModel):
    model_config = ConfigDict(frozen=True)

    strategy: StartStrategy
    providerAction: ProviderAction
    provider: ProviderCapabilities
    providerThread: ProviderThreadNode | None  # None: a new one is created
    handoffs: list[PlannedHandoff] = Field(default_factory=list)
    nativeFork: NativeForkPlan | None = None
    stalenessSignals: list[StalenessSignal] = Field(default_factory=list)
    staleProviderThreadIds: list[str] = Field(default_factory=list)
    transfers: list[TransferResolution] = Field(default_factory=list)
    explanation: list[str] = Field(default_factory=list)
    budget: ContextBudget | None = None  # what its handoffs may fill together
    # A handoff prepared for this start (prepareHandoff): injected as it is, or superseded
    # because the plan moved (with why).
    preparedHandoffId: str | None = None
    supersededPrepared: dict[str, str] = Field(default_factory=dict)

    @classmethod
    def of(
        cls,
        strategy: StartStrategy,
        action: ProviderAction,
        provider: ProviderCapabilities,
        explanation: list[str],
        handoffs: Sequence[PlannedHandoff] = (),
        *,
        pt: ProviderThreadNode | None = None,
        native_fork: NativeForkPlan | None = None,
        transfers: Sequence[TransferResolution] = (),
        budget: ContextBudget | None = None,
    ) -> StartDecision:
        """A start on `pt` (None: a new provider thread) injecting `handoffs`."""
        return cls(
            strategy=strategy,
            providerAction=action,
            provider=provider,
            providerThread=pt,
            handoffs=list(handoffs),
            nativeFork=native_fork,
            transfers=list(transfers),
            explanation=explanation,
            budget=budget,
        )

    @property
    def injection_mode(self) -> InjectionMode:
        return self.provider.injection_mode

    @property
    def token_estimate(self) -> int:
        return sum(handoff.summary.tokenEstimate for handoff in self.handoffs)

    @property
    def context_text(self) -> str | None:
        texts = [handoff.summary.text for handoff in self.handoffs]
        return "\n".join(texts) if texts else None

    def covered_ordinals(self, state: ThreadState) -> list[int]:
        """This thread's history runs that the injected context covers."""
        return list(handoff_ranges(state.thread.id, self.handoffs) & state.history)


def decide_start(
    state: ThreadState,
    request: StartRequest,
    registry: ProviderRegistry,
    policy: StalenessPolicy,
    content: Content,
    *,
    restart: RunNode | None = None,
    threads: Mapping[str, ThreadState] | None = None,
    context: ContextPolicy = DEFAULT_CONTEXT,
) -> StartDecision:
    """The start decision for `request` on `state`'s thread.

    `threads` holds the states of the thread's ancestors and of the sources of its
    incoming transfers; `context` sets the reserve of the start's budget. `restart`
    re-resolves a run whose provider action failed (reportStartFailure): its provider
    thread is out, the run gets a new one. When `content` reports missing runs afterwards,
    load them and decide again.
    """
    provider = registry.get(request.provider)
    related = threads or {}
    if restart is None:
        _refuse_when_busy(state)
    explanation: list[str] = []
    pending_origin = next(
        (
            x
            for x in state.transfers
            if x.status is TransferStatus.PENDING and x.type in points.ORIGINS
        ),
        None,
    )
    if pending_origin is not None and restart is None:
        decision = _resolve_origin(state, pending_origin, provider, related, content, explanation)
    else:
        decision = _ladder(state, request, provider, policy, context, restart, content, explanation)
        decision = _with_inherited(decision, state, related, restart, content)
    waiting = _deliveries_waiting(state, restart)
    decision = _with_parent_deliveries(decision, waiting, related, content)
    _refuse_unsupported(decision)
    ordered = _in_injection_order(decision, state, related)
    if restart is None:
        ordered = _with_prepared(ordered, state, request, context)
    return _within_budget(ordered, request, context, content)


def _with_prepared(
    decision: StartDecision, state: ThreadState, request: StartRequest, context: ContextPolicy
) -> StartDecision:
    """The handoff prepared for this start in place of the thread's own, or superseded
    when the plan moved (`resolvers.start.prepared`)."""
    budget = budget_into(decision.provider, decision.providerThread, request.model, context)
    choice = prepared.choose(
        state, decision.provider.kind, decision.handoffs, decision.providerThread, budget
    )
    said = choice.said
    if said is None:
        return decision
    superseded = choice.superseded
    return decision.model_copy(
        update={
            "handoffs": choice.handoffs,
            "preparedHandoffId": choice.used.id if choice.used else None,
            "supersededPrepared": {superseded.id: choice.reason or ""} if superseded else {},
            "explanation": [*decision.explanation, said],
        }
    )


def _within_budget(
    decision: StartDecision, request: StartRequest, context: ContextPolicy, content: Content
) -> StartDecision:
    """The decision with its budget, its handoffs sharing it (`resolvers.handoffs.budget`).
    Refused for size only with every run read: without them, the protected items it would
    name are those of a text lacking those runs' items."""
    budget = budget_into(decision.provider, decision.providerThread, request.model, context)
    if not fits(decision.handoffs, budget) and content.complete:
        raise too_large(budget, decision.handoffs)
    handoffs = fitted(decision.handoffs, budget)
    explanation = [*decision.explanation, explained(budget)] if decision.handoffs else []
    return decision.model_copy(
        update={
            "budget": budget,
            "handoffs": handoffs,
            "explanation": explanation or decision.explanation,
        }
    )


def _in_injection_order(
    decision: StartDecision, state: ThreadState, related: Mapping[str, ThreadState]
) -> StartDecision:
    """The decision's handoffs in the order they are injected (`resolvers.start.injection`),
    each transfer still pointing at the handoff made for it."""
    positions = injection.order(decision.handoffs, state, related)
    if positions == list(range(len(positions))):
        return decision
    moved_to = {old: new for new, old in enumerate(positions)}
    return decision.model_copy(
        update={
            "handoffs": [decision.handoffs[i] for i in positions],
            "transfers": [
                t.model_copy(update={"handoffIndex": moved_to[t.handoffIndex]})
                if t.handoffIndex is not None
                else t
                for t in decision.transfers
            ],
        }
    )


def _ladder(
    state: ThreadState,
    request: StartRequest,
    provider: ProviderCapabilities,
    policy: StalenessPolicy,
    context: ContextPolicy,
    restart: RunNode | None,
    content: Content,
    explanation: list[str],
) -> StartDecision:
    chosen, signals = _pick(state, request, provider, policy, context, content, explanation)
    if restart is not None:
        chosen = None
        signals = [StalenessSignal.RESUME_FAILED]
        explanation.append("The provider action failed, so the run moves to a new provider thread.")
    if chosen is not None and not signals:
        decision = _reuse(state, chosen, provider, policy, content, explanation)
    else:
        decision = _create(state, provider, content, explanation)
    stale = [chosen.id] if chosen is not None and signals else []
    return decision.model_copy(
        update={"stalenessSignals": signals, "staleProviderThreadIds": stale}
    )


# ---- lineage transfers ------------------------------------------------------------


def _resolve_origin(
    state: ThreadState,
    origin: TransferNode,
    provider: ProviderCapabilities,
    threads: Mapping[str, ThreadState],
    content: Content,
    explanation: list[str],
) -> StartDecision:
    """First run of a fork or spawned thread: native fork when possible, else portable."""
    plan = transfers.native_fork(origin, provider, threads.get(origin.sourceThreadId))
    if isinstance(plan, NativeForkPlan):
        at = origin.sourcePoint
        boundary = (
            f"at native message {plan.lastTurnId} (item {at.itemIndex} of run {at.runOrdinal})"
            if at.itemIndex is not None
            else f"at native turn {plan.lastTurnId}"
            if plan.lastTurnId
            else f"at its latest state, then roll back {plan.rollbackTurns} turn(s)"
        )
        explanation.append(
            f"Fork provider thread {plan.sourceProviderThreadRef} natively {boundary}."
        )
        native = TransferResolution(transferId=origin.id, strategy=ResolutionStrategy.NATIVE_FORK)
        return StartDecision.of(
            StartStrategy.NATIVE_FORK,
            ProviderAction.NATIVE_FORK,
            provider,
            explanation,
            native_fork=plan,
            transfers=[native],
        )
    explanation.append(f"Portable context instead of a native fork: {plan}.")
    handoffs = transfers.inherited_context(state, threads, provider, content)
    resolution = _portable_resolution(origin, handoffs)
    return StartDecision.of(
        StartStrategy.PORTABLE_CONTEXT,
        ProviderAction.CREATE,
        provider,
        explanation,
        handoffs,
        transfers=[resolution],
    )


def _portable_resolution(
    origin: TransferNode, handoffs: list[PlannedHandoff]
) -> TransferResolution:
    index = next((i for i, h in enumerate(handoffs) if h.transferId == origin.id), None)
    return TransferResolution(
        transferId=origin.id, strategy=ResolutionStrategy.PORTABLE_CONTEXT, handoffIndex=index
    )


def _with_inherited(
    decision: StartDecision,
    state: ThreadState,
    threads: Mapping[str, ThreadState],
    restart: RunNode | None,
    content: Content,
) -> StartDecision:
    """A fork or subagent's context inherited from its ancestors goes with a new provider
    thread, and again into a reused one that no longer holds it (the run it was injected
    into was rolled back); a provider thread made by native fork holds it natively."""
    pt = decision.providerThread
    inherited = transfers.inherited_context(state, threads, decision.provider, content, into=pt)
    if not inherited:
        return decision
    origin = points.origin(state)
    resolutions = list(decision.transfers)
    if origin is not None and restart is not None and origin.consumedByRunId == restart.id:
        resolutions.append(_portable_resolution(origin, inherited))
    # The ladder's rung when it transfers the thread's own runs too; else the inherited
    # context is the whole transfer.
    strategy = decision.strategy if decision.handoffs else StartStrategy.PORTABLE_CONTEXT
    why = (
        "The context this thread inherited goes with the new provider thread."
        if pt is None
        else f"Provider thread {pt.id} no longer holds the context this thread inherited "
        "(the run it was injected into is not history), so it is sent again."
    )
    return decision.model_copy(
        update={
            "strategy": strategy,
            "handoffs": [*inherited, *decision.handoffs],
            "transfers": resolutions,
            "explanation": [*decision.explanation, why],
        }
    )


def _deliveries_waiting(state: ThreadState, restart: RunNode | None) -> list[TransferNode]:
    """Merge-backs and subagent results for this thread's next run: pending, or consumed
    by the run that restarts."""
    return [
        x
        for x in state.transfers
        if x.type in points.DELIVERED_TO_PARENT
        and (
            x.status is TransferStatus.PENDING
            or (restart is not None and x.consumedByRunId == restart.id)
        )
    ]


def _with_parent_deliveries(
    decision: StartDecision,
    waiting: list[TransferNode],
    threads: Mapping[str, ThreadState],
    content: Content,
) -> StartDecision:
    """The `waiting` merge-backs and subagent results, injected beside the rest."""
    handoffs = list(decision.handoffs)
    resolutions = list(decision.transfers)
    explanation = list(decision.explanation)
    for transfer in waiting:
        source = threads.get(transfer.sourceThreadId)
        if source is None:
            continue
        handoffs.append(transfers.parent_delivery(transfer, source, decision.provider, content))
        resolutions.append(
            TransferResolution(
                transferId=transfer.id,
                strategy=ResolutionStrategy.DELTA_CONTEXT,
                handoffIndex=len(handoffs) - 1,
            )
        )
        what = "merge-back" if transfer.type is TransferType.MERGE_BACK else "subagent result"
        explanation.append(f"The {what} from thread {source.thread.id} is injected too.")
    if not waiting:
        return decision
    return decision.model_copy(
        update={"handoffs": handoffs, "transfers": resolutions, "explanation": explanation}
    )


# ---- picking and judging the provider thread ---------------------------------


def _refuse_when_busy(state: ThreadState) -> None:
    busy = state.run_in_progress
    if busy is None:
        return
    waiting = [
        f"{h.id} ({h.summarySource})"
        for h in state.handoffs
        if h.targetRunId == busy.id and h.status is HandoffStatus.PENDING
    ]
    settle = (
        f"; it waits for the summary of handoff {', '.join(waiting)}, which "
        "submitHandoffSummary, regenerateHandoff or reportStartFailure settle"
        if waiting
        else ""
    )
    raise conflict(
        f"Thread {state.thread.id} already has run {busy.ordinal} in progress "
        f"({busy.status}){settle}; complete or fail it before starting another."
    )


def _pick(
    state: ThreadState,
    request: StartRequest,
    provider: ProviderCapabilities,
    policy: StalenessPolicy,
    context: ContextPolicy,
    content: Content,
    explanation: list[str],
) -> tuple[ProviderThreadNode | None, list[StalenessSignal]]:
    """The most recently used reusable provider thread for P, and its staleness signals."""
    candidates = sorted(
        (pt for pt in state.providerThreads if pt.provider == provider.kind),
        key=lambda pt: (pt.lastUsedAt, pt.createdAt, pt.id),
        reverse=True,
    )
    if not candidates:
        explanation.append(f"No {provider.kind} provider thread exists on this thread yet.")
        return None, []
    chosen = next((pt for pt in candidates if staleness.reusable(pt)), None)
    if chosen is None:
        latest = candidates[0]
        explanation.append(
            f"The latest {provider.kind} provider thread {latest.id} is {latest.status} "
            "and cannot be reused."
        )
        return None, staleness.status_signals(latest)
    if not provider.supports_resume:
        explanation.append(f"{provider.kind} cannot resume a provider thread.")
        return None, []
    room = budget_into(provider, chosen, request.model, context).budgetTokens
    signals = staleness.signals(state, chosen, request.runtimeMode, room, policy, content)
    if signals:
        names = ", ".join(signal.value for signal in signals)
        explanation.append(f"Provider thread {chosen.id} is stale ({names}), so it is not reused.")
    return chosen, signals


def _coverage(state: ThreadState, pt: ProviderThreadNode) -> Coverage:
    return coverage(pt, state.history, state.handoffs)


# ---- the ladder ----------------------------------------------------------------


def _reuse(
    state: ThreadState,
    pt: ProviderThreadNode,
    provider: ProviderCapabilities,
    policy: StalenessPolicy,
    content: Content,
    explanation: list[str],
) -> StartDecision:
    cov = _coverage(state, pt)
    if not cov.missing:
        action = ProviderAction.CONTINUE if _ran_previous(state, pt) else ProviderAction.RESUME
        explanation.append(
            f"Provider thread {pt.id} already covers every run; {action.value.lower()} it "
            "without a handoff."
        )
        return StartDecision.of(StartStrategy.NO_HANDOFF, action, provider, explanation, pt=pt)
    chain = state.deltaChains.get(pt.id, 0)
    if cov.is_suffix() and chain < policy.max_delta_chain:
        explanation.append(
            f"Provider thread {pt.id} missed {runs_named(cov.missing)}; resume it with a delta "
            "summary of what it missed."
        )
        rung = StartStrategy.DELTA_HANDOFF_EXISTING_THREAD
        return _with_handoff(rung, state, cov.missing, provider, pt, content, explanation)
    reason = (
        f"its delta chain is already {chain} long (limit {policy.max_delta_chain})"
        if cov.is_suffix()
        else "the runs it missed are not one contiguous suffix"
    )
    explanation.append(f"Provider thread {pt.id} is resumed with a full summary because {reason}.")
    rung = StartStrategy.FULL_HANDOFF_EXISTING_THREAD
    return _with_handoff(rung, state, state.history, provider, pt, content, explanation)


def _create(
    state: ThreadState,
    provider: ProviderCapabilities,
    content: Content,
    explanation: list[str],
) -> StartDecision:
    history = state.history
    if not history:
        explanation.append("The thread has no history to transfer; create a provider thread.")
        return StartDecision.of(
            StartStrategy.NO_HANDOFF, ProviderAction.CREATE, provider, explanation
        )
    explanation.append(
        f"Create a new {provider.kind} provider thread with a full summary of "
        f"{runs_named(history)}."
    )
    return _with_handoff(
        StartStrategy.FULL_HANDOFF_NEW_THREAD, state, history, provider, None, content, explanation
    )


# What each rung that transfers context summarises, and how the provider takes it.
RUNGS: dict[StartStrategy, tuple[HandoffStrategy, HandoffKind, ProviderAction]] = {
    StartStrategy.DELTA_HANDOFF_EXISTING_THREAD: (
        HandoffStrategy.DELTA_SINCE_TARGET_LAST_SEEN,
        HandoffKind.DELTA_CONTEXT,
        ProviderAction.RESUME,
    ),
    StartStrategy.FULL_HANDOFF_EXISTING_THREAD: (
        HandoffStrategy.FULL_THREAD_SUMMARY,
        HandoffKind.PORTABLE_CONTEXT,
        ProviderAction.RESUME,
    ),
    StartStrategy.FULL_HANDOFF_NEW_THREAD: (
        HandoffStrategy.FULL_THREAD_SUMMARY,
        HandoffKind.PORTABLE_CONTEXT,
        ProviderAction.CREATE,
    ),
}


def _with_handoff(
    rung: StartStrategy,
    state: ThreadState,
    ordinals: Ranges,
    provider: ProviderCapabilities,
    pt: ProviderThreadNode | None,
    content: Content,
    explanation: list[str],
) -> StartDecision:
    """A start on `pt` (None: a new one) with one handoff of the runs `ordinals`; what
    `pt` ran itself is left out of the summary."""
    strategy, kind, action = RUNGS[rung]
    handoff = plan_handoff(
        state.thread.id,
        content.runs(state.thread.id, ordinals),
        provider,
        strategy,
        kind,
        exclude_pt=pt.id if pt is not None else None,
        clock=content.clock,
    )
    return StartDecision.of(rung, action, provider, explanation, [handoff], pt=pt)


def _refuse_unsupported(decision: StartDecision) -> None:
    if decision.handoffs and not decision.provider.accepts_handoff:
        raise ThreadlineError(
            ErrorCode.UNSUPPORTED_TRANSFER,
            f"Context must be transferred to {decision.provider.kind}, which accepts no handoff "
            "context; pick a provider that does or request clean context on a new thread.",
        )


def _ran_previous(state: ThreadState, pt: ProviderThreadNode) -> bool:
    """`pt` ran the latest run that is neither rolled back nor in progress."""
    previous = state.history.last
    return previous is not None and previous in pt.native
