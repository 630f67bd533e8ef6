"""The test suite's GraphQL clients and its way to the test Neo4j: the real app in-process,
on the real Neo4j."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx

from api.app import create_app
from api.process.telemetry import Telemetry
from api.settings import Settings
from graph import queries
from graph.store import Store


def connect_test_store(neo4j_uri: str, timeout_s: float = 30.0) -> Store:
    user, password = (
        os.environ.get("THREADLINE_TEST_NEO4J_USER", "neo4j"),
        os.environ.get("THREADLINE_TEST_NEO4J_PASSWORD"),
    )
    # A loaded box can hold one transaction for seconds; the bound itself is tested with
    # stores of shorter bounds (test_store_bounds, test_commit_lost), not by every test.
    return Store.connect(neo4j_uri, (user, password) if password else None, timeout_s=timeout_s)


async def wipe(store: Store) -> None:
    async with store._driver.session() as session:  # implicit tx: CALL IN TRANSACTIONS
        await session.run(queries.load("testing/wipe"))  # type: ignore[arg-type]


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

    async def refused(self, code: str, query: str, **variables: Any) -> dict[str, Any]:
        """The first error of a request that must fail with `code` (extensions.code)."""
        error = await self.error(query, **variables)
        assert error["extensions"]["code"] == code, error
        return error


@asynccontextmanager
async def make_app_client(
    store: Store,
    settings: Settings | None = None,
    *,
    raise_app_exceptions: bool = True,
    tracing: Telemetry | None = None,
) -> AsyncIterator[httpx.AsyncClient]:
    """The app in-process, its lifespan running, on the test Neo4j. Without
    `raise_app_exceptions`, an exception that escapes the app is answered as a server
    would answer it (HTTP 500) instead of raised in the test. `tracing`: where its spans
    go (tests/support/traces.py)."""
    app = create_app(settings or Settings(), store=store, tracing=tracing)
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=raise_app_exceptions)
    async with (
        app.router.lifespan_context(app),
        # The app answers only to its own names (api/http/hosts.py).
        httpx.AsyncClient(transport=transport, base_url="http://localhost") as client,
    ):
        yield client


@asynccontextmanager
async def with_claude_cap(store: Store, folder: Path, cap: int) -> AsyncIterator[GraphQLClient]:
    """The app in-process with claude's cap on one handoff at `cap` tokens (a providers
    file written in `folder`): a handoff that must leave things out."""
    providers = folder / "providers.toml"
    providers.write_text(f"[providers.claude]\nmax_handoff_tokens = {cap}\n")
    async with make_app_client(store, Settings(providers_file=providers)) as http:
        yield GraphQLClient(http)
