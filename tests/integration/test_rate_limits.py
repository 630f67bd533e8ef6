"""Per-token rate limits: 429 with Retry-After and RATE_LIMITED over HTTP, an `error`
message or a 4429 close on a websocket, one token's flood never another's, each refusal
in the audit log."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets

from api.settings import Settings
from graph.store import Store
from tests.support.graphql import make_app_client
from tests.support.served import serve
from tests.support.tokens import audit_lines, token_entry

TYPENAME = {"query": "{ __typename }"}
SUBSCRIBE = "subscription($id: ID!) { threadEvents(threadId: $id) { type } }"


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def write_tokens(folder: Path) -> Path:
    tokens = folder / "tokens.toml"
    tokens.write_text(
        token_entry("flood", "flood-token")
        + token_entry("calm", "calm-token")
        + token_entry("tight", "tight-token", f"rps = {SLOW_RPS}\nburst = 3")
        + token_entry("socket", "socket-token")
    )
    return tokens


# The sliding window counter's windows are aligned to the clock: a window's turn falling
# between a test's requests lets the next one through. A window of 58 days (5 requests,
# one per 11.6 days) makes that chance about one in a million per test.
SLOW_RPS = 5 / 5_000_000
SLOW = {"rate_limit_rps": SLOW_RPS, "rate_limit_burst": 5}


def limited_settings(folder: Path, **rate: float) -> Settings:
    return Settings(
        tokens_file=write_tokens(folder), audit_log=folder / "audit.log", **{**SLOW, **rate}
    )


async def test_over_the_limit_is_429_with_retry_after_for_that_token_only(
    clean_store: Store, tmp_path: Path
) -> None:
    async with make_app_client(clean_store, limited_settings(tmp_path)) as http:
        passed = [
            (await http.post("/graphql", json=TYPENAME, headers=bearer("flood-token")))
            for _ in range(5)
        ]
        assert [r.status_code for r in passed] == [200] * 5
        refused = await http.post("/graphql", json=TYPENAME, headers=bearer("flood-token"))
        assert refused.status_code == 429
        retry_after = int(refused.headers["retry-after"])
        assert 1 <= retry_after <= 5_000_000
        (error,) = refused.json()["errors"]
        answering = refused.headers["x-request-id"]
        assert error["extensions"] == {
            "code": "RATE_LIMITED",
            "retryAfter": retry_after,
            "requestId": answering,
        }
        assert "flood" in error["message"]
        mcp = await http.post("/mcp", json={}, headers=bearer("flood-token"))
        assert mcp.status_code == 429, "/mcp counts against the same limit"

        calm = await http.post("/graphql", json=TYPENAME, headers=bearer("calm-token"))
        assert calm.status_code == 200, "one token's flood is not another's"
        tight = [
            (await http.post("/graphql", json=TYPENAME, headers=bearer("tight-token"))).status_code
            for _ in range(4)
        ]
        assert tight == [200, 200, 200, 429], "the tokens file's own burst"
        unknown = await http.post("/graphql", json=TYPENAME, headers=bearer("nobody"))
        assert unknown.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"

    limited = [
        line for line in audit_lines(tmp_path / "audit.log") if line["event"] == "rate_limited"
    ]
    assert Counter((line["token"], line["path"]) for line in limited) == {
        ("flood", "/graphql"): 1,
        ("flood", "/mcp"): 1,
        ("tight", "/graphql"): 1,
    }
    assert all(line["workspace"] == "w" for line in limited)


async def test_the_default_limit_stops_a_flood_of_one_token_only(
    clean_store: Store, tmp_path: Path
) -> None:
    """1,500 quick requests from one token, all at once, at the default settings: the
    burst runs, the rest are refused (MOST_HELD of them after the pause)."""
    settings = Settings(tokens_file=write_tokens(tmp_path), audit_log=tmp_path / "audit.log")
    async with make_app_client(clean_store, settings) as http:
        flood = [
            http.post("/graphql", json=TYPENAME, headers=bearer("flood-token")) for _ in range(1500)
        ]
        statuses = Counter(response.status_code for response in await asyncio.gather(*flood))
        calm = await http.post("/graphql", json=TYPENAME, headers=bearer("calm-token"))
    assert set(statuses) == {200, 429}, statuses
    assert statuses[200] < 300, "about the burst (200), and what the window let through"
    assert calm.status_code == 200


async def test_an_open_service_limits_its_workspace(clean_store: Store, tmp_path: Path) -> None:
    async with make_app_client(clean_store, Settings(**SLOW)) as http:
        codes = [(await http.post("/graphql", json=TYPENAME)).status_code for _ in range(6)]
    assert codes == [200] * 5 + [429]


# ---- websockets, on a served process --------------------------------------------------


@pytest.fixture(scope="module")
def limited_api(
    neo4j_uri: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, Path]]:
    folder = tmp_path_factory.mktemp("limited")
    tokens = write_tokens(folder)
    audit = folder / "audit.log"
    for base in serve(
        neo4j_uri,
        folder,
        TOKENS_FILE=str(tokens),
        AUDIT_LOG=str(audit),
        RATE_LIMIT_RPS=str(SLOW_RPS),
        RATE_LIMIT_BURST="5",
    ):
        yield base, audit


def socket(base: str, token: str) -> Any:
    return websockets.connect(
        base.replace("http://", "ws://") + "/graphql",
        subprotocols=[websockets.Subprotocol("graphql-transport-ws")],
        additional_headers=bearer(token),
    )


async def receive(ws: Any) -> dict[str, Any]:
    message: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 30))
    return message


async def error_code(ws: Any, op: str) -> str:
    """The code of the error operation `op` ends with: an `error` message, or a `next`
    whose payload has errors (a subscription's resolver refused)."""
    while True:
        message = await receive(ws)
        if message.get("id") != op or message["type"] == "complete":
            continue
        payload = message["payload"]
        errors = payload if message["type"] == "error" else payload.get("errors")
        assert errors, message
        return str(errors[0]["extensions"]["code"])


@pytest.mark.process
async def test_websocket_connections_and_subscriptions_count(
    limited_api: tuple[str, Path],
) -> None:
    base, audit = limited_api
    async with socket(base, "socket-token") as ws:
        await ws.send(json.dumps({"type": "connection_init", "payload": {}}))  # 1
        assert (await receive(ws))["type"] == "connection_ack"
        codes = []
        for n in range(5):  # 2 to 5 run (the thread is unknown), the 6th is over the limit
            payload = {"query": SUBSCRIBE, "variables": {"id": "no-such-thread"}}
            await ws.send(json.dumps({"id": str(n), "type": "subscribe", "payload": payload}))
            codes.append(await error_code(ws, str(n)))
        assert codes == ["NOT_FOUND"] * 4 + ["RATE_LIMITED"]
    async with socket(base, "socket-token") as ws:
        await ws.send(json.dumps({"type": "connection_init", "payload": {}}))
        with pytest.raises(websockets.exceptions.ConnectionClosed) as closed:
            await receive(ws)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4429
    limited = [line for line in audit_lines(audit) if line["event"] == "rate_limited"]
    assert [line["token"] for line in limited] == ["socket", "socket"]
