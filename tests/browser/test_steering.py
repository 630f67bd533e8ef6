"""Steering the context on the lineage page, in headless Chromium: a switch prepared, its
text edited and saved, then injected by a client's start; "Fork here" on a run's item; the
side-thread toggle."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from graph.store import Store
from tests.browser.conftest import Tab
from tests.browser.test_lineage_page import click_element, open_lineage
from tests.support.graphql import GraphQLClient, wipe
from tests.support.steps import new_thread, run_once

ITEMS = [
    {"kind": "ASSISTANT_MESSAGE", "text": "first reply KEEP-A", "key": "msg-a"},
    {"kind": "DECISION", "text": "decided KEEP-B"},
    {"kind": "ASSISTANT_MESSAGE", "text": "later reply DROP-C", "key": "msg-c"},
]

FORKED = """query($id: ID!) { thread(id: $id) { relationshipToParent parent { id }
  incomingTransfers { sourcePoint { run { id } itemIndex } } } }"""


@pytest.fixture
async def gql(browsed_api: str, store: Store) -> AsyncIterator[GraphQLClient]:
    # An empty workspace: a usage limit a module before left in force (claude's, in
    # test_lineage_page.py) would refuse these tests' starts.
    await wipe(store)
    async with httpx.AsyncClient(base_url=browsed_api, timeout=120) as http:
        yield GraphQLClient(http)


async def two_codex_runs(gql: GraphQLClient, title: str) -> tuple[str, list[dict[str, Any]]]:
    thread = await new_thread(gql, title)
    runs = [
        await run_once(gql, thread, "codex", "write the parser FIRST-REQUEST"),
        await run_once(gql, thread, "codex", "add error recovery SECOND-REQUEST", items=ITEMS),
    ]
    return thread, runs


async def centred_on_another(tab: Tab, thread: str) -> str:
    """The thread the page moved to from `thread`, once drawn."""
    await tab.page.wait_for_function(
        "(from) => new URLSearchParams(location.search).get('thread') !== from"
        " && document.body.dataset.state === 'ready'",
        arg=thread,
    )
    found: str = await tab.page.evaluate("new URLSearchParams(location.search).get('thread')")
    return found


async def read_switch_plan(
    tab: Tab, browsed_api: str, gql: GraphQLClient, title: str, provider: str
) -> str:
    """A thread of two codex runs on the page, its "Prepare a switch" to `provider` asked
    to read the plan; the thread's id."""
    thread, _ = await two_codex_runs(gql, title)
    await open_lineage(tab, browsed_api, f"thread={thread}")
    await click_element(tab.page, f"title:{thread}")
    await tab.page.wait_for_selector("#details[data-kind='title'] #switch")
    await tab.page.select_option("#switch-provider", provider)
    await tab.page.click("#switch-read")
    return thread


async def test_a_prepared_switch_edited_and_saved_is_what_the_next_start_injects(
    tab: Tab, browsed_api: str, gql: GraphQLClient
) -> None:
    thread = await read_switch_plan(tab, browsed_api, gql, "switch", "claude")
    page = tab.page
    text = page.locator("#switch-text")
    await text.wait_for(state="visible")
    drafted = await text.input_value()
    assert "SECOND-REQUEST" in drafted
    plan = await page.locator("#switch-plan").inner_text()
    assert "FULL_HANDOFF_NEW_THREAD" in plan and "1, 2" in plan

    edited = drafted + "\nFrom me: keep the error messages short. EDITED-BY-HAND"
    await text.fill(edited)
    await page.click("#switch-save")
    await page.locator("#switch-status", has_text="Saved").wait_for()
    assert "written by a person" in await page.locator("#switch-plan").inner_text()
    await tab.screenshot("steering-prepared-switch")

    started = await gql(
        """mutation($id: ID!) { startRun(threadId: $id, provider: "claude", input: "go on") {
          contextText handoffs { summarySource } } }""",
        id=thread,
    )
    assert started["startRun"]["contextText"] == edited
    assert [h["summarySource"] for h in started["startRun"]["handoffs"]] == ["PERSON"]
    assert not tab.errors


async def test_a_switch_that_injects_nothing_has_nothing_to_prepare(
    tab: Tab, browsed_api: str, gql: GraphQLClient
) -> None:
    """The next codex start continues codex's own thread: no handoff, so the page says so
    instead of asking prepareHandoff and showing its refusal as an error."""
    await read_switch_plan(tab, browsed_api, gql, "nothing to prepare", "codex")
    page = tab.page
    status = page.locator("#switch-status", has_text="Nothing to prepare")
    await status.wait_for()
    assert await status.get_attribute("class") != "error"
    assert await page.locator("#switch-text").is_hidden()
    assert not tab.errors


