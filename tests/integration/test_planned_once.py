"""Until the store is warm, a statement is planned once however many requests need it at
the same time: the others wait for that plan instead of each making it on Neo4j."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

from graph import queries
from graph.tx import Tx
from tests.support.graphql import connect_test_store

FIND = "command/find"


async def test_requests_waiting_for_one_statement_share_its_planning(neo4j_uri: str) -> None:
    store = connect_test_store(neo4j_uri)  # new: nothing planned, not warm
    planned: Counter[str] = Counter()
    plan = store.warm_up.alone

    async def counted(text: str, params: dict[str, Any], timeout_s: float) -> None:
        planned[text] += 1
        await plan(text, params, timeout_s)

    store.warm_up.alone = counted  # type: ignore[method-assign]

    async def find(n: int) -> None:
        async def work(tx: Tx) -> None:
            await tx.rows(FIND, workspace="planned-once", commandId=f"c{n}")

        await store.read(work)

    try:
        assert not store.warm_up.done
        await asyncio.gather(*(find(n) for n in range(8)))
        assert planned[queries.load(FIND)] == 1, "eight requests, one planning"
        await find(8)
        assert planned[queries.load(FIND)] == 1, "once planned, a request runs at once"
    finally:
        await store.close()
