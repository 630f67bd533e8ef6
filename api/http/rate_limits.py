"""Requests per token, bounded: a flood from one token cannot starve the others.

A token may send at most `burst` requests in any moving window of `burst / rps` seconds
(rounded up to a whole second): a burst of `burst` at once, `rps` per second sustained.
Without a tokens file the bound is per workspace (the open service has one). What counts:
every HTTP request to `/graphql` and `/mcp` that carries a valid token, and on a websocket
its `connection_init` and each `subscribe`. The counts are each API process's own, in
memory (the `limits` library's moving window), so N workers admit up to N times the rate.
Over the bound: HTTP 429 with `Retry-After` and a GraphQL error coded RATE_LIMITED.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from limits import RateLimitItem, RateLimitItemPerSecond
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from api.auth import Principal
from api.graphql.errors import with_code
from graph.errors import ErrorCode, ThreadlineError

if TYPE_CHECKING:
    from api.services import Services

LIMITED_PATHS = frozenset({"/graphql", "/mcp"})


@dataclass(frozen=True)
class Rate:
    rps: float
    burst: int

    @property
    def window_s(self) -> int:
        return max(1, math.ceil(self.burst / self.rps))

    def item(self) -> RateLimitItem:
        return RateLimitItemPerSecond(self.burst, self.window_s)

    def describe(self) -> str:
        return f"{self.burst} requests per {self.window_s} s"


class RateLimits:
    """Each principal's moving window; `default` None means no limit (RATE_LIMIT_RPS=0)."""

    def __init__(self, default: Rate | None) -> None:
        self._default = default
        self._limiter = MovingWindowRateLimiter(MemoryStorage())
        self._items: dict[Rate, RateLimitItem] = {}

    def rate(self, principal: Principal) -> Rate | None:
        if self._default is None:
            return None
        return Rate(principal.rps or self._default.rps, principal.burst or self._default.burst)

    def take(self, principal: Principal) -> ThreadlineError | None:
        """Count one request of `principal`: None when it may run, else the refusal, whose
        `retryAfter` is the whole seconds until the window has room again."""
        rate = self.rate(principal)
        if rate is None:
            return None
        item = self._items.get(rate) or self._items.setdefault(rate, rate.item())
        key = (principal.workspace, principal.name)
        if self._limiter.hit(item, *key):
            return None
        reset = self._limiter.get_window_stats(item, *key).reset_time
        retry_after = max(1, math.ceil(reset - time.time()))
        return ThreadlineError(
            ErrorCode.RATE_LIMITED,
            f"Token {principal.name!r} sent more than {rate.describe()}: "
            f"retry after {retry_after} s.",
            retryAfter=retry_after,
        )


def too_many(refusal: ThreadlineError) -> JSONResponse:
    retry_after = refusal.extensions["retryAfter"]
    return JSONResponse(
        {"errors": [with_code({"message": refusal.message, "extensions": refusal.extensions})]},
        status_code=429,
        headers={"Retry-After": str(retry_after)},
    )


class RateLimited:
    """ASGI middleware: counts `/graphql` and `/mcp` requests per token, answers 429 over
    the bound. A request without a valid token passes to the endpoint, which refuses it."""

    def __init__(self, app: ASGIApp, services: Callable[[], Services]) -> None:
        self.app = app
        self._services = services

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] not in LIMITED_PATHS:
            await self.app(scope, receive, send)
            return
        services = self._services()
        headers = dict(scope.get("headers") or [])
        authorization = headers.get(b"authorization", b"").decode("latin-1") or None
        try:
            principal = services.tokens.authenticate(authorization)
        except ThreadlineError:
            await self.app(scope, receive, send)
            return
        refusal = services.rate_limits.take(principal)
        if refusal is None:
            await self.app(scope, receive, send)
            return
        services.audit.rate_limited(principal, refusal.message, scope["path"])
        await too_many(refusal)(scope, receive, send)
