"""A query costs a bounded number of Bolt round trips, whatever the size of the answer."""

from __future__ import annotations

from graph.store import Store
from tests.conftest import GraphQLClient
from tests.integration.helpers import new_thread, run_once

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
