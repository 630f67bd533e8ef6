"""startRun's decision: the strategy ladder of SEMANTICS "startRun" (seed "Strategy Selection")."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field

from graph.errors import ErrorCode, ThreadlineError, conflict
from graph.models import (
    IN_PROGRESS,
    HandoffKind,
    HandoffNode,
    HandoffStatus,
    HandoffStrategy,
    InjectionMode,
    ProviderAction,
    ProviderThreadNode,
    ProviderThreadStatus,
    ResolutionStrategy,
    RunNode,
    RunStatus,
    StalenessSignal,
    StartStrategy,
    ThreadSnapshot,
    TransferNode,
    TransferStatus,
    TransferType,
)
from resolvers import transfers
from resolvers.coverage import Coverage, coverage, history
from resolvers.handoffs import NativeForkPlan, PlannedHandoff, plan_handoff, span
from resolvers.policy import StalenessPolicy
from resolvers.providers import ProviderCapabilities, ProviderRegistry
from resolvers.summarizer import summarize

REUSABLE = frozenset({ProviderThreadStatus.ACTIVE, ProviderThreadStatus.ROLLED_BACK})


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

    @property
    def injectionMode(self) -> InjectionMode:
        return self.provider.injection_mode

    @property
    def tokenEstimate(self) -> int:
        return sum(handoff.summary.tokenEstimate for handoff in self.handoffs)

    @property
    def contextText(self) -> str | None:
        texts = [handoff.summary.text for handoff in self.handoffs]
        return "\n".join(texts) if texts else None

    def covered_ordinals(self, snapshot: ThreadSnapshot) -> list[int]:
        """This thread's history runs that the injected context covers."""
        own = [h for h in self.handoffs if h.sourceThreadId == snapshot.thread.id]
        return [
            run.ordinal
            for run in history(snapshot.runs)
            if any(h.coveredFrom <= run.ordinal <= h.coveredTo for h in own)
        ]


def decide_start(
    snapshot: ThreadSnapshot,
    request: StartRequest,
    registry: ProviderRegistry,
    policy: StalenessPolicy,
    *,
    restart: RunNode | None = None,
    threads: Mapping[str, ThreadSnapshot] | None = None,
) -> StartDecision:
    """The start decision for `request` on `snapshot`'s thread.

    `threads` holds the snapshots of the thread's ancestors and of the sources of
    its incoming transfers. `restart` re-resolves a run whose provider action
    failed (reportStartFailure): its provider thread is out, the run gets a new one.
    """
    provider = registry.get(request.provider)
    related = threads or {}
    if restart is None:
        _refuse_when_busy(snapshot)
    explanation: list[str] = []
    pending_origin = next(
        (
            x
            for x in snapshot.transfers
            if x.status is TransferStatus.PENDING and x.type in transfers.ORIGINS
        ),
        None,
    )
    if pending_origin is not None and restart is None:
        decision = _resolve_origin(snapshot, pending_origin, provider, related, explanation)
    else:
        decision = _ladder(snapshot, request, provider, policy, restart, explanation)
        if decision.providerThread is None:
            decision = _with_inherited(decision, snapshot, related, restart)
    decision = _with_parent_deliveries(decision, snapshot, related, restart)
    _refuse_unsupported(decision)
    return decision


def _ladder(
    snapshot: ThreadSnapshot,
    request: StartRequest,
    provider: ProviderCapabilities,
    policy: StalenessPolicy,
    restart: RunNode | None,
    explanation: list[str],
) -> StartDecision:
    chosen, signals = _pick(snapshot, request, provider, policy, explanation)
    if restart is not None:
        chosen = None
        signals = [StalenessSignal.RESUME_FAILED]
        explanation.append("The provider action failed, so the run moves to a new provider thread.")
    if chosen is not None and not signals:
        decision = _reuse(snapshot, chosen, provider, policy, explanation)
    else:
        decision = _create(snapshot, history(snapshot.runs), provider, explanation)
    stale = [chosen.id] if chosen is not None and signals else []
    return decision.model_copy(
        update={"stalenessSignals": signals, "staleProviderThreadIds": stale}
    )


# ---- lineage transfers ------------------------------------------------------------


