"""Hostile and malformed requests: never a 5xx, never a stack trace, always a code.

Hypothesis generates the requests; they go over real HTTP to a separate
`threadline serve` process on the test Neo4j.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

# INTERNAL would mean bad input reached code that did not expect it: a bug.
CODES = {
    "UNAUTHENTICATED",
    "FORBIDDEN",
    "NOT_FOUND",
    "INVALID_INPUT",
    "CONFLICT",
    "UNSUPPORTED_TRANSFER",
}
EXAMPLES = 300
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
SENT = {"requests": 0}

VALID = [
    'mutation { createThread(title: "t") { id title } }',
    "mutation($t: ID!, $p: String!, $i: String!) { startRun(threadId: $t, provider: $p, "
    "input: $i) { strategy contextText run { id ordinal } } }",
    "mutation($r: ID!, $items: [RunItemInput!]) { completeRun(runId: $r, items: $items) { id } }",
    "query($id: ID!) { thread(id: $id) { id runs { ordinal items { kind } } coverage "
    "{ coveredRunOrdinals } } }",
    "query($id: ID!, $d: LineageDirection, $n: Int) { lineage(threadId: $id, direction: $d, "
    "depth: $n) { nodes { depth } } }",
    "query($f: Int, $a: String) { threads(first: $f, after: $a) { edges { cursor } } }",
    "mutation($t: ID!, $at: SourcePointInput!) { forkThread(sourceThreadId: $t, at: $at) { id } }",
    "query($t: ID!, $p: String!) { explainStartContext(threadId: $t, provider: $p) { strategy } }",
    "mutation($t: ID!, $n: Int!) { rollbackThread(threadId: $t, toRunOrdinal: $n) "
    "{ thread { id } } }",
    "query($t: ID!, $a: ID, $f: Int) { events(threadId: $t, after: $a, first: $f) { type } }",
]

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=50)
    | st.just("x" * 200_000),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5)
    ),
    max_leaves=20,
)
CONTENT_TYPES = [
    "application/json",
    "application/json; charset=latin-1",
    "application/graphql",
    "text/plain",
    "multipart/form-data",
    "application/x-www-form-urlencoded",
    "",
]
variables = st.dictionaries(
    st.sampled_from(["t", "p", "i", "r", "items", "id", "d", "n", "f", "a", "at"]),
    json_values,
    max_size=6,
)


@pytest.fixture(scope="module")
def client(live_api: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=live_api, timeout=30) as http:
        yield http


@pytest.fixture(autouse=True)
def sends_its_examples() -> Iterator[None]:
    """Each fuzz test, whichever runs and in whatever order, sent most of its examples:
    a strategy that quietly produced a handful would test nothing."""
    before = SENT["requests"]
    yield
    assert SENT["requests"] - before >= EXAMPLES // 2, SENT["requests"] - before


def check(response: Any) -> None:
    """No 5xx, no trace; every error, and every answer that is not a 200, carries a code."""
    SENT["requests"] += 1
    assert response.status_code < 500, response.text[:500]
    assert "Traceback" not in response.text and 'File "' not in response.text
    if response.headers.get("content-type", "").startswith("text/html"):
        assert response.status_code == 200  # GraphiQL
        return
    body = response.json()
    assert isinstance(body, dict), body
    errors = body.get("errors") or []
    assert errors or response.status_code == 200, body
    for error in errors:
        assert error.get("extensions", {}).get("code") in CODES, error


def post(client: httpx.Client, payload: Any) -> None:
    check(client.post("/graphql", json=payload))


@FUZZ
@given(st.text(max_size=300))
def test_random_documents(client: httpx.Client, document: str) -> None:
    post(client, {"query": document})


@FUZZ
@given(
    st.sampled_from(VALID),
    st.lists(st.tuples(st.integers(0, 400), st.text(max_size=3)), max_size=4),
)
def test_mutilated_documents(
    client: httpx.Client, document: str, edits: list[tuple[int, str]]
) -> None:
    for position, text in edits:
        cut = position % (len(document) + 1)
        document = document[:cut] + text + document[cut + 1 :]
    post(client, {"query": document})


@FUZZ
@given(st.sampled_from(VALID), variables)
def test_hostile_variables(client: httpx.Client, document: str, values: dict[str, Any]) -> None:
    post(client, {"query": document, "variables": values})


@FUZZ
@given(json_values)
def test_malformed_bodies(client: httpx.Client, body: Any) -> None:
    check(
        client.post(
            "/graphql", content=json.dumps(body), headers={"content-type": "application/json"}
        )
    )


@FUZZ
@given(st.binary(max_size=200), st.sampled_from(CONTENT_TYPES))
def test_raw_bodies_and_content_types(client: httpx.Client, body: bytes, kind: str) -> None:
    check(client.post("/graphql", content=body, headers={"content-type": kind}))


@FUZZ
@given(st.integers(1, 3000), st.sampled_from(["[", '{"a":']), st.booleans())
def test_deep_nesting(client: httpx.Client, depth: int, opener: str, as_variables: bool) -> None:
    closer = "]" if opener == "[" else "}"
    nested = opener * depth + "1" + closer * depth
    body = (
        '{"query": "{ providers { kind } }", "variables": {"v": ' + nested + "}}"
        if as_variables
        else nested
    )
    check(client.post("/graphql", content=body, headers={"content-type": "application/json"}))


@FUZZ
@given(
    st.sampled_from(VALID),
    st.dictionaries(st.sampled_from(["t", "p", "id", "n"]), st.text(max_size=20), max_size=3),
    st.sampled_from(["GET", "PUT", "DELETE", "PATCH"]),
)
def test_other_methods(
    client: httpx.Client, document: str, values: dict[str, Any], method: str
) -> None:
    params = {"query": document, "variables": json.dumps(values)}
    check(client.request(method, "/graphql", params=params, headers={"accept": "application/json"}))


@FUZZ
@given(st.lists(st.sampled_from(VALID), min_size=2, max_size=4), st.booleans())
def test_several_operations(client: httpx.Client, documents: list[str], batched: bool) -> None:
    named = [
        d.replace("mutation", f"mutation M{n}", 1).replace("query", f"query Q{n}", 1)
        for n, d in enumerate(documents)
    ]
    payload: Any = [{"query": d} for d in documents] if batched else {"query": " ".join(named)}
    post(client, payload)


@FUZZ
@given(
    st.sampled_from(VALID),
    st.text(
        alphabet=st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), min_size=1, max_size=3
    ),
)
def test_lone_surrogates(client: httpx.Client, document: str, junk: str) -> None:
    values = {name: f"a{junk}b" for name in ("t", "p", "i", "r", "id", "a")}
    body = json.dumps({"query": document, "variables": values})  # \\udXXX escapes
    check(client.post("/graphql", content=body, headers={"content-type": "application/json"}))
