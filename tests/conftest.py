"""One real Neo4j per test session; every test starts from an empty graph."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from api.app import create_app
from api.settings import Settings, test_neo4j
from graph import queries
from graph.runtime.local_neo4j import LocalNeo4j
from graph.store import Store

TEST_URI_ENV = "THREADLINE_TEST_NEO4J_URI"


@pytest.fixture(scope="session")
def neo4j_server() -> Iterator[LocalNeo4j | None]:
    """The Neo4j named by THREADLINE_TEST_NEO4J_URI, else the managed test server."""
    if os.environ.get(TEST_URI_ENV):
        yield None
        return
    # Settings pick the folder and any chosen ports; taken default ports move to free ones,
    # so two clones can run their suites at once.
    settings = Settings()
    instance = test_neo4j(
        settings.home, settings.test_neo4j_bolt_port, settings.test_neo4j_http_port
    )
    was_running = instance.is_running()
    instance.start()
    yield instance
    if not was_running:
        instance.stop()


@pytest.fixture(scope="session")
def neo4j_uri(neo4j_server: LocalNeo4j | None) -> str:
    return os.environ.get(TEST_URI_ENV) or (neo4j_server.uri if neo4j_server else "")


def connect_test_store(neo4j_uri: str) -> Store:
    user, password = (
        os.environ.get("THREADLINE_TEST_NEO4J_USER", "neo4j"),
        os.environ.get("THREADLINE_TEST_NEO4J_PASSWORD"),
    )
    return Store.connect(neo4j_uri, (user, password) if password else None, timeout_s=5.0)


@pytest.fixture(scope="session")
async def store(neo4j_uri: str) -> AsyncIterator[Store]:
    store = connect_test_store(neo4j_uri)
    await store.migrate()
    await store.warm_up()  # every statement planned once, as a ready service has them
    yield store
    await store.close()


async def wipe(store: Store) -> None:
    async with store._driver.session() as session:  # implicit tx: CALL IN TRANSACTIONS
        await session.run(queries.load("testing/wipe"))  # type: ignore[arg-type]


@pytest.fixture
async def clean_store(store: Store) -> Store:
    await wipe(store)
    return store


class GraphQLClient:
    """Posts GraphQL documents to the real app, which talks to the real Neo4j."""

    def __init__(self, http: httpx.AsyncClient) -> None:
        self.http = http

    async def post(
        self, query: str, headers: dict[str, str] | None = None, **variables: Any
    ) -> dict[str, Any]:
        response = await self.http.post(
            "/graphql", json={"query": query, "variables": variables}, headers=headers or {}
        )
        assert response.status_code < 500, response.text
        body: dict[str, Any] = response.json()
        return body

    async def __call__(self, query: str, **variables: Any) -> dict[str, Any]:
        body = await self.post(query, **variables)
        assert not body.get("errors"), body["errors"]
        data: dict[str, Any] = body["data"]
        return data

    async def error(self, query: str, **variables: Any) -> dict[str, Any]:
        """The first error of a request that must fail."""
        body = await self.post(query, **variables)
        assert body.get("errors"), f"expected an error, got {body}"
        error: dict[str, Any] = body["errors"][0]
        return error


@asynccontextmanager
async def make_app_client(
    store: Store, settings: Settings | None = None, *, raise_app_exceptions: bool = True
) -> AsyncIterator[httpx.AsyncClient]:
    """The app in-process, its lifespan running, on the test Neo4j. Without
    `raise_app_exceptions`, an exception that escapes the app is answered as a server
    would answer it (HTTP 500) instead of raised in the test."""
    app = create_app(settings or Settings(), store=store)
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=raise_app_exceptions)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://test") as client,
    ):
        yield client


@pytest.fixture
async def http(clean_store: Store) -> AsyncIterator[httpx.AsyncClient]:
    async with make_app_client(clean_store) as client:
        yield client


@pytest.fixture
async def gql(http: httpx.AsyncClient) -> GraphQLClient:
    return GraphQLClient(http)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def serve(neo4j_uri: str, folder: Path, **settings: str) -> Iterator[str]:
    """`threadline serve` as a separate process on the test Neo4j: real HTTP, real uvicorn,
    once /readyz says ready.

    `settings` are extra THREADLINE_* variables, e.g. TOKENS_FILE. Yields the base URL.
    """
    with served(neo4j_uri, folder, **settings) as (base, _):
        yield base


@contextmanager
def served(
    neo4j_uri: str, folder: Path, **settings: str
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`serve`, with the `threadline serve` process itself."""
    port = free_port()
    env = {
        **os.environ,
        "THREADLINE_NEO4J_URI": neo4j_uri,
        "THREADLINE_PORT": str(port),
        "THREADLINE_HOST": "127.0.0.1",
        "THREADLINE_DB_TIMEOUT_S": "5",
        **{f"THREADLINE_{key}": value for key, value in settings.items()},
    }
    password = os.environ.get("THREADLINE_TEST_NEO4J_PASSWORD")
    if password:
        env["THREADLINE_NEO4J_PASSWORD"] = password
    log = (folder / "serve.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "api.cli", "serve"], env=env, stdout=log, stderr=subprocess.STDOUT
    )
    base = f"http://127.0.0.1:{port}"
    # Ready, as a deployment's readiness probe waits: until the warm-up has planned the
    # statements, requests are served but may take seconds (a 5 s budget then runs out).
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/readyz", timeout=5).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    else:
        process.kill()
        raise RuntimeError("threadline serve did not come up")
    try:
        yield base, process
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()


@pytest.fixture(scope="module")
def live_api(neo4j_uri: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """An open `threadline serve` (workspace `default`) on the test Neo4j."""
    yield from serve(neo4j_uri, tmp_path_factory.mktemp("live"))


@pytest.fixture
async def live(live_api: str, clean_store: Store) -> AsyncIterator[GraphQLClient]:
    limits = httpx.Limits(max_connections=50)
    async with httpx.AsyncClient(base_url=live_api, timeout=60, limits=limits) as http:
        yield GraphQLClient(http)


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    """A THREADLINE_HOME of its own whose jar folder is the suite's (a symlink)."""
    jars = test_neo4j(Settings().home)
    jars.fetch_jars()
    root = tmp_path / "home"
    (root / "neo4j").mkdir(parents=True)
    (root / "neo4j" / jars.lib_dir.name).symlink_to(jars.lib_dir)
    yield root
    # A non-throwaway instance preallocates large transaction logs: do not keep them.
    shutil.rmtree(root, ignore_errors=True)
