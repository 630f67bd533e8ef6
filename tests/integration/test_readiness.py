"""/readyz follows Neo4j: 503 with a reason while it is down, 200 once it is back."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from graph.runtime.local_neo4j import LocalNeo4j


async def test_readyz_follows_neo4j_without_restarting_the_api(
    http: httpx.AsyncClient, neo4j_server: LocalNeo4j | None
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
    # A restarted Neo4j has planned nothing: not ready until the service has prepared
    # its statements, so the first requests after readiness are not slow.
    seen = await statuses_until_ready(http)
    assert seen[0] == "warming" and seen[-1] == "ready", seen


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
