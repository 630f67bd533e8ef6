"""Merge-back and subagents: context travels from child to parent and back."""

from __future__ import annotations

from typing import Any

from tests.support.graphql import GraphQLClient
from tests.support.steps import (
    ATTACH,
    COMPLETE,
    COMPLETE_SUBAGENT,
    FORK,
    SPAWN,
    new_thread,
    run_once,
    start,
)

MERGE = """mutation($id: ID!) { mergeBack(forkThreadId: $id) {
  id type status sourceThread { id } targetThread { id }
  sourcePoint { run { ordinal } } basePoint { run { ordinal } thread { id } } } }"""

TRANSFER = "query($id: ID!) { transfer(id: $id) { status resolutionStrategy consumedBy { id } } }"


async def fork_with_work(gql: GraphQLClient) -> dict[str, Any]:
    parent = await new_thread(gql, "parent")
    first = await run_once(gql, parent, "codex", "parent work")
    fork = (await gql(FORK, id=parent, at={"runId": first["run"]["id"]}))["forkThread"]
    await run_once(
        gql,
        fork["id"],
        "codex",
        "explore the cache idea",
        items=[{"kind": "DECISION", "text": "FORK-INSIGHT: use an LRU cache"}],
    )
    return {"parent": parent, "fork": fork["id"]}


async def test_merge_back_delta_reaches_the_parent(gql: GraphQLClient) -> None:
    ids = await fork_with_work(gql)
    merge = (await gql(MERGE, id=ids["fork"]))["mergeBack"]
    assert (merge["type"], merge["status"]) == ("MERGE_BACK", "PENDING")
    assert merge["targetThread"]["id"] == ids["parent"]
    assert merge["sourcePoint"]["run"]["ordinal"] == 1
    assert merge["basePoint"] == {"run": {"ordinal": 1}, "thread": {"id": ids["parent"]}}

    nxt = await start(gql, ids["parent"], "codex", "bring it back")
    assert nxt["strategy"] == "NO_HANDOFF"
    [handoff] = nxt["handoffs"]
    assert handoff["kind"] == "DELTA_CONTEXT"
    assert "FORK-INSIGHT" in nxt["contextText"]
    consumed = (await gql(TRANSFER, id=merge["id"]))["transfer"]
    assert consumed["status"] == "CONSUMED" and consumed["resolutionStrategy"] == "DELTA_CONTEXT"
    assert consumed["consumedBy"]["id"] == nxt["run"]["id"]


async def test_newer_merge_back_supersedes_the_pending_one(gql: GraphQLClient) -> None:
    ids = await fork_with_work(gql)
    old = (await gql(MERGE, id=ids["fork"]))["mergeBack"]
    new = (await gql(MERGE, id=ids["fork"]))["mergeBack"]
    assert (await gql(TRANSFER, id=old["id"]))["transfer"]["status"] == "SUPERSEDED"
    nxt = await start(gql, ids["parent"], "codex", "bring it back")
    assert len(nxt["handoffs"]) == 1
    assert (await gql(TRANSFER, id=new["id"]))["transfer"]["status"] == "CONSUMED"


async def test_merge_back_rules(gql: GraphQLClient) -> None:
    plain = await new_thread(gql)
    assert (await gql.error(MERGE, id=plain))["extensions"]["code"] == "INVALID_INPUT"
    parent = await new_thread(gql)
    first = await run_once(gql, parent, "codex")
    fork = (await gql(FORK, id=parent, at={"runId": first["run"]["id"]}))["forkThread"]
    assert (await gql.error(MERGE, id=fork["id"]))["extensions"]["code"] == "INVALID_INPUT"


