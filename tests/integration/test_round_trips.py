"""A query costs a bounded number of Bolt round trips, whatever the size of the answer.

Counted by `Store.round_trips`, the counter `/metrics` exposes as
`threadline_bolt_round_trips_total` and the benchmark reads.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime

import pytest

from graph.store import Store
from graph.tx import Tx
from tests.support.graphql import GraphQLClient
from tests.support.steps import new_thread, run_once

DEEP = """query($id: ID!) { thread(id: $id) {
  runs { ordinal items { kind } checkpoint { id } providerThread { id status }
         contextHandoffs { id fromProviderThreads { id } toProviderThread { id } } }
  providerThreads { id handoffs { id } coverage { coveredRunOrdinals } nativeRunOrdinals }
  coverage { missingRunOrdinals } children { id } incomingTransfers { id } } }"""


async def round_trips(gql: GraphQLClient, store: Store, thread: str) -> int:
    before = store.round_trips
    await gql(DEEP, id=thread)
    return store.round_trips - before


async def test_query_cost_does_not_grow_with_the_answer(gql: GraphQLClient, store: Store) -> None:
    small, large = await new_thread(gql, "small"), await new_thread(gql, "large")
    for thread, runs in ((small, 2), (large, 12)):
        for n in range(runs):
            await run_once(
                gql,
                thread,
                "codex" if n % 3 else "claude",
                f"step {n}",
                items=[{"kind": "DECISION", "text": f"d{n}"}],
                checkpoint={"ref": f"c{n}", "diffSummary": []},
            )
    assert await round_trips(gql, store, small) == await round_trips(gql, store, large)


async def mutation_round_trips(gql: GraphQLClient, store: Store, thread: str) -> list[int]:
    """Bolt round trips of a continue, a provider switch (full summary) and a switch back
    (delta summary), each started, attached and completed."""
    counts = []
    for provider in ("codex", "claude", "codex"):
        before = store.round_trips
        await run_once(gql, thread, provider, "step", items=[{"kind": "DECISION", "text": "d"}])
        counts.append(store.round_trips - before)
    return counts


async def test_mutation_cost_does_not_grow_with_the_thread(
    gql: GraphQLClient, store: Store
) -> None:
    short, long = await new_thread(gql, "short"), await new_thread(gql, "long")
    for thread, runs in ((short, 3), (long, 40)):
        for n in range(runs):
            await run_once(gql, thread, "codex", f"step {n}", items=[{"kind": "TODO", "text": "t"}])
    assert await mutation_round_trips(gql, store, short) == await mutation_round_trips(
        gql, store, long
    )


THEN = """query($id: ID!, $at: DateTime) { thread(id: $id, asOf: $at) {
  runs(includeRolledBack: true) { ordinal status providerThread { id status }
         contextHandoffs { id status } }
  providerThreads { id status handoffs { id status } coverage { coveredRunOrdinals } }
  coverage { missingRunOrdinals } children { id divergence { sourceRunsSinceFork } }
  incomingTransfers { id status } divergence { sourceRunsSinceFork unmergedRunOrdinals } } }"""
FORK = """mutation($id: ID!, $run: ID!) { forkThread(sourceThreadId: $id, at: {runId: $run}) {
  id } }"""
LINEAGE_THEN = """query($id: ID!, $at: DateTime) { lineage(threadId: $id, asOf: $at) {
  nodes { thread { id divergence { sourceRunsSinceFork } coverage { missingRunOrdinals } } } } }"""


async def family_of(gql: GraphQLClient, runs: int) -> tuple[str, str]:
    """A source with `runs` runs (rolled back once), and a fork taken at its first run
    with `runs` runs of its own."""
    source = await new_thread(gql, f"source of {runs}")
    first = await run_once(gql, source, "codex", "first")
    fork = (await gql(FORK, id=source, run=first["run"]["id"]))["forkThread"]["id"]
    for n in range(runs):
        await run_once(gql, source, "claude" if n % 2 else "codex", f"source {n}")
        await run_once(gql, fork, "codex" if n % 3 else "claude", f"fork {n}")
    await gql(
        "mutation($id: ID!) { rollbackThread(threadId: $id, toRunOrdinal: 2) { thread { id } } }",
        id=source,
    )
    return source, fork


async def reads(gql: GraphQLClient, store: Store, query: str, **variables: object) -> int:
    before = store.round_trips
    await gql(query, **variables)
    return store.round_trips - before


async def test_as_of_and_divergence_reads_do_not_grow_with_history(
    gql: GraphQLClient, store: Store
) -> None:
    small, large = await family_of(gql, 2), await family_of(gql, 12)
    at = datetime.now(UTC).isoformat()
    await run_once(gql, small[0], "codex", "after the instant")
    await run_once(gql, large[0], "codex", "after the instant")
    for query in (THEN, LINEAGE_THEN):
        for when in (None, at):
            counts = [
                await reads(gql, store, query, id=thread, at=when)
                for thread in (small[0], large[0], small[1], large[1])
            ]
            assert counts[0] == counts[1] and counts[2] == counts[3], (query, when, counts)


async def test_a_transaction_begins_with_its_first_statement(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    """BEGIN travels with the first statement, not alone (graph/store.py `_pipelined_begin`):
    the driver sends BEGIN, RUN and PULL before it reads the server's first answer."""

    async def ping(tx: Tx) -> None:
        await tx.rows("health/ping")

    for work in (store.read, store.write):
        caplog.clear()
        with caplog.at_level(logging.DEBUG, logger="neo4j"):
            await work(ping)
        said = [m.split("  ", 1)[-1][:5] for m in caplog.messages if "  C: " in m or "  S: " in m]
        assert said[:4] == ["C: BE", "C: RU", "C: PU", "S: SU"], said
