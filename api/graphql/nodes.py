"""GraphQL types of the graph's nodes, each backed by a graph model and answering as it is
now or was at an instant; their relations load through the request's loaders, one batched
read per field set. What operations answer around them is in api/graphql/answers.py."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

import strawberry
from strawberry.dataloader import DataLoader

from api.graphql import cursors, pagination
from api.graphql.context import Info
from api.graphql.enums import (
    Actor,
    HandoffKind,
    HandoffStatus,
    HandoffStrategy,
    HistoryMode,
    ProviderThreadStatus,
    ResolutionStrategy,
    RunItemKind,
    SummarySource,
    ThreadRelationship,
    TransferStatus,
    TransferType,
)
from api.graphql.from_models import NodeView, described, exposing, from_model
from api.graphql.loaders import Loaders
from api.graphql.values import (
    ContextBudget,
    ContextUsage,
    FileDiffStat,
    ForkDivergence,
    HandoffEntry,
    HandoffQuality,
    HandoffSection,
    OmittedItem,
    OrdinalRange,
    ProviderThreadCoverage,
    RunItem,
    ThreadItem,
    ThreadItemConnection,
    ThreadItemEdge,
)
from graph import models, repo
from graph.errors import ErrorCode, ThreadlineError
from graph.ranges import Ranges
from graph.tx import Tx
from resolvers import coverage
from resolvers.coverage import Coverage
from resolvers.handoffs.written import entries_of
from resolvers.past.as_of import Instant

T = TypeVar("T")
V = TypeVar("V")

# ---- relations -------------------------------------------------------------------
# A relation follows an id on the node (to one) or a per-request loader keyed by the
# node's id (to many), and answers at the node's instant (`as_of`): one batched read per
# field set, whatever the number of nodes.


@dataclass(frozen=True)
class Kind:
    """How a GraphQL type is loaded by id, and made from its node."""

    loader: Callable[[Loaders], DataLoader[str, Any]]
    of: Callable[[Any, Instant | None], Any]


def _kinds() -> dict[str, Kind]:
    return {
        "Thread": Kind(lambda found: found.thread, Thread.of),
        "Run": Kind(lambda found: found.run, Run.of),
        "ProviderThread": Kind(lambda found: found.provider_thread, ProviderThread.of),
        "ContextHandoff": Kind(lambda found: found.handoff, ContextHandoff.of),
        "ContextTransfer": Kind(lambda found: found.transfer, ContextTransfer.of),
        "Checkpoint": Kind(lambda found: found.checkpoint, Checkpoint.of),
    }


def to_one(
    target: str, attribute: str, *, required: bool = False, description: str | None = None
) -> Any:
    """A field: the `target` whose id is the node's `attribute` (null when it has none,
    unless `required`: the graph guarantees it)."""

    async def resolve(root: Any, info: Info) -> Any:
        found = await _by_name(info, target, getattr(root.node, attribute), root.as_of)
        if found is None and required:
            raise ThreadlineError(ErrorCode.INTERNAL, "A linked node is missing from the graph.")
        return found

    resolve.__annotations__["return"] = target if required else f"{target} | None"
    return strawberry.field(resolver=resolve, description=description)


def to_many(target: str, loader: str) -> Any:
    """A field: the `target`s the loader named `loader` finds for the node's id."""

    async def resolve(root: Any, info: Info) -> Any:
        found = await getattr(loaders(info, root.as_of), loader).load(root.node.id)
        of = KINDS[target].of
        return [of(node, root.as_of) for node in found]

    resolve.__annotations__["return"] = f"list[{target}]"
    return strawberry.field(resolver=resolve)


def loaders(info: Info, as_of: Instant | None) -> Loaders:
    """The request's loaders for now, or for the instant an answer is about."""
    return info.context.loaders_at(as_of)


async def by_id(
    info: Info, kind: type[V], ident: str | None, as_of: Instant | None = None
) -> V | None:
    """The `kind` with this id as it was at `as_of` (now: None), or None."""
    found: V | None = await _by_name(info, kind.__name__, ident, as_of)
    return found


async def _by_name(info: Info, target: str, ident: str | None, as_of: Instant | None) -> Any:
    if ident is None:
        return None
    kind = KINDS[target]
    found = await kind.loader(loaders(info, as_of)).load(ident)
    return kind.of(found, as_of) if found is not None else None


