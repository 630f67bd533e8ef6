"""/readyz follows Neo4j: 503 with a reason while it is down, 200 once it answers again
(the first readiness of a new service waits for its warm-up: tests/integration/
test_serve_stages.py)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

import httpx
import pytest

from api.settings import Settings
from graph.runtime.local_neo4j import LocalNeo4j
from graph.store import Store
from tests.support.graphql import make_app_client
from tests.support.served import USERS_DB_TIMEOUT_S


@pytest.fixture
async def http(clean_store: Store) -> AsyncIterator[httpx.AsyncClient]:
    """The app with the users' default request bound: a request while Neo4j is down is
    refused when that bound runs out, and the suite's own 30 s would be waited for."""
    async with make_app_client(clean_store, Settings(db_timeout_s=USERS_DB_TIMEOUT_S)) as client:
        yield client


async def test_readyz_follows_neo4j_without_restarting_the_api(
    http: httpx.AsyncClient, store: Store, neo4j_server: LocalNeo4j | None
) -> None:
    if neo4j_server is None:
        pytest.skip("needs the managed test server to stop and start it")
    assert await statuses_until_ready(http)
    await asyncio.to_thread(neo4j_server.stop)
    try:
        down = await http.get("/readyz")
        assert down.status_code == 503
        assert down.json()["status"] == "unavailable"
        assert "unavailable" in down.json()["reason"]
        failed = await http.post("/graphql", json={"query": "mutation { createThread { id } }"})
        assert failed.json()["errors"][0]["extensions"]["code"] == "UNAVAILABLE"
    finally:
        await asyncio.to_thread(neo4j_server.start)
    # Ready as soon as Neo4j answers: a restarted Neo4j has planned nothing, and the
    # service plans its statements again behind the requests instead of holding them.
    assert await statuses_until_ready(http) == ["ready"]
    assert await until(lambda: store.warm), "the statements were not planned again"
    created = await http.post("/graphql", json={"query": "mutation { createThread { id } }"})
    assert created.json()["data"]["createThread"]["id"]


async def until(condition: Callable[[], bool]) -> bool:
    for _ in range(600):
        if condition():
            return True
        await asyncio.sleep(0.2)
    return False


async def statuses_until_ready(http: httpx.AsyncClient) -> list[str]:
    """The /readyz statuses seen, polling until it says ready (or giving up)."""
    seen: list[str] = []
    for _ in range(600):
        status = (await http.get("/readyz")).json()["status"]
        if not seen or seen[-1] != status:
            seen.append(status)
        if status == "ready":
            return seen
        await asyncio.sleep(0.2)
    return []
