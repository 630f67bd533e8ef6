"""Neo4j Browser is served by the managed Neo4j (its jar is on the server's classpath)."""

from __future__ import annotations

import os

import httpx
import pytest

from graph.runtime.local_neo4j import LocalNeo4j

pytestmark = pytest.mark.process  # starts processes of its own

HTTP_URL_ENV = "THREADLINE_TEST_NEO4J_HTTP_URL"


@pytest.fixture
def neo4j_http_url(neo4j_server: LocalNeo4j | None) -> str:
    """The HTTP side of the test Neo4j: named by the env, else the managed server's port."""
    named = os.environ.get(HTTP_URL_ENV)
    if named:
        return named.rstrip("/")
    if neo4j_server is None:
        pytest.skip(f"an external test Neo4j: set {HTTP_URL_ENV} to check its Browser")
    return f"http://127.0.0.1:{neo4j_server.ports().http}"


def test_browser_page_is_served(neo4j_http_url: str) -> None:
    response = httpx.get(f"{neo4j_http_url}/browser/", timeout=10)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert "<title>Neo4j Browser</title>" in response.text
