"""Nothing runs unbounded: a store call answers within its timeout, and Neo4j itself
stops the transaction (the server-side transaction timeout), not only the client."""

from __future__ import annotations

import asyncio
import time

import pytest

from graph import queries
from graph.errors import ErrorCode, ThreadlineError
from graph.store import Store, Tx, deadline_in
from tests.support.graphql import connect_test_store

pytestmark = pytest.mark.alone
TIMEOUT_S = 1.0
SLOW_MARKER = "x % 7 = 0"  # a piece of testing/slow.cypher's text


async def slow(tx: Tx) -> int:
    row = await tx.row("testing/slow", n=10**10)
    return int(row["multiples"]) if row else 0


async def still_running(store: Store) -> int:
    async with store._driver.session() as session:  # SHOW TRANSACTIONS is not allowed in a tx
        result = await session.run(queries.load("testing/running"), text=SLOW_MARKER)  # type: ignore[arg-type]
        row = await result.single()
        return int(row["running"]) if row else 0


async def test_a_slow_read_is_cut_off_by_the_server(neo4j_uri: str, store: Store) -> None:
    bounded = Store.connect(neo4j_uri, None, timeout_s=TIMEOUT_S)
    try:
        started = time.monotonic()
        with pytest.raises(ThreadlineError) as raised:
            await bounded.read(slow)
        elapsed = time.monotonic() - started
        assert raised.value.code is ErrorCode.UNAVAILABLE
        assert elapsed <= TIMEOUT_S, "the answer came within the store's own bound"
        for _ in range(50):
            if await still_running(store) == 0:
                break
            await asyncio.sleep(0.1)
        assert await still_running(store) == 0, "Neo4j still runs the abandoned transaction"
    finally:
        await bounded.close()


async def test_one_deadline_covers_every_call_of_a_request(neo4j_uri: str) -> None:
    """A request's second call gets what the first left of the deadline, not a new bound."""
    bounded = connect_test_store(neo4j_uri)  # its own bound per call is 5 s
    try:
        started = time.monotonic()
        with deadline_in(TIMEOUT_S):
            for _ in range(2):
                with pytest.raises(ThreadlineError) as raised:
                    await bounded.read(slow)
                assert raised.value.code is ErrorCode.UNAVAILABLE
        assert time.monotonic() - started <= TIMEOUT_S
    finally:
        await bounded.close()
