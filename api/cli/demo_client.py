"""Clients for the console's commands that drive the GraphQL API (`threadline demo`,
`threadline import`): the app in-process, or a running service. Each yields the typed
client (clients/python, `ThreadlineClient`); a GraphQL error is a `DemoError`."""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar, cast

import httpx
from tenacity import AsyncRetrying, retry_if_exception, stop_after_delay, wait_exponential
from threadline_client import ThreadlineClient
from threadline_client.async_base_client import HttpClient
from threadline_client.connect import service_base
from threadline_client.exceptions import (
    GraphQLClientError,
    GraphQLClientGraphQLMultiError,
    GraphQLClientHttpError,
)

from api.settings import Settings
from graph.errors import outcome_weight

RETRY_S = 60.0  # how long one request is retried while the service answers UNAVAILABLE
T = TypeVar("T")


class DemoError(RuntimeError):
    """The service answered a demo step with an error."""


def transient(error: BaseException) -> bool:
    """Worth another try with the same commandId: Neo4j or the service away for a while
    (a Neo4j just started may also be too slow for the first statements)."""
    if isinstance(error, GraphQLClientGraphQLMultiError):
        return any((e.extensions or {}).get("code") == "UNAVAILABLE" for e in error.errors)
    return isinstance(error, httpx.TransportError)


async def retried(send: Callable[[], Awaitable[T]], retry_s: float = RETRY_S) -> T:
    """`send`'s answer, asked again while it fails with a `transient` error for up to
    `retry_s` seconds. `send` must carry a commandId, so that a retry of a write that did
    commit answers from its receipt instead of writing twice."""
    retrying = AsyncRetrying(
        retry=retry_if_exception(transient),
        wait=wait_exponential(multiplier=0.2, max=5),
        stop=stop_after_delay(retry_s),
        reraise=True,
    )
    weightiest: GraphQLClientGraphQLMultiError | None = None
    try:
        async for attempt in retrying:
            with attempt:
                try:
                    return await send()
                except GraphQLClientGraphQLMultiError as error:
                    if weightiest is None or _weight(error) > _weight(weightiest):
                        weightiest = error
                    raise
    except GraphQLClientGraphQLMultiError as last:
        # As the service's own retries do (graph.errors.weightier): an earlier try that may
        # have committed is not undone by later ones that never reached Neo4j.
        if weightiest is not None and _weight(weightiest) > _weight(last):
            raise weightiest from last
        raise
    raise AssertionError("tenacity ends with a result or an error")  # pragma: no cover


def _weight(error: GraphQLClientGraphQLMultiError) -> int:
    return max(outcome_weight(each.extensions) for each in error.errors)


def typed_client(http: httpx.AsyncClient) -> ThreadlineClient:
    """The generated client on `http` (its base URL and headers: the token)."""
    # The generated protocol spells post's keywords positionally; httpx takes them by name,
    # which is how the client calls it.
    transport = cast(HttpClient, http)
    return ThreadlineClient(url=str(http.base_url.join("graphql")), http_client=transport)


@asynccontextmanager
async def coded_errors(client: ThreadlineClient) -> AsyncIterator[ThreadlineClient]:
    try:
        yield client
    except GraphQLClientGraphQLMultiError as error:
        first = error.errors[0]
        code = (first.extensions or {}).get("code", "ERROR")
        raise DemoError(f"{code}: {first.message}") from error
    except GraphQLClientHttpError as error:  # a 401 (or 4xx) still carries its coded error
        raise DemoError(coded_body(error.response) or str(error)) from error
    except GraphQLClientError as error:
        raise DemoError(str(error)) from error
    except httpx.HTTPError as error:
        what = str(error) or type(error).__name__
        raise DemoError(f"the service stopped answering ({what})") from error


def coded_body(response: object) -> str | None:
    """The first error of a refusal's body as `CODE: message`, if it has one."""
    if not isinstance(response, httpx.Response):
        return None
    try:
        first = response.json()["errors"][0]
        return f"{first['extensions']['code']}: {first['message']}"
    except (ValueError, KeyError, IndexError, TypeError):
        return None


