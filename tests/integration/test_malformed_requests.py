"""Every malformed request gets a GraphQL-shaped error with a code, never a 5xx or a trace.

Over real HTTP against separate `threadline serve` processes: one open, one with a
tokens file (where a request without a token learns only that it is unauthenticated).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from api.settings import Settings
from tests.support.served import serve
from tests.support.steps import tokens_file

pytestmark = pytest.mark.process  # starts processes of its own

JSON = {"content-type": "application/json"}
DEEP_VARIABLES = (
    '{"query": "{ providers { kind } }", "variables": ' + '{"x":' * 1000 + "1" + "}" * 1000 + "}"
)
ONE_QUERY = "{ providers { kind } }"

# name: (method, keyword arguments for httpx, expected status)
MALFORMED: dict[str, tuple[str, dict[str, Any], int]] = {
    "variables nested 1,000 deep": ("POST", {"content": DEEP_VARIABLES, "headers": JSON}, 400),
    "invalid UTF-8": ("POST", {"content": b'{"query": "\xff\xfe"}', "headers": JSON}, 400),
    "invalid JSON": ("POST", {"content": "{", "headers": JSON}, 400),
    "null body": ("POST", {"content": "null", "headers": JSON}, 400),
    "batched array": ("POST", {"json": [{"query": ONE_QUERY}]}, 400),
    "non-string query": ("POST", {"json": {"query": 1}}, 400),
    "non-object variables": ("POST", {"json": {"query": ONE_QUERY, "variables": [1]}}, 400),
    "unknown operationName": (
        "POST",
        {"json": {"query": "query A { providers { kind } }", "operationName": "B"}},
        400,
    ),
    "empty query": ("POST", {"json": {"query": ""}}, 400),
    "no query": ("POST", {"json": {}}, 400),
    "two operations, none named": (
        "POST",
        {"json": {"query": "query A { providers { kind } } mutation B { createThread { id } }"}},
        400,
    ),
    "text/plain": ("POST", {"content": ONE_QUERY, "headers": {"content-type": "text/plain"}}, 415),
    "form data": ("POST", {"data": {"query": ONE_QUERY}}, 415),
    "mutation over GET": ("GET", {"params": {"query": "mutation { createThread { id } }"}}, 400),
    "GET with invalid variables": (
        "GET",
        {"params": {"query": ONE_QUERY, "variables": "{"}},
        400,
    ),
    "PUT": ("PUT", {"json": {"query": ONE_QUERY}}, 405),
}
# Well-formed requests whose content is refused during execution: HTTP 200, coded error.
REFUSED_IN_EXECUTION = {
    "lone surrogate in an argument": {
        "content": '{"query": "mutation($t: String) { createThread(title: $t) { id } }", '
        '"variables": {"t": "a\\ud800b"}}',
        "headers": JSON,
    },
    "lone surrogate in the document": {
        "content": '{"query": "mutation { createThread(title: \\"a\\ud800b\\") { id } }"}',
        "headers": JSON,
    },
    "subscription over POST": {
        "json": {"query": 'subscription { threadEvents(threadId: "x") { id } }'}
    },
}
TOKENS = {"good-token": ("malformed", "write")}


@pytest.fixture(scope="module")
def open_api(neo4j_uri: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from serve(neo4j_uri, tmp_path_factory.mktemp("malformed-open"))


@pytest.fixture(scope="module")
def secured_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("malformed-secured")


@pytest.fixture(scope="module")
def secured_api(neo4j_uri: str, secured_folder: Path) -> Iterator[str]:
    tokens = str(tokens_file(secured_folder, TOKENS))
    yield from serve(neo4j_uri, secured_folder, TOKENS_FILE=tokens)


def coded(response: httpx.Response) -> list[str]:
    """The codes of a response's errors; fails on a 5xx or on an error without a code."""
    assert response.status_code < 500, response.text[:300]
    assert "Traceback" not in response.text
    body = response.json()
    assert isinstance(body, dict) and body.get("errors"), body
    codes = [error.get("extensions", {}).get("code") for error in body["errors"]]
    assert all(codes), body
    return codes


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_request_gets_a_coded_error(open_api: str, case: str) -> None:
    method, arguments, status = MALFORMED[case]
    response = httpx.request(method, f"{open_api}/graphql", timeout=30, **arguments)
    assert coded(response) == ["INVALID_INPUT"]
    assert response.status_code == status


@pytest.mark.parametrize("case", sorted(REFUSED_IN_EXECUTION))
def test_refused_content_gets_a_coded_error(open_api: str, case: str) -> None:
    response = httpx.post(f"{open_api}/graphql", timeout=30, **REFUSED_IN_EXECUTION[case])
    assert coded(response) == ["INVALID_INPUT"]


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_without_a_token_the_answer_is_unauthenticated(
    secured_api: str, secured_folder: Path, case: str
) -> None:
    method, arguments, _ = MALFORMED[case]
    response = httpx.request(method, f"{secured_api}/graphql", timeout=30, **arguments)
    assert coded(response) == ["UNAUTHENTICATED"]
    assert response.status_code == 401
    with_token = {**arguments, "headers": {**arguments.get("headers", {}), **BEARER}}
    assert coded(httpx.request(method, f"{secured_api}/graphql", **with_token)) == ["INVALID_INPUT"]


BEARER = {"Authorization": "Bearer good-token"}


def test_client_errors_leave_no_trace_in_the_log(secured_api: str, secured_folder: Path) -> None:
    for method, arguments, _ in MALFORMED.values():
        httpx.request(method, f"{secured_api}/graphql", timeout=30, **arguments)
    for arguments in REFUSED_IN_EXECUTION.values():
        headers = {**arguments.get("headers", {}), **BEARER}
        coded(httpx.post(f"{secured_api}/graphql", timeout=30, **{**arguments, "headers": headers}))
    log = (secured_folder / "serve.log").read_text()
    assert "Traceback" not in log and "internal error" not in log, log[-2000:]


def test_a_costly_query_is_refused_before_it_runs(open_api: str) -> None:
    fields = (
        "edges { node { runs { items { text } } providerThreads { handoffs { summaryText } } } }"
    )
    query = "{ " + " ".join(f"a{n}: threads(first: 200) {{ {fields} }}" for n in range(30)) + " }"
    response = httpx.post(f"{open_api}/graphql", json={"query": query}, timeout=30)
    assert coded(response) == ["INVALID_INPUT"]
    message = response.json()["errors"][0]["message"]
    assert "costs" in message and f"limit is {Settings().max_query_cost}" in message
    assert response.json().get("data") is None
    small = "{ threads(first: 5) { edges { node { runs { items { text } } } } } }"
    assert "errors" not in httpx.post(f"{open_api}/graphql", json={"query": small}).json()


def test_cost_counts_variables(open_api: str) -> None:
    page = "threads(first: $n) { edges { node { runs { items { text } } } } }"
    query = "query($n: Int) { " + " ".join(f"a{k}: {page}" for k in range(10)) + " }"
    few = httpx.post(f"{open_api}/graphql", json={"query": query, "variables": {"n": 2}})
    assert "errors" not in few.json()
    many = httpx.post(f"{open_api}/graphql", json={"query": query, "variables": {"n": 200}})
    assert coded(many) == ["INVALID_INPUT"]
    assert json.loads(many.text)["errors"][0]["message"].startswith("This query costs")
