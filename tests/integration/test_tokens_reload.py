"""Tokens added, revoked and expired take effect in every API process without a restart,
and every refusal and token change is a line of the audit log.

Two `threadline serve` processes share one tokens file and one audit log, as the
workers of `serve --workers N` do; each must see each change on its own.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from tests.support.managed import wait_for
from tests.support.served import served
from tests.support.steps import tokens_file
from tests.support.tokens import audit_lines, console, shown_token

pytestmark = pytest.mark.process
QUERY = {"query": "query Probe { threads(first: 1) { edges { cursor } } }"}
MUTATION = {"query": "mutation Make { createThread { id } }"}
# The service promises a change within 5 s; this bound only keeps a broken one from hanging.
WITHIN_S = 30


@dataclass
class Pair:
    bases: list[str]
    tokens: Path
    audit: Path


@pytest.fixture(scope="module")
def pair(neo4j_uri: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pair]:
    folder = tmp_path_factory.mktemp("reload")
    tokens = tokens_file(folder, {"keeper": ("w", "write"), "reader": ("w", "read")})
    audit = folder / "audit.log"
    with ExitStack() as stack:
        bases = []
        for name in ("one", "two"):
            (folder / name).mkdir()
            base, _ = stack.enter_context(
                served(neo4j_uri, folder / name, TOKENS_FILE=str(tokens), AUDIT_LOG=str(audit))
            )
            bases.append(base)
        yield Pair(bases, tokens, audit)


def answer(base: str, token: str, body: dict[str, str] = QUERY) -> httpx.Response:
    return httpx.post(
        f"{base}/graphql", json=body, headers={"Authorization": f"Bearer {token}"}, timeout=30
    )


def code(response: httpx.Response) -> str | None:
    errors = response.json().get("errors")
    return errors[0]["extensions"]["code"] if errors else None


def everywhere(pair: Pair, token: str, expected: str | None) -> bool:
    """Whether every process answers `token` with this error code (None: no error)."""
    return all(code(answer(base, token)) == expected for base in pair.bases)


def test_a_new_token_works_in_every_process_without_a_restart(pair: Pair) -> None:
    token = shown_token(
        console(
            "new-token", "added", "--workspace", "w", "--append", str(pair.tokens), audit=pair.audit
        )
    )
    assert wait_for(lambda: everywhere(pair, token, None), WITHIN_S)


def test_a_revoked_token_is_refused_by_every_process(pair: Pair) -> None:
    token = shown_token(
        console("new-token", "doomed", "--append", str(pair.tokens), audit=pair.audit)
    )
    assert wait_for(lambda: everywhere(pair, token, None), WITHIN_S)
    console("revoke-token", "doomed", "--file", str(pair.tokens), audit=pair.audit)
    assert wait_for(lambda: everywhere(pair, token, "UNAUTHENTICATED"), WITHIN_S)
    assert code(answer(pair.bases[0], "keeper")) is None, "other tokens keep working"


def test_an_expired_token_is_refused_saying_it_expired(pair: Pair) -> None:
    late = shown_token(
        console(
            "new-token",
            "late",
            "--append",
            str(pair.tokens),
            "--expires",
            "2020-01-01",
            audit=pair.audit,
        )
    )
    timely = shown_token(
        console(
            "new-token",
            "timely",
            "--append",
            str(pair.tokens),
            "--expires",
            "30d",
            audit=pair.audit,
        )
    )
    assert wait_for(lambda: everywhere(pair, timely, None), WITHIN_S)
    for base in pair.bases:
        refused = answer(base, late).json()["errors"][0]
        assert refused["extensions"]["code"] == "UNAUTHENTICATED"
        assert "'late' expired at 2020-01-01T00:00:00+00:00" in refused["message"]


async def test_an_open_subscription_of_a_revoked_token_gets_no_more_events(pair: Pair) -> None:
    token = shown_token(
        console(
            "new-token",
            "watcher",
            "--workspace",
            "w",
            "--append",
            str(pair.tokens),
            audit=pair.audit,
        )
    )
    assert wait_for(lambda: everywhere(pair, token, None), WITHIN_S)
    base = pair.bases[0]
    thread = answer(base, "keeper", MUTATION).json()["data"]["createThread"]["id"]
    async with websockets.connect(
        base.replace("http://", "ws://") + "/graphql",
        subprotocols=[websockets.Subprotocol("graphql-transport-ws")],
        additional_headers={"Authorization": f"Bearer {token}"},
    ) as ws:
        await ws.send(json.dumps({"type": "connection_init", "payload": {}}))
        assert (await receive(ws))["type"] == "connection_ack"
        query = "subscription($id: ID!) { threadEvents(threadId: $id) { type } }"
        payload = {"query": query, "variables": {"id": thread}}
        await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": payload}))
        assert (await receive(ws))["payload"]["data"]["threadEvents"]["type"] == "thread.created"
        console("revoke-token", "watcher", "--file", str(pair.tokens), audit=pair.audit)
        assert wait_for(lambda: everywhere(pair, token, "UNAUTHENTICATED"), WITHIN_S)
        clean = "mutation($id: ID!) { requestCleanContext(threadId: $id) { id } }"
        body = {"query": clean, "variables": {"id": thread}}
        assert code(answer(base, "keeper", body)) is None
        ended = await receive(ws)
        errors = ended["payload"] if ended["type"] == "error" else ended["payload"]["errors"]
        assert errors[0]["extensions"]["code"] == "UNAUTHENTICATED", ended


async def receive(ws: websockets.ClientConnection) -> dict[str, Any]:
    message: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), WITHIN_S))
    return message


def test_a_broken_file_keeps_the_last_good_tokens(pair: Pair) -> None:
    good = pair.tokens.read_text()
    pair.tokens.write_text(good + "\n[[tokens]]\nname = ")  # an editor's half-saved file
    try:
        # Each process looks at the file on a request: ask until both have seen it.
        assert wait_for(
            lambda: everywhere(pair, "keeper", None) and reload_failures(pair) >= len(pair.bases),
            WITHIN_S,
        )
    finally:
        pair.tokens.write_text(good)


def reload_failures(pair: Pair) -> int:
    return sum(line["event"] == "tokens_reload_failed" for line in audit_lines(pair.audit))


def test_every_refusal_and_token_change_is_in_the_audit_log(pair: Pair) -> None:
    base = pair.bases[0]
    assert httpx.post(f"{base}/graphql", json=QUERY, timeout=30).json()["errors"]
    assert code(answer(base, "not-a-token")) == "UNAUTHENTICATED"
    assert code(answer(base, "reader", MUTATION)) == "FORBIDDEN"
    assert httpx.get(f"{base}/metrics", timeout=30).status_code == 401
    console(
        "new-token",
        "short",
        "--append",
        str(pair.tokens),
        "--expires",
        "2021-01-01",
        audit=pair.audit,
    )
    console("revoke-token", "short", "--file", str(pair.tokens), audit=pair.audit)

    def seen() -> set[tuple[str, str | None, str | None]]:
        return {
            (line["event"], line["token"], line["path"] or line["operation"])
            for line in audit_lines(pair.audit)
        }

    expected = {
        ("unauthenticated", None, "/graphql"),
        ("forbidden", "reader", "/graphql"),
        ("unauthenticated", None, "/metrics"),
        ("token_created", "short", "new-token"),
        ("token_revoked", "short", "revoke-token"),
        ("tokens_reloaded", None, str(pair.tokens)),
    }
    assert wait_for(lambda: expected <= seen(), WITHIN_S), expected - seen()
    lines = audit_lines(pair.audit)
    forbidden = next(line for line in lines if line["event"] == "forbidden")
    assert (forbidden["workspace"], forbidden["operation"]) == ("w", "Make")
    assert set(forbidden) == {"time", "event", "token", "workspace", "reason", "path", "operation"}
    assert "not-a-token" not in pair.audit.read_text(), "a token is never logged"
