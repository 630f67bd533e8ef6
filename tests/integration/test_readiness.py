"""/readyz follows Neo4j: 503 with a reason while it is down, 200 once it is back."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from graph.local_neo4j import LocalNeo4j


async def test_readyz_follows_neo4j_without_restarting_the_api(
    http: httpx.AsyncClient, neo4j_server: LocalNeo4j | None
) -> None:
    if neo4j_server is None:
        pytest.skip("needs the managed test server to stop and start it")
    assert (await http.get("/readyz")).status_code == 200
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
    assert (await http.get("/readyz")).status_code == 200
