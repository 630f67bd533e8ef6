"""The DNS-rebinding guard on a served API, open and with tokens: a request naming a Host
the service does not answer to gets 421, one from a page on a foreign Origin 403, on every
endpoint and on the websocket handshake alike; each is audited and writes nothing. The
loopback names pass, with their own pages' Origin or none."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
import websockets

from graph.store import Store
from tests.support.served import serve
from tests.support.steps import tokens_file

pytestmark = pytest.mark.process  # starts processes of its own

TOKEN = "hosts-write"
ATTACKER = "attacker.example"
LOOPBACK = ("localhost", "127.0.0.1", "[::1]")


@dataclass(frozen=True)
class Service:
    base: str
    port: int
    audit: Path
    bearer: dict[str, str]  # the token's header when the service has tokens

    def audited(self) -> list[dict[str, Any]]:
        lines = self.audit.read_text().splitlines() if self.audit.exists() else []
        return [json.loads(line) for line in lines]


@pytest.fixture(scope="module", params=["open", "tokens"])
def service(
    request: pytest.FixtureRequest, neo4j_uri: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Service]:
    folder = tmp_path_factory.mktemp(f"hosts-{request.param}")
    audit = folder / "audit.log"
    settings = {"AUDIT_LOG": str(audit)}
    bearer: dict[str, str] = {}
    if request.param == "tokens":
        settings["TOKENS_FILE"] = str(tokens_file(folder, {TOKEN: ("default", "write")}))
        bearer = {"Authorization": f"Bearer {TOKEN}"}
    for base in serve(neo4j_uri, folder, **settings):
        yield Service(base, urlsplit(base).port or 80, audit, bearer)


MCP_ACCEPT = {"Accept": "application/json, text/event-stream"}
CREATE = {"query": 'mutation { createThread(title: "written by a web page") { id } }'}


def fork(thread: str) -> dict[str, Any]:
    """An MCP call that writes: a fork of `thread` at its latest stable run."""
    arguments = {"source_thread_id": thread, "latest_stable": True}
    params = {"name": "fork_thread", "arguments": arguments}
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}


def endpoints(thread: str) -> list[tuple[str, str, dict[str, Any]]]:
    """Every endpoint, each with a request a page would like to send it."""
    return [
        ("POST", "/graphql", {"json": CREATE}),
        ("GET", "/graphql", {"headers": {"Accept": "text/html"}}),  # GraphiQL
        ("POST", "/mcp", {"json": fork(thread), "headers": MCP_ACCEPT}),
        ("GET", "/lineage", {}),
        ("GET", "/static/token.js", {}),
        ("GET", "/metrics", {}),
        ("GET", "/healthz", {}),
        ("GET", "/readyz", {}),
    ]


async def send(
    service: Service, method: str, path: str, host: str, origin: str | None, **request: Any
) -> httpx.Response:
    """A request to the service's socket naming `host` (with the service's port)."""
    headers = {**service.bearer, **request.pop("headers", {}), "Host": f"{host}:{service.port}"}
    if origin is not None:
        headers["Origin"] = origin
    async with httpx.AsyncClient(base_url=service.base, timeout=60) as http:
        return await http.request(method, path, headers=headers, **request)


async def nodes(store: Store) -> int:
    row = await store.read(lambda tx: tx.row("testing/count_nodes"))
    assert row is not None
    return int(row["nodes"])


async def a_thread(service: Service) -> str:
    answer = await send(service, "POST", "/graphql", "localhost", None, json=CREATE)
    return str(answer.json()["data"]["createThread"]["id"])


def refusal(response: httpx.Response, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    error = response.json()["errors"][0]
    assert error["extensions"]["code"] == code, error
    return str(error["message"])


@pytest.mark.parametrize("with_origin", [False, True])
async def test_a_host_the_service_does_not_answer_to_is_421_everywhere(
    service: Service, clean_store: Store, with_origin: bool
) -> None:
    """A DNS-rebinding page: its Host names the attacker, and so does its Origin."""
    thread = await a_thread(service)
    before, audited = await nodes(clean_store), len(service.audited())
    origin = f"http://{ATTACKER}:{service.port}" if with_origin else None
    for method, path, request in endpoints(thread):
        answer = await send(service, method, path, ATTACKER, origin, **request)
        assert ATTACKER in refusal(answer, 421, "MISDIRECTED"), path
    assert await nodes(clean_store) == before
    lines = service.audited()[audited:]
    assert {line["event"] for line in lines} == {"host_refused"}
    assert [line["path"] for line in lines] == [path for _, path, _ in endpoints(thread)]


async def test_a_page_on_another_origin_is_403_everywhere(
    service: Service, clean_store: Store
) -> None:
    """The Host is one of the service's names, but the page calling is not its own."""
    thread = await a_thread(service)
    before, audited = await nodes(clean_store), len(service.audited())
    for host in LOOPBACK:
        for method, path, request in endpoints(thread):
            answer = await send(service, method, path, host, f"http://{ATTACKER}", **request)
            assert ATTACKER in refusal(answer, 403, "FORBIDDEN"), (host, path)
    assert await nodes(clean_store) == before
    lines = service.audited()[audited:]
    assert len(lines) == len(LOOPBACK) * len(endpoints(thread))
    assert {line["event"] for line in lines} == {"origin_refused"}


