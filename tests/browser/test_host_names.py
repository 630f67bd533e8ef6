"""The pages under the names a browser reaches a local service by, and under one a
DNS-rebinding page makes resolve to it (api/http/hosts.py): GraphiQL, the lineage page and
a websocket from the page work opened at http://localhost:PORT and http://127.0.0.1:PORT;
from http://attacker.example:PORT nothing answers and nothing is written."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.async_api import Browser

from tests.browser.conftest import Demo, Tab, host_of, open_tab, run_graphiql

ATTACKER = "attacker.example"

# From the open page: a websocket to its own service, speaking graphql-transport-ws; the
# type of the first message it gets back, or how it ended.
SOCKET = """() => new Promise((resolve) => {
  const url = location.origin.replace(/^http/, "ws") + "/graphql";
  const ws = new WebSocket(url, "graphql-transport-ws");
  ws.onopen = () => ws.send(JSON.stringify({ type: "connection_init", payload: {} }));
  ws.onmessage = (m) => { resolve(JSON.parse(m.data).type); ws.close(); };
  ws.onerror = () => resolve("error");
  ws.onclose = (e) => resolve(`closed ${e.code}`);
})"""

# From the open page: what a page's script would send to write into the service.
WRITE = """async () => {
  const answer = await fetch("/graphql", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ query: 'mutation { createThread(title: "from a page") { id } }' }),
  });
  return { status: answer.status, body: await answer.json() };
}"""


def named(base: str, name: str) -> str:
    """`base` (served on 127.0.0.1) under another name for the same address."""
    return f"http://{name}:{urlsplit(base).port}"


async def thread_count(demo: Demo) -> int:
    data = await demo.gql("{ threads(first: 200) { edges { node { id } } } }")
    return len(data["threads"]["edges"])


@pytest.mark.parametrize("name", ["localhost", "127.0.0.1"])
async def test_the_pages_work_opened_at_localhost_and_at_127_0_0_1(
    tab: Tab, demo: Demo, name: str
) -> None:
    base = named(demo.base, name)
    answer = await run_graphiql(tab, base)
    assert demo.family.root in answer and "errors" not in answer
    assert await tab.page.evaluate(SOCKET) == "connection_ack"
    await tab.page.goto(f"{base}/lineage?thread={demo.family.root}")
    await tab.page.wait_for_selector("body[data-state='ready']")
    drawn = await tab.page.evaluate("window.threadline.graph()")
    assert demo.family.root in drawn["threads"]
    await tab.page.goto(f"{base}/lineage")  # the picker: the workspace's threads
    await tab.page.wait_for_selector(f"#picker-list [data-follow='{demo.family.root}']")
    await tab.screenshot(f"pages-at-{name}")
    assert tab.hosts() == {host_of(base)}, tab.urls
    assert tab.errors == []


@pytest.fixture
async def rebinding(browser: Browser, chromium: Path) -> AsyncIterator[Tab]:
    """A tab in a Chromium whose resolver answers 127.0.0.1 for attacker.example: the state
    a DNS-rebinding page brings about once its name's short-lived record changes."""
    rebound = await browser.browser_type.launch(
        executable_path=str(chromium),
        args=["--no-sandbox", f"--host-resolver-rules=MAP {ATTACKER} 127.0.0.1"],
    )
    try:
        opened = await open_tab(rebound)
        yield opened
    finally:
        await rebound.close()


async def test_a_rebinding_page_gets_no_answer_and_writes_nothing(
    rebinding: Tab, demo: Demo
) -> None:
    before = await thread_count(demo)
    page = await rebinding.page.goto(f"{named(demo.base, ATTACKER)}/lineage")
    assert page is not None and page.status == 421
    written: dict[str, Any] = await rebinding.page.evaluate(WRITE)
    assert written["status"] == 421
    assert written["body"]["errors"][0]["extensions"]["code"] == "MISDIRECTED"
    assert await rebinding.page.evaluate(SOCKET) != "connection_ack"
    assert await thread_count(demo) == before
