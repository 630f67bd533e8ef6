"""The GraphQL schema: queries, mutations and the event subscription."""

from __future__ import annotations

import base64
from collections.abc import AsyncGenerator, Callable, Sequence
from datetime import datetime

import strawberry
from graphql import GraphQLError
from strawberry.extensions import (
    AddValidationRules,
    DisableIntrospection,
    MaxAliasesLimiter,
    MaxTokensLimiter,
    ParserCache,
    QueryDepthLimiter,
    SchemaExtension,
    ValidationCache,
)
from strawberry.scalars import JSON
from strawberry.tools import merge_types
from strawberry.types import ExecutionContext

from api.auth import Scope
from api.commands import handoffs, lineage, runs
from api.commands.caller import Caller
from api.graphql import answers as a
from api.graphql import past
from api.graphql import types as t
from api.graphql.errors import CodedErrors
from api.graphql.guards import guards_extension
from api.graphql.lineage_mutations import LineageMutation
from api.settings import Settings
from graph import models, repo
from graph.errors import invalid, not_found
from graph.store import Tx
from resolvers.lineage.plans import MergeBackOutlook
from resolvers.lineage.rollback import RollbackDecision
from resolvers.past.replay import Explained, explained
from resolvers.start.decision import StartRequest
from resolvers.start.plan import StartOutcome

Info = t.Info
DOCUMENT_CACHE = 512  # distinct query texts kept parsed and validated


@strawberry.input
class RunItemInput:
    kind: t.RunItemKind
    text: str
    key: str | None = None
    path: str | None = None
    attributes: JSON | None = None


@strawberry.input
class FileDiffStatInput:
    path: str
    additions: int
    deletions: int
    change_kind: str


@strawberry.input
class CheckpointInput:
    diff_summary: list[FileDiffStatInput]
    ref: str | None = None


def _page_size(info: Info, first: int) -> int:
    limit = info.context.settings.max_page_size
    if not 1 <= first <= limit:
        raise invalid(f"first must be between 1 and {limit}, got {first}.")
    return first


def _cursor(node: models.ThreadNode) -> str:
    raw = f"{node.createdAt.isoformat()}|{node.id}"
    return base64.urlsafe_b64encode(raw.encode()).decode()


def _decode_cursor(cursor: str) -> tuple[datetime, str]:
    try:
        created, ident = base64.urlsafe_b64decode(cursor.encode()).decode().split("|", 1)
        return datetime.fromisoformat(created), ident
    except ValueError as error:
        raise invalid(f"Cursor {cursor!r} is not one this API issued.") from error