def _resolve_origin(
    snapshot: ThreadSnapshot,
    origin: TransferNode,
    provider: ProviderCapabilities,
    threads: Mapping[str, ThreadSnapshot],
    explanation: list[str],
) -> StartDecision:
    """First run of a fork or spawned thread: native fork when possible, else portable."""
    plan = transfers.native_fork(origin, provider, threads.get(origin.sourceThreadId))
    if isinstance(plan, NativeForkPlan):
        boundary = (
            f"at native turn {plan.lastTurnId}"
            if plan.lastTurnId
            else f"at its latest state, then roll back {plan.rollbackTurns} turn(s)"
        )
        explanation.append(
            f"Fork provider thread {plan.sourceProviderThreadRef} natively {boundary}."
        )
        return StartDecision(
            strategy=StartStrategy.NATIVE_FORK,
            providerAction=ProviderAction.NATIVE_FORK,
            provider=provider,
            providerThread=None,
            nativeFork=plan,
            explanation=explanation,
            transfers=[
                TransferResolution(transferId=origin.id, strategy=ResolutionStrategy.NATIVE_FORK)
            ],
        )
    explanation.append(f"Portable context instead of a native fork: {plan}.")
    handoffs = transfers.inherited_context(snapshot, threads, provider)
    return StartDecision(
        strategy=StartStrategy.PORTABLE_CONTEXT,
        providerAction=ProviderAction.CREATE,
        provider=provider,
        providerThread=None,
        handoffs=handoffs,
        explanation=explanation,
        transfers=[_portable_resolution(origin, handoffs)],
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
    snapshot: ThreadSnapshot,
    threads: Mapping[str, ThreadSnapshot],
    restart: RunNode | None,
) -> StartDecision:
    """A new provider thread on a fork or subagent carries the context it inherited."""
    inherited = transfers.inherited_context(snapshot, threads, decision.provider)
    if not inherited:
        return decision
    origin = transfers.origin(snapshot)
    resolutions = list(decision.transfers)
    if origin is not None and restart is not None and origin.consumedByRunId == restart.id:
        resolutions.append(_portable_resolution(origin, inherited))
    strategy = (
        StartStrategy.FULL_HANDOFF_NEW_THREAD
        if decision.handoffs
        else StartStrategy.PORTABLE_CONTEXT
    )
    return decision.model_copy(
        update={
            "strategy": strategy,
            "handoffs": [*inherited, *decision.handoffs],
            "transfers": resolutions,
            "explanation": [
                *decision.explanation,
                "The context this thread inherited goes with the new provider thread.",
            ],
        }
    )


def _with_parent_deliveries(
    decision: StartDecision,
    snapshot: ThreadSnapshot,
    threads: Mapping[str, ThreadSnapshot],
    restart: RunNode | None,
) -> StartDecision:
    """Merge-backs and subagent results waiting for this thread, injected beside the rest."""
    waiting = [
        x
        for x in snapshot.transfers
        if x.type in transfers.DELIVERED_TO_PARENT
        and (
            x.status is TransferStatus.PENDING
            or (restart is not None and x.consumedByRunId == restart.id)
        )
    ]
    handoffs = list(decision.handoffs)
    resolutions = list(decision.transfers)
    explanation = list(decision.explanation)
    for transfer in waiting:
        source = threads.get(transfer.sourceThreadId)
        if source is None:
            continue
        handoffs.append(transfers.parent_delivery(transfer, source, decision.provider))
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


def _refuse_when_busy(snapshot: ThreadSnapshot) -> None:
    busy = next((run for run in snapshot.runs if run.status in IN_PROGRESS), None)
    if busy is not None:
        raise conflict(
            f"Thread {snapshot.thread.id} already has run {busy.ordinal} in progress "
            f"({busy.status}); complete or fail it before starting another."
        )


def _pick(
    snapshot: ThreadSnapshot,
    request: StartRequest,
    provider: ProviderCapabilities,
    policy: StalenessPolicy,
    explanation: list[str],
) -> tuple[ProviderThreadNode | None, list[StalenessSignal]]:
    """The most recently used reusable provider thread for P, and its staleness signals."""
    candidates = sorted(
        (pt for pt in snapshot.providerThreads if pt.provider == provider.kind),
        key=lambda pt: (pt.lastUsedAt, pt.createdAt, pt.id),
        reverse=True,
    )
    if not candidates:
        explanation.append(f"No {provider.kind} provider thread exists on this thread yet.")
        return None, []
    chosen = next((pt for pt in candidates if _reusable(pt)), None)
    if chosen is None:
        latest = candidates[0]
        explanation.append(
            f"The latest {provider.kind} provider thread {latest.id} is {latest.status} "
            "and cannot be reused."
        )
        return None, _status_signals(latest)
    if not provider.supports_resume:
        explanation.append(f"{provider.kind} cannot resume a provider thread.")
        return None, []
    signals = staleness_signals(snapshot, chosen, request, provider, policy)
    if signals:
        names = ", ".join(signal.value for signal in signals)
        explanation.append(f"Provider thread {chosen.id} is stale ({names}), so it is not reused.")
    return chosen, signals


