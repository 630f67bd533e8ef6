"""Fork divergence: what happened on the source since a fork was taken, what of the fork
has not gone back, and whether a merge-back still means something."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from resolvers.handoffs import tokenizer
from tests.support.graphql import GraphQLClient
from tests.support.steps import COMPLETE_SUBAGENT, FORK, SPAWN, new_thread, run_once, start

DIVERGENCE = """query($id: ID!, $at: DateTime) { thread(id: $id, asOf: $at) { divergence {
  sourceRunsSinceFork sourceRolledBackPastFork sourceRolledBackTo unmergedRunOrdinals
  lastMergeBackAt } } }"""
MERGE = """mutation($id: ID!) { mergeBack(forkThreadId: $id) { id status createdAt } }"""
EXPLAIN = """query($id: ID!) { explainMergeBack(threadId: $id) {
  possible reason runOrdinals contextText tokenEstimate targetThreadId } }"""
ROLLBACK = """mutation($t: ID!, $to: Int!) { rollbackThread(threadId: $t, toRunOrdinal: $to) {
  rolledBackRuns { ordinal } } }"""
OUTGOING = "query($id: ID!) { thread(id: $id) { outgoingTransfers { id type status } } }"
COMPLETE_RUN = """mutation($id: ID!) { completeRun(runId: $id) { status } }"""


async def divergence(gql: GraphQLClient, thread: str, at: str | None = None) -> Any:
    return (await gql(DIVERGENCE, id=thread, at=at))["thread"]["divergence"]


def diverged(
    since: list[int],
    unmerged: list[int],
    rolled_back_to: int | None = None,
    merged_at: str | None = None,
) -> dict[str, Any]:
    return {
        "sourceRunsSinceFork": since,
        "sourceRolledBackPastFork": rolled_back_to is not None,
        "sourceRolledBackTo": rolled_back_to,
        "unmergedRunOrdinals": unmerged,
        "lastMergeBackAt": merged_at,
    }


async def source_and_fork(gql: GraphQLClient, runs: int, at: int) -> tuple[str, str, list[Any]]:
    """A source with `runs` codex runs, forked at run `at`, and one run on the fork."""
    source = await new_thread(gql, "source")
    started = [await run_once(gql, source, "codex", f"source {n}") for n in range(runs)]
    fork = (await gql(FORK, id=source, at={"runId": started[at - 1]["run"]["id"]}))["forkThread"]
    await run_once(
        gql, fork["id"], "codex", "on the fork", items=[{"kind": "DECISION", "text": "FORK-WORK"}]
    )
    return source, fork["id"], started


async def delegating(gql: GraphQLClient) -> tuple[str, Any, Any]:
    """A parent with one completed run and a second in progress that spawned a subagent:
    (the parent's id, the start of its second run, the child)."""
    parent = await new_thread(gql, "parent")
    await run_once(gql, parent, "codex", "first")
    busy = await start(gql, parent, "codex", "delegating")
    child = (await gql(SPAWN, run=busy["run"]["id"], task="look into the tests"))["spawnSubagent"]
    return parent, busy, child


async def test_a_root_has_no_divergence(gql: GraphQLClient) -> None:
    root = await new_thread(gql, "root")
    await run_once(gql, root, "codex")
    assert await divergence(gql, root) is None


async def test_a_source_that_runs_on(gql: GraphQLClient) -> None:
    source, fork, _ = await source_and_fork(gql, runs=3, at=2)
    assert await divergence(gql, fork) == diverged(since=[3], unmerged=[1])
    await run_once(gql, source, "claude")
    await run_once(gql, source, "codex")
    assert await divergence(gql, fork) == diverged(since=[3, 4, 5], unmerged=[1])

    plan = (await gql(EXPLAIN, id=fork))["explainMergeBack"]
    assert plan["possible"] and plan["reason"] is None
    assert plan["runOrdinals"] == [1] and plan["targetThreadId"] == source
    assert "FORK-WORK" in plan["contextText"]
    assert plan["tokenEstimate"] >= tokenizer.count(plan["contextText"])  # never fewer

    merged = (await gql(MERGE, id=fork))["mergeBack"]
    assert await divergence(gql, fork) == diverged([3, 4, 5], [], merged_at=merged["createdAt"])
    await run_once(gql, fork, "codex", "more")
    assert await divergence(gql, fork) == diverged([3, 4, 5], [2], merged_at=merged["createdAt"])
    # The parent's next run carries the merge-back: what it would deliver was what it did.
    nxt = await start(gql, source, "codex", "take it")
    assert plan["contextText"] in nxt["contextText"]


async def test_a_source_rolled_back_before_the_fork_point_refuses_the_merge_back(
    gql: GraphQLClient,
) -> None:
    source, fork, _ = await source_and_fork(gql, runs=3, at=3)
    before = datetime.now(UTC).isoformat()
    await gql(ROLLBACK, t=source, to=1)
    assert await divergence(gql, fork) == diverged(since=[], unmerged=[1], rolled_back_to=1)
    # As it stood before the rollback.
    assert await divergence(gql, fork, before) == diverged(since=[], unmerged=[1])

    error = await gql.refused("CONFLICT", MERGE, id=fork)
    assert f"rolled back past run 3, the run fork {fork} was taken at" in error["message"]
    assert "Fork the source again" in error["message"]
    assert (await gql(OUTGOING, id=fork))["thread"]["outgoingTransfers"] == []  # nothing written
    plan = (await gql(EXPLAIN, id=fork))["explainMergeBack"]
    assert not plan["possible"] and plan["reason"] == error["message"]
    assert (plan["runOrdinals"], plan["contextText"], plan["tokenEstimate"]) == ([], None, 0)
    assert plan["targetThreadId"] == source

    await run_once(gql, source, "codex", "a new line of work")
    assert await divergence(gql, fork) == diverged(since=[4], unmerged=[1], rolled_back_to=1)


async def test_a_source_rolled_back_after_the_fork_point_still_merges(gql: GraphQLClient) -> None:
    source, fork, _ = await source_and_fork(gql, runs=4, at=2)
    await gql(ROLLBACK, t=source, to=3)
    assert await divergence(gql, fork) == diverged(since=[3], unmerged=[1])
    assert (await gql(EXPLAIN, id=fork))["explainMergeBack"]["possible"]
    merged = (await gql(MERGE, id=fork))["mergeBack"]
    assert merged["status"] == "PENDING"
    assert await divergence(gql, fork) == diverged([3], [], merged_at=merged["createdAt"])


async def test_a_fork_of_a_fork_diverges_from_its_own_source(gql: GraphQLClient) -> None:
    root, fork, _ = await source_and_fork(gql, runs=1, at=1)
    await run_once(gql, fork, "codex", "fork 2")
    first = (await gql("query($id: ID!) { thread(id: $id) { runs { id } } }", id=fork))["thread"]
    grandchild = (await gql(FORK, id=fork, at={"runId": first["runs"][0]["id"]}))["forkThread"]
    await run_once(gql, grandchild["id"], "claude", "grandchild")
    await run_once(gql, fork, "codex", "fork 3")
    assert await divergence(gql, grandchild["id"]) == diverged(since=[2, 3], unmerged=[1])
    assert await divergence(gql, fork) == diverged(since=[], unmerged=[1, 2, 3])

    await gql(ROLLBACK, t=fork, to=0)
    assert await divergence(gql, grandchild["id"]) == diverged([], [1], rolled_back_to=0)
    assert await divergence(gql, fork) == diverged(since=[], unmerged=[])
    await gql.refused("CONFLICT", MERGE, id=grandchild["id"])
    await run_once(gql, root, "codex", "root moves on")
    assert await divergence(gql, fork) == diverged(since=[2], unmerged=[])


async def test_a_subagent_diverges_until_its_result_goes_back(gql: GraphQLClient) -> None:
    parent, busy, child = await delegating(gql)
    await run_once(gql, child["id"], "claude", "child work")
    assert await divergence(gql, child["id"]) == diverged(since=[2], unmerged=[1])
    await gql(COMPLETE_RUN, id=busy["run"]["id"])
    await run_once(gql, parent, "codex", "third")
    assert await divergence(gql, child["id"]) == diverged(since=[2, 3], unmerged=[1])

    result = (await gql(COMPLETE_SUBAGENT, id=child["id"], result="all green"))["completeSubagent"]
    found = await divergence(gql, child["id"])
    assert found["unmergedRunOrdinals"] == [] and found["lastMergeBackAt"] is not None
    created = await gql("query($id: ID!) { transfer(id: $id) { createdAt } }", id=result["id"])
    assert found["lastMergeBackAt"] == created["transfer"]["createdAt"]
    plan = (await gql(EXPLAIN, id=child["id"]))["explainMergeBack"]
    assert not plan["possible"] and "not a fork" in plan["reason"]


UNDO = """mutation($t: ID!, $to: Int!) { rollbackThread(threadId: $t, toRunOrdinal: $to) {
  supersededTransfers { id status } supersededHandoffs { id status }
  affectedProviderThreads { id status } } }"""
TRANSFER_STATUS = "query($id: ID!) { transfer(id: $id) { status } }"


async def test_a_merge_back_whose_run_is_rolled_back_is_unmerged_again(gql: GraphQLClient) -> None:
    source, fork, _ = await source_and_fork(gql, runs=2, at=2)
    merged = (await gql(MERGE, id=fork))["mergeBack"]
    took = await run_once(gql, source, "codex", "take it")
    [carrier] = took["handoffs"]
    assert await divergence(gql, fork) == diverged([3], [], merged_at=merged["createdAt"])

    undone = (await gql(UNDO, t=source, to=2))["rollbackThread"]
    assert undone["supersededTransfers"] == [{"id": merged["id"], "status": "SUPERSEDED"}]
    assert undone["supersededHandoffs"] == [{"id": carrier["id"], "status": "SUPERSEDED"}]
    assert [pt["status"] for pt in undone["affectedProviderThreads"]] == ["ROLLED_BACK"]
    # The fork's work is no longer in the source's history: unmerged, and merged again.
    assert await divergence(gql, fork) == diverged(since=[], unmerged=[1])
    assert (await gql(EXPLAIN, id=fork))["explainMergeBack"]["possible"]
    await gql(MERGE, id=fork)
    again = await start(gql, source, "codex", "take it again")
    assert "FORK-WORK" in again["contextText"]


async def test_a_rollback_before_the_merge_back_keeps_it(gql: GraphQLClient) -> None:
    source, fork, _ = await source_and_fork(gql, runs=2, at=2)
    merged = (await gql(MERGE, id=fork))["mergeBack"]
    await run_once(gql, source, "codex", "take it")
    await run_once(gql, source, "codex", "after it")
    undone = (await gql(UNDO, t=source, to=3))["rollbackThread"]
    assert undone["supersededTransfers"] == [] and undone["supersededHandoffs"] == []
    assert (await gql(TRANSFER_STATUS, id=merged["id"]))["transfer"]["status"] == "CONSUMED"
    assert await divergence(gql, fork) == diverged([3], [], merged_at=merged["createdAt"])


async def reported(gql: GraphQLClient) -> tuple[str, Any, Any]:
    """`delegating`, then the child runs and reports "RESULT: all green" once the parent's
    run has completed: (the parent's id, the child, the pending result)."""
    parent, busy, child = await delegating(gql)
    await run_once(gql, child["id"], "claude", "child work")
    await gql(COMPLETE_RUN, id=busy["run"]["id"])
    result = (await gql(COMPLETE_SUBAGENT, id=child["id"], result="RESULT: all green"))[
        "completeSubagent"
    ]
    return parent, child, result


async def test_a_subagent_result_whose_run_is_rolled_back_can_be_sent_again(
    gql: GraphQLClient,
) -> None:
    parent, child, result = await reported(gql)
    took = await run_once(gql, parent, "codex", "read the result")
    assert "RESULT: all green" in took["contextText"]

    undone = (await gql(UNDO, t=parent, to=2))["rollbackThread"]
    assert undone["supersededTransfers"] == [{"id": result["id"], "status": "SUPERSEDED"}]
    assert [h["id"] for h in undone["supersededHandoffs"]] == [took["handoffs"][0]["id"]]
    assert await divergence(gql, child["id"]) == diverged(since=[2], unmerged=[1])
    await gql(COMPLETE_SUBAGENT, id=child["id"], result="RESULT: all green")
    again = await start(gql, parent, "codex", "read it again")
    assert "RESULT: all green" in again["contextText"]


async def test_a_pending_result_of_a_subagent_whose_spawning_run_is_rolled_back_is_dropped(
    gql: GraphQLClient,
) -> None:
    parent, child, result = await reported(gql)

    undone = (await gql(UNDO, t=parent, to=1))["rollbackThread"]
    assert {"id": result["id"], "status": "SUPERSEDED"} in undone["supersededTransfers"]
    after = await start(gql, parent, "codex", "without the delegation")
    assert "RESULT: all green" not in (after["contextText"] or "")
    # Sent again on purpose, it is delivered as any result is.
    await gql(COMPLETE_RUN, id=after["run"]["id"])
    await gql(COMPLETE_SUBAGENT, id=child["id"], result="RESULT: all green")
    again = await start(gql, parent, "codex", "read it after all")
    assert "RESULT: all green" in again["contextText"]


async def test_a_rollback_that_keeps_the_spawning_run_keeps_the_pending_result(
    gql: GraphQLClient,
) -> None:
    parent, busy, child = await delegating(gql)
    await gql(COMPLETE_RUN, id=busy["run"]["id"])
    await run_once(gql, parent, "codex", "third")
    await run_once(gql, child["id"], "claude", "child work")
    result = (await gql(COMPLETE_SUBAGENT, id=child["id"], result="RESULT: all green"))[
        "completeSubagent"
    ]
    undone = (await gql(UNDO, t=parent, to=2))["rollbackThread"]
    assert undone["supersededTransfers"] == []
    assert (await gql(TRANSFER_STATUS, id=result["id"]))["transfer"]["status"] == "PENDING"
