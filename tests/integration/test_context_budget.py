"""A start's context budget: from the target's window (reported, the model's, the
provider's), what the native thread holds and a reserve; a native thread too full for what
it missed is left for a new one."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from api.settings import Settings
from graph.store import Store
from tests.support.graphql import GraphQLClient, make_app_client
from tests.support.steps import ATTACH, FORK, new_thread, run_once

BUDGET = "budget { windowTokens windowSource usedTokens reserveTokens capTokens budgetTokens }"
START = f"""mutation($t: ID!, $p: String!, $m: String) {{
  startRun(threadId: $t, provider: $p, input: "go on", model: $m) {{
    run {{ id }} strategy providerAction stalenessSignals explanation
    providerThread {{ id nativeRef }} {BUDGET} handoffs {{ tokenEstimate {BUDGET} }} }} }}"""
EXPLAIN = f"""query($t: ID!, $p: String!) {{
  explainStartContext(threadId: $t, provider: $p) {{ strategy {BUDGET} }} }}"""
COMPLETE = """mutation($r: ID!, $u: ContextUsageInput) {
  completeRun(runId: $r, nativeTurnRef: "t", usage: $u) { id } }"""


def budget(window: int, source: str, used: int, reserve: int, cap: int = 32_000) -> Any:
    return {
        "windowTokens": window,
        "windowSource": source,
        "usedTokens": used,
        "reserveTokens": reserve,
        "capTokens": cap,
        "budgetTokens": max(0, min(cap, window - used - reserve)),
    }


async def started(gql: GraphQLClient, thread: str, provider: str, model: str | None = None) -> Any:
    """A start, attached when its provider thread is new (not completed)."""
    found = (await gql(START, t=thread, p=provider, m=model))["startRun"]
    if found["providerThread"]["nativeRef"] is None:
        await gql(ATTACH, id=found["providerThread"]["id"], ref=f"n-{thread}-{provider}")
    return found


async def test_a_new_native_thread_gets_the_providers_window_less_the_reserve(
    gql: GraphQLClient,
) -> None:
    thread = await new_thread(gql)
    await run_once(gql, thread, "codex", "step one")
    await run_once(gql, thread, "codex", "step two")
    explained = (await gql(EXPLAIN, t=thread, p="claude"))["explainStartContext"]
    switch = await started(gql, thread, "claude")
    expected = budget(200_000, "PROVIDER", 0, 50_000)
    assert switch["strategy"] == "FULL_HANDOFF_NEW_THREAD"
    assert switch["budget"] == expected == explained["budget"]
    assert [h["budget"] for h in switch["handoffs"]] == [expected]
    assert sum(h["tokenEstimate"] for h in switch["handoffs"]) <= expected["budgetTokens"]
    assert any("window 200000 (the provider's default)" in line for line in switch["explanation"])


@pytest.fixture
async def with_models(clean_store: Store, tmp_path: Path) -> AsyncIterator[GraphQLClient]:
    providers = tmp_path / "providers.toml"
    providers.write_text('[providers.claude.models]\n"claude-huge" = 1000000\n')
    settings = Settings(providers_file=providers)
    async with make_app_client(clean_store, settings) as http:
        yield GraphQLClient(http)


async def test_a_model_the_providers_file_names_brings_its_own_window(
    with_models: GraphQLClient,
) -> None:
    gql = with_models
    thread = await new_thread(gql)
    await run_once(gql, thread, "codex", "step one")
    switch = await started(gql, thread, "claude", "claude-huge")
    assert switch["budget"] == budget(1_000_000, "MODEL", 0, 250_000)


async def test_a_reported_window_and_usage_size_the_resume(gql: GraphQLClient) -> None:
    thread = await new_thread(gql)
    first = await started(gql, thread, "claude")
    usage = {"contextTokens": 100_000, "contextWindowTokens": 150_000}
    await gql(COMPLETE, r=first["run"]["id"], u=usage)
    await run_once(gql, thread, "codex", "elsewhere")
    back = await started(gql, thread, "claude")
    assert (back["strategy"], back["providerAction"]) == ("DELTA_HANDOFF_EXISTING_THREAD", "RESUME")
    assert back["budget"] == budget(150_000, "REPORTED", 100_000, 37_500)
    assert back["handoffs"][0]["tokenEstimate"] <= 12_500


async def test_a_native_thread_too_full_for_what_it_missed_is_left_for_a_new_one(
    gql: GraphQLClient,
) -> None:
    thread = await new_thread(gql)
    first = await started(gql, thread, "claude")
    full = {"contextTokens": 190_000, "contextWindowTokens": 200_000}
    await gql(COMPLETE, r=first["run"]["id"], u=full)
    await run_once(gql, thread, "codex", "elsewhere")
    explained = (await gql(EXPLAIN, t=thread, p="claude"))["explainStartContext"]
    back = await started(gql, thread, "claude")
    assert back["stalenessSignals"] == ["EXCEEDS_CONTEXT_POLICY"]
    assert (back["strategy"], back["providerAction"]) == ("FULL_HANDOFF_NEW_THREAD", "CREATE")
    assert back["providerThread"]["id"] != first["providerThread"]["id"]
    assert back["budget"] == budget(200_000, "PROVIDER", 0, 50_000) == explained["budget"]


async def test_a_native_thread_that_never_reported_holds_what_threadline_sent_it(
    gql: GraphQLClient,
) -> None:
    """Used = the handoffs injected into it and its own runs' inputs and items."""
    thread = await new_thread(gql)
    await run_once(gql, thread, "codex", "a" * 4_000)  # 1,000 tokens
    first = await run_once(gql, thread, "claude", "b" * 2_000, items=[DECISION])
    await run_once(gql, thread, "codex", "c" * 800)
    received = (await gql(HANDOFFS, t=thread))["thread"]["providerThreads"]
    claude = next(pt for pt in received if pt["id"] == first["providerThread"]["id"])
    injected = sum(h["tokenEstimate"] for h in claude["handoffs"])
    held = injected + 500 + 10  # its run's input and its decision
    assert claude["heldTokens"] == held
    back = await started(gql, thread, "claude")
    assert back["providerThread"]["id"] == claude["id"]
    assert back["budget"] == budget(200_000, "PROVIDER", held, 50_000)


