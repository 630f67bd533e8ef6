"""The lineage page in headless Chromium, on the demo family served by `threadline serve`."""

from __future__ import annotations

from typing import Any

from playwright.async_api import Page

from tests.browser.conftest import Demo, Secured, Tab, host_of, open_tab
from tests.support.steps import new_thread, run_once, start

READY = "body[data-state='ready']"


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


async def label_clashes(page: Page) -> list[str]:
    """Edge labels that overlap a thread box or another edge label (none should)."""
    return await page.evaluate(
        """() => {
          const cy = window.threadline.cy;
          const label = { includeNodes: false, includeEdges: false, includeOverlays: false };
          const body = { includeLabels: false, includeOverlays: false };
          const labels = cy.edges().map((e) => [e.id(), e.boundingBox(label)]);
          const boxes = cy.nodes("[kind='thread']").map((n) => [n.id(), n.boundingBox(body)]);
          const meet = (a, b) => a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2;
          const clashes = [];
          labels.forEach(([id, bb], i) => {
            if (!(bb.w > 0 && bb.h > 0)) clashes.push(`${id} has no label`);
            for (const [other, ob] of [...boxes, ...labels.slice(i + 1)]) {
              if (meet(bb, ob)) clashes.push(`${id} on ${other}`);
            }
          });
          return clashes;
        }"""
    )


async def text(page: Page, selector: str) -> str:
    return await page.text_content(selector) or ""


def stays_home(tab: Tab, base: str) -> None:
    assert tab.hosts() == {host_of(base)}, tab.urls
    assert tab.errors == []


async def test_the_drawn_family_is_the_lineage_query(tab: Tab, demo: Demo) -> None:
    root = demo.family.root
    await open_lineage(tab, demo.base, f"thread={root}")
    assert await drawn(tab.page) == expected(await demo.lineage(root))
    assert root in await text(tab.page, "#details")
    assert await label_clashes(tab.page) == []
    path = await tab.screenshot("lineage-demo")
    assert path.stat().st_size > 0
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
              omitted { index } quality { score } } }""",
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
    assert f"Items left out{len(truth['omitted'])}" in details
    assert f"Quality score{truth['quality']['score']:.2f}" in details
    assert f"Budget{truth['budget']['budgetTokens']} (" in details
    await tab.page.click("#fit")
    await tab.screenshot("lineage-handoff")  # the README's docs/lineage.png
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
    stays_home(tab, demo.base)


async def test_with_a_tokens_file_the_page_asks_for_a_token_once(
    tab: Tab, demo: Demo, secured_api: Secured
) -> None:
    root = demo.family.root
    page = tab.page
    await open_lineage(tab, secured_api.base, f"thread={root}", state="token")
    assert await page.is_visible("#token-dialog")
    assert await page.is_hidden("#token-refused")

    await page.fill("#token-input", "not-the-token")
    await page.click("#token-form button")
    await page.wait_for_selector("#token-refused", state="visible")

    await page.fill("#token-input", secured_api.token)
    await page.click("#token-form button")
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
