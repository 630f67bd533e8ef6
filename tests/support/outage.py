"""Neo4j going away, as a GraphQL client sees it: an HTTP transport in front of the app
that answers some requests with the service's UNAVAILABLE error."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx

UNAVAILABLE = {"message": "Neo4j is unavailable; retry.", "extensions": {"code": "UNAVAILABLE"}}
UNKNOWN = {
    "message": "Neo4j went away while the change was committed; its outcome is unknown.",
    "extensions": {"code": "UNAVAILABLE", "outcome": "UNKNOWN"},
}


class Outage(httpx.AsyncBaseTransport):
    """Requests to /graphql, counted from 1: those in `away` are answered UNAVAILABLE.
    Those also in `committed` reach the app first (their effect is kept, their answer is
    lost), as when Neo4j goes away just after a commit; the others never reach it."""

    def __init__(self, app: httpx.AsyncClient, away: range, committed: range = range(0)) -> None:
        self._app = app
        self._away = away
        self._committed = committed
        self.sent = 0
        self.refused = 0

    @asynccontextmanager
    async def client(self) -> AsyncIterator[httpx.AsyncClient]:
        async with httpx.AsyncClient(
            transport=self, base_url=self._app.base_url, headers=self._app.headers
        ) as client:
            yield client

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        forwarded = self._app.build_request(
            request.method, request.url.path, content=request.content, headers=request.headers
        )
        if request.url.path != "/graphql":
            return await self._app.send(forwarded)
        self.sent += 1
        if self.sent not in self._away:
            return await self._app.send(forwarded)
        self.refused += 1
        if self.sent in self._committed:
            await self._app.send(forwarded)
        error = UNKNOWN if self.sent in self._committed else UNAVAILABLE
        return httpx.Response(200, json={"data": None, "errors": [error]})
