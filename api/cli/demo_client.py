"""Clients for the console's commands that drive the GraphQL API (`threadline demo`,
`threadline import`): the app in-process, or a running service. Each yields the typed
client (clients/python, `ThreadlineClient`); a GraphQL error is a `DemoError`."""

from __future__ import annotations

import hashlib
import json
import secrets
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import cast

import httpx
from threadline_client import ThreadlineClient
from threadline_client.async_base_client import HttpClient
from threadline_client.exceptions import GraphQLClientError, GraphQLClientGraphQLMultiError

from api.settings import Settings


class DemoError(RuntimeError):
    """The service answered a demo step with an error."""


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
    except GraphQLClientError as error:
        raise DemoError(str(error)) from error


@asynccontextmanager
async def in_process(settings: Settings, workspace: str) -> AsyncIterator[ThreadlineClient]:
    """The app built from `settings`, driven in-process, writing into `workspace`.

    A one-off token for the workspace goes through the app's own access control, as
    any client's would; it lives in a temporary tokens file only while seeding.
    """
    token = secrets.token_urlsafe(24)
    with tempfile.TemporaryDirectory(prefix="threadline-demo-") as folder:
        tokens = Path(folder) / "tokens.toml"
        tokens.write_text(
            "[[tokens]]\n"
            'name = "threadline-demo"\n'
            f'sha256 = "{hashlib.sha256(token.encode()).hexdigest()}"\n'
            'scopes = ["write"]\n'
            f"workspace = {json.dumps(workspace)}\n"  # a JSON string is a TOML basic string
        )
        from api.app import create_app  # the web stack loads only for this command

        app = create_app(settings.model_copy(update={"tokens_file": tokens}))
        async with (
            app.router.lifespan_context(app),
            httpx.AsyncClient(
                transport=httpx.ASGITransport(app=app),
                base_url="http://threadline.demo",
                headers={"Authorization": f"Bearer {token}"},
            ) as http,
            coded_errors(typed_client(http)) as client,
        ):
            yield client


@asynccontextmanager
async def remote(url: str, token: str | None) -> AsyncIterator[ThreadlineClient]:
    """A running Threadline at `url`; the token (if any) decides the workspace."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        httpx.AsyncClient(base_url=url.rstrip("/"), timeout=60, headers=headers) as http,
        coded_errors(typed_client(http)) as client,
    ):
        yield client
