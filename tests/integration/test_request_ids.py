"""Request ids: one per request, in the response header, its log lines and its errors."""

from __future__ import annotations

import json
import logging

import httpx
import pytest

from api.process.logs import RequestIdFilter, json_formatter
from api.settings import Settings
from graph.store import Store
from tests.support.graphql import make_app_client

MISSING = 'mutation { startRun(threadId: "nope", provider: "codex", input: "x") { strategy } }'
INVALID = "{ nope }"  # refused by validation: no statement runs
THREADS = "{ threads { edges { node { id } } } }"


async def test_a_log_line_and_an_error_name_the_same_request(
    clean_store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.handler.addFilter(RequestIdFilter())
    # A box shared with other suites may answer a cold statement slowly; NOT_FOUND is asked.
    patient = Settings(db_timeout_s=60)
    with caplog.at_level(logging.DEBUG, logger="threadline.errors"):
        async with make_app_client(clean_store, patient) as http:
            answer = await http.post("/graphql", json={"query": MISSING})
    [error] = answer.json()["errors"]
    assert error["extensions"]["code"] == "NOT_FOUND"
    request_id = answer.headers["x-request-id"]
    assert error["extensions"]["requestId"] == request_id
    [record] = [r for r in caplog.records if r.name == "threadline.errors"]
    line = json.loads(json_formatter().format(record))
    assert line["request_id"] == request_id
    assert line["level"] == "DEBUG" and line["logger"] == "threadline.errors"
    assert "NOT_FOUND" in line["message"] and line["time"]


async def test_an_unavailable_answer_is_a_warning_line(
    clean_store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    """Neo4j not answering in time is the service's failure, not the client's: an operator
    sees it at the default level, with the request's id."""
    caplog.handler.addFilter(RequestIdFilter())
    hurried = Settings(db_timeout_s=0.001)  # every request's bound runs out before Neo4j answers
    with caplog.at_level(logging.INFO, logger="threadline.errors"):
        async with make_app_client(clean_store, hurried) as http:
            answer = await http.post("/graphql", json={"query": THREADS})
    [error] = answer.json()["errors"]
    assert error["extensions"]["code"] == "UNAVAILABLE"
    assert "did not answer within" in error["message"], error
    [record] = [r for r in caplog.records if r.name == "threadline.errors"]
    line = json.loads(json_formatter().format(record))
    assert line["level"] == "WARNING" and "UNAVAILABLE" in line["message"]
    assert line["request_id"] == answer.headers["x-request-id"]


async def test_a_sane_incoming_id_is_kept_and_any_other_replaced(http: httpx.AsyncClient) -> None:
    kept = await http.post(
        "/graphql", json={"query": INVALID}, headers={"X-Request-ID": "client-7f3a.1"}
    )
    assert kept.headers["x-request-id"] == "client-7f3a.1"
    assert kept.json()["errors"][0]["extensions"]["requestId"] == "client-7f3a.1"
    for insane in ("has spaces", "x" * 200, "{json}"):
        replaced = await http.post(
            "/graphql", json={"query": INVALID}, headers={"X-Request-ID": insane}
        )
        assert replaced.headers["x-request-id"] not in ("", insane)


async def test_requests_refused_before_execution_name_theirs_too(http: httpx.AsyncClient) -> None:
    first = await http.post(
        "/graphql", content=b"{not json", headers={"content-type": "application/json"}
    )
    second = await http.get("/healthz")
    assert first.status_code == 400
    assert first.json()["errors"][0]["extensions"]["requestId"] == first.headers["x-request-id"]
    assert second.headers["x-request-id"] != first.headers["x-request-id"]
