"""The generated Python client without a service: what it sends, and the coded errors the
console reports."""

from __future__ import annotations

import json

import httpx
import pytest
from threadline_client import RunItemInput, RunItemKind
from threadline_client.connect import graphql_url

from api.cli.demo_client import DemoError, coded_errors, typed_client


def answering(body: object, sent: list[dict[str, object]]) -> httpx.AsyncClient:
    def handle(request: httpx.Request) -> httpx.Response:
        sent.append(
            {
                "url": str(request.url),
                "auth": request.headers.get("authorization"),
                **json.loads(request.content),
            }
        )
        return httpx.Response(200, json=body)

    return httpx.AsyncClient(
        transport=httpx.MockTransport(handle),
        base_url="http://service:8000",
        headers={"Authorization": "Bearer secret"},
    )


async def test_an_operation_is_posted_with_camel_case_variables_and_the_token() -> None:
    sent: list[dict[str, object]] = []
    http = answering(
        {"data": {"completeRun": {"id": "run_1", "status": "COMPLETED", "providerThread": None}}},
        sent,
    )
    async with http:
        done = await typed_client(http).complete_run(
            run_id="run_1", items=[RunItemInput(kind=RunItemKind.DECISION, text="d")]
        )
    assert done.complete_run.status.value == "COMPLETED"
    [request] = sent
    assert request["url"] == "http://service:8000/graphql"
    assert request["auth"] == "Bearer secret"
    assert request["operationName"] == "CompleteRun"
    assert request["variables"] == {"runId": "run_1", "items": [{"kind": "DECISION", "text": "d"}]}


async def test_a_graphql_error_reaches_the_console_with_its_code() -> None:
    body = {"data": None, "errors": [{"message": "No thread", "extensions": {"code": "NOT_FOUND"}}]}
    http = answering(body, [])
    with pytest.raises(DemoError, match="NOT_FOUND: No thread"):
        async with http, coded_errors(typed_client(http)) as client:
            await client.merge_back(fork_thread_id="nope")


def test_connect_takes_the_base_url_or_the_graphql_address() -> None:
    for given in (
        "http://h:8000",
        "http://h:8000/",
        "http://h:8000/graphql",
        "http://h:8000/graphql/",
    ):
        assert graphql_url(given) == "http://h:8000/graphql", given
