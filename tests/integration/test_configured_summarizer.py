"""The CONFIGURED source against a real local chat-completions server: a good answer, a
delay past the timeout, a 500 and an oversized answer; the local fallback with its
reason; the cache; no lock held across the call; recovery after a crash between the
start's two transactions; and the analysis query comparing the sources."""

from __future__ import annotations

import asyncio
import json
import logging
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from api.commands import receipts, runs
from api.commands.caller import Caller
from api.settings import Settings
from graph.console import analysis, readonly
from graph.models import SummarySource
from graph.store import Store
from resolvers.providers import registry_from_toml
from resolvers.start.decision import StartRequest
from resolvers.start.staleness import StalenessPolicy
from resolvers.start.writes import StartOutcome
from tests.support.chat_server import ANSWERING_MODEL, ChatServer, Mode, chat_server
from tests.support.graphql import GraphQLClient, make_app_client
from tests.support.seeded import read_only_graph
from tests.support.steps import As, run_once, tokens_file
from tests.support.summaries import (
    FAIL_START,
    SUBMIT,
    codex_history,
    events,
    handoff,
    start,
)

API_KEY = "sk-test-5e1f9a2b-do-not-log"
NAME = "local-llm"
MODEL = "tiny"
TIMEOUT_S = 3.0
RETRIES = 1
CLAUDE_BUDGET = 32000  # tokens


@pytest.fixture
async def chat() -> AsyncIterator[ChatServer]:
    async with chat_server() as server:
        yield server


def configured(server: ChatServer) -> Settings:
    return Settings(
        summarizer_url=server.url,
        summarizer_model=MODEL,
        summarizer_api_key=SecretStr(API_KEY),
        summarizer_timeout_s=TIMEOUT_S,
        summarizer_retries=RETRIES,
        summarizer_name=NAME,
    )


@pytest.fixture
async def cgql(clean_store: Store, chat: ChatServer) -> AsyncIterator[GraphQLClient]:
    async with make_app_client(clean_store, configured(chat)) as http:
        yield GraphQLClient(http)


async def test_a_good_answer_becomes_the_handoff(cgql: GraphQLClient, chat: ChatServer) -> None:
    twin = await start(cgql, await codex_history(cgql, "twin"), "claude", "LOCAL")
    started = await start(cgql, await codex_history(cgql), "claude", "CONFIGURED")
    [made] = started["handoffs"]
    [sent] = chat.bodies
    assert (made["status"], made["summarySource"]) == ("READY", "CONFIGURED")
    assert made["summaryText"] == chat.summary_of(sent)
    assert (made["createdByProvider"], made["model"]) == (NAME, ANSWERING_MODEL)
    assert made["fallbackReason"] is None and made["generationMs"] is not None
    assert started["contextText"] == made["summaryText"]
    assert started["summarizationRequests"] == []
    assert f"Handoff {made['id']} was summarised by {NAME}" in started["explanation"][-1]
    # Otherwise the start is the one a local summary would make.
    assert started["run"]["status"] == twin["run"]["status"] == "STARTING"
    assert (started["strategy"], started["providerAction"]) == (
        twin["strategy"],
        twin["providerAction"],
    )
    assert await handoff(cgql, made["id"]) == made

    # What the summarizer was sent: the protocol, the key, the budget, the rules, the runs.
    assert chat.authorizations == [f"Bearer {API_KEY}"]
    assert (sent["model"], sent["max_tokens"]) == (MODEL, CLAUDE_BUDGET)
    system, user = sent["messages"]
    assert system["role"] == "system" and "Never include" in system["content"]
    material = json.loads(user["content"])
    assert [run["ordinal"] for run in material["runs"]] == [1, 2]


CASES = [
    pytest.param(Mode.SLOW, {}, "timeout: no answer within 3 s", RETRIES + 1, id="timeout"),
    pytest.param(Mode.ERROR, {}, "error: HTTP 500 from the summarizer", RETRIES + 1, id="500"),
    pytest.param(
        Mode.OVERSIZED,
        {"oversized_chars": CLAUDE_BUDGET * 4 * 2},
        "oversized: the answer is about ",  # more tokens than the budget, counted
        1,
        id="over-budget",
    ),
    pytest.param(
        Mode.OVERSIZED,
        {"oversized_chars": CLAUDE_BUDGET * 20},
        "oversized: the answer is over",
        1,
        id="over-bytes",
    ),
]