@pytest.mark.parametrize("host", LOOPBACK)
@pytest.mark.parametrize("with_origin", [False, True])
async def test_the_loopback_names_pass_with_their_own_origin_or_none(
    service: Service, clean_store: Store, host: str, with_origin: bool
) -> None:
    thread = await a_thread(service)
    audited = len(service.audited())
    origin = f"http://{host}:{service.port}" if with_origin else None
    for method, path, request in endpoints(thread)[1:]:  # all but a new thread: below
        answer = await send(service, method, path, host, origin, **request)
        assert answer.status_code == 200, (path, answer.text)
    created = await send(service, "POST", "/graphql", host, origin, json=CREATE)
    assert created.json()["data"]["createThread"]["id"]
    listed = await send(service, "POST", "/mcp", host, origin, json=LIST, headers=MCP_ACCEPT)
    assert listed.json()["result"]["structuredContent"]["edges"]
    assert service.audited()[audited:] == []


LIST = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/call",
    "params": {"name": "list_threads", "arguments": {}},
}


def socket(service: Service, host: str, origin: str | None) -> Any:
    """A websocket to the service's socket whose handshake names `host`, as a browser's
    would after its page's name was made to resolve to 127.0.0.1."""
    headers = {**service.bearer, **({"Origin": origin} if origin else {})}
    return websockets.connect(
        f"ws://{host}:{service.port}/graphql",
        host="127.0.0.1",
        port=service.port,
        proxy=None,
        subprotocols=[websockets.Subprotocol("graphql-transport-ws")],
        additional_headers=headers,
    )


@pytest.mark.parametrize(
    ("host", "origin", "status"),
    [
        (ATTACKER, f"http://{ATTACKER}:{{port}}", 421),
        (ATTACKER, None, 421),
        ("localhost", f"http://{ATTACKER}:{{port}}", 403),
    ],
)
async def test_a_websocket_handshake_under_a_rebinding_host_is_refused(
    service: Service, host: str, origin: str | None, status: int
) -> None:
    audited = len(service.audited())
    with pytest.raises(websockets.exceptions.InvalidStatus) as refused:
        async with socket(service, host, origin and origin.format(port=service.port)):
            pass
    assert refused.value.response.status_code == status
    body = json.loads(refused.value.response.body or b"{}")
    assert body["errors"][0]["extensions"]["code"] in ("MISDIRECTED", "FORBIDDEN")
    [line] = service.audited()[audited:]
    assert (line["event"], line["path"]) == (
        "host_refused" if status == 421 else "origin_refused",
        "/graphql",
    )


@pytest.mark.parametrize("host", LOOPBACK)
async def test_a_websocket_from_the_services_own_page_is_acknowledged(
    service: Service, host: str
) -> None:
    async with socket(service, host, f"http://{host}:{service.port}") as ws:
        await ws.send(json.dumps({"type": "connection_init", "payload": service.bearer}))
        answer = json.loads(await asyncio.wait_for(ws.recv(), 15))
    assert answer["type"] == "connection_ack"
