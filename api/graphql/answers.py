"""GraphQL types of what operations answer around the graph's nodes (`api.graphql.nodes`): start
resolutions and plans, summarization requests, merge-back plans, events, pages of
threads, rollback results and lineage."""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.scalars import JSON

from api.commands.limits import Suggestion
from api.graphql.context import Info
from api.graphql.enums import (
    HandoffStrategy,
    InjectionMode,
    ProviderAction,
    RunItemKind,
    StalenessSignal,
    StartStrategy,
    SummarySource,
    ThreadRelationship,
)
from api.graphql.from_models import from_model
from api.graphql.nodes import (
    ContextHandoff,
    ContextTransfer,
    ProviderThread,
    Run,
    Thread,
    by_id,
    required,
)
from api.graphql.pagination import PageInfo
from api.graphql.values import ContextBudget
from graph import models
from graph.errors import ErrorCode, ThreadlineError
from graph.search import SearchText
from resolvers.handoffs.budget import ContextPolicy, budget_into
from resolvers.handoffs.requests import SummaryRequest
from resolvers.imports.writes import Imported
from resolvers.lineage.rollback import RollbackDecision
from resolvers.past.as_of import Instant
from resolvers.past.replay import Explained
from resolvers.search import snippet
from resolvers.start.decision import StartDecision
from resolvers.start.writes import StartOutcome