@pytest.mark.parametrize(("mode", "server", "reason", "calls"), CASES)
async def test_a_failed_answer_falls_back_to_the_local_summary_and_says_why(
    cgql: GraphQLClient,
    chat: ChatServer,
    caplog: pytest.LogCaptureFixture,
    mode: Mode,
    server: dict[str, Any],
    reason: str,
    calls: int,
) -> None:
    caplog.set_level(logging.DEBUG)
    twin = await start(cgql, await codex_history(cgql, "twin"), "claude", "LOCAL")
    chat.mode = mode
    for key, value in server.items():
        setattr(chat, key, value)
    thread = await codex_history(cgql)
    started = await start(cgql, thread, "claude", "CONFIGURED")
    [made] = started["handoffs"]
    assert (made["status"], made["summarySource"]) == ("READY", "CONFIGURED")
    assert made["fallbackReason"].startswith(reason)
    assert made["summaryText"] == twin["handoffs"][0]["summaryText"]  # the local summary
    assert (made["createdByProvider"], made["model"], made["cachedFrom"]) == (None, None, None)
    assert started["contextText"] == made["summaryText"]
    assert "the local summary stands in" in started["explanation"][-1]
    assert chat.calls == Counter({mode: calls})  # timeouts and 500s are tried again
    [summarized] = await events(cgql, thread, "handoff.summarized")
    assert summarized["payload"]["fallbackReason"] == made["fallbackReason"]
    assert API_KEY not in caplog.text and API_KEY not in made["fallbackReason"]


async def test_the_same_material_is_summarised_once(cgql: GraphQLClient, chat: ChatServer) -> None:
    thread = await codex_history(cgql, "a")
    first = await start(cgql, thread, "claude", "CONFIGURED", "c-1")
    assert chat.total == 1
    # A replay answers what the client got, READY, without asking again.
    assert await start(cgql, thread, "claude", "CONFIGURED", "c-1") == first
    # Another thread with the same runs: the summary is reused, not paid for again.
    second = await start(cgql, await codex_history(cgql, "b"), "claude", "CONFIGURED")
    assert chat.total == 1
    [made], [reused] = first["handoffs"], second["handoffs"]
    assert reused["cachedFrom"] == {"id": made["id"]} and reused["generationMs"] == 0
    assert (reused["summaryText"], reused["createdByProvider"], reused["model"]) == (
        made["summaryText"],
        made["createdByProvider"],
        made["model"],
    )
    # Other material is another request.
    other = await codex_history(cgql, "c")
    await run_once(cgql, other, "codex", "one more step")
    await start(cgql, other, "claude", "CONFIGURED")
    assert chat.total == 2


async def test_workspaces_share_no_summary(
    clean_store: Store, chat: ChatServer, tmp_path: Path
) -> None:
    tokens = tokens_file(tmp_path, {"tok-a": ("a", "write"), "tok-b": ("b", "write")})
    settings = configured(chat).model_copy(update={"tokens_file": tokens})
    async with make_app_client(clean_store, settings) as http:
        base = GraphQLClient(http)
        for token in ("tok-a", "tok-b"):
            gql = As(base, token)
            [made] = (await start(gql, await codex_history(gql), "claude", "CONFIGURED"))[
                "handoffs"
            ]
            assert made["cachedFrom"] is None and made["model"] == ANSWERING_MODEL
    assert chat.total == 2  # the same material, paid for once per workspace


async def test_a_fallback_is_not_cached(cgql: GraphQLClient, chat: ChatServer) -> None:
    chat.mode = Mode.ERROR
    failed = await start(cgql, await codex_history(cgql, "a"), "claude", "CONFIGURED")
    assert failed["handoffs"][0]["fallbackReason"] is not None
    chat.mode = Mode.GOOD
    good = await start(cgql, await codex_history(cgql, "b"), "claude", "CONFIGURED")
    [made] = good["handoffs"]
    assert made["fallbackReason"] is None and made["cachedFrom"] is None
    assert chat.calls == Counter({Mode.ERROR: RETRIES + 1, Mode.GOOD: 1})


async def test_a_slow_summarizer_blocks_no_write_to_any_thread(
    cgql: GraphQLClient, chat: ChatServer
) -> None:
    waiting = await codex_history(cgql, "waits")
    chat.mode = Mode.HELD
    started = asyncio.create_task(start(cgql, waiting, "claude", "CONFIGURED"))
    await asyncio.wait_for(chat.received.wait(), 60)

    # While the summarizer holds the answer: another thread starts, switches, completes...
    other = await codex_history(cgql, "other")
    switched = await run_once(cgql, other, "claude")
    assert switched["strategy"] == "FULL_HANDOFF_NEW_THREAD"
    # ...and the waiting thread itself takes a write: no lock is held across the call.
    await cgql("mutation($id: ID!) { requestCleanContext(threadId: $id) { id } }", id=waiting)
    active = await cgql(
        "query($id: ID!) { thread(id: $id) { activeRun { status contextHandoffs { status } } } }",
        id=waiting,
    )
    assert active["thread"]["activeRun"] == {
        "status": "STARTING",
        "contextHandoffs": [{"status": "PENDING"}],
    }
    assert not started.done()

    chat.release.set()
    [made] = (await started)["handoffs"]
    assert (made["status"], made["model"], made["fallbackReason"]) == (
        "READY",
        ANSWERING_MODEL,
        None,
    )


