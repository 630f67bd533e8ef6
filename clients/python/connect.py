"""`connect`: a ThreadlineClient for a running service, from its base URL or its /graphql
address, with its token. Written by hand, and copied into the generated package by
ariadne-codegen (`files_to_include` in codegen.toml)."""

from __future__ import annotations

import httpx

from .client import ThreadlineClient

# A start may wait on the service's configured summarizer: longer than httpx's 5 s.
TIMEOUT_S = 60.0


def service_base(url: str) -> str:
    """The service's base URL from what a user may paste: its /graphql address works too,
    and a host and port without a scheme is taken as http (as `threadline serve` prints it)."""
    base = url.strip().rstrip("/")
    if "://" not in base:
        base = f"http://{base}"
    return base.removesuffix("/graphql").rstrip("/")


def graphql_url(url: str) -> str:
    """The service's /graphql address, from its base URL or from that address itself."""
    return f"{service_base(url)}/graphql"


def connect(url: str, token: str | None = None, timeout_s: float = TIMEOUT_S) -> ThreadlineClient:
    """A client of the service at `url`; `async with` it to close its connections."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    http = httpx.AsyncClient(headers=headers, timeout=timeout_s)
    return ThreadlineClient(url=graphql_url(url), http_client=http)