@strawberry.type
class Query:
    @strawberry.field
    def providers(self, info: Info) -> list[t.Provider]:
        return [
            t.Provider(
                kind=p.kind,
                supports_resume=p.supports_resume,
                supports_native_fork=p.supports_native_fork,
                supports_native_fork_at_turn=p.supports_native_fork_at_turn,
                supports_rollback=p.supports_rollback,
                accepts_handoff=p.accepts_handoff,
                injection_mode=p.injection_mode,
                max_handoff_tokens=p.max_handoff_tokens,
                summary_source=p.summary_source,
            )
            for p in info.context.providers.all()
        ]

    @strawberry.field
    async def thread(
        self, info: Info, id: strawberry.ID, as_of: datetime | None = None
    ) -> t.Thread | None:
        return await t.thread_by_id(info, id, past.instant(as_of))

    @strawberry.field
    async def threads(
        self, info: Info, first: int | None = 50, after: str | None = None
    ) -> a.ThreadConnection:
        size = _page_size(info, 50 if first is None else first)
        position = _decode_cursor(after) if after else None

        async def work(tx: Tx) -> list[models.ThreadNode]:
            return await repo.threads_page(tx, info.context.workspace, position, size)

        found = await info.context.store.read(work)
        page = found[:size]
        edges = [a.ThreadEdge(cursor=_cursor(node), node=t.Thread.of(node)) for node in page]
        return a.ThreadConnection(
            edges=edges,
            page_info=a.PageInfo(
                has_next_page=len(found) > size,
                end_cursor=edges[-1].cursor if edges else None,
            ),
        )

    @strawberry.field
    async def run(self, info: Info, id: strawberry.ID) -> t.Run | None:
        return await t.run_by_id(info, id)

    @strawberry.field
    async def provider_thread(self, info: Info, id: strawberry.ID) -> t.ProviderThread | None:
        return await t.provider_thread_by_id(info, id)

    @strawberry.field
    async def transfer(self, info: Info, id: strawberry.ID) -> t.ContextTransfer | None:
        return await t.transfer_by_id(info, id)

    @strawberry.field
    async def handoff(self, info: Info, id: strawberry.ID) -> t.ContextHandoff | None:
        return await t.handoff_by_id(info, id)

    @t.described("Threads around one: parents up, forks and subagents down.")
    async def lineage(
        self,
        info: Info,
        thread_id: strawberry.ID,
        direction: t.LineageDirection | None = models.LineageDirection.BOTH,
        depth: int | None = 10,
        as_of: datetime | None = None,
    ) -> a.Lineage:
        hops = 10 if depth is None else depth
        if hops < 0:
            raise invalid(f"depth must be 0 or more, got {hops}.")
        way = models.LineageDirection(direction or models.LineageDirection.BOTH)

        async def work(tx: Tx) -> models.Lineage | None:
            return await repo.lineage(tx, info.context.workspace, thread_id, way.value, hops)

        found = await info.context.store.read(work)
        at = past.instant(as_of)
        return a.Lineage.of(found) if at is None else await past.lineage(info, found, at)

    @t.described(
        "Dry run of startRun: same decision, nothing written. With asOf, the decision as it "
        "would have been made then; where a run recorded another, the record is answered."
    )
    async def explain_start_context(
        self,
        info: Info,
        thread_id: strawberry.ID,
        provider: str,
        model: str | None = None,
        runtime_mode: str | None = None,
        as_of: datetime | None = None,
    ) -> a.StartContextPlan:
        request = StartRequest(provider=provider, input="", model=model, runtimeMode=runtime_mode)
        at = past.instant(as_of)

        async def now(tx: Tx, caller: Caller) -> Explained:
            decision, state = await runs.explain_start(tx, caller, thread_id, request)
            return explained(decision, state)

        async def then(tx: Tx, caller: Caller) -> Explained:
            assert at is not None
            return await runs.explain_start_then(tx, caller, thread_id, request, at.at)

        found = await info.context.examine(now if at is None else then)
        return await a.StartContextPlan.of(info, found, at)

    @t.described("Dry run of mergeBack: what it would carry, and where, or why it would refuse.")
    async def explain_merge_back(self, info: Info, thread_id: strawberry.ID) -> a.MergeBackPlan:
        async def explain(tx: Tx, caller: Caller) -> MergeBackOutlook:
            return await lineage.explain_merge_back(tx, caller, thread_id)

        found = await info.context.examine(explain)
        return a.MergeBackPlan(
            possible=found.reason is None,
            reason=found.reason,
            run_ordinals=list(found.runs),
            context_text=found.text,
            token_estimate=found.tokenEstimate,
            target_thread_id=strawberry.ID(found.targetThreadId),
        )

    @strawberry.field
    async def events(
        self,
        info: Info,
        thread_id: strawberry.ID,
        after: strawberry.ID | None = None,
        first: int | None = 100,
    ) -> list[a.ThreadEvent]:
        size = _page_size(info, 100 if first is None else first)

        async def work(tx: Tx) -> list[models.EventNode] | None:
            return await repo.events_page(tx, info.context.workspace, thread_id, after, size)

        found = await info.context.store.read(work)
        if found is None:
            raise invalid(f"after: {after!r} is not an event of thread {thread_id!r}.")
        return [a.ThreadEvent.of(event) for event in found]


