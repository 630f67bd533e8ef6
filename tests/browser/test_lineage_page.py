"""The lineage page in headless Chromium, on the demo family served by `threadline serve`."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from playwright.async_api import Browser, Page

from tests.browser.conftest import DB_TIMEOUT_S, Demo, Secured, Tab, host_of, open_tab
from tests.support.family import WideFamily, seed_wide_family
from tests.support.graphql import GraphQLClient
from tests.support.layout import Box, overlaps, polyline_crosses
from tests.support.served import serve
from tests.support.steps import As, new_thread, run_once, start, tokens_file

READY = "body[data-state='ready']"
READABLE_PX = 11


@pytest.fixture
async def laptop(browser: Browser) -> AsyncIterator[Tab]:
    """A tab at 1400 x 900, the size a new user first saw the page at."""
    opened = await open_tab(browser, width=1400, height=900)
    yield opened
    await opened.page.context.close()


async def open_lineage(tab: Tab, base: str, query: str, state: str = "ready") -> None:
    await tab.page.goto(f"{base}/lineage?{query}")
    await tab.page.wait_for_selector(f"body[data-state='{state}']")


def edge_key(edge: dict[str, Any]) -> tuple[Any, ...]:
    return (edge["from"], edge["to"], edge["relationship"], edge["sourceRunOrdinal"])


async def drawn(page: Page) -> tuple[set[str], set[tuple[Any, ...]]]:
    """The thread nodes and lineage edges Cytoscape holds."""
    graph = await page.evaluate("window.threadline.graph()")
    return set(graph["threads"]), {edge_key(e) for e in graph["edges"]}


def expected(lineage: dict[str, Any]) -> tuple[set[str], set[tuple[Any, ...]]]:
    """The same, from the `lineage` query's answer."""
    return {n["thread"]["id"] for n in lineage["nodes"]}, {edge_key(e) for e in lineage["edges"]}


async def click_element(page: Page, element_id: str) -> None:
    """A real mouse click on a drawn node, wherever the layout put it."""
    point = await page.evaluate(
        """(id) => {
          const cy = window.threadline.cy;
          const node = cy.getElementById(id);
          cy.zoom({ level: 1.5, renderedPosition: node.renderedPosition() });
          const at = node.renderedPosition();
          const box = cy.container().getBoundingClientRect();
          return { x: box.left + at.x, y: box.top + at.y };
        }""",
        element_id,
    )
    await page.mouse.click(point["x"], point["y"])


# What is on screen, from the page's Cytoscape instance (window.threadlineGraph), in
# rendered pixels: every visible label's font size times zoom and its box, the thread boxes,
# and every edge as the polyline it is drawn along.
SCREEN = """() => {
  const cy = window.threadlineGraph;
  const zoom = cy.zoom();
  const shown = cy.elements().filter((e) => e.visible() && e.pstyle("label").strValue !== "");
  const onlyLabel = {
    includeNodes: false, includeEdges: false, includeLabels: true, includeOverlays: false };
  const body = { includeLabels: false, includeOverlays: false };
  const points = (e) => {
    const middle = e.renderedSegmentPoints() ?? e.renderedControlPoints() ?? [];
    const all = [e.renderedSourceEndpoint(), ...middle, e.renderedTargetEndpoint()];
    return all.map((p) => [p.x, p.y]);
  };
  return {
    zoom,
    labels: shown.map((e) => ({
      id: e.id(),
      text: e.pstyle("label").strValue,
      px: e.pstyle("font-size").pfValue * zoom,
      box: e.renderedBoundingBox(onlyLabel),
    })),
    boxes: cy.nodes("[kind='thread']").map((n) => ({
      id: n.id(), box: n.renderedBoundingBox(body) })),
    edges: cy.edges().map((e) => ({
      id: e.id(), ends: [e.source().id(), e.target().id()], points: points(e) })),
  };
}"""


