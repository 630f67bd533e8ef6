"""Every query: by id, pages of threads and events, lineage, and the dry runs of startRun
and mergeBack."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Annotated

import strawberry

from api.commands import limits, lineage, runs
from api.commands.caller import Caller
from api.commands.limits import Suggestion
from api.graphql import cursors, pagination, past
from api.graphql.answers import (
    Lineage,
    MergeBackPlan,
    ProviderSuggestion,
    SearchHit,
    StartContextPlan,
    ThreadConnection,
    ThreadEdge,
    ThreadEvent,
)
from api.graphql.context import Info
from api.graphql.enums import LineageDirection, RunItemKind
from api.graphql.from_models import described, from_model
from api.graphql.nodes import ContextHandoff, ContextTransfer, ProviderThread, Run, Thread, by_id
from api.graphql.providers import Provider, ProviderLimit
from graph import models, repo
from graph.errors import invalid
from graph.search import SearchText
from graph.tx import Tx
from resolvers import search
from resolvers.lineage.writes import MergeBackOutlook
from resolvers.past.replay import Explained, explained
from resolvers.start.decision import StartRequest


@strawberry.type
class Query:
    @strawberry.field
    def providers(self, info: Info) -> list[Provider]:
        return [from_model(Provider, p, capabilities=p) for p in info.context.providers.all()]

    @described("The workspace's usage limits: the latest of each provider, in force first.")
    async def provider_limits(self, info: Info) -> list[ProviderLimit]:
        found, now = await info.context.examine(limits.provider_limits)
        return [ProviderLimit.of(limit, now) for limit in found]

    @described(
        "Every configured provider that could take the thread, available ones first, then "
        "the cheapest context first; each with the plan explainStartContext would give."
    )
    async def suggest_providers(
        self, info: Info, thread_id: strawberry.ID
    ) -> list[ProviderSuggestion]:
        async def work(tx: Tx, caller: Caller) -> list[Suggestion]:
            return await limits.suggest_providers(tx, caller, thread_id)

        found = await info.context.examine(work)
        return [await ProviderSuggestion.of(info, suggestion) for suggestion in found]

    @described(
        "Full-text search of the workspace's thread titles, run inputs and items (runs "
        "rolled back are not searched), best first. A hit matches at least one of the "
        "query's words (letters, digits, `_`; any case). `kinds`: only input and item hits "
        "of these kinds."
    )
    async def search(
        self,
        info: Info,
        query: str,
        kinds: list[RunItemKind] | None = None,
        first: int | None = 20,
    ) -> list[SearchHit]:
        size = pagination.page_size(info.context.settings.max_page_size, first, 20)
        searched = search.words(query)
        workspace = info.context.workspace
        lucene = search.lucene(workspace, searched, kinds)
        if lucene is None:
            return []

        async def work(tx: Tx) -> list[SearchText]:
            found = await repo.search(tx, workspace, lucene, kinds, size, search.candidates(size))
            wider = search.candidates_again(size, len(found))
            if wider is None:
                return found
            return await repo.search(tx, workspace, lucene, kinds, size, wider)

        found = await info.context.store.read(work)
        return list(await asyncio.gather(*(SearchHit.of(info, f, searched) for f in found)))

    @strawberry.field
    async def thread(
        self, info: Info, id: strawberry.ID, as_of: datetime | None = None
    ) -> Thread | None:
        return await by_id(info, Thread, id, past.instant(as_of))

    @described(
        "Threads by id, in the order asked; null for an id the workspace does not hold. At "
        "most the page size of ids (the lineage page asks for the boxes it draws)."
    )
    async def threads_by_id(self, info: Info, ids: list[strawberry.ID]) -> list[Thread | None]:
        most = info.context.settings.max_page_size
        if len(ids) > most:
            raise invalid(f"threadsById takes at most {most} ids, got {len(ids)}.")
        # Together, so the thread loader reads them in one batch.
        return list(await asyncio.gather(*(by_id(info, Thread, ident) for ident in ids)))

    @strawberry.field
    async def threads(
        self,
        info: Info,
        first: int | None = 50,
        after: str | None = None,
        title_contains: Annotated[
            str | None,
            strawberry.argument(description="Only threads whose title holds this, in any case."),
        ] = None,
        newest_first: Annotated[
            bool,
            strawberry.argument(
                description="Newest first (the default is oldest first); `after` pages on "
                "in the same order."
            ),
        ] = False,
    ) -> ThreadConnection:
        size = pagination.page_size(info.context.settings.max_page_size, first, 50)
        position = cursors.thread_position(after) if after else None

        async def work(tx: Tx) -> list[models.ThreadNode]:
            return await repo.threads_page(
                tx, info.context.workspace, position, size, title_contains, newest_first
            )

        found = await info.context.store.read(work)
        edges, page_info = pagination.page(
            found,
            size,
            lambda node: ThreadEdge(
                cursor=cursors.thread_cursor(node.createdAt, node.id), node=Thread.of(node)
            ),
        )
        return ThreadConnection(edges=edges, page_info=page_info)

    @strawberry.field
    async def run(self, info: Info, id: strawberry.ID) -> Run | None:
        return await by_id(info, Run, id)

    @strawberry.field
    async def provider_thread(self, info: Info, id: strawberry.ID) -> ProviderThread | None:
        return await by_id(info, ProviderThread, id)

    @strawberry.field
    async def transfer(self, info: Info, id: strawberry.ID) -> ContextTransfer | None:
        return await by_id(info, ContextTransfer, id)

    @strawberry.field
    async def handoff(self, info: Info, id: strawberry.ID) -> ContextHandoff | None:
        return await by_id(info, ContextHandoff, id)

    @described("Threads around one: parents up, forks and subagents down.")
    async def lineage(
        self,
        info: Info,
        thread_id: strawberry.ID,
        direction: LineageDirection | None = models.LineageDirection.BOTH,
        depth: int | None = 10,
        as_of: datetime | None = None,
        include_side: Annotated[
            bool | None,
            strawberry.argument(
                description="Side threads below the thread too (left out by default)."
            ),
        ] = False,
    ) -> Lineage:
        hops = 10 if depth is None else depth
        if hops < 0:
            raise invalid(f"depth must be 0 or more, got {hops}.")
        way = models.LineageDirection(direction or models.LineageDirection.BOTH)
        side = bool(include_side)

        async def work(tx: Tx) -> models.Lineage | None:
            return await repo.lineage(tx, info.context.workspace, thread_id, way.value, hops, side)

        found = await info.context.store.read(work)
        at = past.instant(as_of)
        return Lineage.of(found) if at is None else await past.lineage(info, found, at)

    @described(
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
    ) -> StartContextPlan:
        request = StartRequest(provider=provider, input="", model=model, runtimeMode=runtime_mode)
        at = past.instant(as_of)

        async def now(tx: Tx, caller: Caller) -> Explained:
            decision, state = await runs.explain_start(tx, caller, thread_id, request)
            return explained(decision, state)

        async def then(tx: Tx, caller: Caller) -> Explained:
            assert at is not None
            return await runs.explain_start_then(tx, caller, thread_id, request, at.at)

        found = await info.context.examine(now if at is None else then)
        return await StartContextPlan.of(info, found, at)

    @described("Dry run of mergeBack: what it would carry, and where, or why it would refuse.")
    async def explain_merge_back(self, info: Info, thread_id: strawberry.ID) -> MergeBackPlan:
        async def explain(tx: Tx, caller: Caller) -> MergeBackOutlook:
            return await lineage.explain_merge_back(tx, caller, thread_id)

        found = await info.context.examine(explain)
        return MergeBackPlan(
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
    ) -> list[ThreadEvent]:
        size = pagination.page_size(info.context.settings.max_page_size, first, 100)

        async def work(tx: Tx) -> list[models.EventNode] | None:
            return await repo.events_page(tx, info.context.workspace, thread_id, after, size)

        found = await info.context.store.read(work)
        if found is None:
            raise invalid(f"after: {after!r} is not an event of thread {thread_id!r}.")
        return [ThreadEvent.of(event) for event in found]