# ---- nodes -----------------------------------------------------------------------


@strawberry.type
class Thread(NodeView[models.ThreadNode]):
    node: strawberry.Private[models.ThreadNode]
    id: strawberry.ID
    title: str | None
    created_by: Actor
    created_at: datetime
    relationship_to_parent: ThreadRelationship | None
    clean_context_requested: bool
    as_of: strawberry.Private[Instant | None] = None  # None: now

    parent = to_one("Thread", "parentId")

    @strawberry.field
    async def root(self, info: Info) -> Thread:
        if self.node.rootId == self.node.id:
            return self
        root = await by_id(info, Thread, self.node.rootId, self.as_of)
        return root or self

    children = to_many("Thread", "children_of_thread")

    @strawberry.field
    async def runs(self, info: Info, include_rolled_back: bool | None = False) -> list[Run]:
        found = await loaders(info, self.as_of).runs_of_thread.load(self.node.id)
        return [
            Run.of(run, self.as_of)
            for run in found
            if include_rolled_back or run.status is not models.RunStatus.ROLLED_BACK
        ]

    @strawberry.field
    async def active_run(self, info: Info) -> Run | None:
        found = await loaders(info, self.as_of).runs_of_thread.load(self.node.id)
        return next((Run.of(r, self.as_of) for r in found if r.status in models.IN_PROGRESS), None)

    @strawberry.field
    async def latest_stable_run(self, info: Info) -> Run | None:
        found = await loaders(info, self.as_of).runs_of_thread.load(self.node.id)
        stable = [r for r in found if r.status is models.RunStatus.COMPLETED and r.checkpoint]
        return Run.of(stable[-1], self.as_of) if stable else None

    provider_threads = to_many("ProviderThread", "provider_threads_of_thread")

    @described(
        "The items of the thread's active runs (not rolled back), oldest first by run "
        "ordinal and position in the run, each run's input first as its item -1 (kind "
        "USER_GOAL): the pull path for what a handoff left out, every `omitted` entry "
        "included. `kinds` and `runOrdinals` filter inputs too. One round trip per page."
    )
    async def items(
        self,
        info: Info,
        first: int | None = 50,
        after: str | None = None,
        kinds: list[RunItemKind] | None = None,
        run_ordinals: list[int] | None = None,
    ) -> ThreadItemConnection:
        size = pagination.page_size(info.context.settings.max_page_size, first, 50)
        position = cursors.item_position(after) if after else None
        thread_id, workspace = self.node.id, info.context.workspace

        async def work(tx: Tx) -> list[models.ThreadItem]:
            return await repo.thread_items(
                tx, workspace, thread_id, position, kinds, run_ordinals, size
            )

        found = await info.context.store.read(work)
        edges, page_info = pagination.page(
            found,
            size,
            lambda item: ThreadItemEdge(
                cursor=cursors.item_cursor(item.runOrdinal, item.index),
                node=from_model(ThreadItem, item),
            ),
        )
        return ThreadItemConnection(edges=edges, page_info=page_info)

    @strawberry.field
    async def coverage(self, info: Info) -> list[ProviderThreadCoverage]:
        state = await loaders(info, self.as_of).coverage_state.load(self.node.id)
        if state is None:
            return []
        return [
            ProviderThreadCoverage.of(coverage.coverage(pt, state.history, state.handoffs))
            for pt in state.providerThreads
        ]

    incoming_transfers = to_many("ContextTransfer", "transfers_in")
    outgoing_transfers = to_many("ContextTransfer", "transfers_out")

    @described(
        "Handoffs prepared for the thread's next start on a provider (prepareHandoff) that "
        "no start has injected or superseded yet: at most one a provider."
    )
    async def prepared_handoffs(self, info: Info) -> list[ContextHandoff]:
        found = await loaders(info, self.as_of).handoffs_prepared.load(self.node.id)
        waiting = [h for h in found if h.prepared and h.status is models.HandoffStatus.READY]
        return [ContextHandoff.of(h, self.as_of) for h in waiting]

    @described("On a fork or subagent: how it and its source have moved apart. Null on a root.")
    async def divergence(self, info: Info) -> ForkDivergence | None:
        if self.node.parentId is None:
            return None
        found = await loaders(info, self.as_of).divergence.load(self.node.id)
        return ForkDivergence.of(found) if found else None


