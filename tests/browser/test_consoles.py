"""GraphiQL (GET /graphql) and Neo4j Browser render and answer in headless Chromium."""

from __future__ import annotations

import os
from urllib.parse import urlsplit

import pytest
from playwright.async_api import Route

from graph.local_neo4j import LocalNeo4j
from tests.browser.conftest import Demo, Secured, Tab, host_of

# Neo4j Browser 5.24.0 (the newest on Maven Central) imports this stylesheet from its
# bundled CSS (ui-libs bundle), and Neo4j's own Content-Security-Policy allows it; no
# setting turns it off. It is the one request allowed off the host, and it is aborted
# here, as on a machine without network, so the page must render without it.
NEO4J_BROWSER_FONTS = "fonts.googleapis.com:443"


async def run_graphiql(tab: Tab, base: str) -> str:
    """Open GraphiQL, run its default query with the run button, answer the result pane."""
    page = tab.page
    await page.goto(f"{base}/graphql")
    await page.click(".graphiql-execute-button")
    result = page.locator(".result-window")
    await result.get_by_text('"data"').wait_for()
    return await result.inner_text()


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
    assert f"Bearer {secured_api.token}" in tab.authorizations


@pytest.fixture
def neo4j_browser(neo4j_server: LocalNeo4j | None, neo4j_uri: str) -> tuple[str, set[str]]:
    """Neo4j Browser's URL on the test Neo4j and the host:ports that Neo4j answers on."""
    named = os.environ.get("THREADLINE_TEST_NEO4J_HTTP_URL")
    if named:
        http = named.rstrip("/")
    elif neo4j_server is not None:
        http = f"http://127.0.0.1:{neo4j_server.ports().http}"
    else:
        pytest.fail("An external test Neo4j: set THREADLINE_TEST_NEO4J_HTTP_URL to its HTTP URL.")
    return f"{http}/browser/", {host_of(http), host_of(neo4j_uri.replace("bolt", "http", 1))}


async def test_neo4j_browser_renders_on_the_test_neo4j(
    tab: Tab, neo4j_browser: tuple[str, set[str]]
) -> None:
    url, neo4j_hosts = neo4j_browser
    aborted: list[str] = []

    async def offline(route: Route) -> None:
        aborted.append(route.request.url)
        await route.abort()

    await tab.page.route(lambda u: host_of(u) not in neo4j_hosts, offline)
    await tab.page.goto(url)
    await tab.page.get_by_text("Connect to Neo4j").wait_for()
    assert await tab.page.title() == "Neo4j Browser"
    await tab.screenshot("neo4j-browser")
    assert tab.hosts() <= neo4j_hosts | {NEO4J_BROWSER_FONTS}, tab.urls
    assert {host_of(u) for u in aborted} <= {NEO4J_BROWSER_FONTS}
