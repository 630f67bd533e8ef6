"""Duplicates and races through real HTTP against a separate `threadline serve` process."""

from __future__ import annotations

import asyncio
from typing import Any

from graph.store import Store
from graph.tx import Tx
from tests.support.graphql import GraphQLClient
from tests.support.steps import ATTACH, COMPLETE, new_thread

START = """mutation($t: ID!, $c: String, $p: String!) {
  startRun(threadId: $t, provider: $p, input: "race", commandId: $c) {
    run { id ordinal } providerThread { id nativeRef } } }"""


async def attempt(gql: GraphQLClient, query: str, **variables: Any) -> dict[str, Any]:
    """The response body, success or error."""
    return await gql.post(query, **variables)


def codes(bodies: list[dict[str, Any]]) -> list[str]:
    return sorted(b["errors"][0]["extensions"]["code"] for b in bodies if b.get("errors"))


async def test_concurrent_starts_one_wins_ordinals_gapless(live: GraphQLClient) -> None:
    thread = await new_thread(live)
    for _ in range(3):
        bodies = await asyncio.gather(
            *[attempt(live, START, t=thread, c=None, p="codex") for _ in range(10)]
        )
        winners = [b["data"]["startRun"] for b in bodies if not b.get("errors")]
        assert len(winners) == 1
        assert codes(bodies) == ["CONFLICT"] * 9
        won = winners[0]
        if won["providerThread"]["nativeRef"] is None:
            await live(ATTACH, id=won["providerThread"]["id"], ref="n", mode="LEGACY")
        await live(COMPLETE, runId=won["run"]["id"], turn="t")
    runs = await live("query($t: ID!) { thread(id: $t) { runs { ordinal } } }", t=thread)
    assert [r["ordinal"] for r in runs["thread"]["runs"]] == [1, 2, 3]


async def test_concurrent_duplicate_commands_name_the_same_objects(live: GraphQLClient) -> None:
    thread = await new_thread(live)
    answers = await asyncio.gather(
        *[live(START, t=thread, c="cmd-1", p="claude") for _ in range(8)]
    )
    assert len({a["startRun"]["run"]["id"] for a in answers}) == 1
    created = await asyncio.gather(
        *[
            live('mutation { createThread(title: "dup", commandId: "mk-1") { id } }')
            for _ in range(8)
        ]
    )
    assert len({c["createThread"]["id"] for c in created}) == 1
    await live.refused("CONFLICT", START, t=thread, c="cmd-1", p="codex")


async def test_concurrent_completes_forks_and_rollbacks_keep_the_graph_whole(
    live: GraphQLClient, store: Store
) -> None:
    thread = await new_thread(live)
    runs = []
    for n in range(6):
        started = (await live(START, t=thread, c=None, p="codex" if n % 2 else "claude"))[
            "startRun"
        ]
        if started["providerThread"]["nativeRef"] is None:
            await live(ATTACH, id=started["providerThread"]["id"], ref=f"n{n}", mode="LEGACY")
        if n < 5:
            await live(COMPLETE, runId=started["run"]["id"], turn=f"t{n}")
        runs.append(started["run"]["id"])
    completes = await asyncio.gather(
        *[attempt(live, COMPLETE, runId=runs[-1], turn="final") for _ in range(5)]
    )
    assert len([b for b in completes if not b.get("errors")]) == 1
    assert codes(completes) == ["CONFLICT"] * 4
    fork = "mutation($t: ID!, $r: ID!) { forkThread(sourceThreadId: $t, at: {runId: $r}) { id } }"
    rollback = (
        "mutation($t: ID!, $n: Int!) { rollbackThread(threadId: $t, toRunOrdinal: $n) "
        "{ rolledBackRuns { ordinal } } }"
    )
    mixed = await asyncio.gather(
        *[attempt(live, fork, t=thread, r=runs[n]) for n in range(6)],
        *[attempt(live, rollback, t=thread, n=n) for n in (4, 2, 5, 3)],
    )
    expected = {"INVALID_INPUT", "CONFLICT"}
    unexpected = [
        b["errors"]
        for b in mixed
        if b.get("errors") and b["errors"][0]["extensions"]["code"] not in expected
    ]
    assert unexpected == []

    state = await live(
        """query($t: ID!) { thread(id: $t) {
        runs(includeRolledBack: true) { ordinal status }
        coverage { coveredRunOrdinals }
        providerThreads { handoffs { status coveredRunOrdinals { from to } } } } }""",
        t=thread,
    )
    statuses = {r["ordinal"]: r["status"] for r in state["thread"]["runs"]}
    assert sorted(statuses) == [1, 2, 3, 4, 5, 6]
    kept = {o for o, s in statuses.items() if s != "ROLLED_BACK"}
    assert kept == {1, 2}  # the lowest rollback (to 2) wins whatever the order
    for cov in state["thread"]["coverage"]:
        assert set(cov["coveredRunOrdinals"]) <= kept
    for pt in state["thread"]["providerThreads"]:
        for h in pt["handoffs"]:
            span = set(range(h["coveredRunOrdinals"]["from"], h["coveredRunOrdinals"]["to"] + 1))
            assert h["status"] == "SUPERSEDED" or span & set(statuses) <= kept

    async def orphans(tx: Tx) -> dict[str, int]:
        row = await tx.row("testing/integrity")
        return dict(row or {})

    assert await store.read(orphans) == {
        "runsWithoutProviderThread": 0,
        "handoffsWithoutTarget": 0,
        "handoffsWithoutCoverage": 0,
        "duplicateOrdinals": 0,
    }
