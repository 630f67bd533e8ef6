"""threadEvents over a real websocket: graphql-transport-ws only, events as they commit."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
import websockets

from tests.conftest import GraphQLClient
from tests.integration.helpers import new_thread

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


async def test_unknown_thread_subscription_is_not_found(live: GraphQLClient) -> None:
    async with websockets.connect(ws_url(live), subprotocols=["graphql-transport-ws"]) as ws:
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


async def test_legacy_graphql_ws_protocol_is_refused(live: GraphQLClient) -> None:
    with pytest.raises(websockets.exceptions.ConnectionClosedError) as closed:
        async with websockets.connect(ws_url(live), subprotocols=["graphql-ws"]) as ws:
            await ws.send(json.dumps({"type": "connection_init"}))
            await asyncio.wait_for(ws.recv(), 5)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4406