@asynccontextmanager
async def in_process(settings: Settings, workspace: str) -> AsyncIterator[ThreadlineClient]:
    """The app built from `settings`, driven in-process, writing into `workspace`.

    A one-off token for the workspace goes through the app's own access control, as
    any client's would; it lives in a temporary tokens file only while seeding. The
    managed Neo4j, when it is the one used, is started saying so.
    """
    from api.cli.target import neo4j_target, say

    neo4j_target(settings, announce=say)
    token = secrets.token_urlsafe(24)
    with tempfile.TemporaryDirectory(prefix="threadline-demo-") as folder, _unlogged():
        tokens = Path(folder) / "tokens.toml"
        tokens.write_text(
            "[[tokens]]\n"
            'name = "threadline-demo"\n'
            f'sha256 = "{hashlib.sha256(token.encode()).hexdigest()}"\n'
            'scopes = ["write"]\n'
            f"workspace = {json.dumps(workspace)}\n"  # a JSON string is a TOML basic string
        )
        from api.app import create_app  # the web stack loads only for this command

        # A console's app for one command: no warm-up family (api/commands/warm_up.py).
        changed = {"tokens_file": tokens, "warm_up_family": False}
        app = create_app(settings.model_copy(update=changed))
        async with (
            app.router.lifespan_context(app),
            httpx.AsyncClient(
                transport=httpx.ASGITransport(app=app),
                # A name the app answers to (api/http/hosts.py), as a served one would.
                base_url="http://localhost",
                headers={"Authorization": f"Bearer {token}"},
            ) as http,
            coded_errors(typed_client(http)) as client,
        ):
            yield client


@contextmanager
def _unlogged() -> Iterator[None]:
    """No log lines from an in-process app: its command says what happened, in one line.
    A process that logs somewhere already (a test run) keeps doing so."""
    root = logging.getLogger()
    if root.handlers:
        yield
        return
    dropped = logging.NullHandler()
    root.addHandler(dropped)
    try:
        yield
    finally:
        root.removeHandler(dropped)


async def answering(http: httpx.AsyncClient) -> str | None:
    """The service's readiness status, or None when nothing (or not Threadline) answers."""
    try:
        response = await http.get("/readyz", timeout=5)
    except httpx.HTTPError:
        return None
    try:
        status = response.json().get("status")
    except (ValueError, AttributeError):
        return None
    return status if isinstance(status, str) else None


@asynccontextmanager
async def remote(url: str, token: str | None) -> AsyncIterator[ThreadlineClient]:
    """A running Threadline at `url` (its base, or its /graphql address); the token (if
    any) decides the workspace. One line, not a traceback, when nothing answers there."""
    base = service_base(url)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx.AsyncClient(base_url=base, timeout=60, headers=headers) as http:
        if await answering(http) is None:
            raise DemoError(
                f"no Threadline answers at {base} (nothing listens there, or it is not "
                "Threadline's base URL): start it with `scripts/serve`, or give --url the "
                "address it prints"
            )
        async with coded_errors(typed_client(http)) as client:
            yield client


@dataclass(frozen=True)
class Resume:
    """The key of a demo seeding that has not finished, per target (a service's URL and
    token, or a Neo4j and workspace): a rerun sends the same commandIds, so the steps
    already done are answered from their receipts and the family is finished, not started
    again. A seeding that left no thread leaves no key."""

    folder: Path
    target: str

    @property
    def file(self) -> Path:
        return self.folder / f"{hashlib.sha256(self.target.encode()).hexdigest()[:16]}.key"

    def pending(self) -> str | None:
        try:
            return self.file.read_text().strip() or None
        except OSError:
            return None

    def begin(self) -> str:
        """The unfinished seeding's key, else a new one; kept until `done`."""
        key = self.pending() or secrets.token_hex(8)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.file.write_text(key + "\n")
        return key

    def done(self) -> None:
        self.file.unlink(missing_ok=True)
