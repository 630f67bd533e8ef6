"""GraphQL object types of the graph's nodes, each backed by a graph model; what operations
answer around them (plans, events, pages, lineage) is in api/graphql/answers.py."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Generic, Self, TypeVar, cast

import strawberry
from strawberry.dataloader import DataLoader
from strawberry.scalars import JSON
from strawberry.types.base import get_object_definition

from api.graphql import cursors, pagination
from api.graphql.context import Context
from api.graphql.loaders import Loaders
from api.graphql.pagination import PageInfo
from graph import models, repo
from graph.errors import ErrorCode, ThreadlineError
from graph.ranges import Ranges
from graph.store import Tx
from resolvers.coverage import Coverage
from resolvers.coverage import coverage as compute_coverage
from resolvers.handoffs.written import entries_of
from resolvers.lineage.divergence import Divergence
from resolvers.past.as_of import Instant

Info = strawberry.Info[Context, None]
T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])
N = TypeVar("N")
W = TypeVar("W")
V = TypeVar("V")
M = TypeVar("M")


def described(
    description: str, *, mutation: bool = False, subscription: bool = False
) -> Callable[[F], F]:
    """`@strawberry.field(description=...)` (or mutation, or subscription) with its type
    kept: Strawberry's overload for that form is typed as returning Any."""
    decorate = (
        strawberry.mutation
        if mutation
        else strawberry.subscription
        if subscription
        else strawberry.field
    )
    return cast(Callable[[F], F], decorate(description=description))


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


_PLAIN_FIELDS: dict[type, tuple[tuple[str, str], ...]] = {}


def _plain_fields(cls: type) -> tuple[tuple[str, str], ...]:
    """(field, attribute) of each of `cls`'s GraphQL fields without a resolver (read once)."""
    found = _PLAIN_FIELDS.get(cls)
    if found is None:
        definition = get_object_definition(cls, strict=True)
        found = _PLAIN_FIELDS[cls] = tuple(
            (f.python_name, _camel(f.python_name))
            for f in definition.fields
            if f.base_resolver is None
        )
    return found


def from_model(cls: type[T], source: object, **extra: object) -> T:
    """`cls` with each plain field read from `source`'s attribute of the same name (camelCase
    in the graph's models, as stored and as GraphQL names it; snake_case elsewhere): a type
    states its fields once, and only relations and computed fields have resolvers.
    `extra`: the fields it does not read so (private ones, those converted or renamed)."""
    values = {
        name: getattr(source, attribute if hasattr(source, attribute) else name)
        for name, attribute in _plain_fields(cls)
        if name not in extra
    }
    return cls(**values, **extra)


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
ContextWindowSource = models.ContextWindowSource
SessionFormat = models.SessionFormat
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
    ContextWindowSource,
    SessionFormat,
):
    strawberry.enum(_enum)


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


@strawberry.type
class Provider:
    kind: str
    supports_resume: bool
    supports_native_fork: bool
    supports_native_fork_at_turn: bool
    supports_native_fork_at_item: bool = strawberry.field(
        description="Forks natively up to one message, named by the native id a run item's "
        "key holds (a fork at an item)."
    )
    supports_rollback: bool
    accepts_handoff: bool
    injection_mode: InjectionMode
    max_handoff_tokens: int
    summary_source: SummarySource | None = strawberry.field(
        description="Who writes the handoffs it receives; null: the service's default."
    )
    default_context_window_tokens: int = strawberry.field(
        description="The context window of a model the providers file does not list."
    )
    capabilities: strawberry.Private[Any] = None

    @strawberry.field
    def models(self) -> list[ProviderModel]:
        listed = self.capabilities.models if self.capabilities is not None else {}
        return [ProviderModel(name=name, context_window_tokens=n) for name, n in listed.items()]

    @described("The caller's workspace's usage limit on this provider in force now, if any.")
    async def limit(self, info: Info) -> ProviderLimit | None:
        found = await info.context.loaders.limit_in_force.load(self.kind)
        return from_model(ProviderLimit, found, active=True) if found else None


class NodeView(Generic[M]):
    """A GraphQL type over one graph node (its private `node`), as it is now or was at its
    private `as_of`."""

    @classmethod
    def of(cls, node: M, as_of: Instant | None = None) -> Self:
        return from_model(cls, node, node=node, as_of=as_of)


@strawberry.type
class ProviderLimit:
    provider: str
    reason: str
    resets_at: datetime | None = strawberry.field(description="null: until cleared.")
    reported_at: datetime
    active: bool = strawberry.field(
        description="False once resetsAt has passed, or once it was cleared or replaced."
    )

    @classmethod
    def of(cls, limit: models.ProviderLimitNode, now: datetime | None = None) -> ProviderLimit:
        """`limit` as it stands at `now` (None: this instant)."""
        return from_model(cls, limit, active=limit.active(now or datetime.now(UTC)))


@strawberry.type
class ProviderModel:
    name: str
    context_window_tokens: int


@strawberry.type
class ContextBudget:
    window_tokens: int
    window_source: ContextWindowSource
    used_tokens: int = strawberry.field(
        description="What the target native thread already holds; 0 for a new one."
    )
    reserve_tokens: int = strawberry.field(description="Kept free for the model's own work.")
    cap_tokens: int = strawberry.field(
        description="The provider's cap on one handoff (maxHandoffTokens)."
    )
    budget_tokens: int = strawberry.field(
        description="max(0, min(capTokens, windowTokens - usedTokens - reserveTokens))"
    )

    @classmethod
    def of(cls, budget: models.ContextBudget | None) -> ContextBudget | None:
        return from_model(cls, budget) if budget is not None else None


