"""The one subscription: a thread's events, from its first (or after a given one), then
live."""

from __future__ import annotations

from collections.abc import AsyncGenerator

import strawberry

from api.auth import Scope
from api.graphql.answers import ThreadEvent
from api.graphql.context import Info
from api.graphql.from_models import described
from graph import repo
from graph.errors import invalid, not_found
from graph.tx import Tx


@strawberry.type
class Subscription:
    @described(
        "Every event of the thread from the first (or from the one after the event `after`), "
        "then each new one as it commits: each once, in order, however other subscriptions "
        "come and go. An `after` that is not an event of the thread is INVALID_INPUT.",
        subscription=True,
    )
    async def thread_events(
        self, info: Info, thread_id: strawberry.ID, after: strawberry.ID | None = None
    ) -> AsyncGenerator[ThreadEvent, None]:
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
            context.still_valid()  # a token revoked or expired meanwhile gets no more
            await context.services.closed.refuse(context.workspace)  # nor one restored
            yield ThreadEvent.of(event)