@strawberry.type
class Checkpoint(NodeView[models.CheckpointNode]):
    node: strawberry.Private[models.CheckpointNode]
    id: strawberry.ID
    ref: str | None
    created_at: datetime
    as_of: strawberry.Private[Instant | None] = None

    @strawberry.field
    def diff_summary(self) -> list[FileDiffStat]:
        return [
            FileDiffStat(
                path=s.path, additions=s.additions, deletions=s.deletions, change_kind=s.changeKind
            )
            for s in self.node.diffSummary
        ]

    run = to_one("Run", "runId", required=True)


@strawberry.type
@exposing(
    models.RunNode,
    [
        "id",
        "ordinal",
        "provider",
        "model",
        "runtimeMode",
        "status",
        "input",
        "nativeTurnRef",
        "failureReason",
        "startedAt",
        "completedAt",
    ],
)
class Run(NodeView[models.RunNode]):
    node: strawberry.Private[models.RunNode]
    as_of: strawberry.Private[Instant | None] = None

    @strawberry.field
    def checkpoint(self) -> Checkpoint | None:
        found = self.node.checkpoint
        return Checkpoint.of(found, self.as_of) if found else None

    thread = to_one("Thread", "threadId", required=True)
    provider_thread = to_one("ProviderThread", "providerThreadId")
    context_handoffs = to_many("ContextHandoff", "handoffs_consumed")

    @strawberry.field
    async def items(self, info: Info) -> list[RunItem]:
        if self.node.status in models.IN_PROGRESS:
            return []  # a run reports its items when it ends
        found = await loaders(info, self.as_of).items_of_run.load(self.node.id)
        return [RunItem.of(item) for item in found]


@strawberry.type
class ProviderThread(NodeView[models.ProviderThreadNode]):
    node: strawberry.Private[models.ProviderThreadNode]
    id: strawberry.ID
    provider: str
    native_ref: str | None
    status: ProviderThreadStatus
    model: str | None
    runtime_mode: str | None
    history_mode: HistoryMode
    held_tokens: int = strawberry.field(
        description="About how many tokens it holds by Threadline's records: the handoffs "
        "injected into it and its native runs' inputs and items. A start's budget counts "
        "this as used while its provider has never reported usage."
    )
    as_of: strawberry.Private[Instant | None] = None

    thread = to_one("Thread", "threadId", required=True)

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

    handoffs = to_many("ContextHandoff", "handoffs_received")

    @described("When STALE: the staleness signals that retired it.")
    def stale_signals(self) -> list[models.StalenessSignal]:
        return list(self.node.staleSignals or [])

    @described("When FAILED: why the provider could not resume or create it.")
    def failure_reason(self) -> str | None:
        return self.node.failureReason

    forked_from = to_one("ProviderThread", "forkedFromId")

    @described("The latest usage its provider reported (completeRun or reportContextUsage).")
    def context_usage(self) -> ContextUsage | None:
        usage = self.node.contextUsage
        return from_model(ContextUsage, usage) if usage is not None else None

    @strawberry.field
    async def coverage(self, info: Info) -> ProviderThreadCoverage:
        return ProviderThreadCoverage.of(await self._coverage(info))

    async def _native(self, info: Info) -> list[int]:
        return list((await self._coverage(info)).native)

    async def _coverage(self, info: Info) -> Coverage:
        state = await loaders(info, self.as_of).coverage_state.load(self.node.threadId)
        if state is None:
            return coverage.coverage(self.node, Ranges(), [])
        # This provider thread as the coverage read found it (its ranges are current there).
        pt = state.provider_thread(self.node.id) or self.node
        return coverage.coverage(pt, state.history, state.handoffs)


