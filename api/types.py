"""GraphQL object types of the contract, each backed by a graph model."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any, TypeVar, cast

import strawberry
from strawberry.scalars import JSON

from api.context import Context
from graph import models
from graph.errors import ErrorCode, ThreadlineError
from graph.ranges import Ranges
from resolvers.coverage import Coverage
from resolvers.coverage import coverage as compute_coverage
from resolvers.summary_requests import SummaryRequest

Info = strawberry.Info[Context, None]
T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])
N = TypeVar("N")
W = TypeVar("W")


def described(description: str, *, mutation: bool = False) -> Callable[[F], F]:
    """`@strawberry.field(description=...)` (or mutation) with its type kept: Strawberry's
    overload for that form is typed as returning Any."""
    decorate = strawberry.mutation if mutation else strawberry.field
    return cast(Callable[[F], F], decorate(description=description))


# The graph's enums are the contract's: registered with Strawberry once, used as they are.
Actor = models.Actor
ThreadRelationship = models.ThreadRelationship
RunStatus = models.RunStatus
ProviderThreadStatus = models.ProviderThreadStatus
HistoryMode = models.HistoryMode
TransferType = models.TransferType
TransferStatus = models.TransferStatus
ResolutionStrategy = models.ResolutionStrategy
HandoffStrategy = models.HandoffStrategy
HandoffKind = models.HandoffKind
HandoffStatus = models.HandoffStatus
StartStrategy = models.StartStrategy
ProviderAction = models.ProviderAction
InjectionMode = models.InjectionMode
RunItemKind = models.RunItemKind
StalenessSignal = models.StalenessSignal
LineageDirection = models.LineageDirection
SummarySource = models.SummarySource
for _enum in (
    Actor,
    ThreadRelationship,
    RunStatus,
    ProviderThreadStatus,
    HistoryMode,
    TransferType,
    TransferStatus,
    ResolutionStrategy,
    HandoffStrategy,
    HandoffKind,
    HandoffStatus,
    StartStrategy,
    ProviderAction,
    InjectionMode,
    RunItemKind,
    StalenessSignal,
    LineageDirection,
    SummarySource,
):
    strawberry.enum(_enum)


@strawberry.type
class Provider:
    kind: str
    supports_resume: bool
    supports_native_fork: bool
    supports_native_fork_at_turn: bool
    supports_rollback: bool
    accepts_handoff: bool
    injection_mode: InjectionMode
    max_handoff_tokens: int
    summary_source: SummarySource | None = strawberry.field(
        description="Who writes the handoffs it receives; null: the service's default."
    )


@strawberry.type
class Thread:
    node: strawberry.Private[models.ThreadNode]
    id: strawberry.ID
    title: str | None
    created_by: Actor
    created_at: datetime
    relationship_to_parent: ThreadRelationship | None
    clean_context_requested: bool

    @classmethod
    def of(cls, node: models.ThreadNode) -> Thread:
        return cls(
            node=node,
            id=strawberry.ID(node.id),
            title=node.title,
            created_by=node.createdBy,
            created_at=node.createdAt,
            relationship_to_parent=node.relationshipToParent,
            clean_context_requested=node.cleanContextRequested,
        )

    @strawberry.field
    async def parent(self, info: Info) -> Thread | None:
        return await thread_by_id(info, self.node.parentId)

    @strawberry.field
    async def root(self, info: Info) -> Thread:
        if self.node.rootId == self.node.id:
            return self
        root = await thread_by_id(info, self.node.rootId)
        return root or self

    @strawberry.field
    async def children(self, info: Info) -> list[Thread]:
        found = await info.context.loaders.children_of_thread.load(self.node.id)
        return [Thread.of(child) for child in found]

    @strawberry.field
    async def runs(self, info: Info, include_rolled_back: bool | None = False) -> list[Run]:
        found = await info.context.loaders.runs_of_thread.load(self.node.id)
        return [
            Run.of(run)
            for run in found
            if include_rolled_back or run.status is not models.RunStatus.ROLLED_BACK
        ]

    @strawberry.field
    async def active_run(self, info: Info) -> Run | None:
        found = await info.context.loaders.runs_of_thread.load(self.node.id)
        return next((Run.of(r) for r in found if r.status in models.IN_PROGRESS), None)

    @strawberry.field
    async def latest_stable_run(self, info: Info) -> Run | None:
        found = await info.context.loaders.runs_of_thread.load(self.node.id)
        stable = [r for r in found if r.status is models.RunStatus.COMPLETED and r.checkpoint]
        return Run.of(stable[-1]) if stable else None

    @strawberry.field
    async def provider_threads(self, info: Info) -> list[ProviderThread]:
        found = await info.context.loaders.provider_threads_of_thread.load(self.node.id)
        return [ProviderThread.of(pt) for pt in found]

    @strawberry.field
    async def coverage(self, info: Info) -> list[ProviderThreadCoverage]:
        state = await info.context.loaders.coverage_state.load(self.node.id)
        if state is None:
            return []
        return [
            ProviderThreadCoverage.of(compute_coverage(pt, state.history, state.handoffs))
            for pt in state.providerThreads
        ]

    @strawberry.field
    async def incoming_transfers(self, info: Info) -> list[ContextTransfer]:
        found = await info.context.loaders.transfers_in.load(self.node.id)
        return [ContextTransfer.of(x) for x in found]

    @strawberry.field
    async def outgoing_transfers(self, info: Info) -> list[ContextTransfer]:
        found = await info.context.loaders.transfers_out.load(self.node.id)
        return [ContextTransfer.of(x) for x in found]


@strawberry.type
class RunItem:
    kind: RunItemKind
    text: str
    key: str | None
    path: str | None
    attributes: JSON | None

    @classmethod
    def of(cls, item: models.RunItem) -> RunItem:
        return cls(
            kind=item.kind,
            text=item.text,
            key=item.key,
            path=item.path,
            attributes=JSON(item.attributes) if item.attributes is not None else None,
        )


@strawberry.type
class FileDiffStat:
    path: str
    additions: int
    deletions: int
    change_kind: str


@strawberry.type
class Checkpoint:
    node: strawberry.Private[models.CheckpointNode]
    id: strawberry.ID
    ref: str | None
    created_at: datetime

    @classmethod
    def of(cls, node: models.CheckpointNode) -> Checkpoint:
        return cls(
            node=node,
            id=strawberry.ID(node.id),
            ref=node.ref,
            created_at=node.createdAt,
        )

    @strawberry.field
    def diff_summary(self) -> list[FileDiffStat]:
        return [
            FileDiffStat(
                path=s.path, additions=s.additions, deletions=s.deletions, change_kind=s.changeKind
            )
            for s in self.node.diffSummary
        ]

    @strawberry.field
    async def run(self, info: Info) -> Run:
        return await required(run_by_id(info, self.node.runId))


@strawberry.type
class Run:
    node: strawberry.Private[models.RunNode]
    id: strawberry.ID
    ordinal: int
    provider: str
    model: str | None
    runtime_mode: str | None
    status: RunStatus
    input: str
    native_turn_ref: str | None
    failure_reason: str | None
    started_at: datetime
    completed_at: datetime | None

    @classmethod
    def of(cls, node: models.RunNode) -> Run:
        return cls(
            node=node,
            id=strawberry.ID(node.id),
            ordinal=node.ordinal,
            provider=node.provider,
            model=node.model,
            runtime_mode=node.runtimeMode,
            status=node.status,
            input=node.input,
            native_turn_ref=node.nativeTurnRef,
            failure_reason=node.failureReason,
            started_at=node.startedAt,
            completed_at=node.completedAt,
        )

    @strawberry.field
    def checkpoint(self) -> Checkpoint | None:
        return Checkpoint.of(self.node.checkpoint) if self.node.checkpoint else None

    @strawberry.field
    async def thread(self, info: Info) -> Thread:
        return await required(thread_by_id(info, self.node.threadId))

    @strawberry.field
    async def provider_thread(self, info: Info) -> ProviderThread | None:
        return await provider_thread_by_id(info, self.node.providerThreadId)

    @strawberry.field
    async def context_handoffs(self, info: Info) -> list[ContextHandoff]:
        found = await info.context.loaders.handoffs_consumed.load(self.node.id)
        return [ContextHandoff.of(h) for h in found]

    @strawberry.field
    async def items(self, info: Info) -> list[RunItem]:
        found = await info.context.loaders.items_of_run.load(self.node.id)
        return [RunItem.of(item) for item in found]


@strawberry.type
class ProviderThreadCoverage:
    provider_thread_id: strawberry.ID
    native_run_ordinals: list[int]
    handoff_ids: list[strawberry.ID]
    covered_run_ordinals: list[int]
    missing_run_ordinals: list[int]

    @classmethod
    def of(cls, cov: Coverage) -> ProviderThreadCoverage:
        return cls(
            provider_thread_id=strawberry.ID(cov.providerThreadId),
            native_run_ordinals=list(cov.native),
            handoff_ids=[strawberry.ID(h) for h in cov.handoffIds],
            covered_run_ordinals=list(cov.covered),
            missing_run_ordinals=list(cov.missing),
        )


@strawberry.type
class ProviderThread:
    node: strawberry.Private[models.ProviderThreadNode]
    id: strawberry.ID
    provider: str
    native_ref: str | None
    status: ProviderThreadStatus
    model: str | None
    runtime_mode: str | None
    history_mode: HistoryMode

    @classmethod
    def of(cls, node: models.ProviderThreadNode) -> ProviderThread:
        return cls(
            node=node,
            id=strawberry.ID(node.id),
            provider=node.provider,
            native_ref=node.nativeRef,
            status=node.status,
            model=node.model,
            runtime_mode=node.runtimeMode,
            history_mode=node.historyMode,
        )

    @strawberry.field
    async def thread(self, info: Info) -> Thread:
        return await required(thread_by_id(info, self.node.threadId))

    @strawberry.field
    async def first_run_ordinal(self, info: Info) -> int | None:
        ordinals = await self._native(info)
        return ordinals[0] if ordinals else None

    @strawberry.field
    async def last_run_ordinal(self, info: Info) -> int | None:
        ordinals = await self._native(info)
        return ordinals[-1] if ordinals else None

    @strawberry.field
    async def native_run_ordinals(self, info: Info) -> list[int]:
        return await self._native(info)

    @strawberry.field
    async def handoffs(self, info: Info) -> list[ContextHandoff]:
        found = await info.context.loaders.handoffs_received.load(self.node.id)
        return [ContextHandoff.of(h) for h in found]

    @described("When STALE: the staleness signals that retired it.")
    def stale_signals(self) -> list[models.StalenessSignal]:
        return list(self.node.staleSignals or [])

    @described("When FAILED: why the provider could not resume or create it.")
    def failure_reason(self) -> str | None:
        return self.node.failureReason

    @strawberry.field
    async def forked_from(self, info: Info) -> ProviderThread | None:
        return await provider_thread_by_id(info, self.node.forkedFromId)

    @strawberry.field
    async def coverage(self, info: Info) -> ProviderThreadCoverage:
        return ProviderThreadCoverage.of(await self._coverage(info))

    async def _native(self, info: Info) -> list[int]:
        return list((await self._coverage(info)).native)

    async def _coverage(self, info: Info) -> Coverage:
        state = await info.context.loaders.coverage_state.load(self.node.threadId)
        if state is None:
            return compute_coverage(self.node, Ranges(), [])
        # This provider thread as the coverage read found it (its ranges are current there).
        pt = state.provider_thread(self.node.id) or self.node
        return compute_coverage(pt, state.history, state.handoffs)


@strawberry.type
class OrdinalRange:
    from_: int = strawberry.field(name="from")
    to: int


@strawberry.type
class HandoffSection:
    title: str
    lines: list[str]


@strawberry.type
class ContextHandoff:
    node: strawberry.Private[models.HandoffNode]
    id: strawberry.ID
    strategy: HandoffStrategy
    kind: HandoffKind
    summary_text: str
    token_estimate: int
    status: HandoffStatus
    created_by_provider: str | None
    created_at: datetime
    updated_at: datetime
    summary_source: SummarySource = strawberry.field(
        description="Who was to write the summary; with fallbackReason, the local "
        "summarizer wrote it instead."
    )
    model: str | None = strawberry.field(description="The model that wrote it, when known.")
    generation_ms: float | None = strawberry.field(
        description="How long writing it took, in milliseconds; null while PENDING."
    )
    fallback_reason: str | None = strawberry.field(
        description="Why the local summarizer wrote it instead of its source."
    )
    failure_reason: str | None = strawberry.field(
        description="When FAILED: why its summary never came."
    )

    @classmethod
    def of(cls, node: models.HandoffNode) -> ContextHandoff:
        return cls(
            node=node,
            id=strawberry.ID(node.id),
            strategy=node.strategy,
            kind=node.kind,
            summary_text=node.summaryText,
            token_estimate=node.tokenEstimate,
            status=node.status,
            created_by_provider=node.createdByProvider,
            created_at=node.createdAt,
            updated_at=node.updatedAt,
            summary_source=node.summarySource,
            model=node.model,
            generation_ms=node.generationMs,
            fallback_reason=node.fallbackReason,
            failure_reason=node.failureReason,
        )

    @strawberry.field
    def covered_run_ordinals(self) -> OrdinalRange:
        return OrdinalRange(from_=self.node.coveredFrom, to=self.node.coveredTo)

    @strawberry.field
    def sections(self) -> list[HandoffSection]:
        return [HandoffSection(title=s.title, lines=s.lines) for s in self.node.sections]

    @strawberry.field
    async def transfer(self, info: Info) -> ContextTransfer | None:
        return await transfer_by_id(info, self.node.transferId)

    @strawberry.field
    async def thread(self, info: Info) -> Thread:
        return await required(thread_by_id(info, self.node.threadId))

    @strawberry.field
    async def source_thread(self, info: Info) -> Thread:
        return await required(thread_by_id(info, self.node.sourceThreadId))

    @strawberry.field
    async def target_run(self, info: Info) -> Run | None:
        return await run_by_id(info, self.node.targetRunId)

    @strawberry.field
    async def from_provider_threads(self, info: Info) -> list[ProviderThread]:
        found = await info.context.loaders.provider_thread.load_many(
            self.node.fromProviderThreadIds
        )
        return [ProviderThread.of(pt) for pt in found if pt is not None]

    @strawberry.field
    async def to_provider_thread(self, info: Info) -> ProviderThread | None:
        return await provider_thread_by_id(info, self.node.toProviderThreadId)

    @strawberry.field
    async def superseded_by(self, info: Info) -> ContextHandoff | None:
        return await handoff_by_id(info, self.node.supersededById)

    @described("The handoff whose configured summary this one reuses (paid for once).")
    async def cached_from(self, info: Info) -> ContextHandoff | None:
        return await handoff_by_id(info, self.node.cachedFromId)


@strawberry.type
class SourcePoint:
    point: strawberry.Private[models.SourcePoint]
    turn_item_id: str | None
    provider_thread_ref: str | None
    provider_turn_ref: str | None

    @classmethod
    def of(cls, point: models.SourcePoint) -> SourcePoint:
        return cls(
            point=point,
            turn_item_id=point.turnItemId,
            provider_thread_ref=point.providerThreadRef,
            provider_turn_ref=point.providerTurnRef,
        )

    @strawberry.field
    async def thread(self, info: Info) -> Thread:
        return await required(thread_by_id(info, self.point.threadId))

    @strawberry.field
    async def run(self, info: Info) -> Run | None:
        return await run_by_id(info, self.point.runId)

    @strawberry.field
    async def checkpoint(self, info: Info) -> Checkpoint | None:
        if self.point.checkpointId is None:
            return None
        found = await info.context.loaders.checkpoint.load(self.point.checkpointId)
        return Checkpoint.of(found) if found else None


@strawberry.type
class ContextTransfer:
    node: strawberry.Private[models.TransferNode]
    id: strawberry.ID
    type: TransferType
    source_provider: str | None
    target_provider: str | None
    status: TransferStatus
    resolution_strategy: ResolutionStrategy | None
    created_by: Actor
    created_at: datetime
    consumed_at: datetime | None
    failure_reason: str | None

    @classmethod
    def of(cls, node: models.TransferNode) -> ContextTransfer:
        return cls(
            node=node,
            id=strawberry.ID(node.id),
            type=node.type,
            source_provider=node.sourceProvider,
            target_provider=node.targetProvider,
            status=node.status,
            resolution_strategy=node.resolutionStrategy,
            created_by=node.createdBy,
            created_at=node.createdAt,
            consumed_at=node.consumedAt,
            failure_reason=node.failureReason,
        )

    @strawberry.field
    def source_point(self) -> SourcePoint:
        return SourcePoint.of(self.node.sourcePoint)

    @strawberry.field
    def base_point(self) -> SourcePoint | None:
        return SourcePoint.of(self.node.basePoint) if self.node.basePoint else None

    @strawberry.field
    async def source_thread(self, info: Info) -> Thread:
        return await required(thread_by_id(info, self.node.sourceThreadId))

    @strawberry.field
    async def target_thread(self, info: Info) -> Thread:
        return await required(thread_by_id(info, self.node.targetThreadId))

    @strawberry.field
    async def resolved_provider_thread(self, info: Info) -> ProviderThread | None:
        return await provider_thread_by_id(info, self.node.resolvedProviderThreadId)

    @strawberry.field
    async def handoff(self, info: Info) -> ContextHandoff | None:
        return await handoff_by_id(info, self.node.handoffId)

    @strawberry.field
    async def consumed_by(self, info: Info) -> Run | None:
        return await run_by_id(info, self.node.consumedByRunId)


@strawberry.type
class NativeForkPlan:
    source_provider_thread_ref: str
    last_turn_id: str | None
    rollback_turns: int


@strawberry.type(
    description="A summary the caller has a provider write: run `instructions` (system) "
    "and `material` (user, as JSON) on `provider`, then send the text with "
    "submitHandoffSummary(handoffId, summaryText, createdByProvider)."
)
class SummarizationRequest:
    handoff_id: strawberry.ID
    source: SummarySource
    provider: str = strawberry.field(description="The provider asked to write it.")
    max_tokens: int = strawberry.field(
        description="The entering provider's budget: a longer summary is refused."
    )
    title: str
    instructions: str
    include: list[str]
    exclude: list[str]
    material: JSON = strawberry.field(
        description="The covered runs' digests (user message, status, items, checkpoint "
        "stats), and any task or subagent results."
    )

    @classmethod
    def of(cls, request: SummaryRequest) -> SummarizationRequest:
        return cls(
            handoff_id=strawberry.ID(request.handoffId),
            source=request.source,
            provider=request.provider,
            max_tokens=request.maxTokens,
            title=request.material.title,
            instructions=request.instructions,
            include=request.include,
            exclude=request.exclude,
            material=JSON(request.material.wire()),
        )


@strawberry.type
class StartContextResolution:
    run: Run
    strategy: StartStrategy
    provider_action: ProviderAction
    provider_thread: ProviderThread
    native_fork: NativeForkPlan | None
    handoffs: list[ContextHandoff]
    context_text: str | None
    injection_mode: InjectionMode
    consumed_transfers: list[ContextTransfer]
    staleness_signals: list[StalenessSignal]
    explanation: list[str]
    summarization_requests: list[SummarizationRequest] = strawberry.field(
        description="Summaries a provider must write before the caller acts on the "
        "provider: their handoffs are PENDING, contextText is null and the run STARTING."
    )


@strawberry.type
class StartContextPlan:
    strategy: StartStrategy
    provider_action: ProviderAction
    provider_thread: ProviderThread | None
    handoff_strategies: list[HandoffStrategy]
    covered_run_ordinals: list[int]
    token_estimate: int
    staleness_signals: list[StalenessSignal]
    explanation: list[str]


@strawberry.type
class ThreadEvent:
    id: strawberry.ID
    type: str
    at: datetime
    thread_id: strawberry.ID
    run_id: strawberry.ID | None
    payload: JSON | None

    @classmethod
    def of(cls, event: models.EventNode) -> ThreadEvent:
        return cls(
            id=strawberry.ID(event.id),
            type=event.type,
            at=event.at,
            thread_id=strawberry.ID(event.threadId),
            run_id=strawberry.ID(event.runId) if event.runId else None,
            payload=JSON(event.payload) if event.payload is not None else None,
        )


@strawberry.type
class PageInfo:
    has_next_page: bool
    end_cursor: str | None


@strawberry.type
class ThreadEdge:
    cursor: str
    node: Thread


@strawberry.type
class ThreadConnection:
    edges: list[ThreadEdge]
    page_info: PageInfo


@strawberry.type
class RollbackResult:
    thread: Thread
    rolled_back_runs: list[Run]
    superseded_handoffs: list[ContextHandoff]
    affected_provider_threads: list[ProviderThread]
    superseded_transfers: list[ContextTransfer]


@strawberry.type
class LineageNode:
    thread: Thread
    depth: int


@strawberry.type
class LineageEdge:
    from_: strawberry.ID = strawberry.field(name="from")
    to: strawberry.ID
    relationship: ThreadRelationship
    source_run_ordinal: int | None


@strawberry.type
class Lineage:
    nodes: list[LineageNode]
    edges: list[LineageEdge]

    @classmethod
    def of(cls, found: models.Lineage | None) -> Lineage:
        if found is None:
            return cls(nodes=[], edges=[])
        return cls(
            nodes=[LineageNode(thread=Thread.of(n.thread), depth=n.depth) for n in found.nodes],
            edges=[
                LineageEdge(
                    from_=strawberry.ID(e.from_),
                    to=strawberry.ID(e.to),
                    relationship=e.relationship,
                    source_run_ordinal=e.sourceRunOrdinal,
                )
                for e in found.edges
            ],
        )


# ---- loaders as field helpers ------------------------------------------------


async def _by_id(
    ident: str | None, load: Callable[[str], Awaitable[N | None]], wrap: Callable[[N], W]
) -> W | None:
    if ident is None:
        return None
    found = await load(ident)
    return wrap(found) if found is not None else None


async def thread_by_id(info: Info, ident: str | None) -> Thread | None:
    return await _by_id(ident, info.context.loaders.thread.load, Thread.of)


async def run_by_id(info: Info, ident: str | None) -> Run | None:
    return await _by_id(ident, info.context.loaders.run.load, Run.of)


async def provider_thread_by_id(info: Info, ident: str | None) -> ProviderThread | None:
    return await _by_id(ident, info.context.loaders.provider_thread.load, ProviderThread.of)


async def handoff_by_id(info: Info, ident: str | None) -> ContextHandoff | None:
    return await _by_id(ident, info.context.loaders.handoff.load, ContextHandoff.of)


async def transfer_by_id(info: Info, ident: str | None) -> ContextTransfer | None:
    return await _by_id(ident, info.context.loaders.transfer.load, ContextTransfer.of)


async def read_back(info: Info, answer: Awaitable[T]) -> T:
    """A mutation's answer, read after its transaction committed, with fresh loaders.

    Should Neo4j fail now, the error must not suggest that nothing happened: the change
    was made (`outcome: COMMITTED`); only its answer is missing.
    """
    info.context.loaders.clear()
    try:
        return await answer
    except ThreadlineError as error:
        if error.code is not ErrorCode.UNAVAILABLE:
            raise
        raise ThreadlineError(
            ErrorCode.UNAVAILABLE,
            "The change was made, but the graph database went away before its result could "
            "be read back; read it again (a retry with the same commandId answers it).",
            outcome="COMMITTED",
        ) from error


async def required(value: Awaitable[T | None]) -> T:
    """Await a loader helper whose answer the graph guarantees exists."""
    found = await value
    if found is None:
        raise ThreadlineError(ErrorCode.INTERNAL, "A linked node is missing from the graph.")
    return found
