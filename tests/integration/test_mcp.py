"""The MCP server, driven by the MCP SDK's own client over streamable HTTP (`/mcp` of a
running `threadline serve`) and over stdio (`threadline mcp`): every tool against what
GraphQL answers, scopes, workspaces and tokens."""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from importlib.metadata import version
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, CallToolResult, TextContent, TextResourceContents

from api.app import create_app
from api.auth import OPEN
from api.mcp import tools
from api.settings import Settings
from graph.store import Store
from tests.support.graphql import GraphQLClient, connect_test_store
from tests.support.managed import cli
from tests.support.served import serve
from tests.support.steps import As, run_once, start, tokens_file

pytestmark = pytest.mark.process  # starts processes of its own

TOKENS = {
    "a-write": ("ws-a", "write"),
    "a-read": ("ws-a", "read"),
    "b-write": ("ws-b", "write"),
}
TOOLS = {
    "list_threads",
    "search",
    "thread_read",
    "thread_context",
    "lineage",
    "explain_start",
    "get_handoff",
    "suggest_providers",
    "fork_thread",
    "prepare_handoff",
    "merge_back",
    "spawn_subagent",
    "complete_subagent",
    "report_limit",
    "report_usage",
    "submit_handoff_summary",
}
WRITES = {
    "fork_thread",
    "prepare_handoff",
    "merge_back",
    "spawn_subagent",
    "complete_subagent",
    "report_limit",
    "report_usage",
    "submit_handoff_summary",
}
ITEMS = [
    {"kind": "USER_GOAL", "text": "ship the cache"},
    {"kind": "DECISION", "text": "use an LRU"},
    {"kind": "COMMAND", "text": "pytest", "attributes": {"exitCode": 0}},
]


@pytest.fixture(scope="module")
def tokens(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tokens_file(tmp_path_factory.mktemp("mcp-tokens"), TOKENS)


@pytest.fixture(scope="module")
def mcp_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mcp")


@pytest.fixture(scope="module")
def mcp_api(neo4j_uri: str, tokens: Path, mcp_home: Path) -> Iterator[str]:
    audit = mcp_home / "audit.log"
    yield from serve(neo4j_uri, mcp_home, TOKENS_FILE=str(tokens), AUDIT_LOG=str(audit))


@pytest.fixture
async def graphql(mcp_api: str, clean_store: Store) -> AsyncIterator[dict[str, GraphQLClient]]:
    async with httpx.AsyncClient(base_url=mcp_api, timeout=60) as http:
        base = GraphQLClient(http)
        yield {name: As(base, name) for name in TOKENS}


@asynccontextmanager
async def over_http(base: str, token: str | None) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client,
    ):
        yield client


@asynccontextmanager
async def over_stdio(neo4j_uri: str, tokens: Path, token: str) -> AsyncIterator[Client]:
    env = {
        **os.environ,
        "THREADLINE_NEO4J_URI": neo4j_uri,
        "THREADLINE_TOKENS_FILE": str(tokens),
        "THREADLINE_TOKEN": token,
        "THREADLINE_DB_TIMEOUT_S": "30",
    }
    password = os.environ.get("THREADLINE_TEST_NEO4J_PASSWORD")
    if password:
        env["THREADLINE_NEO4J_PASSWORD"] = password
    command = StdioServerParameters(command=sys.executable, args=["-m", "api.cli", "mcp"], env=env)
    async with Client(command, read_timeout_seconds=60) as client:
        yield client


def said(result: CallToolResult) -> Any:
    """The result's one text content, parsed: the JSON an agent that reads only text gets."""
    [text] = result.content
    assert isinstance(text, TextContent)
    return json.loads(text.text)


async def call(client: Client, tool: str, **arguments: Any) -> Any:
    """The tool's value; its text is the JSON of its structured content (a value that is
    not an object is structured as `{"result": value}`, its text the value's JSON). The
    SDK's client has checked the structured content against the tool's outputSchema."""
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    value = said(result)
    assert result.structured_content == (value if isinstance(value, dict) else {"result": value})
    return value