def _reusable(pt: ProviderThreadNode) -> bool:
    return pt.status in REUSABLE or (
        pt.status is ProviderThreadStatus.PENDING and bool(pt.nativeRef)
    )


def _status_signals(pt: ProviderThreadNode) -> list[StalenessSignal]:
    if pt.status is ProviderThreadStatus.FAILED:
        return [StalenessSignal.RESUME_FAILED]
    if pt.status is ProviderThreadStatus.DIVERGENT:
        return [StalenessSignal.ROLLED_BACK_OR_DIVERGENT]
    return []


def staleness_signals(
    snapshot: ThreadSnapshot,
    pt: ProviderThreadNode,
    request: StartRequest,
    provider: ProviderCapabilities,
    policy: StalenessPolicy,
) -> list[StalenessSignal]:
    """Every staleness signal that holds for `pt`, in the contract's order."""
    runs = history(snapshot.runs)
    signals: list[StalenessSignal] = []
    last_native = max((r.ordinal for r in runs if r.providerThreadId == pt.id), default=0)
    off_provider = [r for r in runs if r.ordinal > last_native and r.providerThreadId != pt.id]
    if len(off_provider) > policy.max_off_provider_runs:
        signals.append(StalenessSignal.TOO_MANY_OFF_PROVIDER_RUNS)
    received = [h for h in snapshot.handoffs if h.toProviderThreadId == pt.id and _live(h)]
    if len(received) >= policy.max_chained_handoffs:
        signals.append(StalenessSignal.TOO_MANY_CHAINED_HANDOFFS)
    if request.runtimeMode is not None and request.runtimeMode != pt.runtimeMode:
        signals.append(StalenessSignal.INCOMPATIBLE_SETTINGS)
    signals.extend(_status_signals(pt))
    if snapshot.thread.cleanContextRequested:
        signals.append(StalenessSignal.CLEAN_CONTEXT_REQUESTED)
    missing = _missing_runs(snapshot, pt)
    if missing and summarize(missing, title="").tokenEstimate > provider.max_handoff_tokens:
        signals.append(StalenessSignal.EXCEEDS_CONTEXT_POLICY)
    return signals


def _live(handoff: HandoffNode) -> bool:
    return handoff.status in (HandoffStatus.READY, HandoffStatus.PENDING)


def _missing_runs(snapshot: ThreadSnapshot, pt: ProviderThreadNode) -> list[RunNode]:
    missing = set(_coverage(snapshot, pt).missingRunOrdinals)
    return [run for run in history(snapshot.runs) if run.ordinal in missing]


def _coverage(snapshot: ThreadSnapshot, pt: ProviderThreadNode) -> Coverage:
    return coverage(pt, snapshot.runs, snapshot.handoffs)


# ---- the ladder ----------------------------------------------------------------


