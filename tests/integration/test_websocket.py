"""A served API's connections: threadEvents over a real websocket (graphql-transport-ws
only, events as they commit), and HTTP connections kept alive longer than clients keep them."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from contextlib import AsyncExitStack
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
import websockets

from tests.support.graphql import GraphQLClient
from tests.support.served import serve
from tests.support.steps import new_thread, tokens_file

pytestmark = pytest.mark.process  # starts processes of its own

SUBSCRIBE = "subscription($id: ID!) { threadEvents(threadId: $id) { type threadId } }"


def ws_url(live: GraphQLClient) -> str:
    return str(live.http.base_url).replace("http://", "ws://").rstrip("/") + "/graphql"


async def receive(ws: Any) -> dict[str, Any]:
    message: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 15))
    return message


async def test_events_stream_over_graphql_transport_ws(live: GraphQLClient) -> None:
    thread = await new_thread(live)
    async with websockets.connect(ws_url(live), subprotocols=["graphql-transport-ws"]) as ws:
        await ws.send(json.dumps({"type": "connection_init"}))
        assert (await receive(ws))["type"] == "connection_ack"
        await ws.send(
            json.dumps(
                {
                    "id": "1",
                    "type": "subscribe",
                    "payload": {"query": SUBSCRIBE, "variables": {"id": thread}},
                }
            )
        )
        first = await receive(ws)
        assert first["payload"]["data"]["threadEvents"]["type"] == "thread.created"
        await live("mutation($id: ID!) { requestCleanContext(threadId: $id) { id } }", id=thread)
        second = await receive(ws)
        assert second["payload"]["data"]["threadEvents"]["type"] == "thread.cleanContextRequested"
        await ws.send(json.dumps({"id": "1", "type": "complete"}))


async def test_an_idle_connection_outlives_a_clients_pool(live_api: str) -> None:
    """httpx keeps an idle pooled connection 5 s, as long as uvicorn's default: a request sent
    just as the service closed it got a read error. The service keeps it longer."""
    url = urlsplit(live_api)
    reader, writer = await asyncio.open_connection(url.hostname, url.port)
    request = f"GET /healthz HTTP/1.1\r\nHost: {url.netloc}\r\n\r\n".encode()
    try:
        for pause_s in (6.0, 0.0):
            writer.write(request)
            assert (await read_response(reader)).startswith(b"HTTP/1.1 200")
            await asyncio.sleep(pause_s)
    finally:
        writer.close()


async def read_response(reader: asyncio.StreamReader) -> bytes:
    """One HTTP/1.1 response with a Content-Length, read whole; its status line returned."""
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 15)
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    await reader.readexactly(length)
    return head.split(b"\r\n", 1)[0]


async def test_unknown_thread_subscription_is_not_found(live: GraphQLClient) -> None:
    async with websockets.connect(
        ws_url(live),
        subprotocols=["graphql-transport-ws"],
        additional_headers={"X-Request-ID": "socket-1"},
    ) as ws:
        assert ws.response is not None and ws.response.headers["X-Request-ID"] == "socket-1"
        await ws.send(json.dumps({"type": "connection_init"}))
        await receive(ws)
        await ws.send(
            json.dumps(
                {
                    "id": "1",
                    "type": "subscribe",
                    "payload": {"query": SUBSCRIBE, "variables": {"id": "nope"}},
                }
            )
        )
        answer = await receive(ws)
        errors = answer["payload"] if answer["type"] == "error" else answer["payload"]["errors"]
        assert errors[0]["extensions"]["code"] == "NOT_FOUND"
        assert errors[0]["extensions"]["requestId"] == "socket-1"  # the connection's


async def test_a_subscription_that_does_not_parse_closes_with_its_syntax_error(
    live: GraphQLClient,
) -> None:
    """graphql-transport-ws's rule for a malformed message (it got `complete` and the
    server logged a traceback); a document that parses but is refused gets a coded error
    and the connection stays."""
    async with websockets.connect(ws_url(live), subprotocols=["graphql-transport-ws"]) as ws:
        await ws.send(json.dumps({"type": "connection_init"}))
        await receive(ws)
        unknown = 'subscription { threadEvents(threadId: "t") { nope } }'
        await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": {"query": unknown}}))
        refused = await receive(ws)
        assert (refused["id"], refused["type"]) == ("1", "error"), refused
        assert refused["payload"][0]["extensions"]["code"] == "INVALID_INPUT"
        broken = "subscription { threadEvents(threadId: ) { type } }"
        await ws.send(json.dumps({"id": "2", "type": "subscribe", "payload": {"query": broken}}))
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await receive(ws)
    assert closed.value.rcvd is not None
    assert closed.value.rcvd.code == 4400
    assert "Syntax Error" in closed.value.rcvd.reason


async def test_legacy_graphql_ws_protocol_is_refused(live: GraphQLClient) -> None:
    with pytest.raises(websockets.exceptions.ConnectionClosedError) as closed:
        async with websockets.connect(ws_url(live), subprotocols=["graphql-ws"]) as ws:
            await ws.send(json.dumps({"type": "connection_init"}))
            await asyncio.wait_for(ws.recv(), 5)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4406


TOKENS = {"ws-token": ("ws-w", "write")}
SUBSCRIPTIONS_PER_CONNECTION = 2
CONNECTIONS_PER_TOKEN = 2


@pytest.fixture(scope="module")
def secured_ws(neo4j_uri: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("ws")
    yield from serve(
        neo4j_uri,
        folder,
        TOKENS_FILE=str(tokens_file(folder, TOKENS)),
        MAX_SUBSCRIPTIONS_PER_CONNECTION=str(SUBSCRIPTIONS_PER_CONNECTION),
        MAX_CONNECTIONS_PER_TOKEN=str(CONNECTIONS_PER_TOKEN),
    )


def socket(base: str, headers: dict[str, str] | None = None) -> Any:
    url = base.replace("http://", "ws://") + "/graphql"
    return websockets.connect(
        url,
        subprotocols=[websockets.Subprotocol("graphql-transport-ws")],
        additional_headers=headers or {},
    )


async def init(ws: Any, payload: dict[str, Any] | None = None) -> None:
    await ws.send(json.dumps({"type": "connection_init", "payload": payload or {}}))


async def closed_with(ws: Any) -> int | None:
    with pytest.raises(websockets.exceptions.ConnectionClosed) as closed:
        await asyncio.wait_for(ws.recv(), 10)
    return closed.value.rcvd.code if closed.value.rcvd else None


async def subscribe(ws: Any, op: str, thread: str) -> None:
    message = {"query": SUBSCRIBE, "variables": {"id": thread}}
    await ws.send(json.dumps({"id": op, "type": "subscribe", "payload": message}))


async def new_secured_thread(base: str) -> str:
    async with httpx.AsyncClient(base_url=base, headers=BEARER) as http:
        body = (
            await http.post("/graphql", json={"query": "mutation { createThread { id } }"})
        ).json()
    return str(body["data"]["createThread"]["id"])


BEARER = {"Authorization": "Bearer ws-token"}


async def test_browser_sends_its_token_in_connection_init(secured_ws: str) -> None:
    thread = await new_secured_thread(secured_ws)
    async with socket(secured_ws) as ws:
        await init(ws, {"Authorization": "Bearer ws-token"})
        assert (await receive(ws))["type"] == "connection_ack"
        await subscribe(ws, "1", thread)
        first = await receive(ws)
        assert first["payload"]["data"]["threadEvents"]["type"] == "thread.created"


@pytest.mark.parametrize("payload", [{}, {"Authorization": "Bearer not-a-token"}])
async def test_unauthenticated_connection_is_closed_at_init(
    secured_ws: str, payload: dict[str, str]
) -> None:
    async with socket(secured_ws) as ws:
        await init(ws, payload)
        assert await closed_with(ws) == 4403


async def test_a_bad_header_token_is_not_rescued_by_the_payload(secured_ws: str) -> None:
    async with socket(secured_ws, {"Authorization": "Bearer wrong"}) as ws:
        await init(ws, {"Authorization": "Bearer ws-token"})
        assert await closed_with(ws) == 4403


async def test_subscriptions_per_connection_are_limited_with_a_code(secured_ws: str) -> None:
    thread = await new_secured_thread(secured_ws)
    async with socket(secured_ws, BEARER) as ws:
        await init(ws)
        await receive(ws)
        for n in range(SUBSCRIPTIONS_PER_CONNECTION):
            await subscribe(ws, str(n), thread)
            assert (await receive(ws))["type"] == "next"
        await subscribe(ws, "over", thread)
        refused = await receive(ws)
        assert (refused["id"], refused["type"]) == ("over", "error")
        assert refused["payload"][0]["extensions"]["code"] == "INVALID_INPUT"


async def test_connections_per_token_are_limited(secured_ws: str) -> None:
    async with AsyncExitStack() as stack:
        for _ in range(CONNECTIONS_PER_TOKEN):
            ws = await stack.enter_async_context(socket(secured_ws, BEARER))
            await init(ws)
            assert (await receive(ws))["type"] == "connection_ack"
        async with socket(secured_ws, BEARER) as extra:
            await init(extra)
            assert await closed_with(extra) == 4429
    # Closed connections give their slots back.
    async with socket(secured_ws, BEARER) as ws:
        await init(ws)
        assert (await receive(ws))["type"] == "connection_ack"


async def test_deeply_nested_connection_init_gets_a_close_frame(secured_ws: str) -> None:
    async with socket(secured_ws, BEARER) as ws:
        deep = '{"a":' * 1000 + "1" + "}" * 1000
        await ws.send('{"type": "connection_init", "payload": ' + deep + "}")
        assert await closed_with(ws) == 4400