@strawberry.type
class ContextHandoff(NodeView[models.HandoffNode]):
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
    prepared_for: str | None = strawberry.field(
        description="A prepared handoff (prepareHandoff): the provider whose next start it "
        "was written for."
    )
    failure_reason: str | None = strawberry.field(
        description="When FAILED: why its summary never came."
    )
    as_of: strawberry.Private[Instant | None] = None

    @strawberry.field
    def covered_run_ordinals(self) -> OrdinalRange:
        return OrdinalRange(from_=self.node.coveredFrom, to=self.node.coveredTo)

    @strawberry.field
    def sections(self) -> list[HandoffSection]:
        return [HandoffSection(title=s.title, lines=s.lines) for s in self.node.sections]

    transfer = to_one("ContextTransfer", "transferId")
    thread = to_one("Thread", "threadId", required=True)
    source_thread = to_one("Thread", "sourceThreadId", required=True)
    target_run = to_one("Run", "targetRunId")

    @strawberry.field
    async def from_provider_threads(self, info: Info) -> list[ProviderThread]:
        found = await loaders(info, self.as_of).provider_thread.load_many(
            self.node.fromProviderThreadIds
        )
        return [ProviderThread.of(pt, self.as_of) for pt in found if pt is not None]

    to_provider_thread = to_one("ProviderThread", "toProviderThreadId")
    superseded_by = to_one("ContextHandoff", "supersededById")
    cached_from = to_one(
        "ContextHandoff",
        "cachedFromId",
        description="The handoff whose configured summary this one reuses (paid for once).",
    )

    @described("The budget of the start that made it; null before budgets existed.")
    def budget(self) -> ContextBudget | None:
        return ContextBudget.of(self.node.budget)

    @described(
        "Items of the covered runs the text does not show whole, oldest first (cut: shown "
        "shortened); Thread.items returns each. Whoever wrote the text."
    )
    def omitted(self) -> list[OmittedItem]:
        return [from_model(OmittedItem, item) for item in self.node.omitted]

    @described(
        "The text's lines in order, each with its section and the item it shows, so that a "
        "caller can inject them as structured items where the provider accepts them."
    )
    def entries(self) -> list[HandoffEntry]:
        found = self.node.entries or entries_of(self.node.summaryText, [])
        return [from_model(HandoffEntry, entry) for entry in found]

    @described(
        "How much of what must survive the handoff its text carries, by kind, and how much "
        "of its covered material it shows whole (computed from its covered runs and its "
        "text; no model is called)."
    )
    async def quality(self, info: Info) -> HandoffQuality:
        quality = self.node.quality
        if quality is None or quality.fidelity is None:  # pending, or graded before either
            graded = await loaders(info, self.as_of).handoff_quality.load(self.node)
            quality = quality or graded
            return HandoffQuality.of(quality, graded.fidelity or 0.0)
        return HandoffQuality.of(quality, quality.fidelity)


@strawberry.type
class SourcePoint(NodeView[models.SourcePoint]):
    node: strawberry.Private[models.SourcePoint]
    turn_item_id: str | None = strawberry.field(
        description="A fork at an item: that item's key (its native message id, where the "
        "item has one)."
    )
    provider_thread_ref: str | None
    provider_turn_ref: str | None
    item_index: int | None = strawberry.field(
        description="A fork at an item: the last item of the run it inherits (-1: the "
        "input only); null: the whole run."
    )
    as_of: strawberry.Private[Instant | None] = None

    thread = to_one("Thread", "threadId", required=True)
    run = to_one("Run", "runId")
    checkpoint = to_one("Checkpoint", "checkpointId")


@strawberry.type
class ContextTransfer(NodeView[models.TransferNode]):
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
    as_of: strawberry.Private[Instant | None] = None

    @strawberry.field
    def source_point(self) -> SourcePoint:
        return SourcePoint.of(self.node.sourcePoint, self.as_of)

    @strawberry.field
    def base_point(self) -> SourcePoint | None:
        base = self.node.basePoint
        return SourcePoint.of(base, self.as_of) if base else None

    source_thread = to_one("Thread", "sourceThreadId", required=True)
    target_thread = to_one("Thread", "targetThreadId", required=True)
    resolved_provider_thread = to_one("ProviderThread", "resolvedProviderThreadId")
    handoff = to_one("ContextHandoff", "handoffId")
    consumed_by = to_one("Run", "consumedByRunId")


async def required(value: Awaitable[T | None]) -> T:
    """Await a loader helper whose answer the graph guarantees exists."""
    found = await value
    if found is None:
        raise ThreadlineError(ErrorCode.INTERNAL, "A linked node is missing from the graph.")
    return found


KINDS = _kinds()
