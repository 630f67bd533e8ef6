"""GraphQL clients for `threadline demo`: the app in-process, or a running service."""

from __future__ import annotations

import hashlib
import json
import secrets
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx

from api.settings import Settings


class DemoError(RuntimeError):
    """The service answered a demo step with an error."""


class DemoClient:
    """Posts GraphQL documents; answers `data`, raises DemoError on errors."""

    def __init__(self, http: httpx.AsyncClient, token: str | None) -> None:
        self._http = http
        self._headers = {"Authorization": f"Bearer {token}"} if token else {}

    async def __call__(self, query: str, **variables: Any) -> dict[str, Any]:
        response = await self._http.post(
            "/graphql", json={"query": query, "variables": variables}, headers=self._headers
        )
        if response.status_code >= 400 and "json" not in response.headers.get("content-type", ""):
            raise DemoError(f"HTTP {response.status_code}: {response.text[:500]}")
        body = response.json()
        if body.get("errors"):
            first = body["errors"][0]
            code = first.get("extensions", {}).get("code", "ERROR")
            raise DemoError(f"{code}: {first.get('message')}")
        data: dict[str, Any] = body["data"]
        return data


@asynccontextmanager
async def in_process(settings: Settings, workspace: str) -> AsyncIterator[DemoClient]:
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
                transport=httpx.ASGITransport(app=app), base_url="http://threadline.demo"
            ) as http,
        ):
            yield DemoClient(http, token)


@asynccontextmanager
async def remote(url: str, token: str | None) -> AsyncIterator[DemoClient]:
    """A running Threadline at `url`; the token (if any) decides the workspace."""
    async with httpx.AsyncClient(base_url=url.rstrip("/"), timeout=60) as http:
        yield DemoClient(http, token)