async def screen(page: Page) -> dict[str, Any]:
    return await page.evaluate(SCREEN)


def small_labels(shown: dict[str, Any]) -> list[str]:
    return [
        f"{label['id']} {label['text']!r} at {label['px']:.1f} px"
        for label in shown["labels"]
        if label["px"] < READABLE_PX
    ]


def label_overlaps(shown: dict[str, Any]) -> list[tuple[str, str]]:
    return overlaps({label["id"]: Box.of(label["box"]) for label in shown["labels"]})


def edges_across(shown: dict[str, Any], what: str) -> list[str]:
    """Edges whose line runs through a label (`what` = "labels") or a thread box ("boxes")
    other than its own ends."""
    found = []
    for edge in shown["edges"]:
        line = [(x, y) for x, y in edge["points"]]
        for item in shown[what]:
            mine = item["id"] == edge["id"] or item["id"] in edge["ends"]
            if not mine and polyline_crosses(line, Box.of(item["box"])):
                found.append(f"{edge['id']} across {item['id']}")
    return found


async def text(page: Page, selector: str) -> str:
    return await page.text_content(selector) or ""


# Chromium's own console line for a request answered 401: how a tab without a valid token
# learns it must sign in (the page then asks for one), not an error of the page.
SIGN_IN = "the server responded with a status of 401"


def stays_home(tab: Tab, base: str) -> None:
    assert tab.hosts() == {host_of(base)}, tab.urls
    assert [error for error in tab.errors if SIGN_IN not in error] == []


async def test_the_drawn_family_is_the_lineage_query(tab: Tab, demo: Demo) -> None:
    root = demo.family.root
    await open_lineage(tab, demo.base, f"thread={root}")
    assert await drawn(tab.page) == expected(await demo.lineage(root))
    assert root in await text(tab.page, "#details")
    path = await tab.screenshot("lineage-demo")
    assert path.stat().st_size > 0
    stays_home(tab, demo.base)


async def test_at_1400_by_900_the_fitted_demo_family_is_readable(laptop: Tab, demo: Demo) -> None:
    """No text under 11 px on screen, no label on another, no line across a label (nor
    through a thread box), as drawn and after Fit; a title cut short is whole in the
    tooltip."""
    await open_lineage(laptop, demo.base, f"thread={demo.family.root}")
    for fit in (False, True):
        if fit:
            await laptop.page.click("#fit")
        shown = await screen(laptop.page)
        assert len(shown["labels"]) > 30  # titles, how each child was opened, runs, lanes...
        assert small_labels(shown) == []
        assert label_overlaps(shown) == []
        assert edges_across(shown, "labels") == []
        assert edges_across(shown, "boxes") == []
    await laptop.screenshot("lineage-demo-1400x900")

    audit = demo.family.threads["subagent"]
    title = (await demo.gql("query($id: ID!) { thread(id: $id) { title } }", id=audit))["thread"]
    at = await laptop.page.evaluate(
        """(id) => {
          const node = window.threadlineGraph.getElementById(`title:${id}`);
          const box = window.threadlineGraph.container().getBoundingClientRect();
          return { x: box.left + node.renderedPosition().x, y: box.top + node.renderedPosition().y,
                   drawn: node.data("label") };
        }""",
        audit,
    )
    await laptop.page.mouse.move(at["x"], at["y"])
    assert await laptop.page.get_attribute("#graph", "title") == title["title"]
    assert at["drawn"].replace("\n", " ").rstrip("…") in title["title"]
    stays_home(laptop, demo.base)


