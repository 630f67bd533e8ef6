"""importSession on Neo4j: Claude Code and Codex session files become threads that their
provider continues natively and the other provider gets a full handoff of; the same file
again, a longer copy and a shorter one; malformed lines; scopes and workspaces."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from api.cli.demo_client import typed_client
from api.cli.import_session import send_pieces
from api.settings import Settings
from graph.models import SessionFormat
from graph.store import Store
from resolvers.imports import claude_code
from resolvers.imports.detect import detect
from resolvers.imports.pieces import pieces
from resolvers.imports.writes import parse
from tests.support.graphql import GraphQLClient, make_app_client
from tests.support.managed import cli_env
from tests.support.outage import Outage
from tests.support.steps import As, start, tokens_file

SESSIONS = Path(__file__).resolve().parents[1] / "fixtures" / "sessions"
IMPORT = """mutation($format: SessionFormat!, $content: String!, $id: ID, $title: String,
                     $cmd: String) {
  importSession(format: $format, content: $content, threadId: $id, title: $title,
                commandId: $cmd) {
    importedRuns skippedRuns
    thread { id title runs { ordinal provider status input startedAt completedAt
                             items { kind text path attributes } } }
    providerThread { id provider nativeRef status nativeRunOrdinals } } }"""
EVENTS = """query($t: ID!) { events(threadId: $t) { type payload } }"""
CASES = {
    "CLAUDE_CODE_JSONL": ("claude_code.jsonl", "claude_code_longer.jsonl", "claude", "codex"),
    "CODEX_ROLLOUT_JSONL": ("codex_rollout.jsonl", "codex_rollout_longer.jsonl", "codex", "claude"),
}


def text(name: str) -> str:
    return (SESSIONS / name).read_text()


async def imported(gql: GraphQLClient, session_format: str, name: str, **more: Any) -> Any:
    return (await gql(IMPORT, format=session_format, content=text(name), **more))["importSession"]


@pytest.mark.parametrize("session_format", list(CASES))
async def test_a_session_becomes_a_thread_its_provider_continues_natively(
    gql: GraphQLClient, session_format: str
) -> None:
    short, _, provider, other = CASES[session_format]
    made = await imported(gql, session_format, short)
    thread = made["thread"]
    assert (made["importedRuns"], made["skippedRuns"]) == (2, 0)
    assert [(r["ordinal"], r["provider"], r["status"]) for r in thread["runs"]] == [
        (1, provider, "COMPLETED"),
        (2, provider, "COMPLETED"),
    ]
    assert made["providerThread"]["provider"] == provider
    assert made["providerThread"]["nativeRunOrdinals"] == [1, 2]
    assert made["providerThread"]["nativeRef"]
    first = thread["runs"][0]
    assert first["startedAt"] < first["completedAt"]
    kinds = [item["kind"] for item in first["items"]]
    assert kinds[0] == "USER_GOAL" and "COMMAND" in kinds and "TOOL_OUTPUT" in kinds
    failed = next(i for i in first["items"] if i["kind"] == "COMMAND")
    assert failed["attributes"]["exitCode"] == 1
    edits = [i["path"] for r in thread["runs"] for i in r["items"] if i["kind"] == "FILE_CHANGE"]
    assert edits and all(not path.startswith("/") for path in edits)  # relative to the cwd

    same = await start(gql, thread["id"], provider, "go on")
    assert same["handoffs"] == [] and same["providerThread"]["id"] == made["providerThread"]["id"]
    await gql(
        'mutation($r: ID!) { failRun(runId: $r, reason: "not now") { id } }',
        r=same["run"]["id"],
    )
    switched = await start(gql, thread["id"], other, "take over")
    [handoff] = switched["handoffs"]
    assert handoff["strategy"] == "FULL_THREAD_SUMMARY"
    assert handoff["coveredRunOrdinals"] == {"from": 1, "to": 3}
    assert thread["runs"][1]["input"] in switched["contextText"]
    assert "REASONING" not in switched["contextText"]
    for item in first["items"]:
        if item["kind"] == "REASONING":
            assert item["text"] not in switched["contextText"]


@pytest.mark.parametrize("session_format", list(CASES))
async def test_importing_again_appends_only_new_runs(
    gql: GraphQLClient, session_format: str
) -> None:
    short, longer, _, _ = CASES[session_format]
    first = await imported(gql, session_format, short, id="mine", title="From the CLI")
    assert first["thread"]["id"] == "mine" and first["thread"]["title"] == "From the CLI"
    again = await imported(gql, session_format, short)
    assert (again["importedRuns"], again["skippedRuns"]) == (0, 2)
    assert again["thread"]["id"] == "mine" and len(again["thread"]["runs"]) == 2
    grown = await imported(gql, session_format, longer)
    assert (grown["importedRuns"], grown["skippedRuns"]) == (1, 2)
    assert [r["ordinal"] for r in grown["thread"]["runs"]] == [1, 2, 3]
    assert grown["providerThread"]["nativeRunOrdinals"] == [1, 2, 3]
    shorter = await imported(gql, session_format, short)
    assert (shorter["importedRuns"], shorter["skippedRuns"]) == (0, 2)
    events = (await gql(EVENTS, t="mine"))["events"]
    counts = [e["payload"]["importedRuns"] for e in events if e["type"] == "session.imported"]
    assert counts == [2, 0, 1, 0]
    await gql.refused(
        "CONFLICT", IMPORT, format=session_format, content=text(short), id="elsewhere"
    )
    # An id no one could name a thread by is refused as createThread refuses it, before
    # the session's earlier import is compared.
    await gql.refused("INVALID_INPUT", IMPORT, format=session_format, content=text(short), id="")


async def test_a_malformed_line_names_its_number_and_writes_nothing(
    gql: GraphQLClient,
) -> None:
    lines = text("claude_code.jsonl").splitlines()
    lines[6] = '{"type": "assistant", "message": {'
    error = await gql.refused(
        "INVALID_INPUT", IMPORT, format="CLAUDE_CODE_JSONL", content="\n".join(lines)
    )
    assert "Line 7" in error["message"]
    whole = text("claude_code.jsonl")
    blank = await gql.refused(
        "INVALID_INPUT", IMPORT, format="CLAUDE_CODE_JSONL", content=whole, id=" "
    )
    assert "whitespace" in blank["message"]
    assert (await gql("{ threads { edges { node { id } } } }"))["threads"]["edges"] == []


async def test_a_file_of_the_other_format_says_which_it_looks_like(gql: GraphQLClient) -> None:
    claude = await gql.refused(
        "INVALID_INPUT", IMPORT, format="CODEX_ROLLOUT_JSONL", content=text("claude_code.jsonl")
    )
    assert "CLAUDE_CODE_JSONL" in claude["message"]
    rollout = await gql.error(
        IMPORT, format="CLAUDE_CODE_JSONL", content=text("codex_rollout.jsonl")
    )
    assert "CODEX_ROLLOUT_JSONL" in rollout["message"]


async def test_one_command_id_imports_once(gql: GraphQLClient) -> None:
    variables = {"format": "CODEX_ROLLOUT_JSONL", "content": text("codex_rollout.jsonl")}
    first = await gql(IMPORT, cmd="import-1", **variables)
    second = await gql(IMPORT, cmd="import-1", **variables)
    assert first == second
    await gql.refused(
        "CONFLICT",
        IMPORT,
        cmd="import-1",
        format="CODEX_ROLLOUT_JSONL",
        content=text("codex_rollout_longer.jsonl"),
    )


TOKENS = {"a-write": ("ws-a", "write"), "a-read": ("ws-a", "read"), "b-write": ("ws-b", "write")}


@pytest.fixture
async def clients(clean_store: Store, tmp_path: Path) -> AsyncIterator[dict[str, GraphQLClient]]:
    settings = Settings(tokens_file=tokens_file(tmp_path, TOKENS))
    async with make_app_client(clean_store, settings) as http:
        base = GraphQLClient(http)
        yield {name: As(base, name) for name in TOKENS}


async def test_imports_need_write_and_stay_in_their_workspace(
    clients: dict[str, GraphQLClient],
) -> None:
    variables = {"format": "CLAUDE_CODE_JSONL", "content": text("claude_code.jsonl"), "id": "s"}
    refused = await clients["a-read"].error(IMPORT, **variables)
    assert refused["extensions"]["code"] == "FORBIDDEN"
    a = await clients["a-write"](IMPORT, **variables)
    b = await clients["b-write"](IMPORT, **variables)  # the same session, the same id
    assert a["importSession"]["importedRuns"] == b["importSession"]["importedRuns"] == 2
    assert a["importSession"]["providerThread"]["id"] != b["importSession"]["providerThread"]["id"]
    again = await clients["b-write"](IMPORT, **variables)
    assert again["importSession"]["skippedRuns"] == 2  # b's own earlier import, not a's
    listed = await clients["a-read"]("{ threads { edges { node { id } } } }")
    assert [e["node"]["id"] for e in listed["threads"]["edges"]] == ["s"]


def cli(command: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command, capture_output=True, text=True, timeout=120, check=False, env=os.environ | env
    )


DETECTED = """mutation($content: String!) { importSession(content: $content) {
  importedRuns
  thread { id runs { input items { kind key } } }
  providerThread { provider } } }"""


@pytest.mark.parametrize(
    ("name", "provider"),
    [
        ("claude_code.jsonl", "claude"),
        ("codex_rollout.jsonl", "codex"),
        ("generated/claude-debugging.jsonl", "claude"),
        ("generated/claude-long.jsonl", "claude"),
        ("generated/codex-feature.jsonl", "codex"),
        ("generated/gemini-refactor.json", "gemini"),
    ],
)
async def test_each_format_is_told_from_its_content(
    gql: GraphQLClient, name: str, provider: str
) -> None:
    content = text(name)
    made = (await gql(DETECTED, content=content))["importSession"]
    parsed = parse(detect(content), content)
    assert made["providerThread"]["provider"] == provider
    assert made["importedRuns"] == len(parsed.runs) > 0
    assert [run["input"] for run in made["thread"]["runs"]] == [r.input for r in parsed.runs]
    # Each assistant message keeps its native id as its item's key (a Codex rollout's
    # messages have none).
    said = [
        item
        for run in made["thread"]["runs"]
        for item in run["items"]
        if item["kind"] == "ASSISTANT_MESSAGE"
    ]
    assert said and all(bool(item["key"]) is (provider != "codex") for item in said)
    if provider == "gemini":  # continued on a provider of this service: a full handoff
        nxt = await start(gql, made["thread"]["id"], "claude", "carry on")
        assert nxt["strategy"] == "FULL_HANDOFF_NEW_THREAD"
        assert parsed.runs[0].input[:40] in nxt["contextText"]


async def test_a_file_saved_with_a_byte_order_mark_is_the_same_session(
    gql: GraphQLClient,
) -> None:
    content = text("generated/gemini-refactor.json")
    made = (await gql(DETECTED, content="\ufeff" + content))["importSession"]
    assert made["providerThread"]["provider"] == "gemini"
    assert made["importedRuns"] == len(parse(detect(content), content).runs) > 0


async def test_content_of_no_format_or_of_two_names_the_candidates(gql: GraphQLClient) -> None:
    nothing = await gql.refused("INVALID_INPUT", DETECTED, content='{"hello": "world"}\n')
    for each in ("CLAUDE_CODE_JSONL", "CODEX_ROLLOUT_JSONL", "GEMINI_CLI_JSON"):
        assert each in nothing["message"]
    claude, codex = text("claude_code.jsonl"), text("codex_rollout.jsonl")
    both = claude.splitlines(keepends=True)[1] + codex.splitlines(keepends=True)[0]
    two = await gql.refused("INVALID_INPUT", DETECTED, content=both)
    assert "CLAUDE_CODE_JSONL" in two["message"] and "CODEX_ROLLOUT_JSONL" in two["message"]
    assert "GEMINI_CLI_JSON" not in two["message"]
    listed = await gql("{ threads { edges { node { id } } } }")
    assert listed["threads"]["edges"] == []  # nothing written


@pytest.mark.process
async def test_the_cli_sends_a_long_session_in_pieces(
    live_api: str, live: GraphQLClient, neo4j_uri: str
) -> None:
    file = SESSIONS / "claude_code_longer.jsonl"
    content = file.read_text()
    expected = pieces(content, claude_code.parse(content), 10_000)
    assert len(expected) > 1
    # No --format: the CLI tells it from the file.
    command = [sys.executable, "-m", "api.cli", "import", str(file)]
    command += ["--url", live_api, "--piece-chars", "10000", "--thread-id", "cli"]
    done = await asyncio.to_thread(cli, command)
    assert done.returncode == 0, done.stderr
    assert "thread cli: 3 runs imported, 0 already there" in done.stdout
    events = (await live(EVENTS, t="cli"))["events"]
    assert len([e for e in events if e["type"] == "session.imported"]) == len(expected)
    # Without --url, the service that answers at THREADLINE_HOST:PORT takes it.
    port = str(urlsplit(live_api).port)
    command = [*command[: command.index("--url")], "--thread-id", "cli"]
    env = cli_env(neo4j_uri) | {"THREADLINE_HOST": "127.0.0.1", "THREADLINE_PORT": port}
    again = await asyncio.to_thread(cli, command, **env)
    assert again.stdout.splitlines() == [
        f"importing into the service at http://127.0.0.1:{port}",
        "thread cli: 0 runs imported, 3 already there",
    ], again.stderr


async def test_pieces_sent_through_an_outage_are_imported_once(
    http: httpx.AsyncClient, gql: GraphQLClient
) -> None:
    """The first piece is refused UNAVAILABLE before it runs (as from a Neo4j just started),
    the second commits but its answer is lost: each is sent again with its commandId, and
    each run is imported once."""
    content = text("claude_code_longer.jsonl")
    cut = pieces(content, claude_code.parse(content), 10_000)
    outage = Outage(http, away=range(1, 3), committed=range(2, 3))
    async with outage.client() as flaky:
        answers = await send_pieces(
            typed_client(flaky), SessionFormat.CLAUDE_CODE_JSONL, cut, "through", None
        )
    assert outage.refused == 2
    assert sum(a.imported_runs for a in answers) == 3
    events = (await gql(EVENTS, t="through"))["events"]
    assert len([e for e in events if e["type"] == "session.imported"]) == len(cut)