def _resolution(outcome: StartOutcome) -> a.StartContextResolution:
    """A start's answer, from the nodes as the start left them: no second read."""
    decision = outcome.decision
    fork = decision.nativeFork
    return a.StartContextResolution(
        run=t.Run.of(outcome.run),
        strategy=decision.strategy,
        provider_action=decision.providerAction,
        provider_thread=t.ProviderThread.of(outcome.provider_thread),
        native_fork=a.NativeForkPlan(
            source_provider_thread_ref=fork.sourceProviderThreadRef,
            last_turn_id=fork.lastTurnId,
            rollback_turns=fork.rollbackTurns,
        )
        if fork
        else None,
        handoffs=[t.ContextHandoff.of(h) for h in outcome.handoffs],
        context_text=outcome.context_text,
        injection_mode=decision.injection_mode,
        consumed_transfers=[t.ContextTransfer.of(x) for x in outcome.transfers],
        staleness_signals=decision.stalenessSignals,
        explanation=decision.explanation,
        summarization_requests=[a.SummarizationRequest.of(r) for r in outcome.waiting_requests],
    )


async def _rollback_result(
    info: Info, thread_id: str, decision: RollbackDecision
) -> a.RollbackResult:
    loaders = info.context.loaders
    runs = await loaders.run.load_many(decision.rolledBackRunIds)
    handoffs = await loaders.handoff.load_many(decision.supersededHandoffIds)
    pts = await loaders.provider_thread.load_many(list(decision.providerThreadStatuses))
    transfers = await loaders.transfer.load_many(decision.supersededTransferIds)
    return a.RollbackResult(
        thread=await t.required(t.thread_by_id(info, thread_id)),
        rolled_back_runs=[t.Run.of(r) for r in runs if r],
        superseded_handoffs=[t.ContextHandoff.of(h) for h in handoffs if h],
        affected_provider_threads=[t.ProviderThread.of(p) for p in pts if p],
        superseded_transfers=[t.ContextTransfer.of(x) for x in transfers if x],
    )


