"""threadEvents streams committed events read from Neo4j, in order."""

from __future__ import annotations

import asyncio
from typing import Any

from api.auth import Principal, Scope
from api.context import Context
from api.schema import build_schema
from api.settings import Settings
from graph.store import Store
from resolvers.providers import registry_from_toml

SUBSCRIBE = "subscription($id: ID!) { threadEvents(threadId: $id) { type threadId } }"


async def test_thread_events_streams_new_commits(clean_store: Store) -> None:
    settings = Settings()
    context = Context(store=clean_store, settings=settings, providers=registry_from_toml(None))
    thread = await context.commands.create_thread("live", None)
    stream: Any = await build_schema(settings).subscribe(
        SUBSCRIBE, variable_values={"id": thread.id}, context_value=context
    )
    try:
        first = await asyncio.wait_for(anext(stream), 10)
        assert first.data["threadEvents"] == {"type": "thread.created", "threadId": thread.id}
        # A write from "another process": the same database, a separate command object.
        other = Context(store=clean_store, settings=settings, providers=registry_from_toml(None))
        await other.commands.request_clean_context(thread.id)
        second = await asyncio.wait_for(anext(stream), 10)
        assert second.data["threadEvents"]["type"] == "thread.cleanContextRequested"
    finally:
        await stream.aclose()


async def test_other_workspace_cannot_subscribe(clean_store: Store) -> None:
    settings = Settings()
    providers = registry_from_toml(None)
    alice = Context(
        store=clean_store,
        settings=settings,
        providers=providers,
        principal=Principal(name="a", workspace="a", scope=Scope.write),
    )
    bob = Context(
        store=clean_store,
        settings=settings,
        providers=providers,
        principal=Principal(name="b", workspace="b", scope=Scope.admin),
    )
    thread = await alice.commands.create_thread("private", None)
    stream: Any = await build_schema(settings).subscribe(
        SUBSCRIBE, variable_values={"id": thread.id}, context_value=bob
    )
    answer = await asyncio.wait_for(anext(stream), 10)
    assert answer.errors and answer.errors[0].extensions["code"] == "NOT_FOUND"
    await stream.aclose()
