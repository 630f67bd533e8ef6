"""Two commands that share a transfer, fired at the same instant: the outcome is always
one of the two serial orders, never both claiming the transfer.

Each pair is set up afresh per attempt and raced `THREADLINE_RACE_ATTEMPTS` times (10 in
the suite; 200 before a release)."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from typing import Any

import pytest

from tests.support.graphql import GraphQLClient
from tests.support.steps import COMPLETE, new_thread, run_once, start

ATTEMPTS = int(os.environ.get("THREADLINE_RACE_ATTEMPTS", "10"))
CHECKPOINT = {"ref": "ckpt", "diffSummary": []}

ROLLBACK = """mutation($t: ID!) { rollbackThread(threadId: $t, toRunOrdinal: 0) {
  supersededTransfers { id } } }"""
FIRST_START = """mutation($t: ID!, $p: String!) {
  startRun(threadId: $t, provider: $p, input: "go") {
    run { id } consumedTransfers { id } } }"""
FORK = """mutation($t: ID!) { forkThread(sourceThreadId: $t, at: {latestStable: true}) {
  id incomingTransfers { id } } }"""
MERGE_BACK = "mutation($f: ID!) { mergeBack(forkThreadId: $f) { id } }"
SPAWN = """mutation($r: ID!) { spawnSubagent(parentRunId: $r, task: "look") {
  id incomingTransfers { id } } }"""
COMPLETE_SUBAGENT = """mutation($c: ID!, $result: String!) {
  completeSubagent(childThreadId: $c, result: $result) { id } }"""
TRANSFER = """query($t: ID!) { thread(id: $t) {
  incomingTransfers { id status consumedBy { id } } } }"""
EVENTS = """query($t: ID!) { events(threadId: $t, first: 200) { type payload } }"""
ENDINGS = frozenset({"transfer.consumed", "transfer.superseded"})


@dataclass
class Transfer:
    status: str
    consumed_by: str | None
    endings: list[str]  # the ending events logged for it, on every thread involved


async def transfer(gql: GraphQLClient, ident: str, target: str, threads: list[str]) -> Transfer:
    incoming = (await gql(TRANSFER, t=target))["thread"]["incomingTransfers"]
    [found] = [x for x in incoming if x["id"] == ident]
    endings = []
    for thread in threads:
        for event in (await gql(EVENTS, t=thread))["events"]:
            if event["type"] in ENDINGS and (event["payload"] or {}).get("transferId") == ident:
                endings.append(event["type"])
    consumer = found["consumedBy"]
    return Transfer(found["status"], consumer["id"] if consumer else None, endings)


async def both(
    gql: GraphQLClient, first: tuple[str, dict[str, Any]], second: tuple[str, dict[str, Any]]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Both mutations sent at the same instant; each must succeed."""
    a, b = await asyncio.gather(gql.post(first[0], **first[1]), gql.post(second[0], **second[1]))
    assert not a.get("errors") and not b.get("errors"), (a, b)
    return a["data"], b["data"]


async def source_with_checkpoint(gql: GraphQLClient) -> str:
    thread = await new_thread(gql, "source")
    await run_once(gql, thread, "codex", "first step", checkpoint=CHECKPOINT)
    return thread


def ids(items: list[dict[str, Any]]) -> set[str]:
    return {item["id"] for item in items}


async def rollback_vs_first_start(gql: GraphQLClient, source: str, child: str, x: str) -> None:
    """The rollback supersedes the child's pending origin, or the child's first start
    consumes it: never both."""
    rolled, started = await both(
        gql, (ROLLBACK, {"t": source}), (FIRST_START, {"t": child, "p": "claude"})
    )
    superseded = x in ids(rolled["rollbackThread"]["supersededTransfers"])
    consumed = x in ids(started["startRun"]["consumedTransfers"])
    after = await transfer(gql, x, child, [source, child])
    if superseded:
        assert not consumed
        assert (after.status, after.consumed_by) == ("SUPERSEDED", None)
        assert after.endings == ["transfer.superseded"]
    else:
        assert consumed
        assert (after.status, after.consumed_by) == ("CONSUMED", started["startRun"]["run"]["id"])
        assert after.endings == ["transfer.consumed"]


async def attempt_rollback_vs_fork_start(gql: GraphQLClient) -> None:
    source = await source_with_checkpoint(gql)
    fork = (await gql(FORK, t=source))["forkThread"]
    await rollback_vs_first_start(gql, source, fork["id"], fork["incomingTransfers"][0]["id"])


async def attempt_rollback_vs_subagent_start(gql: GraphQLClient) -> None:
    parent = await source_with_checkpoint(gql)
    running = await start(gql, parent, "codex", "delegate")
    child = (await gql(SPAWN, r=running["run"]["id"]))["spawnSubagent"]
    await gql(COMPLETE, runId=running["run"]["id"], turn="t2")
    await rollback_vs_first_start(gql, parent, child["id"], child["incomingTransfers"][0]["id"])


