"""Requests per token, bounded: a flood from one token cannot starve the others.

A token may send `burst` requests at once and `rps` per second sustained: at most `burst`
in a sliding window of `burst / rps` seconds (rounded up to a whole second), counted as
the `limits` library's sliding window counter, which admits a flood evenly at `rps`
once its burst is spent rather than in bursts at each window's turn.
Without a tokens file the bound is per workspace (the open service has one). What counts:
every HTTP request to `/graphql` and `/mcp` that carries a valid token, and on a websocket
its `connection_init` and each `subscribe`. The counts are each API process's own, in
memory, so N workers admit up to N times the rate.
Over the bound: HTTP 429 with `Retry-After` and a GraphQL error coded RATE_LIMITED,
answered after a pause (between half and all of `hold_s`, at most the `Retry-After`): a
client that ignores `Retry-After` and sends again as soon as it is answered is slowed to
one or two requests a second per connection, so refusing it costs the process next to
nothing, and the random share keeps its connections from coming back together and
spending the window's room in one burst. At most MOST_HELD refusals of one token wait at
once; more are answered at once.
"""

from __future__ import annotations

import asyncio
import math
import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from limits import RateLimitItem, RateLimitItemPerSecond
from limits.aio.storage import MemoryStorage
from limits.aio.strategies import SlidingWindowCounterRateLimiter
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from api.audit import Audit
from api.auth import Principal
from api.graphql.errors import with_code
from api.live_tokens import LiveTokens
from graph.errors import ErrorCode, ThreadlineError


class Gatekeepers(Protocol):
    """What the middleware uses of the running services (api.services.Services has them;
    named here so that this module does not depend on the services it is part of)."""

    @property
    def tokens(self) -> LiveTokens: ...

    @property
    def rate_limits(self) -> RateLimits: ...

    @property
    def audit(self) -> Audit: ...


LIMITED_PATHS = frozenset({"/graphql", "/mcp"})
MOST_HELD = 32  # refusals of one token paused at once; a pause costs a socket, no CPU


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
    """Each principal's window; `default` None means no limit (RATE_LIMIT_RPS=0)."""

    def __init__(self, default: Rate | None, hold_s: float = 0.0) -> None:
        self._default = default
        self._hold_s = hold_s
        self._limiter = SlidingWindowCounterRateLimiter(MemoryStorage())
        self._items: dict[Rate, RateLimitItem] = {}
        self._held: Counter[tuple[str, str]] = Counter()

    def rate(self, principal: Principal) -> Rate | None:
        if self._default is None:
            return None
        return Rate(principal.rps or self._default.rps, principal.burst or self._default.burst)

    async def take(self, principal: Principal) -> ThreadlineError | None:
        """Count one request of `principal`: None when it may run, else the refusal, whose
        `retryAfter` is the whole seconds until the window has room again.

        The `limits` library's asyncio storage: its synchronous one starts a thread to
        expire old counts within 10 ms of a request, one thread after another under load
        (a few percent of the API's CPU, docs/SCALING.md)."""
        rate = self.rate(principal)
        if rate is None:
            return None
        item = self._items.get(rate) or self._items.setdefault(rate, rate.item())
        key = _key(principal)
        if await self._limiter.hit(item, *key):
            return None
        reset = (await self._limiter.get_window_stats(item, *key)).reset_time
        retry_after = max(1, math.ceil(reset - time.time()))
        return ThreadlineError(
            ErrorCode.RATE_LIMITED,
            f"Token {principal.name!r} sent more than {rate.describe()}: "
            f"retry after {retry_after} s.",
            retryAfter=retry_after,
        )

    def pause(self, principal: Principal, retry_after: int) -> float:
        """How long to wait before answering a refusal: a random share (half to all) of
        `hold_s`, at most its Retry-After; 0 while MOST_HELD of the principal's refusals
        already wait."""
        if self._held[_key(principal)] >= MOST_HELD:
            return 0.0
        return min(self._hold_s, retry_after) * random.uniform(0.5, 1.0)

    async def hold(self, principal: Principal, refusal: ThreadlineError) -> None:
        """Wait out `pause` before the refusal is sent, counted among the held."""
        retry_after = refusal.extensions["retryAfter"]
        assert isinstance(retry_after, int)
        seconds, key = self.pause(principal, retry_after), _key(principal)
        if seconds <= 0:
            return
        self._held[key] += 1
        try:
            await asyncio.sleep(seconds)
        finally:
            self._held[key] -= 1
            if not self._held[key]:
                del self._held[key]


def _key(principal: Principal) -> tuple[str, str]:
    """Whose window and pauses: one token (the open service's one principal) per workspace."""
    return (principal.workspace, principal.name)


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

    def __init__(self, app: ASGIApp, services: Callable[[], Gatekeepers]) -> None:
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
        refusal = await services.rate_limits.take(principal)
        if refusal is None:
            await self.app(scope, receive, send)
            return
        services.audit.rate_limited(principal, refusal.message, scope["path"])
        await services.rate_limits.hold(principal, refusal)
        await too_many(refusal)(scope, receive, send)
