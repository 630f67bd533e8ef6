"""Nothing runs unbounded: a store call that outlives its bound is cut off and answered
UNAVAILABLE, and Neo4j itself stops the transaction (the server-side transaction timeout),
not only the client. Asserted by what happens, not by the clock: how long a bound really
takes is the benchmark's to measure. A store call that was not cut off would run for hours
and trip the test's own timeout."""

from __future__ import annotations

import asyncio

import pytest

from graph import queries
from graph.errors import ErrorCode, ThreadlineError
from graph.store import Store, deadline_in
from graph.tx import Tx
from tests.support.graphql import connect_test_store

pytestmark = pytest.mark.timeout(120)
TIMEOUT_S = 1.0
SLOW_MARKER = "x % 7 = 0"  # a piece of testing/slow.cypher's text


async def slow(tx: Tx) -> int:
    row = await tx.row("testing/slow", n=10**10)
    return int(row["multiples"]) if row else 0


class Counted:
    """A transaction function that counts the transactions it was run in."""

    def __init__(self) -> None:
        self.runs = 0

    async def __call__(self, tx: Tx) -> int:
        self.runs += 1
        return await slow(tx)


async def still_running(store: Store) -> int:
    async with store._driver.session() as session:  # SHOW TRANSACTIONS is not allowed in a tx
        result = await session.run(queries.load("testing/running"), text=SLOW_MARKER)  # type: ignore[arg-type]
        row = await result.single()
        return int(row["running"]) if row else 0


async def test_a_slow_read_is_cut_off_by_the_server(neo4j_uri: str, store: Store) -> None:
    bounded = Store.connect(neo4j_uri, None, timeout_s=TIMEOUT_S)
    try:
        with pytest.raises(ThreadlineError) as raised:
            await bounded.read(slow)
        assert raised.value.code is ErrorCode.UNAVAILABLE
        assert "nothing was written" in raised.value.message
        for _ in range(300):  # up to 30 s on a loaded box
            if await still_running(store) == 0:
                break
            await asyncio.sleep(0.1)
        assert await still_running(store) == 0, "Neo4j still runs the abandoned transaction"
    finally:
        await bounded.close()


async def test_one_deadline_covers_every_call_of_a_request(neo4j_uri: str) -> None:
    """A request's second call gets what the first left of the deadline, not a new bound:
    the first used it all up, so the second is refused before it opens a transaction (with
    a bound of its own, it would run and be cut off in turn)."""
    bounded = connect_test_store(neo4j_uri)  # its own bound per call is 30 s
    first, second = Counted(), Counted()
    try:
        with deadline_in(TIMEOUT_S):
            for work in (first, second):
                with pytest.raises(ThreadlineError) as raised:
                    await bounded.read(work)
                assert raised.value.code is ErrorCode.UNAVAILABLE
        assert first.runs >= 1, "the first call ran until the deadline cut it off"
        assert second.runs == 0, "the second call opened a transaction past the deadline"
    finally:
        await bounded.close()