@strawberry.type
class MergeBackPlan:
    possible: bool
    reason: str | None = strawberry.field(description="Why not, when not possible.")
    run_ordinals: list[int] = strawberry.field(description="The fork's runs it would carry.")
    context_text: str | None = strawberry.field(description="The delta it would deliver.")
    token_estimate: int
    target_thread_id: strawberry.ID


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
    budget: ContextBudget

    @classmethod
    def of(cls, outcome: StartOutcome) -> StartContextResolution:
        """A start's answer, from the nodes as the start left them: no second read."""
        decision = outcome.decision
        fork = decision.nativeFork
        return cls(
            run=Run.of(outcome.run),
            strategy=decision.strategy,
            provider_action=decision.providerAction,
            provider_thread=ProviderThread.of(outcome.provider_thread),
            native_fork=NativeForkPlan(
                source_provider_thread_ref=fork.sourceProviderThreadRef,
                last_turn_id=fork.lastTurnId,
                rollback_turns=fork.rollbackTurns,
            )
            if fork
            else None,
            handoffs=[ContextHandoff.of(h) for h in outcome.handoffs],
            context_text=outcome.context_text,
            injection_mode=decision.injection_mode,
            consumed_transfers=[ContextTransfer.of(x) for x in outcome.transfers],
            staleness_signals=decision.stalenessSignals,
            explanation=decision.explanation,
            summarization_requests=[SummarizationRequest.of(r) for r in outcome.waiting_requests],
            budget=_start_budget(decision),
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
    recorded_run: Run | None = strawberry.field(
        description="With asOf: the run that recorded a start of this provider at that instant."
    )
    differs_from_record: bool = strawberry.field(
        description="The replayed decision differs from the recorded one (which is answered)."
    )
    budget: ContextBudget
    omitted_count: int = strawberry.field(
        description="Items of the covered runs its handoffs' texts would leave out "
        "(Thread.items returns them)."
    )
    prepared_handoff: ContextHandoff | None = strawberry.field(
        description="The prepared handoff (prepareHandoff) this start would inject as it "
        "is, if any."
    )
    context_text: str | None = strawberry.field(
        description="The text the start would inject: its handoffs' texts in injection "
        "order, as built now (a summary another writer would replace is the local one); "
        "null when it would inject nothing."
    )

    @classmethod
    async def of(cls, info: Info, found: Explained, at: Instant | None) -> StartContextPlan:
        pt = await by_id(info, ProviderThread, found.providerThreadId, at)
        prepared = await by_id(info, ContextHandoff, found.preparedHandoffId, at)
        run = found.recordedRun
        return from_model(
            cls,
            found,
            provider_thread=pt,
            covered_run_ordinals=found.covered,
            recorded_run=Run.of(run, at) if run else None,
            budget=_budget(found.budget),
            prepared_handoff=prepared,
        )


@strawberry.type
class SessionImport:
    thread: Thread
    provider_thread: ProviderThread
    imported_runs: int
    skipped_runs: int = strawberry.field(
        description="Runs already imported from an earlier copy of the same session."
    )

    @classmethod
    async def of(cls, info: Info, made: Imported) -> SessionImport:
        return cls(
            thread=await required(by_id(info, Thread, made.threadId)),
            provider_thread=await required(by_id(info, ProviderThread, made.providerThreadId)),
            imported_runs=made.importedRuns,
            skipped_runs=made.skippedRuns,
        )


@strawberry.type
class ProviderSuggestion:
    provider: str
    available: bool
    resets_at: datetime | None
    plan: StartContextPlan = strawberry.field(
        description="What startRun on this provider would do now."
    )

    @classmethod
    async def of(cls, info: Info, suggestion: Suggestion) -> ProviderSuggestion:
        return cls(
            provider=suggestion.provider,
            available=suggestion.available,
            resets_at=suggestion.limit.resetsAt if suggestion.limit else None,
            plan=await StartContextPlan.of(info, suggestion.plan, None),
        )


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

    @classmethod
    async def load(cls, info: Info, thread_id: str, decision: RollbackDecision) -> RollbackResult:
        """What a rollback changed, read after it committed (one batch per kind)."""
        loaders = info.context.loaders
        runs = await loaders.run.load_many(decision.rolledBackRunIds)
        handoffs = await loaders.handoff.load_many(decision.supersededHandoffIds)
        pts = await loaders.provider_thread.load_many(list(decision.providerThreadStatuses))
        transfers = await loaders.transfer.load_many(decision.supersededTransferIds)
        return cls(
            thread=await required(by_id(info, Thread, thread_id)),
            rolled_back_runs=[Run.of(r) for r in runs if r],
            superseded_handoffs=[ContextHandoff.of(h) for h in handoffs if h],
            affected_provider_threads=[ProviderThread.of(p) for p in pts if p],
            superseded_transfers=[ContextTransfer.of(x) for x in transfers if x],
        )


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
    source_item_index: int | None = strawberry.field(
        description="A fork at an item: the last item of the source run it inherits (-1: "
        "the run's input only)."
    )


@strawberry.type
class Lineage:
    nodes: list[LineageNode]
    edges: list[LineageEdge]

    @classmethod
    def of(cls, found: models.Lineage | None, as_of: Instant | None = None) -> Lineage:
        if found is None:
            return cls(nodes=[], edges=[])
        return cls(
            nodes=[
                LineageNode(thread=Thread.of(n.thread, as_of), depth=n.depth) for n in found.nodes
            ],
            edges=[
                LineageEdge(
                    from_=strawberry.ID(e.from_),
                    to=strawberry.ID(e.to),
                    relationship=e.relationship,
                    source_run_ordinal=e.sourceRunOrdinal,
                    source_item_index=e.sourceItemIndex,
                )
                for e in found.edges
            ],
        )


def _start_budget(decision: StartDecision) -> ContextBudget:
    """Every start decides its budget (resolvers/start/decision.py); a start answered
    again from a receipt stored before budgets existed gets its budget now."""
    budget = decision.budget
    if budget is None:
        budget = budget_into(decision.provider, decision.providerThread, None, ContextPolicy())
    return _budget(budget)


def _budget(budget: models.ContextBudget | None) -> ContextBudget:
    found = ContextBudget.of(budget)
    if found is None:  # an explanation is always a fresh decision, made with its budget
        raise ThreadlineError(ErrorCode.INTERNAL, "A start decision came without its budget.")
    return found


@strawberry.type(
    description="A text full-text search matched: a thread's title (runOrdinal, index and "
    "kind null), a run's input (index -1, kind USER_GOAL) or an item (Thread.items fetches "
    "around it)."
)
class SearchHit:
    thread: Thread
    run_ordinal: int | None
    index: int | None = strawberry.field(description="The item's index; -1: the run's input.")
    kind: RunItemKind | None
    snippet: str = strawberry.field(description="The matched text around its first match.")
    score: float = strawberry.field(description="Lucene's relevance: higher ranks first.")

    @classmethod
    async def of(cls, info: Info, found: SearchText, words: list[str]) -> SearchHit:
        return cls(
            thread=await required(by_id(info, Thread, found.threadId)),
            run_ordinal=found.runOrdinal,
            index=found.index,
            kind=found.kind,
            snippet=snippet(found.text, words),
            score=found.score,
        )
