"""Imported tool outputs are keyed by what they answer (docs/MODEL.md "Session import"): a
session that ran its tests twice with the same tool, the first run failing, keeps the
failing output material after a switch to the other provider (shown in the handoff's
text, or listed in `omitted`), never dropped as superseded by the passing one. Sessions
imported before (keyed by the tool's name) get the same after `migrate`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from graph import migrations
from graph.store import Store
from graph.tx import Tx
from tests.support.graphql import GraphQLClient
from tests.support.steps import start

SESSIONS = Path(__file__).resolve().parents[1] / "fixtures" / "sessions"
IMPORT = """mutation($format: SessionFormat!, $content: String!) {
  importSession(format: $format, content: $content) { thread { id } } }"""
OUTPUTS = """query($t: ID!) { thread(id: $t) { items(kinds: [TOOL_OUTPUT, ASSISTANT_MESSAGE]) {
  edges { node { runOrdinal index kind text key attributes } } } } }"""
HANDOFF = """query($id: ID!) { handoff(id: $id) { summaryText omitted { runOrdinal index } } }"""
FAIL = 'mutation($r: ID!) { failRun(runId: $r, reason: "not now") { id } }'
CASES = {
    "CLAUDE_CODE_JSONL": ("claude_code_test_runs.jsonl", "codex", "Bash:toolu_"),
    "CODEX_ROLLOUT_JSONL": ("codex_test_runs.jsonl", "claude", "shell:call_"),
}


async def imported(gql: GraphQLClient, session_format: str) -> str:
    content = (SESSIONS / CASES[session_format][0]).read_text()
    made = await gql(IMPORT, format=session_format, content=content)
    return str(made["importSession"]["thread"]["id"])


async def items(gql: GraphQLClient, thread: str, kind: str) -> list[dict[str, Any]]:
    found = (await gql(OUTPUTS, t=thread))["thread"]["items"]["edges"]
    return [edge["node"] for edge in found if edge["node"]["kind"] == kind]


def flat(text: str) -> str:
    return " ".join(text.split())


async def material(gql: GraphQLClient, handoff_id: str, item: dict[str, Any]) -> bool:
    """Whether the handoff shows `item` (its text's opening, whole or cut) or lists it."""
    handoff = (await gql(HANDOFF, id=handoff_id))["handoff"]
    listed = {(o["runOrdinal"], o["index"]) for o in handoff["omitted"]}
    shown = flat(item["text"])[:80] in flat(handoff["summaryText"])
    return shown or (item["runOrdinal"], item["index"]) in listed


@pytest.mark.parametrize("session_format", list(CASES))
async def test_a_failing_test_runs_output_survives_a_switch(
    gql: GraphQLClient, session_format: str
) -> None:
    _, other, prefix = CASES[session_format]
    thread = await imported(gql, session_format)
    outputs = await items(gql, thread, "TOOL_OUTPUT")
    tests = [o for o in outputs if o["key"].startswith(prefix)]
    failing, passing = tests
    assert failing["attributes"] == {"isError": True} and "1 failed" in failing["text"]
    assert "7 passed" in passing["text"] and failing["key"] != passing["key"]
    assert len({o["key"] for o in outputs}) == len(outputs)  # one call, one output

    switched = await start(gql, thread, other, "take over")
    [handoff] = switched["handoffs"]
    assert await material(gql, handoff["id"], failing)
    assert await material(gql, handoff["id"], passing)


async def test_claude_code_messages_keep_their_native_ids(gql: GraphQLClient) -> None:
    thread = await imported(gql, "CLAUDE_CODE_JSONL")
    replies = await items(gql, thread, "ASSISTANT_MESSAGE")
    lines = (SESSIONS / CASES["CLAUDE_CODE_JSONL"][0]).read_text().splitlines()
    uuids = {line.split('"uuid": "')[1].split('"')[0] for line in lines if '"uuid"' in line}
    assert replies and all(reply["key"] in uuids for reply in replies)


async def test_sessions_imported_before_are_mended_by_migrate(
    gql: GraphQLClient, store: Store
) -> None:
    thread = await imported(gql, "CLAUDE_CODE_JSONL")

    async def as_imported_before(tx: Tx) -> None:
        await tx.rows("testing/imported_outputs_by_tool", workspace="default", threadId=thread)

    await store.write(as_imported_before)
    failing = next(o for o in await items(gql, thread, "TOOL_OUTPUT") if o["attributes"])
    assert failing["key"] == "Bash"
    before = await start(gql, thread, "codex", "take over")
    # Keyed by the tool's name, the failing run's output is superseded by the passing one.
    assert not await material(gql, before["handoffs"][0]["id"], failing)
    await gql(FAIL, r=before["run"]["id"])

    await migrations.migrate(store)
    await migrations.migrate(store)  # idempotent: a second pass changes nothing
    failing = next(o for o in await items(gql, thread, "TOOL_OUTPUT") if o["attributes"])
    assert failing["key"] == f"Bash:{await run_id(gql, thread, 1)}/{failing['index']}"
    after = await start(gql, thread, "codex", "take over again")
    assert await material(gql, after["handoffs"][0]["id"], failing)


async def run_id(gql: GraphQLClient, thread: str, ordinal: int) -> str:
    runs = (await gql("query($t: ID!) { thread(id: $t) { runs { id ordinal } } }", t=thread))[
        "thread"
    ]["runs"]
    return str(next(r["id"] for r in runs if r["ordinal"] == ordinal))
