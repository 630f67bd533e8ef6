"""Every example of the README runs as written, in order, on a fresh service; so does every
GraphQL example of the docs pages, and each answers what the text around it says.

The README: each fenced block is run the way a reader would, in the order they meet it,
against one `threadline serve` started on an empty graph. A ```sh block's commands run
in a shell from the checkout (the address `http://127.0.0.1:8000` turned into the test
service's), a ```graphql block is one request (placeholders filled from the answers before,
`tests/support/examples.py`), a ```json block is the MCP configuration, connected to. A
block of any other language, or a command this test does not know, fails the test: a new
example must be run here before it is written there.

Two commands cannot run as written inside this test: `scripts/serve` is `scripts/bootstrap`
then `threadline serve`, so the test checks that and starts `threadline serve` on the test
Neo4j; `scripts/test` is the command that runs this test, so it is checked to be there.

The docs pages: their ```graphql blocks run page after page on one service, in the order of
`tests.support.examples.PAGES` (a page may go on from the one before it, and says so).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import subprocess
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from graphql import OperationDefinitionNode, parse
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from graph.store import Store
from tests.support.examples import (
    DOCS,
    PAGES,
    README,
    ROOT,
    Block,
    Pasted,
    blocks,
    commands,
    section,
)
from tests.support.graphql import GraphQLClient
from tests.support.managed import cli_env
from tests.support.served import served

README_BASE = "http://127.0.0.1:8000"


def one_operation(block: str) -> str:
    operations = parse(block).definitions
    assert len(operations) == 1, f"one operation per block:\n{block}"
    assert isinstance(operations[0], OperationDefinitionNode)
    return block


async def run_graphql(
    gql: GraphQLClient, pasted: Pasted, examples: list[Block]
) -> dict[str, dict[str, Any]]:
    """Each ```graphql block's answer, by the block's text."""
    answers: dict[str, dict[str, Any]] = {}
    for block in examples:
        if block.language == "graphql":
            answer = await gql(pasted.fill(one_operation(block.text)))
            pasted.saw(answer)
            answers[block.text] = answer
    return answers


def answer_to(answers: dict[str, dict[str, Any]], text: str) -> dict[str, Any]:
    (found,) = [answer for block, answer in answers.items() if text in block]
    return found


# The README -------------------------------------------------------------------------------


class Reader:
    """Runs the README's blocks as a reader would, against the service it started."""

    def __init__(self, neo4j_uri: str, folder: Path, stack: ExitStack) -> None:
        self.neo4j_uri = neo4j_uri
        self.folder = folder
        self.stack = stack
        self.base = ""
        self.pasted = Pasted()
        self.said: dict[str, Any] = {}  # what each block answered, by its text

    def env(self) -> dict[str, str]:
        port = self.base.rsplit(":", 1)[1]
        clean = {k: v for k, v in os.environ.items() if not k.startswith("THREADLINE_")}
        return {**clean, **cli_env(self.neo4j_uri), "THREADLINE_PORT": port}

    def command(self, line: str) -> None:
        words = shlex.split(line, comments=True)
        if words == ["scripts/serve"]:
            script = (ROOT / "scripts/serve").read_text().splitlines()
            assert "scripts/bootstrap" in script
            assert script[-1] == 'exec .venv/bin/threadline serve "$@"'
            self.base, _ = self.stack.enter_context(served(self.neo4j_uri, self.folder))
            self.said[line] = self.base
            return
        if words == ["scripts/test"]:
            assert os.access(ROOT / "scripts/test", os.X_OK)
            self.said[line] = "runs this test"
            return
        assert self.base, f"`{line}` before the service runs"
        known = {".venv/bin/threadline", "curl"}
        assert words[0] in known, f"the README's test does not know how to run `{line}`"
        ran = subprocess.run(
            ["bash", "-c", line.replace(README_BASE, self.base)],
            cwd=ROOT,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert ran.returncode == 0, f"`{line}`:\n{ran.stdout}\n{ran.stderr}"
        self.said[line] = ran.stdout

    async def graphql(self, block: str) -> None:
        async with httpx.AsyncClient(base_url=self.base, timeout=60) as http:
            answers = await run_graphql(GraphQLClient(http), self.pasted, [Block("graphql", block)])
        self.said[block] = answers[block]

    async def mcp(self, block: str) -> None:
        server = json.loads(block)["mcpServers"]["threadline"]
        assert server["type"] == "http"
        url = server["url"].replace(README_BASE, self.base)
        async with (
            httpx2.AsyncClient(headers=server.get("headers", {}), timeout=60) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            listed = await client.list_tools()
        self.said[block] = {tool.name for tool in listed.tools}

    async def read(self, examples: list[Block]) -> None:
        for block in examples:
            if block.language == "sh":
                for line in commands(block.text):
                    await asyncio.to_thread(self.command, line)
            elif block.language == "graphql":
                await self.graphql(block.text)
            elif block.language == "json":
                await self.mcp(block.text)
            else:
                raise AssertionError(f"the README's test cannot run a ```{block.language} block")


