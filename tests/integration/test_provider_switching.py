"""SEMANTICS "Canonical example" and "Rollback", replayed through GraphQL on Neo4j."""

from __future__ import annotations

from typing import Any

from tests.support.graphql import GraphQLClient
from tests.support.steps import coverage_by_pt, new_thread, run_once, start


async def canonical(gql: GraphQLClient, history: str = "LEGACY") -> dict[str, Any]:
    """Runs 1-5 codex, 6-8 claude, 9 codex; returns ids and each start's answer."""
    thread = await new_thread(gql, "canonical")
    starts = [
        await run_once(gql, thread, "codex", f"codex step {n}", history=history)
        for n in range(1, 6)
    ]
    starts += [
        await run_once(gql, thread, "claude", f"claude step {n}", history=history)
        for n in range(6, 9)
    ]
    starts.append(await run_once(gql, thread, "codex", "back to codex", history=history))
    c1 = starts[0]["providerThread"]["id"]
    l1 = starts[5]["providerThread"]["id"]
    return {"thread": thread, "starts": starts, "c1": c1, "l1": l1}


async def test_canonical_example(gql: GraphQLClient) -> None:
    ex = await canonical(gql)
    starts, c1, l1 = ex["starts"], ex["c1"], ex["l1"]
    plan = [(s["strategy"], s["providerAction"]) for s in starts]
    assert plan == [
        ("NO_HANDOFF", "CREATE"),
        *[("NO_HANDOFF", "CONTINUE")] * 4,
        ("FULL_HANDOFF_NEW_THREAD", "CREATE"),
        ("NO_HANDOFF", "CONTINUE"),
        ("NO_HANDOFF", "CONTINUE"),
        ("DELTA_HANDOFF_EXISTING_THREAD", "RESUME"),
    ]
    h1 = starts[5]["handoffs"][0]
    h2 = starts[8]["handoffs"][0]
    assert h1["coveredRunOrdinals"] == {"from": 1, "to": 5}
    assert h1["strategy"] == "FULL_THREAD_SUMMARY"
    assert [pt["id"] for pt in h1["fromProviderThreads"]] == [c1]
    assert h2["coveredRunOrdinals"] == {"from": 6, "to": 8}
    assert h2["strategy"] == "DELTA_SINCE_TARGET_LAST_SEEN"
    assert [pt["id"] for pt in h2["fromProviderThreads"]] == [l1]
    assert starts[8]["providerThread"]["id"] == c1
    assert starts[5]["injectionMode"] == "SYSTEM"
    assert starts[8]["injectionMode"] == "DEVELOPER"
    assert starts[8]["contextText"] == h2["summaryText"]
    assert "claude step 7" in h2["summaryText"] and "codex step 1" not in h2["summaryText"]

    pts = await coverage_by_pt(gql, ex["thread"])
    assert set(pts) == {c1, l1}
    assert pts[c1]["coverage"] == {
        "nativeRunOrdinals": [1, 2, 3, 4, 5, 9],
        "handoffIds": [h2["id"]],
        "coveredRunOrdinals": list(range(1, 10)),
        "missingRunOrdinals": [],
    }
    assert pts[l1]["coverage"] == {
        "nativeRunOrdinals": [6, 7, 8],
        "handoffIds": [h1["id"]],
        "coveredRunOrdinals": list(range(1, 9)),
        "missingRunOrdinals": [9],
    }


ROLLBACK = """
mutation($id: ID!, $to: Int!) {
  rollbackThread(threadId: $id, toRunOrdinal: $to) {
    rolledBackRuns { ordinal status }
    supersededHandoffs { id status }
    affectedProviderThreads { id status }
  }
}
"""


async def test_rollback_on_legacy_history(gql: GraphQLClient) -> None:
    ex = await canonical(gql, history="LEGACY")
    h1 = ex["starts"][5]["handoffs"][0]["id"]
    h2 = ex["starts"][8]["handoffs"][0]["id"]
    result = (await gql(ROLLBACK, id=ex["thread"], to=5))["rollbackThread"]
    assert [r["ordinal"] for r in result["rolledBackRuns"]] == [6, 7, 8, 9]
    assert {r["status"] for r in result["rolledBackRuns"]} == {"ROLLED_BACK"}
    # H2 covers rolled-back runs; H1 (1-5) was injected into run 6, which is rolled back:
    # its delivery left the history (docs/MODEL.md "Coverage after a rollback").
    assert result["supersededHandoffs"] == [
        {"id": h1, "status": "SUPERSEDED"},
        {"id": h2, "status": "SUPERSEDED"},
    ]
    statuses = {pt["id"]: pt["status"] for pt in result["affectedProviderThreads"]}
    assert statuses == {ex["c1"]: "ROLLED_BACK", ex["l1"]: "DIVERGENT"}

    codex = await start(gql, ex["thread"], "codex", "after rollback")
    assert codex["strategy"] == "NO_HANDOFF"
    assert codex["providerThread"]["id"] == ex["c1"]
    assert codex["run"]["ordinal"] == 10  # ordinals are never reused
    await gql("mutation($id: ID!) { completeRun(runId: $id) { id } }", id=codex["run"]["id"])
    claude = await start(gql, ex["thread"], "claude", "claude again")
    assert claude["strategy"] == "FULL_HANDOFF_NEW_THREAD"
    assert claude["providerThread"]["id"] != ex["l1"]
    assert "ROLLED_BACK_OR_DIVERGENT" in claude["stalenessSignals"]


async def test_rollback_on_paginated_history_diverges(gql: GraphQLClient) -> None:
    ex = await canonical(gql, history="PAGINATED")
    result = (await gql(ROLLBACK, id=ex["thread"], to=5))["rollbackThread"]
    statuses = {pt["id"]: pt["status"] for pt in result["affectedProviderThreads"]}
    assert statuses == {ex["c1"]: "DIVERGENT", ex["l1"]: "DIVERGENT"}
    codex = await start(gql, ex["thread"], "codex", "after rollback")
    assert codex["strategy"] == "FULL_HANDOFF_NEW_THREAD"
    assert codex["handoffs"][0]["coveredRunOrdinals"] == {"from": 1, "to": 5}


async def test_rollback_bounds_and_busy_thread(gql: GraphQLClient) -> None:
    thread = await new_thread(gql)
    await run_once(gql, thread, "codex")
    await gql.refused("INVALID_INPUT", ROLLBACK, id=thread, to=2)
    await gql.refused("INVALID_INPUT", ROLLBACK, id=thread, to=-1)
    await start(gql, thread, "codex")
    await gql.refused("CONFLICT", ROLLBACK, id=thread, to=0)
