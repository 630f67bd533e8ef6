"""/readyz follows Neo4j: 503 with a reason while it is down, 200 once it answers again
(the first readiness of a new service waits for its warm-up: tests/integration/
test_serve_stages.py). Neo4j goes away here as the service sees it, by a cut link
(tests/support/link.py); tests/integration/test_fault.py kills and restarts a real one."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

import httpx
import pytest

from api.settings import Settings
from graph.store import Store
from tests.support.graphql import connect_test_store, make_app_client
from tests.support.link import Link, linked
from tests.support.served import USERS_DB_TIMEOUT_S


@pytest.fixture
async def link(clean_store: Store, neo4j_uri: str) -> AsyncIterator[Link]:
    async with linked(neo4j_uri) as link:
        yield link


@pytest.fixture
async def linked_store(link: Link) -> AsyncIterator[Store]:
    """A store of its own whose every connection to Neo4j goes through `link`, with the
    users' default request bound: a request while Neo4j is away is refused when that
    bound runs out, and the suite's own 30 s would be waited for."""
    store = connect_test_store(link.uri, timeout_s=USERS_DB_TIMEOUT_S)
    yield store
    await store.close()


@pytest.fixture
async def http(linked_store: Store) -> AsyncIterator[httpx.AsyncClient]:
    settings = Settings(db_timeout_s=USERS_DB_TIMEOUT_S)
    async with make_app_client(linked_store, settings) as client:
        yield client


async def test_readyz_follows_neo4j_without_restarting_the_api(
    http: httpx.AsyncClient, linked_store: Store, link: Link
) -> None:
    assert await statuses_until_ready(http)
    await link.cut()
    try:
        down = await http.get("/readyz")
        assert down.status_code == 503
        assert down.json()["status"] == "unavailable"
        assert "unavailable" in down.json()["reason"]
        assert not linked_store.warm_up.done, "a Neo4j that went away may come back with no plans"
        failed = await http.post("/graphql", json={"query": "mutation { createThread { id } }"})
        assert failed.json()["errors"][0]["extensions"]["code"] == "UNAVAILABLE"
    finally:
        await link.mend()
    # Ready as soon as Neo4j answers: a restarted Neo4j may have planned nothing, and the
    # service plans its statements again behind the requests instead of holding them.
    assert await statuses_until_ready(http) == ["ready"]
    assert await until(lambda: linked_store.warm_up.done), "the statements were not planned again"
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