async def test_fork_here_on_an_item_of_a_run(
    tab: Tab, browsed_api: str, gql: GraphQLClient
) -> None:
    thread, runs = await two_codex_runs(gql, "fork here")
    run_id = runs[1]["run"]["id"]
    await open_lineage(tab, browsed_api, f"thread={thread}")
    page = tab.page
    await click_element(page, f"run:{run_id}")
    await page.wait_for_selector("#details[data-kind='run']")
    assert await page.locator("#details button.fork-here").count() == len(ITEMS) + 1  # + input
    await page.click("#details ol.items > li:nth-child(2) button.fork-here")
    fork = await centred_on_another(tab, thread)
    found = (await gql(FORKED, id=fork))["thread"]
    assert (found["relationshipToParent"], found["parent"]["id"]) == ("FORK", thread)
    [point] = [x["sourcePoint"] for x in found["incomingTransfers"]]
    assert (point["run"]["id"], point["itemIndex"]) == (run_id, 1)
    graph = await page.evaluate("window.threadline.graph()")
    [edge] = [e for e in graph["edges"] if e["to"] == fork]
    assert (edge["sourceRunOrdinal"], edge["sourceItemIndex"]) == (2, 1)
    assert "@2 item 1" in edge["label"]

    # The same, as a side question: a side thread, and the page shows side threads.
    await open_lineage(tab, browsed_api, f"thread={thread}")
    await click_element(page, f"run:{run_id}")
    await page.wait_for_selector("#details[data-kind='run']")
    await page.check("#fork-side")
    await page.click("#details ol.items > li:nth-child(1) button.fork-here")
    side = await centred_on_another(tab, thread)
    found = (await gql(FORKED, id=side))["thread"]
    assert found["relationshipToParent"] == "SIDE"
    assert await page.is_checked("#side-input")
    assert not tab.errors


async def test_the_side_toggle_shows_and_hides_side_threads(
    tab: Tab, browsed_api: str, gql: GraphQLClient
) -> None:
    thread, runs = await two_codex_runs(gql, "toggle")
    fork = """mutation($id: ID!, $run: ID!, $side: Boolean!) {
      forkThread(sourceThreadId: $id, at: {runId: $run}, side: $side) { id } }"""
    at = runs[0]["run"]["id"]
    plain = (await gql(fork, id=thread, run=at, side=False))["forkThread"]["id"]
    side = (await gql(fork, id=thread, run=at, side=True))["forkThread"]["id"]
    page = tab.page
    await open_lineage(tab, browsed_api, f"thread={thread}")
    graph = await page.evaluate("window.threadline.graph()")
    assert set(graph["threads"]) == {thread, plain}
    assert not await page.is_checked("#side-input")

    await page.check("#side-input")
    await page.wait_for_function(
        "(id) => document.body.dataset.state === 'ready'"
        " && window.threadline.graph().threads.includes(id)",
        arg=side,
    )
    graph = await page.evaluate("window.threadline.graph()")
    assert set(graph["threads"]) == {thread, plain, side}
    assert {e["to"]: e["relationship"] for e in graph["edges"]} == {plain: "FORK", side: "SIDE"}
    assert "side=1" in page.url

    await page.uncheck("#side-input")
    await page.wait_for_function(
        "(id) => document.body.dataset.state === 'ready'"
        " && !window.threadline.graph().threads.includes(id)",
        arg=side,
    )
    assert not tab.errors


async def test_the_steering_controls_speak_chinese(
    tab: Tab, browsed_api: str, gql: GraphQLClient
) -> None:
    thread, runs = await two_codex_runs(gql, "zh")
    await open_lineage(tab, browsed_api, f"thread={thread}&lang=zh")
    page = tab.page
    assert "旁支线程" in await page.locator("#controls").inner_text()
    await click_element(page, f"title:{thread}")
    await page.wait_for_selector("#details #switch")
    assert "准备切换" in await page.locator("#switch").inner_text()
    assert await page.locator("#switch-read").inner_text() == "查看计划"
    # The handoff's text box and ids take the page's own Chinese font too.
    fonts = await page.evaluate(
        "['#switch-text', 'code']"
        ".map((s) => getComputedStyle(document.querySelector(s)).fontFamily)"
    )
    assert all("Threadline Noto Sans SC" in font for font in fonts), fonts
    await click_element(page, f"run:{runs[1]['run']['id']}")
    await page.wait_for_selector("#details[data-kind='run']")
    assert "从此处分叉" in await page.locator("#details").inner_text()
    assert not tab.errors
