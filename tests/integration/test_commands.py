"""commandId: duplicates answer the first result and write nothing; other arguments conflict."""

from __future__ import annotations

import asyncio

from tests.conftest import GraphQLClient
from tests.integration.helpers import new_thread

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
    other = await gql.error(START, id=thread, cmd="c-1", input="different")
    assert other["extensions"]["code"] == "CONFLICT"


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
        refused = await gql.error('mutation { createThread(id: "mine", title: "again") { id } }')
        assert refused["extensions"]["code"] == "CONFLICT"
        assert "already exists in this workspace" in refused["message"]
    title = await gql('query { thread(id: "mine") { title } }')
    assert title["thread"]["title"] == "first"