@strawberry.type
class Mutation:
    @strawberry.mutation
    async def create_thread(
        self,
        info: Info,
        title: str | None = None,
        id: strawberry.ID | None = None,
        command_id: str | None = None,
    ) -> t.Thread:
        node = await info.context.command(
            "createThread",
            {"title": title, "id": id},
            command_id,
            models.ThreadNode,
            lambda tx, caller: runs.create_thread(tx, caller, title, id),
        )
        return t.Thread.of(node)

    @t.described("resolveStartContext: one entry point for every run.", mutation=True)
    async def start_run(
        self,
        info: Info,
        thread_id: strawberry.ID,
        provider: str,
        input: str,
        model: str | None = None,
        runtime_mode: str | None = None,
        command_id: str | None = None,
        summary_source: t.SummarySource | None = None,
    ) -> a.StartContextResolution:
        request = StartRequest(
            provider=provider, input=input, model=model, runtimeMode=runtime_mode
        )
        source = models.SummarySource(summary_source) if summary_source else None
        outcome = await info.context.command(
            "startRun",
            {"threadId": thread_id, **request.model_dump(), **_source_arg(source)},
            command_id,
            StartOutcome,
            lambda tx, caller: runs.start_run(tx, caller, thread_id, request, source),
        )
        outcome = await info.context.finish_summaries(outcome, command_id)
        info.context.loaders.clear()
        return _resolution(outcome)

    @strawberry.mutation
    async def attach_native_thread(
        self,
        info: Info,
        provider_thread_id: strawberry.ID,
        native_ref: str,
        history_mode: t.HistoryMode | None = models.HistoryMode.UNKNOWN,
        command_id: str | None = None,
    ) -> t.ProviderThread:
        mode = models.HistoryMode(history_mode or models.HistoryMode.UNKNOWN)
        attached = await info.context.command(
            "attachNativeThread",
            {"id": provider_thread_id, "ref": native_ref, "mode": mode.value},
            command_id,
            models.ProviderThreadNode,
            lambda tx, caller: runs.attach_native_thread(
                tx, caller, provider_thread_id, native_ref, mode
            ),
        )
        info.context.loaders.clear()
        return t.ProviderThread.of(attached)

    @t.described(
        "The provider action failed: the run moves to a new provider thread. While the run "
        "waits for a summary, the summary failed: its handoff becomes FAILED and a new one "
        "(the local summary, or `summarySource`) replaces it.",
        mutation=True,
    )
    async def report_start_failure(
        self,
        info: Info,
        run_id: strawberry.ID,
        reason: str,
        command_id: str | None = None,
        summary_source: t.SummarySource | None = None,
    ) -> a.StartContextResolution:
        source = models.SummarySource(summary_source) if summary_source else None
        outcome = await info.context.command(
            "reportStartFailure",
            {"runId": run_id, "reason": reason, **_source_arg(source)},
            command_id,
            StartOutcome,
            lambda tx, caller: runs.report_start_failure(tx, caller, run_id, reason, source),
        )
        outcome = await info.context.finish_summaries(outcome, command_id)
        info.context.loaders.clear()
        return _resolution(outcome)

    @strawberry.mutation
    async def complete_run(
        self,
        info: Info,
        run_id: strawberry.ID,
        native_turn_ref: str | None = None,
        items: list[RunItemInput] | None = None,
        checkpoint: CheckpointInput | None = None,
        command_id: str | None = None,
    ) -> t.Run:
        run_items = [
            models.RunItem(
                kind=models.RunItemKind(item.kind),
                text=item.text,
                key=item.key,
                path=item.path,
                attributes=_attributes(item.attributes),
            )
            for item in items or []
        ]
        diff = None
        if checkpoint is not None:
            diff = [
                models.FileDiffStat(
                    path=s.path,
                    additions=s.additions,
                    deletions=s.deletions,
                    changeKind=s.change_kind,
                )
                for s in checkpoint.diff_summary
            ]
        ref = checkpoint.ref if checkpoint else None
        args = {
            "runId": run_id,
            "nativeTurnRef": native_turn_ref,
            "items": [i.model_dump() for i in run_items],
            "checkpointRef": ref,
            "diff": [d.model_dump() for d in diff] if diff is not None else None,
        }
        done = await info.context.command(
            "completeRun",
            args,
            command_id,
            models.RunNode,
            lambda tx, caller: runs.complete_run(
                tx, caller, run_id, native_turn_ref, run_items, ref, diff
            ),
        )
        info.context.loaders.clear()
        return t.Run.of(done)

    @strawberry.mutation
    async def fail_run(
        self, info: Info, run_id: strawberry.ID, reason: str, command_id: str | None = None
    ) -> t.Run:
        failed = await info.context.command(
            "failRun",
            {"runId": run_id, "reason": reason},
            command_id,
            models.RunNode,
            lambda tx, caller: runs.fail_run(tx, caller, run_id, reason),
        )
        info.context.loaders.clear()
        return t.Run.of(failed)

    @strawberry.mutation
    async def rollback_thread(
        self,
        info: Info,
        thread_id: strawberry.ID,
        to_run_ordinal: int,
        command_id: str | None = None,
    ) -> a.RollbackResult:
        decision = await info.context.command(
            "rollbackThread",
            {"threadId": thread_id, "to": to_run_ordinal},
            command_id,
            RollbackDecision,
            lambda tx, caller: runs.rollback_thread(tx, caller, thread_id, to_run_ordinal),
        )
        return await t.read_back(info, _rollback_result(info, thread_id, decision))

    @strawberry.mutation
    async def regenerate_handoff(
        self, info: Info, handoff_id: strawberry.ID, command_id: str | None = None
    ) -> t.ContextHandoff:
        ident = await info.context.command(
            "regenerateHandoff",
            {"handoffId": handoff_id},
            command_id,
            str,
            lambda tx, caller: handoffs.regenerate_handoff(tx, caller, handoff_id),
        )
        return await t.read_back(info, t.required(t.handoff_by_id(info, ident)))

    @strawberry.mutation
    async def submit_handoff_summary(
        self,
        info: Info,
        handoff_id: strawberry.ID,
        summary_text: str,
        created_by_provider: str,
        command_id: str | None = None,
    ) -> t.ContextHandoff:
        ident = await info.context.command(
            "submitHandoffSummary",
            {"handoffId": handoff_id, "text": summary_text, "by": created_by_provider},
            command_id,
            str,
            lambda tx, caller: handoffs.submit_handoff_summary(
                tx, caller, handoff_id, summary_text, created_by_provider
            ),
        )
        return await t.read_back(info, t.required(t.handoff_by_id(info, ident)))

    @strawberry.mutation
    async def request_clean_context(
        self, info: Info, thread_id: strawberry.ID, command_id: str | None = None
    ) -> t.Thread:
        ident = await info.context.command(
            "requestCleanContext",
            {"threadId": thread_id},
            command_id,
            str,
            lambda tx, caller: runs.request_clean_context(tx, caller, thread_id),
        )
        return await t.read_back(info, t.required(t.thread_by_id(info, ident)))