async def test_a_family_too_big_to_fit_readably_scrolls_instead(laptop: Tab, demo: Demo) -> None:
    """In a small window Fit stops at the smallest readable zoom and shows the focused
    thread; the wheel then scrolls the graph."""
    child = demo.family.threads["portable_fork"]
    await laptop.page.set_viewport_size({"width": 800, "height": 500})
    await open_lineage(laptop, demo.base, f"thread={child}")
    await laptop.page.click("#fit")
    shown = await screen(laptop.page)
    assert small_labels(shown) == []
    view = await laptop.page.evaluate(
        """(id) => { const cy = window.threadlineGraph;
          return { w: cy.width(), h: cy.height(), box: cy.getElementById(id).renderedBoundingBox(),
                   all: cy.elements().renderedBoundingBox(), pan: cy.pan() }; }""",
        child,
    )
    assert view["all"]["w"] > view["w"] or view["all"]["h"] > view["h"]  # it does not fit
    focus = Box.of(view["box"])
    assert Box(0, 0, view["w"], view["h"]).meets(focus)
    box = await laptop.page.locator("#graph").bounding_box()
    assert box is not None
    await laptop.page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    await laptop.page.mouse.wheel(0, 120)
    await laptop.page.wait_for_function(
        "(y) => window.threadlineGraph.pan().y < y", arg=view["pan"]["y"]
    )
    assert (await screen(laptop.page))["zoom"] == shown["zoom"]  # scrolled, not zoomed


# The threads the picker should list, in its order: the most recent first.
THREADS = """query($title: String) {
  threads(first: 100, titleContains: $title, newestFirst: true) { edges { node { id } } } }"""


async def listed(page: Page) -> list[str]:
    return await page.eval_on_selector_all(
        "#picker-list [data-follow]", "(buttons) => buttons.map((b) => b.dataset.follow)"
    )


async def picker_shows(page: Page, count: int) -> None:
    await page.wait_for_function(
        """(n) => document.querySelector("#picker").dataset.state === "ready"
          && document.querySelectorAll("#picker-list [data-follow]").length === n""",
        arg=count,
    )


async def test_without_a_thread_the_picker_lists_searches_and_opens(tab: Tab, demo: Demo) -> None:
    page = tab.page
    await open_lineage(tab, demo.base, "", state="empty")
    everything = (await demo.gql(THREADS, title=None))["threads"]["edges"]
    await picker_shows(page, len(everything))
    assert await page.is_visible("#picker")
    assert set(demo.family.threads.values()) <= set(await listed(page))
    assert await listed(page) == [e["node"]["id"] for e in everything]  # newest first

    spikes = [e["node"]["id"] for e in (await demo.gql(THREADS, title="spike"))["threads"]["edges"]]
    assert 0 < len(spikes) < len(everything)
    await page.fill("#picker-search", "SPIKE")  # any case, as the API searches
    await picker_shows(page, len(spikes))
    assert await listed(page) == spikes

    await page.click(f"#picker-list [data-follow='{spikes[0]}']")
    await page.wait_for_url(f"**thread={spikes[0]}**")
    await page.wait_for_selector(READY)
    # Its whole family: every thread of the demo descends from its root.
    assert await drawn(page) == expected(await demo.lineage(demo.family.root, "DESCENDANTS"))
    assert await page.is_hidden("#picker")
    await page.click("#pick")  # the Threads button opens it over a drawn family too
    assert await page.is_visible("#picker")
    await page.click("#pick")
    assert await page.is_hidden("#picker")
    stays_home(tab, demo.base)


