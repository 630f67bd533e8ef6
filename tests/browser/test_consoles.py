"""GraphiQL (GET /graphql) and Neo4j Browser render and answer in headless Chromium."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

import pytest
from playwright.async_api import Page, Route

from graph.runtime.local_neo4j import LocalNeo4j
from tests.browser.conftest import Demo, Secured, Tab, host_of, run_graphiql


async def test_graphiql_runs_a_query_from_vendored_assets(tab: Tab, demo: Demo) -> None:
    answer = await run_graphiql(tab, demo.base)
    assert demo.family.root in answer
    assert "errors" not in answer
    await tab.screenshot("graphiql")
    assert tab.hosts() == {host_of(demo.base)}, tab.urls
    assert all(urlsplit(u).path.startswith(("/graphql", "/static/")) for u in tab.urls)
    assert tab.errors == []


async def test_graphiql_sends_the_tabs_token(tab: Tab, demo: Demo, secured_api: Secured) -> None:
    """With a tokens file, the token this tab holds goes in GraphiQL's headers."""
    await tab.page.goto(f"{secured_api.base}/healthz")
    await tab.page.evaluate(
        "(t) => sessionStorage.setItem('threadline.token', t)", secured_api.token
    )
    answer = await run_graphiql(tab, secured_api.base)
    assert demo.family.root in answer
    assert "UNAUTHENTICATED" not in answer
    # The schema came on the first try: GraphiQL's introspection, its first request, goes
    # out before the Headers editor exists, so the token must ride in the fetcher itself.
    await tab.page.click("[aria-label='Show Documentation Explorer']")
    await tab.page.locator(".graphiql-doc-explorer").get_by_text("Root Types").wait_for()
    await tab.screenshot("graphiql-token-docs")
    assert tab.authorizations
    assert tab.authorizations == [f"Bearer {secured_api.token}"] * len(tab.authorizations)
    assert tab.hosts() == {host_of(secured_api.base)}, tab.urls


async def test_graphiql_asks_a_tab_with_no_token_once(
    tab: Tab, demo: Demo, secured_api: Secured
) -> None:
    """With a tokens file and no token in the tab, GraphiQL's first request (the schema's
    introspection) asks for one; a refused one is asked again; the tab keeps the good one."""
    page = tab.page
    await page.goto(f"{secured_api.base}/graphql")
    await page.wait_for_selector("#token-dialog[open]")
    assert await page.is_hidden("#token-refused")
    await tab.screenshot("graphiql-token-dialog")

    await page.fill("#token-input", "not-the-token")
    await page.click("#token-form button")
    await page.wait_for_selector("#token-refused", state="visible")

    await page.fill("#token-input", secured_api.token)
    await page.click("#token-form button")
    await page.click("[aria-label='Show Documentation Explorer']")
    await page.locator(".graphiql-doc-explorer").get_by_text("Root Types").wait_for()
    await page.click(".graphiql-execute-button")
    result = page.locator(".result-window")
    await result.get_by_text('"data"').wait_for()
    assert demo.family.root in await result.inner_text()
    await tab.screenshot("graphiql-asked-token")
    assert await page.is_hidden("#token-dialog")
    stored = await page.evaluate("sessionStorage.getItem('threadline.token')")
    assert stored == secured_api.token
    assert tab.authorizations[-1] == f"Bearer {secured_api.token}"
    assert tab.hosts() == {host_of(secured_api.base)}, tab.urls

    # A subscription goes over the websocket, in whose connection_init the given token rides.
    subscription = f'subscription {{ threadEvents(threadId: "{demo.family.root}") {{ type }} }}'
    await page.evaluate(SET_QUERY, subscription)
    # GraphiQL reads the edit (and its operation) a moment later, then stores the query.
    await page.wait_for_function(EDIT_READ, arg=subscription)
    await page.click(".graphiql-execute-button")
    await result.get_by_text('"threadEvents"').wait_for()
    assert "UNAUTHENTICATED" not in await result.inner_text()


# GraphiQL's query editor is a CodeMirror 5 instance: set its text as a user's paste would.
SET_QUERY = (
    "(q) => document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.setValue(q)"
)
EDIT_READ = "(q) => localStorage.getItem('graphiql:query') === q"