def _source_arg(source: models.SummarySource | None) -> dict[str, str]:
    """The summary source among a command's hashed arguments, only when given: a receipt
    recorded before the argument existed still matches a replay without it."""
    return {"summarySource": source.value} if source else {}


def _attributes(value: object) -> dict[str, object] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise invalid("Run item attributes must be a JSON object.")
    return value


@strawberry.type
class Subscription:
    @t.described(
        "Every event of the thread from the first (or from the one after the event `after`), "
        "then each new one as it commits: each once, in order, however other subscriptions "
        "come and go. An `after` that is not an event of the thread is INVALID_INPUT.",
        subscription=True,
    )
    async def thread_events(
        self, info: Info, thread_id: strawberry.ID, after: strawberry.ID | None = None
    ) -> AsyncGenerator[a.ThreadEvent, None]:
        """Read from Neo4j by one poll per process, so any API process serves any
        subscriber; `after` lets a client that reconnects resume where it stopped."""
        context = info.context
        context.authorize(Scope.read)
        if await context.loaders.thread.load(thread_id) is None:
            raise not_found("thread", thread_id)
        after_seq = 0
        if after is not None:

            async def position(tx: Tx) -> int | None:
                return await repo.event_seq(tx, context.workspace, thread_id, after)

            found = await context.store.read(position)
            if found is None:
                raise invalid(f"after: {after!r} is not an event of thread {thread_id!r}.")
            after_seq = found
        feeds = context.services.feeds
        async for event in feeds.events(context.workspace, thread_id, after_seq):
            yield a.ThreadEvent.of(event)


class ThreadlineSchema(strawberry.Schema):
    def process_errors(
        self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None
    ) -> None:
        """Log nothing here: a client's error is its own business, and an internal one is
        logged once, with its trace and correlation id, where it is masked (api.graphql.errors)."""


def build_schema(
    settings: Settings, extra: Sequence[Callable[[], SchemaExtension]] = ()
) -> strawberry.Schema:
    """The schema with our limits and error masking; extensions are built per request.

    Documents are parsed and validated once per text (Strawberry's caches). The depth and
    alias rules are made once here, so the validation cache, which is keyed by the rules
    too, is hit by every request with a text it has seen.
    """
    limit_rules = [
        *QueryDepthLimiter(max_depth=settings.max_query_depth).validation_rules,
        *MaxAliasesLimiter(max_alias_count=settings.max_aliases).validation_rules,
    ]
    extensions: list[Callable[[], SchemaExtension]] = [
        guards_extension(settings),
        CodedErrors,
        lambda: MaxTokensLimiter(max_token_count=settings.max_query_tokens),
        lambda: ParserCache(maxsize=DOCUMENT_CACHE),
        lambda: AddValidationRules(limit_rules),
        lambda: ValidationCache(maxsize=DOCUMENT_CACHE),
        *extra,
    ]
    if settings.production:
        extensions.append(DisableIntrospection)
    mutation = merge_types("Mutation", (Mutation, LineageMutation))
    return ThreadlineSchema(
        query=Query,
        mutation=mutation,
        subscription=Subscription,
        extensions=extensions,
    )