async def test_with_no_thread_the_canvas_shows_the_newest_threads_as_cards(
    tab: Tab, demo: Demo
) -> None:
    page = tab.page
    await open_lineage(tab, demo.base, "", state="empty")
    newest = [e["node"]["id"] for e in (await demo.gql(THREADS, title=None))["threads"]["edges"]]
    await picker_shows(page, min(30, len(newest)))
    assert await page.is_visible("#start h2")
    assert await page.is_hidden("aside")  # nothing in the side panel
    shown = await page.evaluate(
        """() => {
          const box = (el) => el.getBoundingClientRect().toJSON();
          return { canvas: box(document.querySelector("#canvas")),
                   cards: [...document.querySelectorAll("#start #picker-list [data-follow]")]
                     .map((b) => ({ id: b.dataset.follow, box: box(b) })) };
        }"""
    )
    area = shown["canvas"]
    canvas = Box(area["left"], area["top"], area["right"], area["bottom"])
    cards = shown["cards"]
    assert [c["id"] for c in cards] == newest[: len(cards)]  # newest first
    first_row = [c for c in cards if c["box"]["top"] == cards[0]["box"]["top"]]
    assert len(first_row) >= 3, "cards side by side across the canvas, not a narrow list"
    assert canvas.x1 <= cards[0]["box"]["left"] and first_row[-1]["box"]["right"] <= canvas.x2
    assert (canvas.x2 - canvas.x1) > 0.9 * 1600  # the canvas takes the page's width
    await tab.screenshot("lineage-start")

    await page.click(f"#start [data-follow='{newest[0]}']")
    await page.wait_for_selector(READY)
    assert await page.is_hidden("#start")
    assert await page.is_visible("aside")
    sizes = await page.evaluate(
        "() => [window.threadline.cy.width(), document.querySelector('#graph').clientWidth]"
    )
    assert sizes[0] == sizes[1]  # the graph knows its width once the panel is back
    stays_home(tab, demo.base)


async def test_a_thread_picked_keeps_its_family_in_view(tab: Tab, demo: Demo) -> None:
    """Picking a fork of the root draws its siblings (and their children) around it, not
    only its own ancestors and descendants; the API's BOTH stays a choice."""
    page = tab.page
    root = demo.family.root
    picked = demo.family.threads["portable_fork"]
    siblings = {n["thread"]["id"] for n in (await demo.lineage(root, "DESCENDANTS", 1))["nodes"]}
    siblings -= {root, picked}
    assert siblings
    own = await demo.lineage(picked)  # its ancestors and descendants only
    assert not siblings & {n["thread"]["id"] for n in own["nodes"]}

    await open_lineage(tab, demo.base, "", state="empty")
    await page.wait_for_selector(f"#picker-list [data-follow='{picked}']")
    await page.click(f"#picker-list [data-follow='{picked}']")
    await page.wait_for_url(f"**thread={picked}**")
    await page.wait_for_selector(READY)
    threads, _ = await drawn(page)
    assert siblings | {root, picked} <= threads
    assert await drawn(page) == expected(await demo.lineage(root, "DESCENDANTS"))
    focused = await page.evaluate("window.threadline.cy.nodes('.focus').map((n) => n.id())")
    assert focused == [picked]
    assert await page.input_value("#direction-input") == "FAMILY"
    await tab.screenshot("lineage-picked-family")

    # BOTH is the API's own direction: the thread's ancestors and descendants only.
    await open_lineage(tab, demo.base, f"thread={picked}&direction=BOTH")
    assert await drawn(page) == expected(own)
    stays_home(tab, demo.base)


DIVERGENCE = """query($id: ID!) { thread(id: $id) { divergence {
  sourceRunsSinceFork sourceRolledBackPastFork sourceRolledBackTo unmergedRunOrdinals } } }"""


async def test_fork_edges_show_their_divergence(tab: Tab, demo: Demo) -> None:
    await open_lineage(tab, demo.base, f"thread={demo.family.root}")
    edges = (await tab.page.evaluate("window.threadline.graph()"))["edges"]
    for edge in edges:
        api = (await demo.gql(DIVERGENCE, id=edge["to"]))["thread"]["divergence"]
        assert edge["divergence"] == api, edge
    moved = [e for e in edges if e["divergence"]["sourceRunsSinceFork"]]
    assert moved, "the demo's root runs on after its forks"
    for edge in moved:
        divergence = edge["divergence"]
        if not divergence["sourceRolledBackPastFork"]:
            assert f"source +{len(divergence['sourceRunsSinceFork'])}" in edge["label"]
    stays_home(tab, demo.base)


