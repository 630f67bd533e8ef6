"""commandId: duplicates answer the first result and write nothing; other arguments conflict."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from pydantic import TypeAdapter

from api.auth import OPEN_WORKSPACE
from api.commands.receipts import args_hash
from graph import repo
from graph.models import ThreadNode
from graph.plan import CommandId, Receipt, WritePlan
from graph.store import Store
from graph.tx import Tx
from tests.support.graphql import GraphQLClient
from tests.support.steps import new_thread

START = """
mutation($id: ID!, $cmd: String, $input: String!) {
  startRun(threadId: $id, provider: "codex", input: $input, commandId: $cmd) {
    run { id ordinal } strategy providerThread { id }
  }
}
"""


async def test_same_command_same_result(gql: GraphQLClient) -> None:
    thread = await new_thread(gql)
    first = await gql(START, id=thread, cmd="c-1", input="hello")
    again = await gql(START, id=thread, cmd="c-1", input="hello")
    assert again == first
    runs = await gql("query($id: ID!) { thread(id: $id) { runs { id } } }", id=thread)
    assert len(runs["thread"]["runs"]) == 1
    await gql.refused("CONFLICT", START, id=thread, cmd="c-1", input="different")


async def test_concurrent_duplicates_all_answer_the_same(gql: GraphQLClient) -> None:
    thread = await new_thread(gql)
    answers = await asyncio.gather(
        *[gql(START, id=thread, cmd="same", input="go") for _ in range(8)]
    )
    assert len({a["startRun"]["run"]["id"] for a in answers}) == 1
    runs = await gql("query($id: ID!) { thread(id: $id) { runs { id } } }", id=thread)
    assert len(runs["thread"]["runs"]) == 1


async def test_create_thread_is_idempotent(gql: GraphQLClient) -> None:
    query = 'mutation($c: String) { createThread(title: "x", commandId: $c) { id } }'
    first = await gql(query, c="make-x")
    assert await gql(query, c="make-x") == first


async def test_a_thread_id_taken_in_the_workspace_is_refused_for_good(gql: GraphQLClient) -> None:
    make = 'mutation { createThread(id: "mine", title: "first") { id } }'
    await gql(make)
    for _ in range(2):  # the same answer however often it is retried
        refused = await gql.refused(
            "CONFLICT", 'mutation { createThread(id: "mine", title: "again") { id } }'
        )
        assert "already exists in this workspace" in refused["message"]
    title = await gql('query { thread(id: "mine") { title } }')
    assert title["thread"]["title"] == "first"


CREATE = """
mutation($title: String!, $cmd: String) {
  createThread(title: $title, commandId: $cmd) { id title }
}
"""
FAIL = """
mutation($run: ID!, $cmd: String) { failRun(runId: $run, reason: "x", commandId: $cmd) { id } }
"""
CLEAN = """
mutation($id: ID!, $cmd: String) { requestCleanContext(threadId: $id, commandId: $cmd) { id } }
"""


async def count_nodes(store: Store) -> int:
    async def count(tx: Tx) -> int:
        row = await tx.row("testing/count_nodes")
        return int(row["nodes"]) if row else 0

    return await store.read(count)


async def stored(store: Store, receipt: Receipt) -> None:
    """A receipt alone, written as a command writes it."""
    await store.write(lambda tx: repo.apply(tx, OPEN_WORKSPACE, WritePlan(), receipt))


async def test_a_blank_or_overlong_command_id_is_refused_and_writes_nothing(
    gql: GraphQLClient, store: Store
) -> None:
    for command_id in ["", " ", "\n", "\t\u3000 ", "x" * 10_000]:
        for title in ("a", "b"):
            refused = await gql.error(CREATE, title=title, cmd=command_id)
            assert refused["extensions"]["code"] == "INVALID_INPUT", (command_id[:9], refused)
            assert "commandId" in refused["message"]
    assert await count_nodes(store) == 0
    # Neither does any other mutation reach a receipt with it, failing or not.
    for command_id in ["", " "]:
        await gql.refused("INVALID_INPUT", FAIL, run="run_nope", cmd=command_id)
    # None (or no commandId at all) is still a command without a receipt.
    made = [(await gql(CREATE, title=t, cmd=None))["createThread"] for t in ("a", "b")]
    assert [m["title"] for m in made] == ["a", "b"] and made[0]["id"] != made[1]["id"]


async def test_one_command_id_for_two_mutations_is_a_conflict(gql: GraphQLClient) -> None:
    made = (await gql(CREATE, title="a", cmd="k-1"))["createThread"]
    # failRun fails its own way (no such run), then finds createThread's receipt.
    failed = await gql.refused("CONFLICT", FAIL, run="run_nope", cmd="k-1")
    assert "createThread" in failed["message"]
    # requestCleanContext would succeed on its own; the receipt's uniqueness stops it.
    await gql.refused("CONFLICT", CLEAN, id=made["id"], cmd="k-1")
    # And createThread with other arguments, as before.
    await gql.refused("CONFLICT", CREATE, title="b", cmd="k-1")
    assert (await gql(CREATE, title="a", cmd="k-1"))["createThread"] == made
    threads = await gql("{ threads { edges { node { id cleanContextRequested } } } }")
    assert [e["node"] for e in threads["threads"]["edges"]] == [
        {"id": made["id"], "cleanContextRequested": False}
    ]


async def test_receipts_under_blank_ids_from_earlier_versions_are_never_replayed(
    gql: GraphQLClient, store: Store
) -> None:
    # Earlier versions stored a receipt under "" with an empty hash for every mutation.
    thread = ThreadNode(
        id="old", workspace=OPEN_WORKSPACE, title="old", createdAt=datetime.now(UTC), rootId="old"
    )
    for command_id in ["", " "]:
        receipt = Receipt(
            commandId=CommandId(command_id),
            mutation="createThread",
            argsHash="",
            result=TypeAdapter(ThreadNode).dump_json(thread).decode(),
            createdAt=datetime.now(UTC),
        )
        await stored(store, receipt)
    for command_id in ["", " "]:
        await gql.refused("INVALID_INPUT", CREATE, title="new", cmd=command_id)
        await gql.refused("INVALID_INPUT", FAIL, run="run_nope", cmd=command_id)
    assert (await gql("{ threads { edges { node { id } } } }"))["threads"]["edges"] == []


async def test_a_stored_answer_that_cannot_be_read_back_is_a_conflict(
    gql: GraphQLClient, store: Store
) -> None:
    # A receipt whose answer is not a Run, for the very failRun that is replayed.
    receipt = Receipt(
        commandId=CommandId("k-2"),
        mutation="failRun",
        argsHash=args_hash("failRun", {"runId": "run_nope", "reason": "x"}),
        result='{"not": "a run"}',
        createdAt=datetime.now(UTC),
    )
    await stored(store, receipt)
    refused = await gql.refused("CONFLICT", FAIL, run="run_nope", cmd="k-2")
    assert "k-2" in refused["message"]


async def test_a_thread_id_no_one_could_name_it_by_is_refused_and_writes_nothing(
    gql: GraphQLClient,
) -> None:
    make = 'mutation($id: ID) { createThread(id: $id, title: "x") { id } }'
    for unnameable in ("", "   ", " mine", "mine\n", "a/b\n c", "a\x00b"):
        refused = await gql.refused("INVALID_INPUT", make, id=unnameable)
        assert "starts or ends with whitespace, or holds a control character" in refused["message"]
    listed = await gql("query { threads(first: 10) { edges { node { id } } } }")
    assert listed["threads"]["edges"] == []
    made = await gql(make, id="a/b?c#d e")  # anything else is the client's to choose
    assert made["createThread"]["id"] == "a/b?c#d e"
