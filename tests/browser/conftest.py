"""Headless Chromium (Debian's `chromium` package, driven by Playwright) on real pages.

The browser is never downloaded: Playwright starts the system Chromium at
THREADLINE_CHROMIUM (default /usr/bin/chromium); `.ci/run` installs it with apt-get. When it
is missing these tests fail, saying so, rather than skip. Every page's requests are
recorded, and screenshots are kept under THREADLINE_ARTIFACTS (default
.threadline/artifacts, git-ignored), in `browser/`.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from api.cli.demo import DemoFamily, seed_demo
from api.cli.demo_client import typed_client
from graph.store import Store
from tests.support.graphql import GraphQLClient, wipe
from tests.support.served import serve

try:
    from playwright.async_api import Browser, Page, async_playwright
except ImportError:  # the dev extra brings it; say so instead of a collection error
    async_playwright = None  # type: ignore[assignment]

CHROMIUM = Path(os.environ.get("THREADLINE_CHROMIUM", "/usr/bin/chromium"))
ARTIFACTS = Path(os.environ.get("THREADLINE_ARTIFACTS", ".threadline/artifacts")) / "browser"
LOCAL_SCHEMES = ("data:", "blob:", "about:")


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if ARTIFACTS.is_dir():
        terminalreporter.write_line(f"browser screenshots: {ARTIFACTS.resolve()}")


@pytest.fixture(scope="session")
def chromium() -> Path:
    if async_playwright is None:
        pytest.fail("Playwright is not installed: .venv/bin/pip install -e '.[dev]'", False)
    if not CHROMIUM.is_file():
        pytest.fail(
            f"No Chromium at {CHROMIUM}: the browser tests need Debian's package "
            "(apt-get install -y chromium; .ci/run installs it), or THREADLINE_CHROMIUM.",
            False,
        )
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return CHROMIUM


@pytest.fixture(scope="session")
async def browser(chromium: Path) -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(
            executable_path=str(chromium), args=["--no-sandbox"]
        )
        yield launched
        await launched.close()


def host_of(url: str) -> str:
    """host:port of a URL, the scheme's default port when it names none."""
    parts = urlsplit(url)
    default = 443 if parts.scheme in ("https", "wss") else 80
    return f"{parts.hostname}:{parts.port or default}"


@dataclass
class Tab:
    """A page in a fresh browser context, with every URL it requested."""

    page: Page
    urls: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    authorizations: list[str | None] = field(default_factory=list)

    def hosts(self) -> set[str]:
        """host:port of every request, websockets included (not data:, blob: or about:)."""
        return {host_of(u) for u in self.urls if not u.startswith(LOCAL_SCHEMES)}

    async def screenshot(self, name: str) -> Path:
        path = ARTIFACTS / f"{name}.png"
        await self.page.screenshot(path=str(path))
        return path


async def open_tab(
    browser: Browser, locale: str = "en-US", width: int = 1600, height: int = 900
) -> Tab:
    context = await browser.new_context(viewport={"width": width, "height": height}, locale=locale)
    tab = Tab(await context.new_page())
    tab.page.on("request", lambda r: tab.urls.append(r.url))
    tab.page.on("websocket", lambda ws: tab.urls.append(ws.url))
    tab.page.on("pageerror", lambda e: tab.errors.append(str(e)))
    tab.page.on("console", lambda m: tab.errors.append(m.text) if m.type == "error" else None)

    def graphql_header(request: Any) -> None:
        if urlsplit(request.url).path == "/graphql" and request.method == "POST":
            tab.authorizations.append(request.headers.get("authorization"))

    tab.page.on("request", graphql_header)
    return tab


async def run_graphiql(tab: Tab, base: str) -> str:
    """Open GraphiQL, run its default query with the run button, answer the result pane."""
    page = tab.page
    await page.goto(f"{base}/graphql")
    await page.click(".graphiql-execute-button")
    result = page.locator(".result-window")
    await result.get_by_text('"data"').wait_for()
    return await result.inner_text()


@pytest.fixture
async def tab(browser: Browser) -> AsyncIterator[Tab]:
    opened = await open_tab(browser)
    yield opened
    await opened.page.context.close()


@dataclass
class Demo:
    """The demo family, seeded through the API of a running `threadline serve`."""

    base: str
    family: DemoFamily
    gql: GraphQLClient

    async def lineage(self, thread: str, direction: str = "BOTH", depth: int = 10) -> Any:
        query = """query($id: ID!, $direction: LineageDirection!, $depth: Int!) {
          lineage(threadId: $id, direction: $direction, depth: $depth) {
            nodes { thread { id } } edges { from to relationship sourceRunOrdinal } } }"""
        data = await self.gql(query, id=thread, direction=direction, depth=depth)
        return data["lineage"]


# Deadlines are not what these tests check: a cold Neo4j on a busy machine may take longer
# than the default 5 s to answer the demo's first writes.
DB_TIMEOUT_S = "30"


@pytest.fixture(scope="module")
def browsed_api(neo4j_uri: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """An open `threadline serve` (workspace `default`) for the browser."""
    yield from serve(neo4j_uri, tmp_path_factory.mktemp("browsed"), DB_TIMEOUT_S=DB_TIMEOUT_S)


@pytest.fixture(scope="module")
async def demo(browsed_api: str, store: Store) -> AsyncIterator[Demo]:
    await wipe(store)
    async with httpx.AsyncClient(base_url=browsed_api, timeout=120) as http:
        gql = GraphQLClient(http)
        yield Demo(browsed_api, await seed_demo(typed_client(gql.http)), gql)


@dataclass
class Secured:
    base: str
    token: str


@pytest.fixture(scope="module")
def secured_api(neo4j_uri: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Secured]:
    """`threadline serve` with a tokens file: one token for the workspace `default`."""
    folder = tmp_path_factory.mktemp("secured")
    token = secrets.token_urlsafe(24)
    (folder / "tokens.toml").write_text(
        f'[[tokens]]\nname = "browser"\nsha256 = "{hashlib.sha256(token.encode()).hexdigest()}"\n'
        'scopes = ["read"]\nworkspace = "default"\n'
    )
    tokens = str(folder / "tokens.toml")
    for base in serve(neo4j_uri, folder, TOKENS_FILE=tokens, DB_TIMEOUT_S=DB_TIMEOUT_S):
        yield Secured(base, token)
