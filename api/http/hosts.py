"""The DNS-rebinding guard: the `Host` names the service answers to and the pages that may
call it (docs/SECURITY.md), on every endpoint, with tokens or without.

A web page on attacker.example can make its own name resolve to 127.0.0.1. Its requests
then reach a service on loopback with `Host: attacker.example:PORT` and, from the browser,
`Origin: http://attacker.example:PORT`: same origin as that Host, so no browser rule stops
the page reading the answers. The guard therefore checks the Host first: the names the
service answers to are `localhost`, `127.0.0.1`, `::1`, THREADLINE_HOST and
THREADLINE_ALLOWED_HOSTS, each at any port; any other Host is 421 Misdirected Request.
Then a request that carries an `Origin` must come from the service's own pages (the same
origin as the Host just admitted, Strawberry's websocket rule) or from
THREADLINE_ALLOWED_ORIGINS; any other is 403. Both are coded and audited like every
refusal, and answered before anything else runs. `/mcp` is checked once more by the MCP
SDK's own transport security with the same names (`transport_security`), the check the MCP
specification asks of its servers.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mcp.server.transport_security import TransportSecuritySettings
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send
from strawberry.http.websocket_origin import is_same_origin

from api import host_names
from api.audit import HOST_REFUSED, ORIGIN_REFUSED, Audit
from api.auth import Refusal
from api.http.requests import coded
from graph.errors import ErrorCode

if TYPE_CHECKING:
    from api.settings import Settings

LOOPBACK = ("localhost", "127.0.0.1", "::1")
STATUS = {ErrorCode.MISDIRECTED: 421, ErrorCode.FORBIDDEN: 403}
SHOWN_CHARS = 100  # of a refused header, in the answer and the audit line


@dataclass(frozen=True)
class Trusted:
    """The host names the service answers to (at any port) and the origins beside its own
    whose pages may call it."""

    names: frozenset[str]
    origins: frozenset[str]

    @classmethod
    def from_settings(cls, settings: Settings) -> Trusted:
        configured = [*LOOPBACK, *settings.allowed_hosts]
        # A HOST that is no name a request could carry is one uvicorn cannot bind either.
        with contextlib.suppress(ValueError):
            configured.append(host_names.host_name(settings.host))
        return cls(frozenset(configured), frozenset(settings.allowed_origins))

    def refusal(self, host: str | None, origin: str | None) -> Refusal | None:
        """Why a request with these headers is refused, or None when it may run."""
        if host_names.requested_name(host) not in self.names:
            return Refusal(
                ErrorCode.MISDIRECTED,
                f"This service does not answer to the host {_cut(host)!r}: it answers to "
                "localhost, 127.0.0.1, [::1] and its THREADLINE_HOST at any port, and to "
                "the names in THREADLINE_ALLOWED_HOSTS.",
                HOST_REFUSED,
            )
        if origin is None or is_same_origin(origin, host) or origin in self.origins:
            return None
        return Refusal(
            ErrorCode.FORBIDDEN,
            f"Pages on {_cut(origin)!r} may not call this service: only its own pages and "
            "those of the origins in THREADLINE_ALLOWED_ORIGINS may.",
            ORIGIN_REFUSED,
        )

    def transport_security(self) -> TransportSecuritySettings:
        """The same names as the MCP SDK's transport security takes them: each host with
        and without a port, and the origins of the service's pages on each, http or https.
        It can say neither "the same origin as the Host" nor "any name case": the guard's
        check, run first, is the stricter of the two."""
        hosts = [host_names.shown(name) for name in sorted(self.names)]
        return TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=[form for host in hosts for form in (host, f"{host}:*")],
            allowed_origins=[
                *(
                    form
                    for host in hosts
                    for scheme in ("http", "https")
                    for form in (f"{scheme}://{host}", f"{scheme}://{host}:*")
                ),
                *sorted(self.origins),
            ],
        )


def _cut(header: str | None) -> str:
    text = header or ""
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "…"


class HostGuard:
    """ASGI middleware: every HTTP request and websocket handshake passes `Trusted` or is
    answered 421 / 403 with a coded body, and audited, before the app sees it."""

    def __init__(self, app: ASGIApp, trusted: Trusted, audit: Audit) -> None:
        self.app = app
        self._trusted = trusted
        self._audit = audit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        refused = self._trusted.refusal(headers.get("host"), headers.get("origin"))
        if refused is None:
            await self.app(scope, receive, send)
            return
        self._audit.refusal(refused, scope["path"])
        answers_handshakes = "websocket.http.response" in (scope.get("extensions") or {})
        if scope["type"] == "websocket" and not answers_handshakes:
            # A server that cannot send an answer of ours to a handshake answers 403.
            await send({"type": "websocket.close", "code": 1008})
            return
        await coded(STATUS[refused.code], refused.code, refused.message)(scope, receive, send)