async def test_a_summary_settled_while_the_call_was_out_stays_settled(
    cgql: GraphQLClient, chat: ChatServer
) -> None:
    thread = await codex_history(cgql)
    chat.mode = Mode.HELD
    started = asyncio.create_task(start(cgql, thread, "claude", "CONFIGURED"))
    await asyncio.wait_for(chat.received.wait(), 60)
    active = await cgql("query($id: ID!) { thread(id: $id) { activeRun { id } } }", id=thread)
    run_id = active["thread"]["activeRun"]["id"]
    settled = (await cgql(FAIL_START, runId=run_id, reason="gave up waiting"))["reportStartFailure"]
    [fallback] = settled["handoffs"]
    chat.release.set()
    answer = await started
    # The late answer does not overwrite what was settled: the start answers with it.
    assert [h["id"] for h in answer["handoffs"]] == [fallback["id"]]
    assert "gave up waiting" in answer["handoffs"][0]["fallbackReason"]
    assert answer["contextText"] == fallback["summaryText"]
    assert await events(cgql, thread, "handoff.summarized") == []


CUT_REQUEST = StartRequest(provider="claude", input="Now add the tests")


async def cut_start(
    store: Store, chat: ChatServer, thread: str, command_id: str | None, args: dict[str, Any]
) -> StartOutcome:
    """A CONFIGURED start's first transaction, as the service makes it, then nothing: a
    crash before the summarizer is asked."""
    caller = Caller(
        "default", registry_from_toml(None), StalenessPolicy(), configured(chat).summary_policy()
    )
    return await receipts.run_once(
        store,
        "default",
        command_id,
        "startRun",
        args,
        StartOutcome,
        lambda tx: runs.start(tx, caller, thread, CUT_REQUEST, SummarySource.CONFIGURED),
    )


async def test_a_start_cut_between_its_transactions_is_finished_by_a_replay(
    cgql: GraphQLClient, chat: ChatServer, clean_store: Store
) -> None:
    thread = await codex_history(cgql)
    args = {"threadId": thread, **CUT_REQUEST.model_dump(), "summarySource": "CONFIGURED"}
    cut = await cut_start(clean_store, chat, thread, "cut-1", args)
    [left] = cut.handoffs
    assert left.status == "PENDING" and chat.total == 0
    assert (await handoff(cgql, left.id))["status"] == "PENDING"

    replayed = await start(cgql, thread, "claude", "CONFIGURED", "cut-1")
    [made] = replayed["handoffs"]
    assert (made["id"], made["status"], made["model"]) == (left.id, "READY", ANSWERING_MODEL)
    assert chat.total == 1
    # The receipt now holds that answer: one more replay asks nobody.
    assert await start(cgql, thread, "claude", "CONFIGURED", "cut-1") == replayed
    assert chat.total == 1


async def test_a_start_cut_between_its_transactions_is_settled_by_a_start_failure(
    cgql: GraphQLClient, chat: ChatServer, clean_store: Store
) -> None:
    thread = await codex_history(cgql)
    cut = await cut_start(clean_store, chat, thread, None, {})
    busy = await cgql.error(
        'mutation($t: ID!) { startRun(threadId: $t, provider: "codex", input: "x") { strategy } }',
        t=thread,
    )
    # The thread is busy, and the error says with what and how to settle it.
    assert busy["extensions"]["code"] == "CONFLICT"
    assert cut.handoffs[0].id in busy["message"] and "reportStartFailure" in busy["message"]
    # Without a commandId to replay, the caller settles it: ask the summarizer again...
    again = (
        await cgql(FAIL_START, runId=cut.run.id, reason="no answer came", source="CONFIGURED")
    )["reportStartFailure"]
    [made] = again["handoffs"]
    assert (made["status"], made["summarySource"], made["model"]) == (
        "READY",
        "CONFIGURED",
        ANSWERING_MODEL,
    )
    failed = await handoff(cgql, cut.handoffs[0].id)
    assert (failed["status"], failed["supersededBy"]) == ("FAILED", {"id": made["id"]})