def _reuse(
    snapshot: ThreadSnapshot,
    pt: ProviderThreadNode,
    provider: ProviderCapabilities,
    policy: StalenessPolicy,
    explanation: list[str],
) -> StartDecision:
    cov = _coverage(snapshot, pt)
    if not cov.missingRunOrdinals:
        action = ProviderAction.CONTINUE if _ran_previous(snapshot, pt) else ProviderAction.RESUME
        explanation.append(
            f"Provider thread {pt.id} already covers every run; {action.value.lower()} it "
            "without a handoff."
        )
        return StartDecision(
            strategy=StartStrategy.NO_HANDOFF,
            providerAction=action,
            provider=provider,
            providerThread=pt,
            explanation=explanation,
        )
    missing = _missing_runs(snapshot, pt)
    chain = delta_chain(snapshot, pt)
    if _is_suffix(cov) and chain < policy.max_delta_chain:
        explanation.append(
            f"Provider thread {pt.id} missed runs {span(missing)}; resume it with a delta "
            "summary of those runs."
        )
        handoff = plan_handoff(
            snapshot.thread.id,
            missing,
            provider,
            HandoffStrategy.DELTA_SINCE_TARGET_LAST_SEEN,
            HandoffKind.DELTA_CONTEXT,
            exclude_pt=pt.id,
        )
        return StartDecision(
            strategy=StartStrategy.DELTA_HANDOFF_EXISTING_THREAD,
            providerAction=ProviderAction.RESUME,
            provider=provider,
            providerThread=pt,
            handoffs=[handoff],
            explanation=explanation,
        )
    reason = (
        f"its delta chain is already {chain} long (limit {policy.max_delta_chain})"
        if _is_suffix(cov)
        else "the runs it missed are not one contiguous suffix"
    )
    explanation.append(f"Provider thread {pt.id} is resumed with a full summary because {reason}.")
    handoff = plan_handoff(
        snapshot.thread.id,
        history(snapshot.runs),
        provider,
        HandoffStrategy.FULL_THREAD_SUMMARY,
        HandoffKind.PORTABLE_CONTEXT,
        exclude_pt=pt.id,
    )
    return StartDecision(
        strategy=StartStrategy.FULL_HANDOFF_EXISTING_THREAD,
        providerAction=ProviderAction.RESUME,
        provider=provider,
        providerThread=pt,
        handoffs=[handoff],
        explanation=explanation,
    )


def _create(
    snapshot: ThreadSnapshot,
    runs: list[RunNode],
    provider: ProviderCapabilities,
    explanation: list[str],
) -> StartDecision:
    if not runs:
        explanation.append("The thread has no history to transfer; create a provider thread.")
        return StartDecision(
            strategy=StartStrategy.NO_HANDOFF,
            providerAction=ProviderAction.CREATE,
            provider=provider,
            providerThread=None,
            explanation=explanation,
        )
    explanation.append(
        f"Create a new {provider.kind} provider thread with a full summary of runs {span(runs)}."
    )
    handoff = plan_handoff(
        snapshot.thread.id,
        runs,
        provider,
        HandoffStrategy.FULL_THREAD_SUMMARY,
        HandoffKind.PORTABLE_CONTEXT,
    )
    return StartDecision(
        strategy=StartStrategy.FULL_HANDOFF_NEW_THREAD,
        providerAction=ProviderAction.CREATE,
        provider=provider,
        providerThread=None,
        handoffs=[handoff],
        explanation=explanation,
    )


def _refuse_unsupported(decision: StartDecision) -> None:
    if decision.handoffs and not decision.provider.accepts_handoff:
        raise ThreadlineError(
            ErrorCode.UNSUPPORTED_TRANSFER,
            f"Context must be transferred to {decision.provider.kind}, which accepts no handoff "
            "context; pick a provider that does or request clean context on a new thread.",
        )


def _ran_previous(snapshot: ThreadSnapshot, pt: ProviderThreadNode) -> bool:
    previous = max(
        (
            run
            for run in snapshot.runs
            if run.status is not RunStatus.ROLLED_BACK and run.status not in IN_PROGRESS
        ),
        key=lambda run: run.ordinal,
        default=None,
    )
    return previous is not None and previous.providerThreadId == pt.id


def _is_suffix(cov: Coverage) -> bool:
    last_covered = max(cov.coveredRunOrdinals, default=0)
    return all(ordinal > last_covered for ordinal in cov.missingRunOrdinals)


def delta_chain(snapshot: ThreadSnapshot, pt: ProviderThreadNode) -> int:
    """Runs on `pt`, newest first, that each started with a delta handoff, until one did not."""
    deltas = {
        h.id
        for h in snapshot.handoffs
        if h.toProviderThreadId == pt.id
        and h.strategy is HandoffStrategy.DELTA_SINCE_TARGET_LAST_SEEN
    }
    runs = sorted(
        (
            r
            for r in snapshot.runs
            if r.providerThreadId == pt.id and r.status is not RunStatus.ROLLED_BACK
        ),
        key=lambda run: run.ordinal,
        reverse=True,
    )
    chain = 0
    for run in runs:
        if not deltas.intersection(run.consumedHandoffIds):
            break
        chain += 1
    return chain
