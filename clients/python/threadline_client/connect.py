"""`connect`: a ThreadlineClient for a running service, from its base URL or its /graphql
address, with its token. Written by hand, and copied into the generated package by
ariadne-codegen (`files_to_include` in codegen.toml)."""

from __future__ import annotations

import httpx

from .client import ThreadlineClient

# A start may wait on the service's configured summarizer: longer than httpx's 5 s.
TIMEOUT_S = 60.0


def graphql_url(url: str) -> str:
    """The service's /graphql address, from its base URL or from that address itself."""
    return url.rstrip("/").removesuffix("/graphql") + "/graphql"


def connect(url: str, token: str | None = None, timeout_s: float = TIMEOUT_S) -> ThreadlineClient:
    """A client of the service at `url`; `async with` it to close its connections."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    http = httpx.AsyncClient(headers=headers, timeout=timeout_s)
    return ThreadlineClient(url=graphql_url(url), http_client=http)