@strawberry.type(description="An item of a thread's active runs, as the pull path answers it.")
class ThreadItem:
    run_id: strawberry.ID
    run_ordinal: int
    index: int = strawberry.field(
        description="Its position in its run, 0-based; -1 is the run's input (kind "
        "USER_GOAL), before the items the run reported."
    )
    kind: RunItemKind
    text: str
    key: str | None
    path: str | None
    attributes: JSON | None


@strawberry.type
class ThreadItemEdge:
    cursor: str
    node: ThreadItem


@strawberry.type
class ThreadItemConnection:
    edges: list[ThreadItemEdge]
    page_info: PageInfo


@strawberry.type(description="An item of the covered runs a handoff's text leaves out.")
class OmittedItem:
    run_ordinal: int
    index: int = strawberry.field(
        description="Its position in its run, 0-based; -1: the run's input (Run.input)."
    )
    kind: RunItemKind
    key: str | None
    path: str | None
    token_estimate: int = strawberry.field(
        description="What showing it whole would cost (its line, in tokens)."
    )
    cut: bool = strawberry.field(
        description="True: a shortened form is in the text; false: not shown at all."
    )


@strawberry.type(description="One line of a handoff's text and the item it shows.")
class HandoffEntry:
    section: str = strawberry.field(description="The heading it stands under.")
    text: str = strawberry.field(
        description="Exactly as in summaryText (an item whose text holds line breaks is one "
        "entry); the entries' texts joined by line breaks are summaryText."
    )
    run_ordinal: int | None = strawberry.field(description="Null for a line about no item.")
    index: int | None = strawberry.field(
        description="The item's index in its run; -1 for the run's input."
    )
    kind: RunItemKind | None
    cut: bool = strawberry.field(description="Shown shortened (then it is in omitted too).")


@strawberry.type
class QualityFacet:
    kind: RunItemKind
    kept: int
    total: int
    missing: list[str] = strawberry.field(
        description="The key, path or first words of each item not found in the text."
    )


@strawberry.type
class HandoffQuality:
    score: float = strawberry.field(
        description="kept / total over every facet; 1.0 when nothing must be kept."
    )
    facets: list[QualityFacet]
    fidelity: float = strawberry.field(
        description="The share, by tokens, of the covered material the text shows whole."
    )

    @classmethod
    def of(cls, quality: models.HandoffQuality, fidelity: float) -> HandoffQuality:
        facets = [from_model(QualityFacet, facet) for facet in quality.facets]
        return cls(score=quality.score, facets=facets, fidelity=fidelity)


@strawberry.type
class ContextUsage:
    context_tokens: int = strawberry.field(
        description="Tokens in the native context after the last turn, as the provider said."
    )
    context_window_tokens: int | None
    input_tokens: int | None
    output_tokens: int | None
    reported_at: datetime


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
            ProviderThreadCoverage.of(compute_coverage(pt, state.history, state.handoffs))
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
class ForkDivergence:
    source_run_ordinal: int = strawberry.field(
        description="The source run the thread was taken at (0: before any run)."
    )
    source_item_index: int | None = strawberry.field(
        description="A fork at an item: the last item of that run it took (-1: the input "
        "only); the run's later items are the source's own since the fork."
    )
    source_runs_since_fork: list[int] = strawberry.field(
        description="Ordinals of the source's live (not rolled back) runs after the fork point."
    )
    source_rolled_back_past_fork: bool
    source_rolled_back_to: int | None = strawberry.field(
        description="The ordinal the source was rolled back to, when it was."
    )
    unmerged_run_ordinals: list[int] = strawberry.field(
        description="The fork's history runs no merge-back (or subagent result) has carried."
    )
    last_merge_back_at: datetime | None

    @classmethod
    def of(cls, found: Divergence) -> ForkDivergence:
        return from_model(
            cls,
            found,
            source_run_ordinal=found.forkedAt,
            source_item_index=found.forkedAtItem,
            source_runs_since_fork=list(found.sourceRunsSinceFork),
            unmerged_run_ordinals=list(found.unmerged),
        )


@strawberry.type
class RunItem:
    kind: RunItemKind
    text: str
    key: str | None
    path: str | None
    attributes: JSON | None

    @classmethod
    def of(cls, item: models.RunItem) -> RunItem:
        return from_model(cls, item)


@strawberry.type
class FileDiffStat:
    path: str
    additions: int
    deletions: int
    change_kind: str


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
class Run(NodeView[models.RunNode]):
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


async def read_back(info: Info, answer: Awaitable[T]) -> T:
    """A mutation's answer, read after its transaction committed, with fresh loaders.

    Should Neo4j fail now, the error must not suggest that nothing happened: the change
    was made (`outcome: COMMITTED`); only its answer is missing.
    """
    info.context.loaders.clear()
    try:
        return await answer
    except ThreadlineError as error:
        if error.code is not ErrorCode.UNAVAILABLE or "outcome" in error.extensions:
            raise  # not Neo4j gone, or an error that says already what was done
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


KINDS = _kinds()
