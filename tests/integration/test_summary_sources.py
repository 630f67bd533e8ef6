"""Summary sources through GraphQL on Neo4j: the local summarizer, the provider being left
and the one entered (PENDING → READY | FAILED), and how the source is chosen."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from api.settings import Settings
from graph import migrations
from graph.models import SummarySource
from graph.store import Store
from graph.tx import Tx
from tests.support.graphql import GraphQLClient, make_app_client
from tests.support.steps import ATTACH, COMPLETE, coverage_by_pt, new_thread, run_once
from tests.support.summaries import (
    FAIL_START,
    INPUTS,
    SUBMIT,
    codex_history,
    events,
    handoff,
    run_status,
    start,
    waiting_start,
)

TIGHT_BUDGET = 400  # tokens: gemini in these tests' providers file
PROVIDERS = f"""
[providers.gemini]
injection_mode = "PREAMBLE"
max_handoff_tokens = {TIGHT_BUDGET}

[providers.claude]
summary_source = "ENTERING_PROVIDER"
"""


@pytest.fixture
async def gql_with(clean_store: Store, tmp_path: Path) -> AsyncIterator[GraphQLClient]:
    """The app with a providers file: gemini's budget is tight, claude's summaries are
    written by claude itself."""
    providers = tmp_path / "providers.toml"
    providers.write_text(PROVIDERS)
    async with make_app_client(clean_store, Settings(providers_file=providers)) as http:
        yield GraphQLClient(http)


async def test_local_is_the_default_and_records_its_provenance(gql: GraphQLClient) -> None:
    thread = await codex_history(gql)
    started = await start(gql, thread, "claude")
    [made] = started["handoffs"]
    assert (made["status"], made["summarySource"]) == ("READY", "LOCAL")
    assert (made["createdByProvider"], made["model"], made["fallbackReason"]) == (None, None, None)
    assert made["generationMs"] is not None and made["generationMs"] >= 0
    assert started["summarizationRequests"] == []
    assert started["contextText"] == made["summaryText"]
    assert await handoff(gql, made["id"]) == made  # the handoff query shows it all


async def test_the_leaving_provider_writes_the_summary_the_run_waits_for(
    gql: GraphQLClient,
) -> None:
    thread, started, waiting = await waiting_start(gql, "claude", "LEAVING_PROVIDER")
    assert (waiting["status"], waiting["summarySource"]) == ("PENDING", "LEAVING_PROVIDER")
    assert (waiting["summaryText"], waiting["generationMs"]) == ("", None)
    assert started["run"]["status"] == "STARTING" and started["contextText"] is None

    [asked] = started["summarizationRequests"]
    assert (asked["handoffId"], asked["source"]) == (waiting["id"], "LEAVING_PROVIDER")
    assert asked["provider"] == "codex"  # runs 1-2 ran on codex: the provider being left
    budget = await max_tokens(gql, "claude")
    assert asked["maxTokens"] == budget
    assert asked["title"] in asked["instructions"] and str(budget) in asked["instructions"]
    runs = asked["material"]["runs"]
    assert [run["input"] for run in runs] == list(INPUTS)
    items = [item for run in runs for item in run.get("items", [])]
    assert "REASONING" not in {item["kind"] for item in items}
    assert [i["text"] for i in items if i["kind"] == "FILE_CHANGE"] == [""]  # no diff body
    assert [i["text"] for i in items if i["kind"] == "TOOL_OUTPUT"] == ["build passed"]
    assert any("REASONING" in rule for rule in asked["exclude"])
    assert any("submitHandoffSummary" in line for line in started["explanation"])

    run_id = started["run"]["id"]
    refused = await gql.error(COMPLETE, runId=run_id)
    assert refused["extensions"]["code"] == "CONFLICT" and waiting["id"] in refused["message"]
    await gql(ATTACH, id=started["providerThread"]["id"], ref="claude-1", mode="UNKNOWN")
    assert await run_status(gql, run_id) == "STARTING"  # attached, still waiting

    # Longer than a name may be (500 characters): a summary is text, up to MAX_TEXT_CHARS.
    text = "# Runs 1-2 by codex\n" + "- A PEG parser; the build passes.\n" * 30
    filled = (await gql(SUBMIT, id=waiting["id"], text=text, by="codex"))["submitHandoffSummary"]
    assert (filled["id"], filled["status"], filled["summaryText"]) == (waiting["id"], "READY", text)
    assert (filled["createdByProvider"], filled["summarySource"]) == ("codex", "LEAVING_PROVIDER")
    assert filled["generationMs"] is not None and filled["generationMs"] >= 0
    assert await run_status(gql, run_id) == "RUNNING"
    await gql(COMPLETE, runId=run_id, turn="t3")
    pts = await coverage_by_pt(gql, thread)
    coverage = pts[started["providerThread"]["id"]]["coverage"]
    assert (coverage["handoffIds"], coverage["coveredRunOrdinals"]) == ([waiting["id"]], [1, 2, 3])


async def test_a_summary_empty_or_over_the_budget_is_refused_and_nothing_changes(
    gql_with: GraphQLClient,
) -> None:
    gql = gql_with
    _, started, waiting = await waiting_start(gql, "gemini", "LEAVING_PROVIDER")
    for text in ("", "  \n ", " word" * (TIGHT_BUDGET + 1)):  # one token a word
        error = await gql.error(SUBMIT, id=waiting["id"], text=text, by="codex")
        assert error["extensions"]["code"] == "INVALID_INPUT", text
    assert await handoff(gql, waiting["id"]) == waiting
    assert await run_status(gql, started["run"]["id"]) == "STARTING"


async def test_the_entering_provider_summarises_for_a_resumed_thread(gql: GraphQLClient) -> None:
    thread = await new_thread(gql)
    await run_once(gql, thread, "codex", "first")
    await run_once(gql, thread, "claude", "second")
    started = await start(gql, thread, "codex", "ENTERING_PROVIDER")
    assert (started["strategy"], started["providerAction"]) == (
        "DELTA_HANDOFF_EXISTING_THREAD",
        "RESUME",
    )
    # The provider thread has its native ref, yet the run waits for its summary.
    assert started["providerThread"]["nativeRef"] is not None
    assert started["run"]["status"] == "STARTING"
    [asked] = started["summarizationRequests"]
    assert (asked["source"], asked["provider"]) == ("ENTERING_PROVIDER", "codex")
    [waiting] = started["handoffs"]
    await gql(SUBMIT, id=waiting["id"], text="Run 2 on claude: it did the second step.", by="codex")
    assert await run_status(gql, started["run"]["id"]) == "RUNNING"


async def test_the_call_wins_over_the_provider_which_wins_over_the_default(
    clean_store: Store, tmp_path: Path
) -> None:
    providers = tmp_path / "providers.toml"
    providers.write_text(PROVIDERS)
    settings = Settings(
        providers_file=providers, default_summary_source=SummarySource.LEAVING_PROVIDER
    )
    async with make_app_client(clean_store, settings) as http:
        gql = GraphQLClient(http)
        listed = (await gql("{ providers { kind summarySource } }"))["providers"]
        assert {p["kind"]: p["summarySource"] for p in listed}["claude"] == "ENTERING_PROVIDER"
        sources = {}
        for provider, asked in (("claude", None), ("gemini", None), ("claude", "LOCAL")):
            thread = await codex_history(gql)
            started = await start(gql, thread, provider, asked)
            sources[(provider, asked)] = started["handoffs"][0]["summarySource"]
        assert sources == {
            ("claude", None): "ENTERING_PROVIDER",  # the provider's own setting
            ("gemini", None): "LEAVING_PROVIDER",  # the service's default
            ("claude", "LOCAL"): "LOCAL",  # the call's
        }


async def test_a_failed_provider_summary_falls_back_to_a_new_local_handoff(
    gql: GraphQLClient,
) -> None:
    twin = await codex_history(gql, "twin")
    local = (await start(gql, twin, "claude", "LOCAL"))["handoffs"][0]
    thread, started, waiting = await waiting_start(gql, "claude", "LEAVING_PROVIDER")
    reason = "codex could not summarise: context window exceeded"

    again = (await gql(FAIL_START, runId=started["run"]["id"], reason=reason))["reportStartFailure"]
    assert again["run"] == started["run"]  # the same run, still STARTING
    assert (again["strategy"], again["providerAction"]) == (
        started["strategy"],
        started["providerAction"],
    )
    # Only the summary failed: the provider thread is the one the start made, not FAILED.
    assert again["providerThread"] == started["providerThread"]
    [fallback] = again["handoffs"]
    assert fallback["id"] != waiting["id"]
    assert (fallback["status"], fallback["summarySource"]) == ("READY", "LEAVING_PROVIDER")
    assert reason in fallback["fallbackReason"] and fallback["createdByProvider"] is None
    assert fallback["summaryText"] == local["summaryText"]  # the local summary, byte for byte
    assert again["contextText"] == fallback["summaryText"]
    assert again["summarizationRequests"] == []

    failed = await handoff(gql, waiting["id"])
    assert (failed["status"], failed["failureReason"]) == ("FAILED", reason)
    assert failed["supersededBy"] == {"id": fallback["id"]} and failed["summaryText"] == ""
    [event] = await events(gql, thread, "handoff.failed")
    assert event["payload"] == {
        "handoffId": waiting["id"],
        "reason": reason,
        "replacedBy": fallback["id"],
    }
    assert await events(gql, thread, "run.startFailed") == []
    refused = await gql.error(
        "mutation($id: ID!) { regenerateHandoff(handoffId: $id) { id } }", id=waiting["id"]
    )
    assert refused["extensions"]["code"] == "CONFLICT"  # a FAILED handoff keeps its record

    await gql(ATTACH, id=started["providerThread"]["id"], ref="claude-9", mode="UNKNOWN")
    assert await run_status(gql, started["run"]["id"]) == "RUNNING"
    await gql(COMPLETE, runId=started["run"]["id"], turn="t3")


async def test_a_failed_summary_can_be_asked_of_the_other_provider(gql: GraphQLClient) -> None:
    thread = await codex_history(gql)
    started = await start(gql, thread, "claude", "LEAVING_PROVIDER")
    again = (
        await gql(
            FAIL_START,
            runId=started["run"]["id"],
            reason="codex is down",
            source="ENTERING_PROVIDER",
        )
    )["reportStartFailure"]
    [waiting] = again["handoffs"]
    assert (waiting["status"], waiting["summarySource"]) == ("PENDING", "ENTERING_PROVIDER")
    assert waiting["fallbackReason"] is None
    [asked] = again["summarizationRequests"]
    assert (asked["handoffId"], asked["provider"]) == (waiting["id"], "claude")
    assert again["contextText"] is None and again["run"]["status"] == "STARTING"
    filled = (await gql(SUBMIT, id=waiting["id"], text="claude's own summary", by="claude"))[
        "submitHandoffSummary"
    ]
    assert (filled["status"], filled["createdByProvider"]) == ("READY", "claude")


async def test_regenerating_a_pending_handoff_fills_it_with_the_local_summary(
    gql: GraphQLClient,
) -> None:
    _, _, waiting = await waiting_start(gql, "claude", "ENTERING_PROVIDER")
    regenerated = await gql(
        "mutation($id: ID!) { regenerateHandoff(handoffId: $id) { id status } }", id=waiting["id"]
    )
    assert regenerated["regenerateHandoff"] == {"id": waiting["id"], "status": "READY"}
    filled = await handoff(gql, waiting["id"])
    assert filled["summarySource"] == "ENTERING_PROVIDER" and filled["summaryText"]
    assert "regenerated by the local summarizer" in filled["fallbackReason"]


async def test_a_pending_handoff_blocks_nothing_on_other_threads(gql: GraphQLClient) -> None:
    waiting_thread, started, waiting = await waiting_start(gql, "claude", "LEAVING_PROVIDER")

    other = await new_thread(gql, "other")
    for provider in ("codex", "claude", "codex"):
        await run_once(gql, other, provider)
    runs = (
        await gql("query($id: ID!) { thread(id: $id) { runs { id ordinal } } }", id=waiting_thread)
    )["thread"]["runs"]
    fork = await gql(
        "mutation($s: ID!, $r: ID!) { forkThread(sourceThreadId: $s, at: {runId: $r}) { id } }",
        s=waiting_thread,
        r=runs[0]["id"],
    )
    forked = await run_once(gql, fork["forkThread"]["id"], "claude")
    assert forked["strategy"] == "PORTABLE_CONTEXT"
    # The waiting thread itself is not locked either.
    await gql("mutation($id: ID!) { requestCleanContext(threadId: $id) { id } }", id=waiting_thread)
    assert (await handoff(gql, waiting["id"]))["status"] == "PENDING"

    failed = await gql(
        'mutation($id: ID!) { failRun(runId: $id, reason: "gave up") { status } }',
        id=started["run"]["id"],
    )
    assert failed["failRun"]["status"] == "FAILED"
    given_up = await handoff(gql, waiting["id"])
    assert given_up["status"] == "FAILED" and "gave up" in given_up["failureReason"]


async def test_a_replayed_start_answers_the_same_request(gql: GraphQLClient) -> None:
    thread = await codex_history(gql)
    first = await start(gql, thread, "claude", "LEAVING_PROVIDER", command_id="leave-1")
    again = await start(gql, thread, "claude", "LEAVING_PROVIDER", command_id="leave-1")
    assert again == first
    other = await gql.error(
        """mutation($t: ID!) { startRun(threadId: $t, provider: "claude",
           input: "Now add the tests", summarySource: LOCAL, commandId: "leave-1") {
           strategy } }""",
        t=thread,
    )
    assert other["extensions"]["code"] == "CONFLICT"  # the source is one of its arguments


async def max_tokens(gql: GraphQLClient, kind: str) -> int:
    listed = (await gql("{ providers { kind maxHandoffTokens } }"))["providers"]
    return int(next(p["maxHandoffTokens"] for p in listed if p["kind"] == kind))


async def test_migrate_restores_the_source_of_handoffs_written_before_sources(
    gql: GraphQLClient, store: Store
) -> None:
    made = [(await start(gql, await codex_history(gql), "claude"))["handoffs"][0]["id"]]
    for by in ("claude", "codex"):  # over a READY handoff: the entering provider, the left one
        ready = (await start(gql, await codex_history(gql), "claude"))["handoffs"][0]["id"]
        submitted = await gql(SUBMIT, id=ready, text=f"by {by}", by=by)
        made.append(submitted["submitHandoffSummary"]["id"])
    before = [await handoff(gql, ident) for ident in made]
    sources = [h["summarySource"] for h in before]
    assert sources == ["LOCAL", "ENTERING_PROVIDER", "LEAVING_PROVIDER"]

    async def forget(tx: Tx) -> None:
        await tx.rows("testing/forget_maintained")

    await store.write(forget)
    await migrations.migrate(store)
    assert [await handoff(gql, ident) for ident in made] == before