def links_to_the_service(text: str) -> Iterator[str]:
    for match in re.finditer(r"<(http://127\.0\.0\.1:8000/[^>]*)>", text):
        yield match[1]


@pytest.mark.process  # it starts `threadline serve`
async def test_every_example_of_the_readme_runs_in_order_on_a_fresh_service(
    neo4j_uri: str, clean_store: Store, tmp_path: Path
) -> None:
    examples = blocks(README)
    with ExitStack() as stack:
        reader = Reader(neo4j_uri, tmp_path, stack)
        await reader.read(examples)

        # Every block ran; every command of a shell block did.
        ran = set(reader.said)
        for block in examples:
            wanted = commands(block.text) if block.language == "sh" else [block.text]
            assert set(wanted) <= ran, f"not run:\n{block.text}"

        said = reader.said
        demo = said[".venv/bin/threadline demo"]
        assert re.search(r"/lineage\?thread=thr_\w+", demo), demo
        started = answer_to(said, 'provider: "codex", input: "Fix the login bug"')["startRun"]
        assert (started["strategy"], started["providerAction"]) == ("NO_HANDOFF", "CREATE")
        assert started["run"] == {"ordinal": 1, "status": "STARTING"}
        (curl,) = [out for line, out in said.items() if line.startswith("curl")]
        newest = json.loads(curl)["data"]["threads"]["edges"]
        assert [edge["node"]["title"] for edge in newest] == ["hello"]
        read_back = answer_to(said, 'query { thread(id: "thr_...")')["thread"]
        assert (read_back["title"], read_back["runs"]) == ("hello", [started["run"]])
        (cypher,) = [out for line, out in said.items() if " cypher query " in line]
        assert "hello" in [row.strip() for row in cypher.splitlines()], cypher
        tools = next(value for value in said.values() if isinstance(value, set))
        named = set(re.findall(r"`(\w+)`", section(README, "## Quickstart")))
        assert {"list_threads", "search", "thread_read", "get_handoff"} <= named & tools

        # The addresses the README links answer, on the service it started.
        async with httpx.AsyncClient(timeout=30) as http:
            for link in set(links_to_the_service(README.read_text())):
                url = link.replace(README_BASE, reader.base)
                answer = await http.get(url, headers={"Accept": "text/html"})
                assert answer.status_code == 200, link


# The docs pages ---------------------------------------------------------------------------