DECISION = {"kind": "DECISION", "text": "d" * 40}
HANDOFFS = """query($t: ID!) { thread(id: $t) { providerThreads {
  id heldTokens handoffs { tokenEstimate } } } }"""


@pytest.fixture
async def with_tiny(clean_store: Store, tmp_path: Path) -> AsyncIterator[GraphQLClient]:
    providers = tmp_path / "providers.toml"
    providers.write_text('[providers.claude.models]\n"claude-tiny" = 16400\n')
    async with make_app_client(clean_store, Settings(providers_file=providers)) as http:
        yield GraphQLClient(http)


REGENERATE = """mutation($h: ID!) { regenerateHandoff(handoffId: $h) {
  id tokenEstimate omitted { index } budget { budgetTokens } } }"""
SUBMIT_TEXT = """mutation($h: ID!, $text: String!) {
  submitHandoffSummary(handoffId: $h, summaryText: $text, createdByProvider: "codex") {
    id tokenEstimate } }"""


async def test_a_handoff_made_again_keeps_to_its_starts_budget(with_tiny: GraphQLClient) -> None:
    """Window 16,400 less the 16,000 reserve: 400 tokens. The handoff the start made, the
    one regenerated from it and a text submitted for it all keep to them."""
    gql = with_tiny
    thread = await new_thread(gql)
    decisions = [{"kind": "DECISION", "text": f"decision {n}: " + "x" * 200} for n in range(30)]
    await run_once(gql, thread, "codex", "step one", items=decisions)
    switch = await started(gql, thread, "claude", "claude-tiny")
    assert switch["budget"] == budget(16_400, "MODEL", 0, 16_000)
    [made] = switch["handoffs"]
    assert made["tokenEstimate"] <= 400
    handoff_id = (await gql(HANDOFF_ID, t=thread))["thread"]["providerThreads"]
    [first] = [h["id"] for pt in handoff_id for h in pt["handoffs"]]

    again = (await gql(REGENERATE, h=first))["regenerateHandoff"]
    assert again["id"] != first and again["budget"] == {"budgetTokens": 400}
    assert again["tokenEstimate"] <= 400 and again["omitted"]

    too_long = "- a decision kept in full\n" * 100  # about 650 tokens
    refused = await gql.refused("INVALID_INPUT", SUBMIT_TEXT, h=again["id"], text=too_long)
    assert "at most 400" in refused["message"]
    fits = "- the decisions, in short\n" * 40  # about 260 tokens
    submitted = (await gql(SUBMIT_TEXT, h=again["id"], text=fits))["submitHandoffSummary"]
    assert submitted["tokenEstimate"] <= 400


HANDOFF_ID = """query($t: ID!) { thread(id: $t) { providerThreads { handoffs { id } } } }"""


MERGE_PREVIEW = """query($id: ID!) { explainMergeBack(threadId: $id) { possible tokenEstimate } }"""


async def test_a_merge_back_preview_is_the_handoff_the_parents_next_run_gets(
    with_tiny: GraphQLClient,
) -> None:
    """The parent runs on a 16,400-token model: the preview keeps to the budget of its
    native thread, as the merge-back the next run there receives does."""
    gql = with_tiny
    parent = await new_thread(gql)
    first = await started(gql, parent, "claude", "claude-tiny")
    await gql(COMPLETE, r=first["run"]["id"], u=None)
    forked = await gql(FORK, id=parent, at={"runId": first["run"]["id"]})
    fork = forked["forkThread"]["id"]
    decisions = [{"kind": "DECISION", "text": f"decision {n}: " + "x" * 200} for n in range(30)]
    await run_once(gql, fork, "codex", "try it", items=decisions)

    preview = (await gql(MERGE_PREVIEW, id=fork))["explainMergeBack"]
    await gql("mutation($id: ID!) { mergeBack(forkThreadId: $id) { id } }", id=fork)
    taken = await started(gql, parent, "claude")
    assert taken["providerThread"]["id"] == first["providerThread"]["id"]  # the same native thread
    [merged] = taken["handoffs"]
    assert preview["possible"] and preview["tokenEstimate"] == merged["tokenEstimate"]
    assert merged["tokenEstimate"] <= taken["budget"]["budgetTokens"] <= 400