async def test_configured_without_an_endpoint_is_refused_and_writes_nothing(
    gql: GraphQLClient,
) -> None:
    thread = await codex_history(gql)
    before = await gql("query($id: ID!) { events(threadId: $id) { id } }", id=thread)
    error = await gql.refused(
        "INVALID_INPUT",
        """mutation($t: ID!) { startRun(threadId: $t, provider: "claude", input: "x",
           summarySource: CONFIGURED) { strategy } }""",
        t=thread,
    )
    assert "THREADLINE_SUMMARIZER_URL" in error["message"]
    assert await gql("query($id: ID!) { events(threadId: $id) { id } }", id=thread) == before


# ---- the analysis query --------------------------------------------------------------


@pytest.fixture
def graph(neo4j_uri: str) -> Iterator[readonly.ReadOnlyGraph]:
    with read_only_graph(neo4j_uri) as connected:
        yield connected


async def test_summary_sources_compares_the_sources(
    cgql: GraphQLClient, chat: ChatServer, graph: readonly.ReadOnlyGraph
) -> None:
    made: list[str] = []

    async def switch(source: str | None, runs_first: int = 0) -> dict[str, Any]:
        thread = await codex_history(cgql, f"t{len(made)}")
        for n in range(runs_first):  # other material: no cache hit
            await run_once(cgql, thread, "codex", f"extra {len(made)}-{n}")
        started = await start(cgql, thread, "claude", source)
        made.extend(h["id"] for h in started["handoffs"])
        return started

    await switch(None)
    await switch("LOCAL", 1)
    leaving = await switch("LEAVING_PROVIDER", 2)
    await cgql(SUBMIT, id=leaving["handoffs"][0]["id"], text="codex's summary", by="codex")
    entering = await switch("ENTERING_PROVIDER", 3)
    await cgql(SUBMIT, id=entering["handoffs"][0]["id"], text="claude's summary", by="claude")
    failing = await switch("LEAVING_PROVIDER", 4)
    replaced = await cgql(FAIL_START, runId=failing["run"]["id"], reason="codex refused")
    made.extend(h["id"] for h in replaced["reportStartFailure"]["handoffs"])
    await switch("LEAVING_PROVIDER", 5)  # left pending
    await switch("CONFIGURED", 6)
    chat.mode = Mode.ERROR
    await switch("CONFIGURED", 7)

    seen = [await handoff(cgql, ident) for ident in made]
    expected: dict[str, dict[str, Any]] = {}
    for source in {h["summarySource"] for h in seen}:
        mine = [h for h in seen if h["summarySource"] == source]
        ready = [h for h in mine if h["status"] == "READY"]
        fallbacks = [h for h in ready if h["fallbackReason"] is not None]
        expected[source] = {
            "handoffs": len(ready),
            "fallbacks": len(fallbacks),
            "fallbackRate": round(len(fallbacks) / len(ready), 3) if ready else None,
            "failed": len([h for h in mine if h["status"] == "FAILED"]),
            "pending": len([h for h in mine if h["status"] == "PENDING"]),
            "meanTokens": round(sum(h["tokenEstimate"] for h in ready) / len(ready), 1)
            if ready
            else None,
            "models": sorted({h["model"] for h in ready if h["model"]}),
        }
    query = analysis.get("summary_sources")
    rows = graph.run(query.text, query.parameters({}, "default")).records()
    got = {
        row["source"]: {key: row[key] for key in expected["LOCAL"] if key != "models"}
        | {"models": sorted(row["models"])}
        for row in rows
    }
    assert got == expected
    assert set(got) == {"LOCAL", "LEAVING_PROVIDER", "ENTERING_PROVIDER", "CONFIGURED"}
    # Quality by source: the analysis query agrees with what each handoff answers.
    scores: dict[str, list[float]] = {}
    for h in seen:
        if h["status"] == "READY":
            name = h["summarySource"] + (" (local fallback)" if h["fallbackReason"] else "")
            scores.setdefault(name, []).append(h["quality"]["score"])
    query = analysis.get("handoff_quality")
    rows = graph.run(query.text, query.parameters({}, "default")).records()
    assert {
        row["source"]: (row["handoffs"], row["graded"], row["meanScore"], row["minScore"])
        for row in rows
    } == {
        name: (len(found), len(found), round(sum(found) / len(found), 3), round(min(found), 3))
        for name, found in scores.items()
    }
    assert scores["LEAVING_PROVIDER"] != [1.0]  # "codex's summary" carries none of the runs
    assert got["CONFIGURED"]["fallbackRate"] == 0.5
    assert got["LEAVING_PROVIDER"]["failed"] == got["LEAVING_PROVIDER"]["pending"] == 1