async def test_every_graphql_example_of_the_docs_runs_as_written(gql: GraphQLClient) -> None:
    pasted = Pasted()
    answers: dict[str, dict[str, Any]] = {}
    for page in PAGES:
        examples = blocks(DOCS / page)
        ran = await run_graphql(gql, pasted, examples)
        assert len(ran) == len([b for b in examples if b.language == "graphql"])
        answers.update(ran)

    # HANDOFFS.md: a provider switch and back, then an account that runs out.
    completed = answer_to(answers, "contextTokens: 203900")["completeRun"]
    assert completed["providerThread"]["contextUsage"]["contextTokens"] == 203900
    switch = answer_to(answers, '"Now add tests"')["startRun"]
    assert switch["strategy"] == "FULL_HANDOFF_NEW_THREAD"
    assert switch["budget"]["windowSource"] == "PROVIDER"
    (whole,) = switch["handoffs"]
    assert whole["quality"] == {"score": 1.0, "fidelity": 1.0}  # room for everything
    shown = {(e["runOrdinal"], e["index"], e["kind"]) for e in whole["entries"]}
    assert (1, 0, "DECISION") in shown and (1, -1, "USER_GOAL") in shown
    back = answer_to(answers, '"Ship it"')["startRun"]
    assert back["strategy"] == "DELTA_HANDOFF_EXISTING_THREAD"
    assert back["budget"]["budgetTokens"] == 100  # what the nearly full thread has left
    (delta,) = back["handoffs"]
    assert delta["omitted"] and delta["tokenEstimate"] <= 100  # what did not fit, listed
    assert "All 12 login tests pass." in delta["summaryText"]  # the latest reply is kept
    assert "Now add tests" in delta["summaryText"]  # and the latest request
    assert delta["quality"]["fidelity"] < 1.0
    items = answer_to(answers, "items(first: 20")["thread"]["items"]
    assert items["pageInfo"]["hasNextPage"] is False
    pulled = {(e["node"]["runOrdinal"], e["node"]["index"]) for e in items["edges"]}
    listed = {(o["runOrdinal"], o["index"]) for o in delta["omitted"]}
    assert listed <= pulled  # every item left out can be read back whole

    assert answer_to(answers, "reportProviderLimit")["reportProviderLimit"]["active"] is True
    ranked = answer_to(answers, "suggestProviders")["suggestProviders"]
    assert [(s["provider"], s["available"]) for s in ranked] == [
        ("codex", True),
        ("claude", False),
    ]
    text = answer_to(answers, '"Continue where it stopped"')["startRun"]["contextText"]
    assert "interrupted by a usage limit (5-hour limit reached)" in text
    assert "Tokenizer done; the grammar is next." in text
    finished = answer_to(answers, 'completeRun(runId: "run_...", nativeTurnRef: "turn-1") {')
    assert finished["completeRun"]["status"] == "COMPLETED"
    cleared = answer_to(answers, "clearProviderLimit")["clearProviderLimit"]
    assert cleared == {"provider": "claude", "active": False}
    assert answer_to(answers, "providerLimits")["providerLimits"] == [
        {
            "provider": "claude",
            "reason": "5-hour limit reached",
            "resetsAt": "2099-01-01T00:00:00+00:00",
            "active": False,
        }
    ]

    # ANALYSIS.md: the `parser` thread through time, and a fork of it.
    then = answer_to(answers, 'thread(id: "thr_...", asOf')["thread"]
    assert [run["status"] for run in then["runs"]] == ["INTERRUPTED", "STARTING"]
    assert answer_to(answers, "explainMergeBack")["explainMergeBack"]["possible"] is False

    # SUMMARIES.md: the leaving provider writes the summary, about what its run did.
    pending = answer_to(answers, "summarySource: LEAVING_PROVIDER")["startRun"]
    assert pending["handoffs"][0]["status"] == "PENDING"
    (request,) = pending["summarizationRequests"]
    assert request["provider"] == "codex"
    assert "An idempotency key per charge" in json.dumps(request["material"])
    submitted = answer_to(answers, 'createdByProvider: "codex"')["submitHandoffSummary"]
    assert submitted["status"] == "READY"

    # STEERING.md: a prepared handoff edited, a fork at an item, a side question.
    prepared = answer_to(answers, "prepareHandoff")["prepareHandoff"]
    assert (prepared["status"], prepared["preparedFor"]) == ("READY", "claude")
    edited = answer_to(answers, "Keep errors short.")["submitHandoffSummary"]
    assert edited["summarySource"] == "PERSON"
    injected = answer_to(answers, '"Add error recovery"')["startRun"]
    assert injected["contextText"].endswith("Keep errors short.")
    assert [h["summarySource"] for h in injected["handoffs"]] == ["PERSON"]
    at_item = answer_to(answers, "itemIndex: 1")["forkThread"]
    assert at_item["incomingTransfers"][0]["sourcePoint"]["itemIndex"] == 1
    side = answer_to(answers, "side: true")["forkThread"]
    assert side["relationshipToParent"] == "SIDE"
    edges = answer_to(answers, "includeSide: true")["lineage"]["edges"]
    assert {(e["relationship"], e["sourceItemIndex"]) for e in edges} == {
        ("FORK", 1),
        ("SIDE", None),
    }
