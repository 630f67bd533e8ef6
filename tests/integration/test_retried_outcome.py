"""A retried write answers the most uncertain outcome of its tries.

A proxy between the service and Neo4j lets the first try's COMMIT through and cuts the
connection before Neo4j answers (the write is committed), then refuses every connection
until the request's bound has run out, as a Neo4j that died right after the commit does.
The service retries (a command with a commandId may: its receipt answers a retry), every
retry fails before it reaches its commit, and the answer must still say that the write
may have been made (`UNAVAILABLE`, `outcome: UNKNOWN`), never "nothing was written". The
receipt is there. Checked for every mutation that takes a commandId, and for one without.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest

from api.settings import Settings
from graph import repo
from graph.plan import CommandId
from graph.store import Store
from graph.tx import Tx
from tests.support.commit_cutter import CommitCutter
from tests.support.graphql import GraphQLClient, connect_test_store, make_app_client
from tests.support.steps import new_thread, run_once, start

# Long enough for a first try to reach its commit on a test server that has just started,
# beside a second worker: with 2 s, full runs on a 2-core box timed out before the commit
# in 2 to 9 of the 20 cases (each case waits out the bound, so this costs time, not truth).
REQUEST_BOUND_S = 6.0
SESSIONS = Path(__file__).parent.parent / "fixtures" / "sessions"
Variables = dict[str, Any]
Setup = Callable[[GraphQLClient], Awaitable[Variables]]


@dataclass(frozen=True)
class Case:
    document: str  # the mutation, with `$c` as its commandId
    setup: Setup  # the state it needs, made through the unproxied service

    @property
    def field(self) -> str:
        return self.document.split("{", 2)[1].split("(")[0].strip()


async def nothing(_: GraphQLClient) -> Variables:
    return {}


async def a_thread(gql: GraphQLClient) -> Variables:
    return {"t": await new_thread(gql)}


async def a_run_in_progress(gql: GraphQLClient) -> Variables:
    thread = await new_thread(gql)
    await run_once(gql, thread, "codex", "first")
    started = await start(gql, thread, "codex", "second")
    return {"t": thread, "r": started["run"]["id"], "p": started["providerThread"]["id"]}


async def a_new_provider_thread(gql: GraphQLClient) -> Variables:
    started = await start(gql, await new_thread(gql), "codex", "first")
    return {"p": started["providerThread"]["id"]}


async def a_completed_run(gql: GraphQLClient) -> Variables:
    thread = await new_thread(gql)
    await run_once(gql, thread, "codex", "first")
    done = await run_once(gql, thread, "codex", "second")
    return {"t": thread, "r": done["run"]["id"]}


async def a_ready_handoff(gql: GraphQLClient) -> Variables:
    thread = await new_thread(gql)
    await run_once(gql, thread, "codex", "first")
    started = await start(gql, thread, "claude", "second")
    return {"h": started["handoffs"][0]["id"]}


async def a_fork_with_a_run(gql: GraphQLClient) -> Variables:
    source = await a_completed_run(gql)
    fork = await gql(
        "mutation($t: ID!, $r: ID!) { forkThread(sourceThreadId: $t, at: {runId: $r}) { id } }",
        **source,
    )
    ident = fork["forkThread"]["id"]
    await run_once(gql, ident, "claude", "on the fork")
    return {"f": ident}


async def a_subagent(gql: GraphQLClient) -> Variables:
    parent = await a_run_in_progress(gql)
    child = await gql(
        'mutation($r: ID!) { spawnSubagent(parentRunId: $r, task: "look") { id } }', r=parent["r"]
    )
    return {"s": child["spawnSubagent"]["id"]}


async def a_limit(gql: GraphQLClient) -> Variables:
    await gql('mutation { reportProviderLimit(provider: "claude", reason: "out") { active } }')
    return {}


async def a_session(_: GraphQLClient) -> Variables:
    return {"content": (SESSIONS / "claude_code.jsonl").read_text()}


CASES = [
    Case("mutation($c: String) { createThread(commandId: $c) { id } }", nothing),
    Case(
        'mutation($t: ID!, $c: String) { startRun(threadId: $t, provider: "codex", '
        'input: "go", commandId: $c) { run { id } } }',
        a_thread,
    ),
    Case(
        'mutation($p: ID!, $c: String) { attachNativeThread(providerThreadId: $p, nativeRef: "n1", '
        "commandId: $c) { id } }",
        a_new_provider_thread,
    ),
    Case(
        'mutation($r: ID!, $c: String) { reportStartFailure(runId: $r, reason: "gone", '
        "commandId: $c) { run { id } } }",
        a_run_in_progress,
    ),
    Case(
        "mutation($r: ID!, $c: String) { completeRun(runId: $r, commandId: $c) { id } }",
        a_run_in_progress,
    ),
    Case(
        "mutation($p: ID!, $c: String) { reportContextUsage(providerThreadId: $p, "
        "usage: {contextTokens: 1000}, commandId: $c) { id } }",
        a_run_in_progress,
    ),
    Case(
        'mutation($r: ID!, $c: String) { failRun(runId: $r, reason: "no", commandId: $c) { id } }',
        a_run_in_progress,
    ),
    Case(
        'mutation($c: String) { reportProviderLimit(provider: "codex", reason: "out", '
        "commandId: $c) { active } }",
        nothing,
    ),
    Case(
        'mutation($c: String) { clearProviderLimit(provider: "claude", commandId: $c) { active } }',
        a_limit,
    ),
    Case(
        "mutation($content: String!, $c: String) { importSession(format: CLAUDE_CODE_JSONL, "
        "content: $content, commandId: $c) { importedRuns } }",
        a_session,
    ),
    Case(
        "mutation($t: ID!, $c: String) { rollbackThread(threadId: $t, toRunOrdinal: 1, "
        "commandId: $c) { rolledBackRuns { id } } }",
        a_completed_run,
    ),
    Case(
        "mutation($h: ID!, $c: String) { regenerateHandoff(handoffId: $h, commandId: $c) { id } }",
        a_ready_handoff,
    ),
    Case(
        'mutation($h: ID!, $c: String) { submitHandoffSummary(handoffId: $h, summaryText: "s", '
        'createdByProvider: "codex", commandId: $c) { id } }',
        a_ready_handoff,
    ),
    Case(
        "mutation($t: ID!, $c: String) { requestCleanContext(threadId: $t, commandId: $c) { id } }",
        a_thread,
    ),
    Case(
        "mutation($t: ID!, $r: ID!, $c: String) { forkThread(sourceThreadId: $t, at: {runId: $r}, "
        "commandId: $c) { id } }",
        a_completed_run,
    ),
    Case(
        "mutation($f: ID!, $c: String) { mergeBack(forkThreadId: $f, commandId: $c) { id } }",
        a_fork_with_a_run,
    ),
    Case(
        'mutation($r: ID!, $c: String) { spawnSubagent(parentRunId: $r, task: "look", '
        "commandId: $c) { id } }",
        a_run_in_progress,
    ),
    Case(
        'mutation($r: ID!, $c: String) { recordNativeSubagent(parentRunId: $r, provider: "codex", '
        'nativeRef: "sub-1", commandId: $c) { id } }',
        a_run_in_progress,
    ),
    Case(
        'mutation($s: ID!, $c: String) { completeSubagent(childThreadId: $s, result: "done", '
        "commandId: $c) { id } }",
        a_subagent,
    ),
]


@pytest.fixture
async def cutter(neo4j_uri: str) -> AsyncIterator[CommitCutter]:
    parsed = urlparse(neo4j_uri)
    async with CommitCutter(parsed.hostname or "127.0.0.1", parsed.port or 7687) as proxy:
        proxy.refuse_after_cut = True
        yield proxy


@pytest.fixture
async def proxied(cutter: CommitCutter, clean_store: Store) -> AsyncIterator[GraphQLClient]:
    """The service on a store whose Bolt traffic goes through `cutter`, with a short bound."""
    store = connect_test_store(f"bolt://127.0.0.1:{cutter.port}", timeout_s=REQUEST_BOUND_S)
    try:
        settings = Settings(db_timeout_s=REQUEST_BOUND_S)
        async with make_app_client(store, settings) as http:
            await store.warm_up.wait()  # the cut is for the command's own commit, not a plan's
            yield GraphQLClient(http)
    finally:
        await store.close()


async def receipt(store: Store, command_id: str) -> dict[str, Any] | None:
    async def work(tx: Tx) -> dict[str, Any] | None:
        return await repo.find_receipt(tx, "default", CommandId(command_id))

    return await store.read(work)


async def sent_through_the_cut(
    cutter: CommitCutter, proxied: GraphQLClient, document: str, variables: Variables
) -> dict[str, Any]:
    cutter.armed = True
    try:
        answer = await proxied.error(document, **variables)
    finally:
        cutter.refusing = False
    assert cutter.cuts == 1, f"the first try's commit was cut: {answer}"
    return answer


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.field)
async def test_a_write_retried_after_a_lost_commit_is_unknown(
    case: Case, cutter: CommitCutter, proxied: GraphQLClient, gql: GraphQLClient, clean_store: Store
) -> None:
    variables = await case.setup(gql)
    command_id = f"cmd-{case.field}"
    error = await sent_through_the_cut(
        cutter, proxied, case.document, {**variables, "c": command_id}
    )
    assert cutter.refused > 0, "the retries found Neo4j away"
    assert error["extensions"]["code"] == "UNAVAILABLE", error
    assert error["extensions"].get("outcome") == "UNKNOWN", error
    assert "nothing was written" not in error["message"], error
    stored = await receipt(clean_store, command_id)
    assert stored is not None and stored["mutation"] == case.field, "the write committed"
    again = await gql.post(case.document, **variables, c=command_id)
    assert not again.get("errors"), "a retry with the same commandId answers the committed result"


async def test_a_write_without_a_command_id_is_unknown_and_not_retried(
    cutter: CommitCutter, proxied: GraphQLClient, gql: GraphQLClient
) -> None:
    document = 'mutation($c: String) { createThread(id: "made-once", commandId: $c) { id } }'
    error = await sent_through_the_cut(cutter, proxied, document, {"c": None})
    assert error["extensions"]["code"] == "UNAVAILABLE", error
    assert error["extensions"].get("outcome") == "UNKNOWN", error
    found = await gql('{ thread(id: "made-once") { id } }')
    assert found["thread"] == {"id": "made-once"}, "the write committed"
