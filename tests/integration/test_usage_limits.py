"""Usage limits on Neo4j: a limit interrupts a run and the thread goes on elsewhere with
the interrupted request; starts on a limited provider are refused (or forced); limits
expire, are cleared, rank the suggested providers and never cross workspaces."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from api.settings import Settings
from graph.console import analysis
from graph.store import Store
from tests.support.graphql import GraphQLClient, make_app_client
from tests.support.seeded import read_only_graph
from tests.support.steps import As, new_thread, run_once, start, tokens_file

REPORT = """mutation($p: String!, $reason: String!, $at: DateTime, $run: ID,
                     $items: [RunItemInput!], $cmd: String) {
  reportProviderLimit(provider: $p, reason: $reason, resetsAt: $at, runId: $run,
                      partialItems: $items, commandId: $cmd) {
    provider reason resetsAt reportedAt active } }"""
CLEAR = """mutation($p: String!) { clearProviderLimit(provider: $p) {
  provider reason active } }"""
LIMITS = """{ providerLimits { provider reason resetsAt active }
  providers { kind limit { provider reason active } } }"""
SUGGEST = """query($t: ID!) { suggestProviders(threadId: $t) {
  provider available resetsAt
  plan { strategy handoffStrategies tokenEstimate coveredRunOrdinals } } }"""
RUN = """query($id: ID!) { run(id: $id) { status failureReason completedAt
  items { kind text path } providerThread { id } } }"""
EVENTS = """query($t: ID!) { events(threadId: $t) { type runId payload } }"""
START_PLAIN = """mutation($t: ID!) {
  startRun(threadId: $t, provider: "claude", input: "x") { run { id } } }"""
START_IGNORING = """mutation($t: ID!, $p: String!) {
  startRun(threadId: $t, provider: $p, input: "go on anyway", ignoreLimit: true) {
    run { id provider } } }"""

PARTIAL = [
    {"kind": "FILE_CHANGE", "text": "", "path": "src/parser.py", "attributes": {"additions": 40}},
    {"kind": "ASSISTANT_MESSAGE", "text": "Rewrote the tokenizer; the grammar is next."},
]


def later(seconds: float) -> str:
    return (datetime.now(UTC) + timedelta(seconds=seconds)).isoformat()


async def interrupted_thread(gql: GraphQLClient) -> tuple[str, dict[str, Any]]:
    """A thread whose second run, on claude, a usage limit interrupted."""
    thread = await new_thread(gql, "limited")
    await run_once(gql, thread, "claude", "set up the parser package")
    started = await start(gql, thread, "claude", "rewrite the parser around a new grammar")
    run_id = started["run"]["id"]
    limit = await gql(
        REPORT,
        p="claude",
        reason="5-hour usage limit reached",
        at=later(3600),
        run=run_id,
        items=PARTIAL,
    )
    return thread, {"run": run_id, "limit": limit["reportProviderLimit"]}


async def test_a_limit_interrupts_the_run_and_another_provider_continues_it(
    gql: GraphQLClient,
) -> None:
    thread, found = await interrupted_thread(gql)
    limit = found["limit"]
    assert (limit["provider"], limit["active"]) == ("claude", True)

    run = (await gql(RUN, id=found["run"]))["run"]
    assert run["status"] == "INTERRUPTED" and run["completedAt"] is not None
    assert run["failureReason"] == "5-hour usage limit reached"
    assert [item["path"] or item["text"] for item in run["items"]] == [
        "src/parser.py",
        PARTIAL[1]["text"],
    ]
    events = (await gql(EVENTS, t=thread))["events"]
    [interrupted] = [e for e in events if e["type"] == "run.interrupted"]
    assert interrupted["runId"] == found["run"]
    assert interrupted["payload"]["reason"] == "5-hour usage limit reached"
    assert interrupted["payload"]["items"] == 2

    switched = await start(gql, thread, "codex", "continue where it stopped")
    [handoff] = switched["handoffs"]
    assert handoff["coveredRunOrdinals"] == {"from": 1, "to": 2}
    text = switched["contextText"]
    assert "Run 2 was interrupted by a usage limit (5-hour usage limit reached)" in text
    assert "Run 2 asked: rewrite the parser around a new grammar" in text
    assert "src/parser.py" in text and PARTIAL[1]["text"] in text


async def test_a_start_on_a_limited_provider_is_refused_with_its_reset_and_the_others(
    gql: GraphQLClient,
) -> None:
    thread, found = await interrupted_thread(gql)
    error = await gql.error(START_PLAIN, t=thread)
    extensions = error["extensions"]
    assert extensions["code"] == "PROVIDER_LIMITED"
    assert datetime.fromisoformat(extensions["resetsAt"]) == datetime.fromisoformat(
        found["limit"]["resetsAt"]
    )
    assert extensions["availableProviders"] == ["codex"]
    # Refused, it wrote nothing: run 2 is still the thread's latest.
    runs = await gql("query($t: ID!) { thread(id: $t) { runs { ordinal } } }", t=thread)
    assert [r["ordinal"] for r in runs["thread"]["runs"]] == [1, 2]


async def test_ignore_limit_starts_on_the_limited_provider(gql: GraphQLClient) -> None:
    thread, _ = await interrupted_thread(gql)
    started = (await gql(START_IGNORING, t=thread, p="claude"))["startRun"]
    assert started["run"]["provider"] == "claude"
    # The limit stays in force for everyone else.
    listed = (await gql(LIMITS))["providerLimits"]
    assert [(x["provider"], x["active"]) for x in listed] == [("claude", True)]


async def test_a_limit_expires_by_itself(gql: GraphQLClient) -> None:
    thread = await new_thread(gql)
    # 4 s ahead: still ahead when the report lands, even on a box that stalls a write.
    reported = (await gql(REPORT, p="codex", reason="rate limit", at=later(4)))[
        "reportProviderLimit"
    ]
    assert reported["active"] is True
    # Wait until the reset is past (a condition, not a guess at how long things take).
    wait = datetime.fromisoformat(reported["resetsAt"]) - datetime.now(UTC)
    await asyncio.sleep(max(0.0, wait.total_seconds()) + 0.05)
    listed = (await gql(LIMITS))["providerLimits"]
    assert [(x["provider"], x["active"]) for x in listed] == [("codex", False)]
    await run_once(gql, thread, "codex", "after the reset")
    # One reported with a reset already past is recorded inactive from the start.
    past = await gql(REPORT, p="claude", reason="late report", at=later(-60))
    assert past["reportProviderLimit"]["active"] is False
    await run_once(gql, thread, "claude", "not limited")


async def test_a_cleared_limit_ends_now(gql: GraphQLClient) -> None:
    thread = await new_thread(gql)
    await gql(REPORT, p="codex", reason="out of credits", at=None)
    providers = {p["kind"]: p["limit"] for p in (await gql(LIMITS))["providers"]}
    assert providers["codex"] == {"provider": "codex", "reason": "out of credits", "active": True}
    assert providers["claude"] is None
    cleared = (await gql(CLEAR, p="codex"))["clearProviderLimit"]
    assert cleared == {"provider": "codex", "reason": "out of credits", "active": False}
    assert (await gql(CLEAR, p="codex"))["clearProviderLimit"] is None
    providers = {p["kind"]: p["limit"] for p in (await gql(LIMITS))["providers"]}
    assert providers["codex"] is None
    await run_once(gql, thread, "codex", "credits back")


async def test_suggestions_rank_available_providers_and_the_cheapest_context_first(
    gql: GraphQLClient,
) -> None:
    thread = await new_thread(gql)
    await run_once(gql, thread, "claude", "one", items=[{"kind": "DECISION", "text": "d1"}])
    await run_once(gql, thread, "codex", "two", items=[{"kind": "DECISION", "text": "d2"}])
    await run_once(gql, thread, "codex", "three", items=[{"kind": "DECISION", "text": "d3"}])
    before = await gql("{ threads { edges { node { id } } } }")

    ranked = (await gql(SUGGEST, t=thread))["suggestProviders"]
    assert [(s["provider"], s["available"]) for s in ranked] == [("codex", True), ("claude", True)]
    codex, claude = (s["plan"] for s in ranked)
    assert codex["handoffStrategies"] == [] and codex["tokenEstimate"] == 0
    assert claude["handoffStrategies"] == ["DELTA_SINCE_TARGET_LAST_SEEN"]
    assert claude["coveredRunOrdinals"] == [2, 3]
    plain = await gql(
        """query($t: ID!) { explainStartContext(threadId: $t, provider: "claude") {
        strategy handoffStrategies tokenEstimate coveredRunOrdinals } }""",
        t=thread,
    )
    assert claude == plain["explainStartContext"]

    await gql(REPORT, p="codex", reason="weekly limit", at=later(3600))
    ranked = (await gql(SUGGEST, t=thread))["suggestProviders"]
    assert [(s["provider"], s["available"]) for s in ranked] == [
        ("claude", True),
        ("codex", False),
    ]
    assert ranked[1]["resetsAt"] is not None
    assert await gql("{ threads { edges { node { id } } } }") == before  # nothing written


async def test_a_limit_reported_twice_with_one_command_id_applies_once(
    gql: GraphQLClient, clean_store: Store
) -> None:
    thread = await new_thread(gql)
    started = await start(gql, thread, "claude", "long task")
    variables: dict[str, Any] = {
        "p": "claude",
        "reason": "usage limit",
        "at": later(600),
        "run": started["run"]["id"],
        "items": PARTIAL,
        "cmd": "limit-once",
    }
    first, second = (await gql(REPORT, **variables), await gql(REPORT, **variables))
    assert first == second
    events = (await gql(EVENTS, t=thread))["events"]
    assert [e["type"] for e in events].count("run.interrupted") == 1
    counted = await clean_store.read(
        lambda tx: tx.rows("testing/count_nodes")  # every node of the graph
    )
    nodes = counted[0]["nodes"]
    assert await gql(REPORT, **variables) == first
    again = await clean_store.read(lambda tx: tx.rows("testing/count_nodes"))
    assert again[0]["nodes"] == nodes
    # The same commandId with other arguments is a conflict, not a second limit.
    await gql.refused("CONFLICT", REPORT, **{**variables, "reason": "another"})


async def test_bad_reports_are_refused_and_write_nothing(gql: GraphQLClient) -> None:
    thread = await new_thread(gql)
    done = await run_once(gql, thread, "claude", "done already")
    cases = [
        ({"p": "nobody", "reason": "x"}, "INVALID_INPUT"),
        ({"p": "claude", "reason": "x", "items": PARTIAL}, "INVALID_INPUT"),
        ({"p": "claude", "reason": "x", "run": done["run"]["id"]}, "CONFLICT"),
        ({"p": "claude", "reason": "x", "run": "run_missing"}, "NOT_FOUND"),
    ]
    for variables, code in cases:
        error = await gql.error(REPORT, **variables)
        assert error["extensions"]["code"] == code, (variables, error)
    started = await start(gql, thread, "claude", "in progress")
    await gql.refused("INVALID_INPUT", REPORT, p="codex", reason="x", run=started["run"]["id"])
    assert (await gql(LIMITS))["providerLimits"] == []


TOKENS = {"tok-a": ("ws-a", "write"), "tok-b": ("ws-b", "write")}


@pytest.fixture
async def two_workspaces(
    clean_store: Store, tmp_path: Path
) -> AsyncIterator[tuple[GraphQLClient, GraphQLClient]]:
    settings = Settings(tokens_file=tokens_file(tmp_path, TOKENS))
    async with make_app_client(clean_store, settings) as http:
        base = GraphQLClient(http)
        yield As(base, "tok-a"), As(base, "tok-b")


async def test_limits_never_cross_workspaces(
    two_workspaces: tuple[GraphQLClient, GraphQLClient],
) -> None:
    a, b = two_workspaces
    for client in (a, b):  # the same thread id in both
        await client('mutation { createThread(id: "shared") { id } }')
    await run_once(a, "shared", "claude", "a's run")
    started = await start(a, "shared", "claude", "a's long run")
    await a(REPORT, p="claude", reason="a ran out", at=later(3600), run=started["run"]["id"])

    assert [x["provider"] for x in (await a(LIMITS))["providerLimits"]] == ["claude"]
    assert (await b(LIMITS))["providerLimits"] == []
    assert all(p["limit"] is None for p in (await b(LIMITS))["providers"])
    assert (await b(CLEAR, p="claude"))["clearProviderLimit"] is None  # not b's to clear
    await run_once(b, "shared", "claude", "b is not limited")
    b_ranked = (await b(SUGGEST, t="shared"))["suggestProviders"]
    assert all(s["available"] for s in b_ranked)
    a_ranked = (await a(SUGGEST, t="shared"))["suggestProviders"]
    assert [(s["provider"], s["available"]) for s in a_ranked][-1] == ("claude", False)
    await a.refused(
        "PROVIDER_LIMITED",
        'mutation { startRun(threadId: "shared", provider: "claude", input: "x") { run { id } } }',
    )
    # b's limit is b's own, and clearing it leaves a's in force.
    await b(REPORT, p="claude", reason="b ran out")
    await b(CLEAR, p="claude")
    assert [x["active"] for x in (await a(LIMITS))["providerLimits"]] == [True]


async def test_the_interrupted_run_counts_as_native_coverage(gql: GraphQLClient) -> None:
    thread, found = await interrupted_thread(gql)
    run = (await gql(RUN, id=found["run"]))["run"]
    claude = run["providerThread"]["id"]
    data = await gql(
        """query($t: ID!) { thread(id: $t) { providerThreads { id
        coverage { nativeRunOrdinals missingRunOrdinals } } } }""",
        t=thread,
    )
    [pt] = data["thread"]["providerThreads"]
    assert pt["id"] == claude
    assert pt["coverage"] == {"nativeRunOrdinals": [1, 2], "missingRunOrdinals": []}


async def test_the_analysis_counts_switches_a_limit_caused(
    gql: GraphQLClient, neo4j_uri: str
) -> None:
    for title in ("one", "two"):
        thread, _ = await interrupted_thread(gql)
        await run_once(gql, thread, "codex", f"continue {title}")
        await gql(CLEAR, p="claude")  # the account is back for the next thread
    waited, _ = await interrupted_thread(gql)
    await gql(CLEAR, p="claude")
    await run_once(gql, waited, "claude", "same provider after the reset")  # no switch
    plain = await new_thread(gql)
    await run_once(gql, plain, "claude", "a")
    await run_once(gql, plain, "codex", "a switch no limit caused")
    with read_only_graph(neo4j_uri) as graph:
        query = analysis.get("limit_switches_by_day")
        answer = graph.run(query.text, query.parameters({}, "default")).records()
    today = datetime.now(UTC).date().isoformat()
    assert [(r["day"], r["direction"], r["switches"], r["threads"]) for r in answer] == [
        (today, "claude → codex", 2, 2)
    ]