async def test_the_controls_redraw_what_the_query_returns(tab: Tab, demo: Demo) -> None:
    threads = demo.family.threads
    await open_lineage(tab, demo.base, f"thread={threads['root']}")
    page = tab.page

    await page.select_option("#direction-input", "DESCENDANTS")
    await page.fill("#depth-input", "1")
    await page.click("#show")
    await page.wait_for_url("**direction=DESCENDANTS**")
    await page.wait_for_selector(READY)
    assert await drawn(page) == expected(await demo.lineage(threads["root"], "DESCENDANTS", 1))

    await page.fill("#thread-input", threads["abandoned_fork"])
    await page.select_option("#direction-input", "ANCESTORS")
    await page.fill("#depth-input", "10")
    await page.press("#thread-input", "Enter")
    await page.wait_for_url(f"**thread={threads['abandoned_fork']}**")
    await page.wait_for_selector(READY)
    ancestors = await demo.lineage(threads["abandoned_fork"], "ANCESTORS", 10)
    assert await drawn(page) == expected(ancestors)
    assert len(ancestors["nodes"]) == 3  # abandoned_fork ← portable_fork ← root

    # Follow the parent from the details panel: the page re-centres on it.
    await page.click(f"#details [data-follow='{threads['portable_fork']}']")
    await page.wait_for_url(f"**thread={threads['portable_fork']}**")
    await page.wait_for_selector(READY)
    assert await drawn(page) == expected(
        await demo.lineage(threads["portable_fork"], "ANCESTORS", 10)
    )
    focused = await page.evaluate("window.threadline.cy.nodes('.focus').map((n) => n.id())")
    assert focused == [threads["portable_fork"]]

    await page.go_back()
    await page.wait_for_selector(READY)
    assert await page.input_value("#thread-input") == threads["abandoned_fork"]
    stays_home(tab, demo.base)


async def test_a_family_of_one_is_not_blown_up(tab: Tab, demo: Demo) -> None:
    """Depth 0 draws one small box (an abandoned fork, no runs): fit, capped, centred."""
    alone = demo.family.threads["abandoned_fork"]
    await open_lineage(tab, demo.base, f"thread={alone}&depth=0")
    assert await drawn(tab.page) == ({alone}, set())
    view = await tab.page.evaluate(
        """(id) => {
          const cy = window.threadline.cy;
          const at = cy.getElementById(id).renderedPosition();
          return { zoom: cy.zoom(), x: at.x, y: at.y, w: cy.width(), h: cy.height(),
                   caption: cy.getElementById(`caption:${id}`).length };
        }""",
        alone,
    )
    assert view["zoom"] <= 1.5
    assert abs(view["x"] - view["w"] / 2) < 1 and abs(view["y"] - view["h"] / 2) < 1
    assert view["caption"] == 0  # no runs, no empty "runs" row
    await tab.page.click("#fit")  # the Fit button caps the same way
    assert await tab.page.evaluate("window.threadline.cy.zoom()") <= 1.5
    await tab.screenshot("lineage-one-thread")
    stays_home(tab, demo.base)


async def test_an_unknown_thread_says_so(tab: Tab, demo: Demo) -> None:
    await open_lineage(tab, demo.base, "thread=thr_nobody", state="empty")
    assert "thr_nobody" in await text(tab.page, "#message")
    assert await drawn(tab.page) == (set(), set())