async def failure(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert result.is_error, result
    assert result.structured_content is not None
    assert said(result) == result.structured_content
    assert set(result.structured_content) == {"code", "message"}
    return dict(result.structured_content)


async def family(gql: GraphQLClient) -> dict[str, str]:
    """A thread with a codex run and a claude switch (a handoff), and a fork."""
    thread = (await gql('mutation { createThread(id: "shared", title: "Cache work") { id } }'))[
        "createThread"
    ]["id"]
    first = await run_once(gql, thread, "codex", "build the cache", items=ITEMS)
    switch = await run_once(gql, thread, "claude", "test the cache")
    return {
        "thread": thread,
        "run": first["run"]["id"],
        "handoff": switch["handoffs"][0]["id"],
    }


async def every_tool_matches_graphql(client: Client, gql: GraphQLClient) -> None:
    ids = await family(gql)
    listed = await client.list_tools()
    assert {tool.name for tool in listed.tools} == TOOLS
    for each in listed.tools:
        assert each.output_schema is not None and each.output_schema["type"] == "object", each
        assert each.annotations is not None
        assert each.annotations.read_only_hint is (each.name not in WRITES), each.name

    threads = await call(client, "list_threads", title_contains="cache")
    assert [e["node"]["id"] for e in threads["edges"]] == [ids["thread"]]
    assert client.server_info is not None
    assert client.server_info.version == version("threadline")
    assert (await call(client, "list_threads", title_contains="nothing"))["edges"] == []

    hits = await call(client, "search", query="LRU cache", first=5)
    found = await gql(
        """{ search(query: "LRU cache", first: 5) {
        thread { id } runOrdinal index kind snippet } }"""
    )
    assert [
        {k: h[k] for k in ("runOrdinal", "index", "kind", "snippet")}
        | {"thread": {"id": h["thread"]["id"]}}
        for h in hits
    ] == found["search"]
    assert hits and all(h["thread"]["id"] == ids["thread"] for h in hits)
    # An empty list of kinds names no kind, as in GraphQL: nothing, not every kind.
    assert await call(client, "search", query="LRU cache", kinds=[]) == []
    none_read = await call(client, "thread_read", thread_id=ids["thread"], kinds=[])
    none_truth = await gql(
        "query($id: ID!) { thread(id: $id) { items(kinds: []) { edges { node { index } } } } }",
        id=ids["thread"],
    )
    assert [e["node"]["index"] for e in none_read["items"]["edges"]] == [
        e["node"]["index"] for e in none_truth["thread"]["items"]["edges"]
    ]

    read = await call(client, "thread_read", thread_id=ids["thread"], kinds=["DECISION"])
    truth = await gql(
        """query($id: ID!) { thread(id: $id) { items(kinds: [DECISION]) {
        edges { node { runOrdinal index kind text } } } } }""",
        id=ids["thread"],
    )
    assert [
        {k: e["node"][k] for k in ("runOrdinal", "index", "kind", "text")}
        for e in read["items"]["edges"]
    ] == [e["node"] for e in truth["thread"]["items"]["edges"]]
    # Each run's input is its item -1 (USER_GOAL), before the run's own goal item.
    goals = await call(client, "thread_read", thread_id=ids["thread"], kinds=["USER_GOAL"])
    assert [
        (e["node"]["runOrdinal"], e["node"]["index"], e["node"]["text"])
        for e in goals["items"]["edges"]
    ] == [(1, -1, "build the cache"), (1, 0, "ship the cache"), (2, -1, "test the cache")]

    context = await call(client, "thread_context", thread_id=ids["thread"])
    coverage = await gql(
        """query($id: ID!) { thread(id: $id) { runs { ordinal provider status }
        providerThreads { id coverage { missingRunOrdinals } } } }""",
        id=ids["thread"],
    )
    assert [{k: r[k] for k in ("ordinal", "provider", "status")} for r in context["runs"]] == (
        coverage["thread"]["runs"]
    )
    assert {
        pt["id"]: pt["coverage"]["missingRunOrdinals"] for pt in context["providerThreads"]
    } == {
        pt["id"]: pt["coverage"]["missingRunOrdinals"]
        for pt in coverage["thread"]["providerThreads"]
    }

    plan = await call(client, "explain_start", thread_id=ids["thread"], provider="codex")
    explained = await gql(
        """query($id: ID!) { explainStartContext(threadId: $id, provider: "codex") {
        strategy handoffStrategies coveredRunOrdinals tokenEstimate } }""",
        id=ids["thread"],
    )
    assert {k: plan[k] for k in explained["explainStartContext"]} == explained[
        "explainStartContext"
    ]

    handoff = await call(client, "get_handoff", handoff_id=ids["handoff"])
    stored = await gql(
        """query($id: ID!) { handoff(id: $id) { summaryText quality { score } } }""",
        id=ids["handoff"],
    )
    assert handoff["summaryText"] == stored["handoff"]["summaryText"]
    assert handoff["quality"]["score"] == stored["handoff"]["quality"]["score"]

    ranked = await call(client, "suggest_providers", thread_id=ids["thread"])
    assert [s["provider"] for s in ranked] == ["claude", "codex"]

    fork = await call(client, "fork_thread", source_thread_id=ids["thread"], run_id=ids["run"])
    at_item = await call(
        client, "fork_thread", source_thread_id=ids["thread"], run_id=ids["run"], item_index=0
    )
    pointed = await gql(
        """query($id: ID!) { thread(id: $id) {
        incomingTransfers { sourcePoint { run { id } itemIndex } } } }""",
        id=at_item["id"],
    )
    [point] = [x["sourcePoint"] for x in pointed["thread"]["incomingTransfers"]]
    assert point == {"run": {"id": ids["run"]}, "itemIndex": 0}
    family_now = await call(client, "lineage", thread_id=ids["thread"])
    assert {n["thread"]["id"] for n in family_now["nodes"]} == {
        ids["thread"],
        fork["id"],
        at_item["id"],
    }

    for tool, arguments in (
        ("thread_read", {"thread_id": "nope"}),
        ("thread_context", {"thread_id": "nope"}),
        ("lineage", {"thread_id": "nope"}),
        ("explain_start", {"thread_id": "nope", "provider": "codex"}),
        ("get_handoff", {"handoff_id": "nope"}),
        ("suggest_providers", {"thread_id": "nope"}),
    ):
        assert (await failure(client, tool, **arguments))["code"] == "NOT_FOUND", tool

    await resources_list_and_read(client, gql, ids)
    await the_agents_own_writes(client, gql, ids)


async def resources_list_and_read(client: Client, gql: GraphQLClient, ids: dict[str, str]) -> None:
    """Each thread a resource (its context), and what its next start on a provider would
    inject, listed through resource templates."""
    listed = await client.list_resource_templates()
    assert {t.uri_template: t.mime_type for t in listed.resource_templates} == {
        "threadline://threads/{thread_id}": "application/json",
        "threadline://threads/{thread_id}/handoff/{provider}": "text/plain",
    }
    [context] = (await client.read_resource(f"threadline://threads/{ids['thread']}")).contents
    assert isinstance(context, TextResourceContents)
    assert json.loads(context.text) == await call(client, "thread_context", thread_id=ids["thread"])
    for provider in ("codex", "claude"):
        [text] = (
            await client.read_resource(f"threadline://threads/{ids['thread']}/handoff/{provider}")
        ).contents
        assert isinstance(text, TextResourceContents)
        plan = await gql(
            """query($id: ID!, $p: String!) {
            explainStartContext(threadId: $id, provider: $p) { contextText } }""",
            id=ids["thread"],
            p=provider,
        )
        assert text.text == (plan["explainStartContext"]["contextText"] or "")
    # codex last ran run 1: its next start is handed run 2 (claude's); claude holds it all.
    [codex] = (
        await client.read_resource(f"threadline://threads/{ids['thread']}/handoff/codex")
    ).contents
    assert isinstance(codex, TextResourceContents) and "test the cache" in codex.text
    [claude] = (
        await client.read_resource(f"threadline://threads/{ids['thread']}/handoff/claude")
    ).contents
    assert isinstance(claude, TextResourceContents) and claude.text == ""
    with pytest.raises(MCPError) as missing:
        await client.read_resource("threadline://threads/nope")
    assert missing.value.error.code == INVALID_PARAMS


async def the_agents_own_writes(client: Client, gql: GraphQLClient, ids: dict[str, str]) -> None:
    """Each write tool as the mutation of the same name answers it, once per command_id."""
    fork = await call(
        client, "fork_thread", source_thread_id=ids["thread"], run_id=ids["run"], command_id="f1"
    )
    again = await call(
        client, "fork_thread", source_thread_id=ids["thread"], run_id=ids["run"], command_id="f1"
    )
    assert again["id"] == fork["id"]  # the same command: its first outcome, nothing new
    await run_once(gql, fork["id"], "codex", "try an LFU", items=[ITEMS[1]])
    merge = await call(client, "merge_back", fork_thread_id=fork["id"], command_id="m1")
    assert (merge["type"], merge["status"]) == ("MERGE_BACK", "PENDING")
    assert merge["targetThread"]["id"] == ids["thread"]

    running = await start(gql, ids["thread"], "codex", "delegate the docs")
    child = await call(
        client, "spawn_subagent", parent_run_id=running["run"]["id"], task="write the docs"
    )
    assert (child["relationshipToParent"], child["parent"]["id"]) == ("SUBAGENT", ids["thread"])
    delivered = await call(client, "complete_subagent", child_thread_id=child["id"], result="done")
    assert (delivered["type"], delivered["targetThread"]["id"]) == (
        "SUBAGENT_RESULT",
        ids["thread"],
    )

    provider_thread = running["providerThread"]["id"]
    usage = await call(
        client,
        "report_usage",
        provider_thread_id=provider_thread,
        context_tokens=1200,
        context_window_tokens=200_000,
    )
    assert usage["contextUsage"]["contextTokens"] == 1200
    limit = await call(client, "report_limit", provider="claude", reason="5-hour limit")
    assert (limit["provider"], limit["active"]) == ("claude", True)
    until = await call(
        client, "report_limit", provider="codex", reason="weekly", resets_at="2030-01-02T03:04:05Z"
    )
    assert until["resetsAt"].startswith("2030-01-02T03:04:05")
    submitted = await call(
        client,
        "submit_handoff_summary",
        handoff_id=ids["handoff"],
        text="Built the cache as an LRU; pytest passes.",
        created_by_provider="claude",
    )
    assert submitted["summaryText"].startswith("Built the cache as an LRU")
    stored = await gql("query($id: ID!) { handoff(id: $id) { summaryText } }", id=submitted["id"])
    assert stored["handoff"]["summaryText"] == submitted["summaryText"]


async def test_every_tool_over_http_answers_what_graphql_answers(
    mcp_api: str, graphql: dict[str, GraphQLClient]
) -> None:
    async with over_http(mcp_api, "a-write") as client:
        await every_tool_matches_graphql(client, graphql["a-write"])


async def test_every_tool_over_stdio_answers_what_graphql_answers(
    mcp_api: str, neo4j_uri: str, tokens: Path, graphql: dict[str, GraphQLClient]
) -> None:
    async with over_stdio(neo4j_uri, tokens, "a-write") as client:
        await every_tool_matches_graphql(client, graphql["a-write"])


async def test_a_read_token_cannot_fork(
    mcp_api: str, mcp_home: Path, graphql: dict[str, GraphQLClient]
) -> None:
    ids = await family(graphql["a-write"])
    async with over_http(mcp_api, "a-read") as client:
        assert (await call(client, "thread_context", thread_id=ids["thread"]))["id"] == "shared"
        refused = await failure(client, "fork_thread", source_thread_id="shared", run_id=ids["run"])
        assert refused["code"] == "FORBIDDEN"
        # The scope is checked first, as over GraphQL: a fork placed nowhere is FORBIDDEN too.
        unplaced = await failure(client, "fork_thread", source_thread_id="shared")
        assert unplaced["code"] == "FORBIDDEN"
    lineage = await graphql["a-read"]('{ lineage(threadId: "shared") { nodes { depth } } }')
    assert len(lineage["lineage"]["nodes"]) == 1  # nothing was forked
    # The audit line of each refusal names the tool.
    lines = [json.loads(line) for line in (mcp_home / "audit.log").read_text().splitlines()]
    refusals = [line for line in lines if line["path"] == "/mcp" and line["token"] == "a-read"]
    assert refusals and {line["operation"] for line in refusals} == {"fork_thread"}


async def test_a_read_token_writes_nothing(mcp_api: str, graphql: dict[str, GraphQLClient]) -> None:
    ids = await family(graphql["a-write"])
    running = await start(graphql["a-write"], ids["thread"], "codex", "delegate")
    pt = running["providerThread"]["id"]
    async with over_http(mcp_api, "a-read") as client:
        for tool, arguments in (
            ("merge_back", {"fork_thread_id": ids["thread"]}),
            ("spawn_subagent", {"parent_run_id": running["run"]["id"], "task": "t"}),
            ("complete_subagent", {"child_thread_id": ids["thread"], "result": "r"}),
            ("report_limit", {"provider": "claude", "reason": "limit"}),
            ("report_usage", {"provider_thread_id": pt, "context_tokens": 5}),
            (
                "submit_handoff_summary",
                {"handoff_id": ids["handoff"], "text": "x", "created_by_provider": "claude"},
            ),
        ):
            assert (await failure(client, tool, **arguments))["code"] == "FORBIDDEN", tool
    after = await graphql["a-read"](
        """query($id: ID!, $h: ID!) { thread(id: $id) { children { id } }
        providerLimits { provider } handoff(id: $h) { summarySource } }""",
        id=ids["thread"],
        h=ids["handoff"],
    )
    assert after["thread"]["children"] == [] and after["providerLimits"] == []
    assert after["handoff"]["summarySource"] == "LOCAL"


async def test_a_second_workspace_with_the_same_id_sees_nothing(
    mcp_api: str, graphql: dict[str, GraphQLClient]
) -> None:
    ids = await family(graphql["a-write"])
    async with over_http(mcp_api, "b-write") as client:
        assert (await call(client, "list_threads"))["edges"] == []
        for tool, arguments in (
            ("thread_read", {"thread_id": "shared"}),
            ("thread_context", {"thread_id": "shared"}),
            ("lineage", {"thread_id": "shared"}),
            ("get_handoff", {"handoff_id": ids["handoff"]}),
            ("fork_thread", {"source_thread_id": "shared", "run_id": ids["run"]}),
            ("fork_thread", {"source_thread_id": "shared"}),
            ("merge_back", {"fork_thread_id": "shared"}),
            ("spawn_subagent", {"parent_run_id": ids["run"], "task": "t"}),
            ("complete_subagent", {"child_thread_id": "shared", "result": "r"}),
            (
                "submit_handoff_summary",
                {"handoff_id": ids["handoff"], "text": "x", "created_by_provider": "claude"},
            ),
        ):
            assert (await failure(client, tool, **arguments))["code"] == "NOT_FOUND", tool
        for uri in ("threadline://threads/shared", "threadline://threads/shared/handoff/codex"):
            with pytest.raises(MCPError) as missing:
                await client.read_resource(uri)
            assert missing.value.error.code == INVALID_PARAMS, uri
    # b's own thread "shared" is b's alone.
    await graphql["b-write"]('mutation { createThread(id: "shared") { id } }')
    await start(graphql["b-write"], "shared", "codex", "b's run")
    async with over_http(mcp_api, "b-write") as client:
        context = await call(client, "thread_context", thread_id="shared")
        assert [r["provider"] for r in context["runs"]] == ["codex"]


async def test_a_request_without_a_valid_token_is_refused(mcp_api: str) -> None:
    for token in (None, "not-a-token"):
        async with httpx.AsyncClient(base_url=mcp_api) as http:
            response = await http.post(
                "/mcp",
                json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                headers={"Accept": "application/json, text/event-stream"}
                | ({"Authorization": f"Bearer {token}"} if token else {}),
            )
        assert response.status_code == 401
        assert response.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"


async def test_a_get_is_refused_as_there_is_no_stream_to_hold(mcp_api: str) -> None:
    async with httpx.AsyncClient(base_url=mcp_api, timeout=10) as http:
        response = await http.get(
            "/mcp",
            headers={"Accept": "text/event-stream", "Authorization": "Bearer a-read"},
        )
    assert (response.status_code, response.headers["allow"]) == (405, "POST")


async def test_arguments_a_tool_does_not_take_are_refused_with_a_code(mcp_api: str) -> None:
    async with over_http(mcp_api, "a-write") as client:
        misnamed = await failure(client, "thread_context", threadId="shared")
        assert misnamed["code"] == "INVALID_INPUT" and "thread_id" in misnamed["message"]
        unplaced = await failure(client, "fork_thread", source_thread_id="shared")
        assert unplaced["code"] == "INVALID_INPUT" and "run_id" in unplaced["message"]
        # A value GraphQL could not take is refused naming the tool's argument.
        huge = await failure(client, "report_usage", provider_thread_id="p", context_tokens=10**12)
        assert huge["code"] == "INVALID_INPUT" and "context_tokens" in huge["message"]
        when = await failure(
            client, "report_limit", provider="codex", reason="quota", resets_at="tomorrow"
        )
        assert when["code"] == "INVALID_INPUT" and "resets_at" in when["message"]


def test_stdio_says_which_neo4j_it_uses_and_why_it_cannot_serve(tmp_path: Path) -> None:
    nowhere = "bolt://127.0.0.1:1"
    ran = cli(tmp_path, "mcp", THREADLINE_NEO4J_URI=nowhere)
    assert ran.returncode == 1 and ran.stdout == ""  # stdout is the protocol's alone
    assert ran.stderr.strip().splitlines() == [
        f"threadline mcp: Neo4j at {nowhere} (THREADLINE_NEO4J_URI)",
        "threadline mcp: Neo4j did not answer (ServiceUnavailable): start it, or set "
        "THREADLINE_NEO4J_URI to one that runs, then start this again.",
    ]


async def test_an_early_stdio_call_waits_for_the_first_warm_up(neo4j_uri: str) -> None:
    """`threadline mcp`'s agent calls as soon as the process starts: its gateway lets a call
    made before the first warm-up has ended wait for it, instead of racing it to a cold
    Neo4j's plans and running out of time."""
    store = connect_test_store(neo4j_uri)  # a new process's store: nothing planned yet
    app = create_app(Settings(), store=store)
    gateway = app.state.gateway.waiting_for_warm_up(60.0)
    try:
        async with app.router.lifespan_context(app):
            assert not store.warm_up.serving
            answer = await gateway.run(OPEN, tools.LIST_THREADS, {"first": 1})
            assert not answer.failed, answer
            assert store.warm_up.serving
    finally:
        await store.close()


async def test_the_first_stdio_call_answers_as_fast_as_later_ones(
    neo4j_uri: str, tokens: Path, graphql: dict[str, GraphQLClient]
) -> None:
    """`threadline mcp` answers the protocol once it is ready (its statements planned, the
    tools' documents and code paths run once): the first call then takes about what later
    ones take. A loose bound here (the box is shared); the figure is in docs/MODEL.md."""
    ids = await family(graphql["a-write"])
    async with over_stdio(neo4j_uri, tokens, "a-write") as client:
        timings = []
        for _ in range(5):
            began = time.perf_counter()
            await call(client, "explain_start", thread_id=ids["thread"], provider="codex")
            await call(client, "search", query="cache")
            timings.append(time.perf_counter() - began)
    first, later = timings[0], statistics.median(timings[1:])
    print(f"first call {first * 1000:.0f} ms, later calls {later * 1000:.0f} ms (median)")
    assert first <= max(4 * later, 2.0), (first, later)
