"""A fork at an item of a run: its point, what its portable context covers and says, the
native fork where the provider forks at a message, and the points it refuses."""

from __future__ import annotations

from typing import Any

from tests.support.graphql import GraphQLClient
from tests.support.steps import new_thread, run_once, start

FORK_AT = """
mutation($id: ID!, $at: SourcePointInput!) {
  forkThread(sourceThreadId: $id, at: $at, title: "at an item") {
    id
    incomingTransfers { sourcePoint { run { ordinal } itemIndex turnItemId } }
  }
}
"""

FIRST = """
mutation($id: ID!, $provider: String!) {
  startRun(threadId: $id, provider: $provider, input: "go on from there") {
    strategy providerAction explanation contextText
    nativeFork { sourceProviderThreadRef lastTurnId rollbackTurns }
    handoffs { kind coveredRunOrdinals { from to } summaryText omitted { runOrdinal index } }
  }
}
"""

SHAPE = """
query($id: ID!, $fork: ID!) {
  lineage(threadId: $id, direction: DESCENDANTS) { edges { to sourceRunOrdinal sourceItemIndex } }
  thread(id: $fork) { divergence { sourceRunOrdinal sourceItemIndex sourceRunsSinceFork } }
}
"""

FAIL = 'mutation($id: ID!) { failRun(runId: $id, reason: "x") { id } }'

# Run 2's items: what a fork after item 1 keeps (A, B) and leaves (C, D).
RUN_2 = [
    {"kind": "ASSISTANT_MESSAGE", "text": "first reply KEEP-A", "key": "msg-a"},
    {"kind": "DECISION", "text": "decided KEEP-B"},
    {"kind": "ASSISTANT_MESSAGE", "text": "later reply DROP-C", "key": "msg-c"},
    {"kind": "COMMAND", "text": "pytest DROP-D", "attributes": {"exitCode": 0}},
]


async def source(gql: GraphQLClient, provider: str) -> tuple[str, list[dict[str, Any]]]:
    """Three completed runs on `provider`; run 2 holds RUN_2."""
    thread = await new_thread(gql, "source")
    runs = [
        await run_once(gql, thread, provider, "first request KEEP-R1"),
        await run_once(gql, thread, provider, "second request KEEP-R2", items=RUN_2),
        await run_once(gql, thread, provider, "third request DROP-R3"),
    ]
    return thread, runs


async def fork_at(gql: GraphQLClient, thread: str, run: dict[str, Any], index: int) -> str:
    at = {"runId": run["run"]["id"], "itemIndex": index}
    fork = (await gql(FORK_AT, id=thread, at=at))["forkThread"]
    [transfer] = fork["incomingTransfers"]
    assert transfer["sourcePoint"]["itemIndex"] == index
    return str(fork["id"])


async def test_a_portable_fork_at_an_item_covers_the_items_up_to_it_and_says_so(
    gql: GraphQLClient,
) -> None:
    thread, runs = await source(gql, "codex")
    fork = await fork_at(gql, thread, runs[1], 1)
    # codex forks natively at a turn, never at an item: portable, even on codex.
    first = (await gql(FIRST, id=fork, provider="codex"))["startRun"]
    assert (first["strategy"], first["providerAction"]) == ("PORTABLE_CONTEXT", "CREATE")
    assert any("cannot fork natively at an item" in line for line in first["explanation"])
    [handoff] = first["handoffs"]
    assert handoff["coveredRunOrdinals"] == {"from": 1, "to": 2}
    text = handoff["summaryText"]
    assert "it stops after item 1 of run 2" in text
    for kept in ("KEEP-R1", "KEEP-R2", "KEEP-A", "KEEP-B"):
        assert kept in text
    for dropped in ("DROP-C", "DROP-D", "DROP-R3"):
        assert dropped not in text
    # Nothing past the item is even left out: it is not covered.
    assert all(o["runOrdinal"] < 2 or o["index"] <= 1 for o in handoff["omitted"])

    shape = await gql(SHAPE, id=thread, fork=fork)
    [edge] = shape["lineage"]["edges"]
    assert (edge["sourceRunOrdinal"], edge["sourceItemIndex"]) == (2, 1)
    divergence = shape["thread"]["divergence"]
    assert (divergence["sourceRunOrdinal"], divergence["sourceItemIndex"]) == (2, 1)
    assert divergence["sourceRunsSinceFork"] == [3]