async def test_graphiql_closed_without_a_token_asks_again_at_the_next_refusal(
    tab: Tab, demo: Demo, secured_api: Secured
) -> None:
    """Escape closes the dialog and lets the refusal through; the next refused request (a
    query run) asks again, and with the token given it answers."""
    page = tab.page
    await page.goto(f"{secured_api.base}/graphql")
    await page.wait_for_selector("#token-dialog[open]")
    await page.keyboard.press("Escape")
    await page.wait_for_selector("#token-dialog", state="hidden")
    await page.click(".graphiql-execute-button")
    await page.wait_for_selector("#token-dialog[open]")
    await page.fill("#token-input", secured_api.token)
    await page.click("#token-form button")
    result = page.locator(".result-window")
    await result.get_by_text('"data"').wait_for()
    assert demo.family.root in await result.inner_text()


@dataclass
class Neo4jBrowser:
    """Neo4j Browser on the test Neo4j: where it is, whom to log in as, whose hosts are its own."""

    url: str
    bolt_address: str
    auth: tuple[str, str] | None
    hosts: set[str]


@pytest.fixture
def neo4j_browser(neo4j_server: LocalNeo4j | None, neo4j_uri: str) -> Neo4jBrowser:
    """Neo4j Browser's URL on the test Neo4j, its login and the host:ports Neo4j answers on."""
    named = os.environ.get("THREADLINE_TEST_NEO4J_HTTP_URL")
    if named:
        http = named.rstrip("/")
        password = os.environ.get("THREADLINE_TEST_NEO4J_PASSWORD")
        user = os.environ.get("THREADLINE_TEST_NEO4J_USER", "neo4j")
        auth = (user, password) if password else None
    elif neo4j_server is not None:
        http = f"http://127.0.0.1:{neo4j_server.ports().http}"
        auth = neo4j_server.credentials()
    else:
        pytest.fail("An external test Neo4j: set THREADLINE_TEST_NEO4J_HTTP_URL to its HTTP URL.")
    bolt = urlsplit(neo4j_uri)
    hosts = {host_of(http), host_of(f"ws://{bolt.netloc}")}
    return Neo4jBrowser(f"{http}/browser/", bolt.netloc, auth, hosts)


CONNECTED = re.compile("You have a working connection|You are connected")


async def connect_and_query(page: Page, neo4j: Neo4jBrowser) -> None:
    """Log in through Neo4j Browser's connect form, run `RETURN 1 AS one`, wait for its table."""
    await page.fill('input[data-testid="boltaddress"]', neo4j.bolt_address)
    if neo4j.auth is None:
        await page.select_option(
            'select[data-testid="authenticationMethod"]', label="No authentication"
        )
    else:
        await page.fill('input[data-testid="username"]', neo4j.auth[0])
        await page.fill('input[data-testid="password"]', neo4j.auth[1])
    await page.click('button[data-testid="connect"]')
    # "You have a working connection" the first time a server is connected to, "You are
    # connected as user ..." after that.
    await page.get_by_text(CONNECTED).wait_for()
    await page.click("#monaco-main-editor")
    await page.keyboard.type("RETURN 1 AS one")
    await page.click('[data-testid="editor-Run"]')
    await page.get_by_text("Started streaming 1 records").wait_for()


async def test_neo4j_browser_renders_on_the_test_neo4j(
    tab: Tab, neo4j_browser: Neo4jBrowser
) -> None:
    """Neo4j Browser loads, logs in and runs a query without one request off Neo4j's host.

    Off-host requests are aborted, as on a machine without network, and recorded: there must
    be none. Sentry in the Browser samples one page load in five; a pinned Math.random makes
    every load a sampled one, so the check cannot pass by chance.
    """
    neo4j_hosts = neo4j_browser.hosts
    aborted: list[str] = []

    async def offline(route: Route) -> None:
        aborted.append(route.request.url)
        await route.abort()

    await tab.page.add_init_script("Math.random = () => 0.001")
    await tab.page.route(lambda u: host_of(u) not in neo4j_hosts, offline)
    await tab.page.goto(neo4j_browser.url)
    await tab.page.get_by_text("Connect to Neo4j").wait_for()
    assert await tab.page.title() == "Neo4j Browser"
    await tab.screenshot("neo4j-browser")
    assert tab.hosts() <= neo4j_hosts, tab.urls
    assert aborted == []

    await connect_and_query(tab.page, neo4j_browser)
    # What the Browser sends once connected (scripts, Sentry's timings) goes out within a
    # second or two of the page going quiet.
    await tab.page.wait_for_timeout(3000)
    await tab.screenshot("neo4j-browser-query")
    assert tab.hosts() <= neo4j_hosts, tab.urls
    assert aborted == []
    assert tab.errors == []