async def test_clicking_a_handoff_shows_its_text_and_provenance(tab: Tab, demo: Demo) -> None:
    root = demo.family.root
    handoff_id = demo.family.starts[("root", 6)]["handoffs"][0]["id"]
    truth = (
        await demo.gql(
            """query($id: ID!) { handoff(id: $id) { summaryText status summarySource
              sourceThread { id } toProviderThread { id } budget { budgetTokens }
              omitted { index cut } quality { score fidelity } } }""",
            id=handoff_id,
        )
    )["handoff"]
    await open_lineage(tab, demo.base, f"thread={root}")
    await click_element(tab.page, f"handoff:{handoff_id}")
    await tab.page.wait_for_selector("#details[data-kind='handoff']")
    assert await text(tab.page, "#details pre.summary") == truth["summaryText"]
    details = await text(tab.page, "#details")
    assert handoff_id in details
    assert truth["toProviderThread"]["id"] in details
    assert truth["status"] in details
    assert f"summarySource{truth['summarySource']}" in details  # who wrote the summary
    cut = sum(1 for item in truth["omitted"] if item["cut"])
    said = f" ({cut} shortened)" if cut else ""
    assert f"Items not shown whole{len(truth['omitted'])}{said}" in details
    assert f"Quality score{truth['quality']['score']:.2f}" in details
    assert f"Fidelity (share shown whole){truth['quality']['fidelity']:.2f}" in details
    assert f"Budget{truth['budget']['budgetTokens']} (" in details
    await tab.page.click("#fit")
    await tab.screenshot("lineage-handoff")  # docs/lineage.png
    stays_home(tab, demo.base)


async def test_clicking_a_run_and_a_lane_shows_items_coverage_and_staleness(
    tab: Tab, demo: Demo
) -> None:
    root = demo.family.root
    run_id = demo.family.runs[("root", 2)]
    truth = await demo.gql(
        """query($run: ID!, $thread: ID!) {
          run(id: $run) { items { kind text } }
          thread(id: $thread) { providerThreads { id status staleSignals
            coverage { missingRunOrdinals } } } }""",
        run=run_id,
        thread=root,
    )
    await open_lineage(tab, demo.base, f"thread={root}")

    await click_element(tab.page, f"run:{run_id}")
    await tab.page.wait_for_selector("#details[data-kind='run']")
    items = await tab.page.locator("#details ol.items > li").all_text_contents()
    assert len(items) == len(truth["run"]["items"])
    for shown, item in zip(items, truth["run"]["items"], strict=True):
        assert item["kind"] in shown
        assert item["text"] in shown

    [stale] = [pt for pt in truth["thread"]["providerThreads"] if pt["status"] == "STALE"]
    await click_element(tab.page, f"lane:{stale['id']}")
    await tab.page.wait_for_selector("#details[data-kind='lane']")
    details = await text(tab.page, "#details")
    assert stale["staleSignals"]
    for signal in stale["staleSignals"]:
        assert signal in details
    missing = ", ".join(str(o) for o in stale["coverage"]["missingRunOrdinals"])
    assert missing in details
    stays_home(tab, demo.base)


LIMIT = """mutation($run: ID!) { reportProviderLimit(provider: "claude",
  reason: "5-hour limit", runId: $run,
  partialItems: [{kind: ASSISTANT_MESSAGE, text: "halfway"}]) { active } }"""


async def test_interrupted_runs_and_limited_providers_are_marked(tab: Tab, demo: Demo) -> None:
    thread = await new_thread(demo.gql, "ran out")
    await run_once(demo.gql, thread, "claude", "first")
    started = await start(demo.gql, thread, "claude", "second")
    run_id = started["run"]["id"]
    await demo.gql(LIMIT, run=run_id)
    await open_lineage(tab, demo.base, f"thread={thread}")
    marks = await tab.page.evaluate(
        """(run) => {
          const cy = window.threadline.cy;
          return { interrupted: cy.getElementById(`run:${run}`).hasClass("interrupted"),
                   limited: cy.nodes("[kind='lane'].limited").map((n) => n.data("label")) };
        }""",
        run_id,
    )
    assert marks == {"interrupted": True, "limited": ["claude · ACTIVE · limited"]}
    legend = await text(tab.page, "#legend")
    assert "run interrupted by a usage limit" in legend and "provider limited now" in legend
    await click_element(tab.page, f"run:{run_id}")
    await tab.page.wait_for_selector("#details[data-kind='run']")
    details = await text(tab.page, "#details")
    assert "INTERRUPTED" in details and "Usage limit5-hour limit" in details
    await tab.screenshot("lineage-limited")
    stays_home(tab, demo.base)


