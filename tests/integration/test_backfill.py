"""Data written before the service kept ranges, chains and digests reads the same once
`migrate` has backfilled them: coverage, and the next start's decision and text."""

from __future__ import annotations

from typing import Any

from graph import migrations
from graph.store import Store
from graph.tx import Tx
from tests.support.graphql import GraphQLClient
from tests.support.steps import COVERAGE, new_thread, run_once

EXPLAIN = """query($id: ID!, $p: String!) { explainStartContext(threadId: $id, provider: $p) {
  strategy providerAction providerThread { id } handoffStrategies coveredRunOrdinals
  tokenEstimate stalenessSignals explanation } }"""
ITEMS = [
    {"kind": "DECISION", "text": "keep the cache"},
    {"kind": "FILE_CHANGE", "text": "diff", "path": "a.py", "attributes": {"additions": 2}},
]


async def answers(gql: GraphQLClient, thread: str) -> dict[str, Any]:
    return {
        "coverage": await gql(COVERAGE, id=thread),
        **{p: await gql(EXPLAIN, id=thread, p=p) for p in ("codex", "claude")},
    }


async def test_backfill_restores_what_was_kept(gql: GraphQLClient, store: Store) -> None:
    thread = await new_thread(gql)
    for provider in ["codex"] * 3 + ["claude", "codex", "claude", "codex"]:
        await run_once(gql, thread, provider, items=ITEMS)
    await gql(
        "mutation($t: ID!) { rollbackThread(threadId: $t, toRunOrdinal: 5) { thread { id } } }",
        t=thread,
    )
    for provider in ["claude", "codex"]:
        await run_once(gql, thread, provider, items=ITEMS)
    before = await answers(gql, thread)

    async def forget(tx: Tx) -> None:
        await tx.rows("testing/forget_maintained")

    await store.write(forget)
    await migrations.migrate(store)
    assert await answers(gql, thread) == before
