"""Commands called directly on a store (no GraphQL), as another API process would."""

from __future__ import annotations

from api.commands import receipts, runs
from api.commands.caller import Caller
from api.settings import Settings
from graph import repo
from graph.models import ThreadNode
from graph.store import Store
from graph.tx import Tx
from resolvers.providers import registry_from_toml
from resolvers.start.staleness import StalenessPolicy


def caller(workspace: str) -> Caller:
    return Caller(workspace, registry_from_toml(None), StalenessPolicy())


async def create_thread(
    store: Store,
    workspace: str,
    title: str | None,
    ident: str | None = None,
    command_id: str | None = None,
) -> ThreadNode:
    who = caller(workspace)
    return await receipts.run_once(
        store,
        workspace,
        receipts.command_key(command_id, Settings().max_name_chars),
        "createThread",
        {"title": title, "id": ident},
        ThreadNode,
        lambda tx: runs.create_thread(tx, who, title, ident),
    )


async def request_clean_context(store: Store, workspace: str, thread_id: str) -> str:
    who = caller(workspace)
    return await receipts.run_once(
        store,
        workspace,
        None,
        "requestCleanContext",
        {"threadId": thread_id},
        str,
        lambda tx: runs.request_clean_context(tx, who, thread_id),
    )


async def request_clean_contexts(store: Store, workspace: str, thread_id: str, count: int) -> None:
    """`count` clean-context requests in one transaction: a long log written in one commit
    instead of `count` (no receipt: they are not commands a client sent)."""
    who = caller(workspace)

    async def work(tx: Tx) -> None:
        for _ in range(count):
            written = await runs.request_clean_context(tx, who, thread_id)
            await repo.apply(tx, workspace, written.plan)

    await store.write(work)