async def test_page_text_follows_the_browser_language(browser: Any, demo: Demo) -> None:
    chinese = await open_tab(browser, locale="zh-CN")
    await open_lineage(chinese, demo.base, f"thread={demo.family.root}")
    assert await text(chinese.page, "h1") == "线程谱系"
    assert await chinese.page.get_attribute("html", "lang") == "zh-CN"
    assert await text(chinese.page, "#show") == "显示"
    await chinese.screenshot("lineage-zh")
    await chinese.page.context.close()


async def test_the_address_chooses_the_language(tab: Tab, demo: Demo) -> None:
    """`?lang=zh` in an English browser (and it stays chosen as the page moves on)."""
    await open_lineage(tab, demo.base, f"thread={demo.family.root}&lang=zh")
    assert await text(tab.page, "h1") == "线程谱系"
    await tab.page.click("#show")
    await tab.page.wait_for_selector(READY)
    assert "lang=zh" in tab.page.url
    await open_lineage(tab, demo.base, f"thread={demo.family.root}&lang=en")
    assert await text(tab.page, "h1") == "Thread lineage"
    await open_lineage(tab, demo.base, "lang=zh", state="empty")  # the picker too
    assert await text(tab.page, "#picker h2") == "线程"
    assert await tab.page.get_attribute("#picker-search", "placeholder") == "按标题搜索"
    stays_home(tab, demo.base)


async def asked_for_a_token(tab: Tab, base: str, thread: str) -> Page:
    """The page opened on `thread` by a tab with no token: it shows the token dialog."""
    await open_lineage(tab, base, f"thread={thread}", state="token")
    assert await tab.page.is_visible("#token-dialog")
    return tab.page


async def give_token(page: Page, token: str) -> None:
    await page.fill("#token-input", token)
    await page.click("#token-form button")


async def test_with_a_tokens_file_the_page_asks_for_a_token_once(
    tab: Tab, demo: Demo, secured_api: Secured
) -> None:
    root = demo.family.root
    page = await asked_for_a_token(tab, secured_api.base, root)
    assert await page.is_hidden("#token-refused")

    await give_token(page, "not-the-token")
    await page.wait_for_selector("#token-refused", state="visible")

    await give_token(page, secured_api.token)
    await page.wait_for_selector(READY)
    assert await drawn(page) == expected(await demo.lineage(root))
    stored = await page.evaluate("sessionStorage.getItem('threadline.token')")
    assert stored == secured_api.token

    before = len(tab.authorizations)
    await page.reload()
    await page.wait_for_selector(READY)
    assert await page.is_hidden("#token-dialog")
    assert tab.authorizations[before:] == [f"Bearer {secured_api.token}"] * (
        len(tab.authorizations) - before
    )
    assert len(tab.authorizations) > before
    stays_home(tab, secured_api.base)


async def test_a_token_dialog_closed_with_escape_says_why_and_the_next_load_asks_again(
    tab: Tab, demo: Demo, secured_api: Secured
) -> None:
    root = demo.family.root
    page = await asked_for_a_token(tab, secured_api.base, root)
    await page.keyboard.press("Escape")
    await page.wait_for_selector("body[data-state='error']")
    assert await page.is_hidden("#token-dialog")
    assert await text(page, "#message")

    await page.click("#show")
    await page.wait_for_selector("body[data-state='token']")
    assert await page.is_visible("#token-dialog")
    await give_token(page, secured_api.token)
    await page.wait_for_selector(READY)
    assert await drawn(page) == expected(await demo.lineage(root))
    stays_home(tab, secured_api.base)