async def test_a_fork_at_the_input_keeps_the_request_and_none_of_its_items(
    gql: GraphQLClient,
) -> None:
    thread, runs = await source(gql, "codex")
    fork = await fork_at(gql, thread, runs[1], -1)
    first = (await gql(FIRST, id=fork, provider="claude"))["startRun"]
    text = first["contextText"]
    assert "it stops after the request of run 2, before any of its items" in text
    assert "KEEP-R2" in text and "KEEP-R1" in text
    assert "KEEP-A" not in text and "KEEP-B" not in text and "DROP-R3" not in text


async def test_a_native_fork_at_a_keyed_item_on_a_provider_that_forks_at_a_message(
    gql: GraphQLClient,
) -> None:
    thread, runs = await source(gql, "claude")
    keyed = await fork_at(gql, thread, runs[1], 0)
    first = (await gql(FIRST, id=keyed, provider="claude"))["startRun"]
    assert (first["strategy"], first["providerAction"]) == ("NATIVE_FORK", "NATIVE_FORK")
    assert first["nativeFork"]["lastTurnId"] == "msg-a"
    assert first["nativeFork"]["rollbackTurns"] == 0
    assert first["handoffs"] == [] and first["contextText"] is None
    assert any("msg-a (item 0 of run 2)" in line for line in first["explanation"])
    # An item without a native message id (a decision) is carried portably.
    unkeyed = await fork_at(gql, thread, runs[1], 1)
    portable = (await gql(FIRST, id=unkeyed, provider="claude"))["startRun"]
    assert portable["strategy"] == "PORTABLE_CONTEXT"
    assert any("no native message id" in line for line in portable["explanation"])


async def test_a_fork_at_an_item_refuses_points_it_cannot_take(gql: GraphQLClient) -> None:
    thread, runs = await source(gql, "codex")
    run_2 = runs[1]["run"]["id"]
    for index in (4, -2):
        at = {"runId": run_2, "itemIndex": index}
        await gql.refused("INVALID_INPUT", FORK_AT, id=thread, at=at)
    stable = {"latestStable": True, "itemIndex": 0}
    await gql.refused("INVALID_INPUT", FORK_AT, id=thread, at=stable)
    busy = await start(gql, thread, "codex", "still going")
    at_busy = {"runId": busy["run"]["id"], "itemIndex": -1}
    await gql.refused("CONFLICT", FORK_AT, id=thread, at=at_busy)
    await gql(FAIL, id=busy["run"]["id"])
    await gql.refused("INVALID_INPUT", FORK_AT, id=thread, at=at_busy)
    await gql(
        "mutation($id: ID!) { rollbackThread(threadId: $id, toRunOrdinal: 1) { thread { id } } }",
        id=thread,
    )
    at_rolled_back = {"runId": run_2, "itemIndex": 0}
    await gql.refused("INVALID_INPUT", FORK_AT, id=thread, at=at_rolled_back)


async def test_completed_run_items_keep_their_index_for_the_fork(gql: GraphQLClient) -> None:
    """The last item is a valid point; its index is the one Thread.items answers."""
    thread, runs = await source(gql, "codex")
    fork = await fork_at(gql, thread, runs[1], 3)
    first = (await gql(FIRST, id=fork, provider="codex"))["startRun"]
    assert "DROP-D" in first["contextText"] and "DROP-R3" not in first["contextText"]
    items = await gql(
        "query($id: ID!) { thread(id: $id) {"
        " items(runOrdinals: [2]) { edges { node { index text } } } } }",
        id=thread,
    )
    indexes = {e["node"]["text"]: e["node"]["index"] for e in items["thread"]["items"]["edges"]}
    assert indexes["pytest DROP-D"] == 3