async def attempt_merge_back_vs_target_start(gql: GraphQLClient) -> None:
    """A second mergeBack supersedes the first, or the parent's start consumes the first."""
    parent = await source_with_checkpoint(gql)
    fork = (await gql(FORK, t=parent))["forkThread"]["id"]
    await run_once(gql, fork, "claude", "explore")
    older = (await gql(MERGE_BACK, f=fork))["mergeBack"]["id"]
    merged, started = await both(
        gql, (MERGE_BACK, {"f": fork}), (FIRST_START, {"t": parent, "p": "codex"})
    )
    newer = merged["mergeBack"]["id"]
    consumed = ids(started["startRun"]["consumedTransfers"])
    first = await transfer(gql, older, parent, [parent, fork])
    second = await transfer(gql, newer, parent, [parent, fork])
    if older in consumed:  # the start ran first; the new merge-back waits for the next run
        assert (first.status, first.endings) == ("CONSUMED", ["transfer.consumed"])
        assert (second.status, second.endings) == ("PENDING", [])
    else:  # the merge-back ran first; the start took the new one
        assert consumed == {newer}
        assert (first.status, first.consumed_by) == ("SUPERSEDED", None)
        assert first.endings == ["transfer.superseded"]
        assert (second.status, second.endings) == ("CONSUMED", ["transfer.consumed"])


async def attempt_complete_subagent_vs_parent_rollback(gql: GraphQLClient) -> None:
    """A child that never ran reports a result while its parent rolls back past the run
    that spawned it: the spawn is superseded either way, and so is every result sent
    before the rollback; one sent after it waits for the parent."""
    parent = await source_with_checkpoint(gql)
    running = await start(gql, parent, "codex", "delegate")
    child = (await gql(SPAWN, r=running["run"]["id"]))["spawnSubagent"]
    spawn = child["incomingTransfers"][0]["id"]
    await gql(COMPLETE, runId=running["run"]["id"], turn="t2")
    older = (await gql(COMPLETE_SUBAGENT, c=child["id"], result="first"))["completeSubagent"]
    rolled, completed = await both(
        gql,
        (ROLLBACK, {"t": parent}),
        (COMPLETE_SUBAGENT, {"c": child["id"], "result": "second"}),
    )
    assert spawn in ids(rolled["rollbackThread"]["supersededTransfers"])
    origin = await transfer(gql, spawn, child["id"], [parent, child["id"]])
    assert (origin.status, origin.endings) == ("SUPERSEDED", ["transfer.superseded"])
    newer = completed["completeSubagent"]["id"]
    first = await transfer(gql, older["id"], parent, [parent, child["id"]])
    second = await transfer(gql, newer, parent, [parent])
    assert (first.status, first.endings) == ("SUPERSEDED", ["transfer.superseded"])
    undone = ids(rolled["rollbackThread"]["supersededTransfers"])
    if newer in undone:  # completeSubagent ran first and replaced the older result
        assert older["id"] not in undone
        assert (second.status, second.endings) == ("SUPERSEDED", ["transfer.superseded"])
    else:  # the rollback ran first and took the older result; the newer one waits
        assert older["id"] in undone
        assert (second.status, second.endings) == ("PENDING", [])


REGENERATE = "mutation($h: ID!) { regenerateHandoff(handoffId: $h) { id status } }"


async def attempt_regenerate_vs_start(gql: GraphQLClient) -> None:
    """A fork's portable context is regenerated while the fork's next run starts: the next
    run reads either the old handoff or its replacement, and exactly one of them is live."""
    source = await source_with_checkpoint(gql)
    fork = (await gql(FORK, t=source))["forkThread"]["id"]
    first = await run_once(gql, fork, "claude", "explore")
    [handoff] = first["handoffs"]
    regenerated, started = await both(
        gql, (REGENERATE, {"h": handoff["id"]}), (FIRST_START, {"t": fork, "p": "claude"})
    )
    new = regenerated["regenerateHandoff"]
    assert new["id"] != handoff["id"] and new["status"] == "READY"
    assert started["startRun"]["consumedTransfers"] == []


PAIRS = {
    "rollback vs a fork's first start": attempt_rollback_vs_fork_start,
    "rollback vs a subagent's first start": attempt_rollback_vs_subagent_start,
    "mergeBack vs the target's start": attempt_merge_back_vs_target_start,
    "completeSubagent vs the parent's rollback": attempt_complete_subagent_vs_parent_rollback,
    "regenerateHandoff vs the next start": attempt_regenerate_vs_start,
}


@pytest.mark.parametrize("pair", list(PAIRS))
async def test_a_shared_transfer_ends_one_way(gql: GraphQLClient, pair: str) -> None:
    for _ in range(ATTEMPTS):
        await PAIRS[pair](gql)