async def test_with_a_tokens_file_the_picker_sends_the_token(
    tab: Tab, demo: Demo, secured_api: Secured
) -> None:
    page = tab.page
    await open_lineage(tab, secured_api.base, "", state="token")
    await give_token(page, secured_api.token)
    await page.wait_for_selector("#picker[data-state='ready']")
    assert set(demo.family.threads.values()) <= set(await listed(page))
    assert tab.authorizations[-1] == f"Bearer {secured_api.token}"
    stays_home(tab, secured_api.base)


@dataclass
class Wide:
    base: str
    token: str
    family: WideFamily


@pytest.fixture(scope="module")
async def wide(
    demo: Demo, neo4j_uri: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Wide]:
    """A family of 325 threads (a root, 4 forks, 80 forks under each) in a workspace of its
    own, after the demo's (so the demo's wipe comes first and its lists stay as they are)."""
    folder = tmp_path_factory.mktemp("wide")
    token = secrets.token_urlsafe(24)
    tokens = str(tokens_file(folder, {token: ("wide", "write")}))
    for base in serve(
        neo4j_uri, folder, TOKENS_FILE=tokens, DB_TIMEOUT_S=DB_TIMEOUT_S, RATE_LIMIT_RPS="0"
    ):
        async with httpx.AsyncClient(base_url=base, timeout=120) as http:
            family = await seed_wide_family(As(GraphQLClient(http), token), 4, 80)
        yield Wide(base, token, family)


async def collapsed(page: Page) -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = await page.evaluate("window.threadlineGraph.collapsed()")
    return result


def readable(shown: dict[str, Any]) -> None:
    assert small_labels(shown) == []
    assert label_overlaps(shown) == []
    assert overlaps({b["id"]: Box.of(b["box"]) for b in shown["boxes"]}) == []
    assert edges_across(shown, "labels") == []


async def test_a_large_family_is_drawn_in_part_and_a_group_opens_on_click(
    tab: Tab, wide: Wide
) -> None:
    """Beyond a few children per thread (and a budget of boxes) the rest of a family sits in
    "+N threads" boxes; the focused thread and its path stay drawn; a click draws a group."""
    page = tab.page
    await page.context.add_init_script(
        f"sessionStorage.setItem('threadline.token', {wide.token!r})"
    )
    parents = wide.family.children[wide.family.root]
    deep = wide.family.children[parents[2]][-1]  # the focus, inside a group otherwise
    await open_lineage(tab, wide.base, f"thread={deep}")
    focused = await page.evaluate("window.threadline.cy.nodes('.focus').map((n) => n.id())")
    assert focused == [deep]

    await open_lineage(tab, wide.base, f"thread={wide.family.root}")
    groups = await collapsed(page)
    budget = await page.evaluate("window.threadlineGraph.budget")
    drawn_threads, _ = await drawn(page)
    assert {g["parent"] for g in groups} == set(parents)
    assert sum(g["count"] for g in groups) + len(drawn_threads) == wide.family.size
    assert len(drawn_threads) + len(groups) <= budget
    assert wide.family.root in drawn_threads and set(parents) <= drawn_threads
    readable(await screen(page))
    await tab.screenshot("lineage-wide-collapsed")

    group = next(g for g in groups if g["parent"] == parents[0])
    # The family is wider than the window: bring the group into view, then click it.
    await page.evaluate(
        "(id) => window.threadlineGraph.center(window.threadlineGraph.getElementById(id))",
        group["id"],
    )
    await click_element(page, group["id"])
    await page.wait_for_function(
        "(id) => !window.threadlineGraph.collapsed().some((g) => g.id === id)", arg=group["id"]
    )
    drawn_threads, _ = await drawn(page)
    assert set(wide.family.children[parents[0]]) <= drawn_threads
    assert len(await collapsed(page)) == len(groups) - 1
    readable(await screen(page))
    await tab.screenshot("lineage-wide-opened")
    stays_home(tab, wide.base)
