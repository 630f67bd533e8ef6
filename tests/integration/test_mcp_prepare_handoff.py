"""The MCP tool `prepare_handoff`: the prepared handoff prepareHandoff writes, as the caller,
its commandId kept, a read token refused."""

from __future__ import annotations

import pytest

from tests.integration.test_mcp import (  # noqa: F401 - the module's fixtures
    call,
    failure,
    graphql,
    mcp_api,
    mcp_home,
    over_http,
    tokens,
)
from tests.support.graphql import GraphQLClient
from tests.support.steps import run_once

pytestmark = pytest.mark.process  # starts processes of its own


async def test_prepare_handoff_writes_the_handoff_the_next_start_would_inject(
    mcp_api: str,  # noqa: F811
    graphql: dict[str, GraphQLClient],  # noqa: F811
) -> None:
    gql = graphql["a-write"]
    thread = (await gql('mutation { createThread(title: "prepared") { id } }'))["createThread"]
    await run_once(gql, thread["id"], "codex", "build the cache PREPARED-HERE")
    async with over_http(mcp_api, "a-read") as client:
        refused = await failure(
            client, "prepare_handoff", thread_id=thread["id"], provider="claude"
        )
        assert refused["code"] == "FORBIDDEN"
    async with over_http(mcp_api, "a-write") as client:
        arguments = {"thread_id": thread["id"], "provider": "claude", "command_id": "prep-1"}
        prepared = await call(client, "prepare_handoff", **arguments)
        assert (prepared["status"], prepared["preparedFor"]) == ("READY", "claude")
        assert prepared["thread"]["id"] == thread["id"]
        assert "PREPARED-HERE" in prepared["summaryText"]
        again = await call(client, "prepare_handoff", **arguments)
        assert again["id"] == prepared["id"]  # the same commandId: the same answer
        nothing = await failure(client, "prepare_handoff", thread_id=thread["id"], provider="codex")
        assert nothing["code"] == "CONFLICT"
    waiting = await gql(
        "query($id: ID!) { thread(id: $id) { preparedHandoffs { id } } }", id=thread["id"]
    )
    assert waiting["thread"]["preparedHandoffs"] == [{"id": prepared["id"]}]
