"""GraphQL over HTTP to the letter: both media types, request errors under
application/graphql-response+json, 401 for a missing or unknown token on every endpoint,
and the spec's own audit suite (graphql-http's `auditServer`) against a served app."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from api.settings import Settings
from graph.store import Store
from tests.support.graphql import make_app_client
from tests.support.served import serve
from tests.support.steps import tokens_file

TOKEN = "audit-token"
TOKENS = {TOKEN: ("w", "write")}
SIGNED = {"Authorization": f"Bearer {TOKEN}"}
GRAPHQL_RESPONSE = "application/graphql-response+json"
AUDIT = Path(__file__).resolve().parents[1] / "http_audit"

REQUEST_ERRORS = {
    "parse": {"query": "{"},
    "validation": {"query": "{ notAField }"},
    "coercion": {"query": "query($id: ID!) { thread(id: $id) { id } }", "variables": {"id": None}},
}


@pytest.fixture
async def http(clean_store: Store, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    settings = Settings(tokens_file=tokens_file(tmp_path, TOKENS))
    async with make_app_client(clean_store, settings) as client:
        yield client


async def post(
    http: httpx.AsyncClient, body: dict[str, Any], accept: str | None, **headers: str
) -> httpx.Response:
    sent = {**SIGNED, **headers, **({"Accept": accept} if accept else {})}
    return await http.post("/graphql", json=body, headers=sent)


@pytest.mark.parametrize("kind", sorted(REQUEST_ERRORS))
async def test_a_request_error_is_400_without_data_under_graphql_response_json(
    http: httpx.AsyncClient, kind: str
) -> None:
    answer = await post(http, REQUEST_ERRORS[kind], GRAPHQL_RESPONSE)
    assert answer.status_code == 400, answer.text
    assert answer.headers["content-type"].startswith(GRAPHQL_RESPONSE)
    body = answer.json()
    assert "data" not in body
    assert body["errors"][0]["extensions"]["code"] == "INVALID_INPUT"


@pytest.mark.parametrize("kind", sorted(REQUEST_ERRORS))
async def test_application_json_keeps_200_and_null_data_for_request_errors(
    http: httpx.AsyncClient, kind: str
) -> None:
    for accept in ("application/json", None, "*/*"):
        answer = await post(http, REQUEST_ERRORS[kind], accept)
        assert answer.status_code == 200, answer.text
        assert answer.headers["content-type"].startswith("application/json")
        assert answer.json()["data"] is None


async def test_an_executed_operation_keeps_data_and_200_under_either_type(
    http: httpx.AsyncClient,
) -> None:
    """A field error comes after execution began: `data` (null for a non-null root
    field) is there, and the status is 200."""
    missing = {
        "query": 'mutation { startRun(threadId: "nope", provider: "codex", input: "x") '
        "{ run { id } } }"
    }
    for accept in (GRAPHQL_RESPONSE, "application/json"):
        answer = await post(http, missing, accept)
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert "data" in body
        assert body["errors"][0]["extensions"]["code"] == "NOT_FOUND", body
    fine = await post(http, {"query": "{ __typename }"}, GRAPHQL_RESPONSE)
    assert (fine.status_code, fine.json()) == (200, {"data": {"__typename": "Query"}})
    assert fine.headers["content-type"].startswith(GRAPHQL_RESPONSE)


async def test_the_preferred_type_wins_and_a_tie_keeps_application_json(
    http: httpx.AsyncClient,
) -> None:
    cases = {
        f"{GRAPHQL_RESPONSE}, application/json;q=0.9": GRAPHQL_RESPONSE,
        f"application/json;q=0.5, {GRAPHQL_RESPONSE}": GRAPHQL_RESPONSE,
        f"application/json, {GRAPHQL_RESPONSE}": "application/json",
        "text/html;q=0.1, application/*": "application/json",
        "image/png": "application/json",
        ";;nonsense": "application/json",
    }
    for accept, media in cases.items():
        answer = await post(http, {"query": "{ __typename }"}, accept)
        assert answer.headers["content-type"].startswith(media), accept


async def test_a_forbidden_operation_under_graphql_response_json_is_403(
    clean_store: Store, tmp_path: Path
) -> None:
    settings = Settings(tokens_file=tokens_file(tmp_path, {"reader": ("w", "read")}))
    async with make_app_client(clean_store, settings) as http:
        answer = await http.post(
            "/graphql",
            json={"query": "mutation { createThread { id } }"},
            headers={"Authorization": "Bearer reader", "Accept": GRAPHQL_RESPONSE},
        )
    assert answer.status_code == 403, answer.text
    assert "data" not in answer.json()
    assert answer.json()["errors"][0]["extensions"]["code"] == "FORBIDDEN"


@pytest.mark.parametrize("accept", [None, GRAPHQL_RESPONSE])
async def test_a_missing_or_unknown_token_is_401_with_the_coded_body_everywhere(
    http: httpx.AsyncClient, accept: str | None
) -> None:
    """The status alone tells a client it must sign in: a well-formed request as much as
    a malformed one, on /graphql (POST and GET), /mcp and /metrics."""
    wanted = {**({"Accept": accept} if accept else {})}
    for headers in (wanted, {**wanted, "Authorization": "Bearer wrong"}):
        answers = [
            await http.post("/graphql", json={"query": "{ __typename }"}, headers=headers),
            await http.post("/graphql", content=b"{not json", headers=headers),
            await http.get("/graphql", params={"query": "{ __typename }"}, headers=headers),
            await http.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            await http.get("/metrics", headers=headers),
        ]
        for answer in answers:
            assert answer.status_code == 401, (answer.request.url, answer.text)
            assert answer.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
    graphql = await http.post("/graphql", json={"query": "{ __typename }"}, headers=wanted)
    assert graphql.headers["content-type"].startswith(accept or "application/json")
    # GraphiQL's page itself opens without a token; the requests it sends need one.
    page = await http.get("/graphql", headers={"Accept": "text/html"})
    assert page.status_code == 200


@pytest.fixture(scope="module")
def audited_api(neo4j_uri: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("audit")
    yield from serve(neo4j_uri, folder, TOKENS_FILE=str(tokens_file(folder, TOKENS)))


@pytest.mark.process  # starts `threadline serve` and node
def test_the_graphql_http_audit_passes_with_no_error_and_no_warning(audited_api: str) -> None:
    node = shutil.which("node")
    assert node is not None, "node is needed (scripts/bootstrap dev installs the audit suite)"
    assert (AUDIT / "node_modules" / "graphql-http").is_dir(), "run scripts/bootstrap dev"
    done = subprocess.run(
        [node, str(AUDIT / "audit.mjs"), f"{audited_api}/graphql"],
        env={**os.environ, "THREADLINE_TOKEN": TOKEN},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 warnings, 0 errors" in done.stdout, done.stdout