async def test_merge_back_pending_during_a_switch_is_injected_beside_it(
    gql: GraphQLClient,
) -> None:
    ids = await fork_with_work(gql)
    await gql(MERGE, id=ids["fork"])
    switched = await start(gql, ids["parent"], "claude", "switch and merge")
    assert switched["strategy"] == "FULL_HANDOFF_NEW_THREAD"
    kinds = [(h["kind"], h["strategy"]) for h in switched["handoffs"]]
    assert kinds == [
        ("PORTABLE_CONTEXT", "FULL_THREAD_SUMMARY"),
        ("DELTA_CONTEXT", "DELTA_SINCE_TARGET_LAST_SEEN"),
    ]
    text = switched["contextText"]
    assert "parent work" in text and "FORK-INSIGHT" in text
    assert text == "\n".join(h["summaryText"] for h in switched["handoffs"])


async def test_subagent_task_and_result_travel_both_ways(gql: GraphQLClient) -> None:
    parent = await new_thread(gql, "parent")
    await run_once(gql, parent, "codex", "PARENT-CONTEXT: build the API")
    running = await start(gql, parent, "codex", "delegate the docs")
    child = (await gql(SPAWN, run=running["run"]["id"], task="TASK: write the API docs"))[
        "spawnSubagent"
    ]
    assert child["createdBy"] == "AGENT" and child["relationshipToParent"] == "SUBAGENT"
    assert child["parent"]["id"] == parent
    [spawn] = child["incomingTransfers"]
    assert (spawn["type"], spawn["status"], spawn["createdBy"]) == (
        "SUBAGENT_SPAWN",
        "PENDING",
        "AGENT",
    )

    child_run = await start(gql, child["id"], "claude", "go")
    assert child_run["strategy"] == "PORTABLE_CONTEXT"
    assert "TASK: write the API docs" in child_run["contextText"]
    assert "PARENT-CONTEXT" in child_run["contextText"]
    await gql(ATTACH, id=child_run["providerThread"]["id"], ref="claude-sub", mode=None)
    await gql(COMPLETE, runId=child_run["run"]["id"], turn="s1")

    result = (await gql(COMPLETE_SUBAGENT, id=child["id"], result="RESULT: docs in docs/api"))[
        "completeSubagent"
    ]
    assert (result["type"], result["status"]) == ("SUBAGENT_RESULT", "PENDING")
    assert result["targetThread"]["id"] == parent
    await gql(COMPLETE, runId=running["run"]["id"], turn="p2")
    nxt = await start(gql, parent, "codex", "what did the subagent say?")
    assert "RESULT: docs in docs/api" in nxt["contextText"]
    assert "Subagent results" in nxt["contextText"]
    assert (await gql(TRANSFER, id=result["id"]))["transfer"]["status"] == "CONSUMED"


async def test_spawn_needs_a_run_in_progress(gql: GraphQLClient) -> None:
    parent = await new_thread(gql)
    done = await run_once(gql, parent, "codex")
    await gql.refused("CONFLICT", SPAWN, run=done["run"]["id"], task="x")


async def test_native_subagent_is_recorded_resolved(gql: GraphQLClient) -> None:
    parent = await new_thread(gql)
    running = await start(gql, parent, "codex", "spawn natively")
    child = (
        await gql(
            """mutation($run: ID!) {
        recordNativeSubagent(parentRunId: $run, provider: "codex", nativeRef: "codex-sub-1") {
          id providerThreads { status nativeRef provider }
          incomingTransfers { type status resolutionStrategy resolvedProviderThread { id } } } }""",
            run=running["run"]["id"],
        )
    )["recordNativeSubagent"]
    [pt] = child["providerThreads"]
    assert pt == {"status": "ACTIVE", "nativeRef": "codex-sub-1", "provider": "codex"}
    [transfer] = child["incomingTransfers"]
    assert (transfer["type"], transfer["status"]) == ("SUBAGENT_SPAWN", "RESOLVED_NATIVE")
    assert transfer["resolvedProviderThread"] is not None
    own = await start(gql, child["id"], "codex", "continue natively")
    assert (own["strategy"], own["providerAction"]) == ("NO_HANDOFF", "RESUME")
