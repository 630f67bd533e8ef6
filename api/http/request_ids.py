"""A request id for every HTTP request and WebSocket: the client's `X-Request-ID` when it
is a sane token, else a new one. It is answered in the `X-Request-ID` header, named by
every log line written while the request is served (api/process/logs.py) and by every
GraphQL error in `extensions.requestId` (api/graphql/errors.py)."""

from __future__ import annotations

import re
import uuid

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.process.logs import request_id

HEADER = b"x-request-id"
# Letters, digits and a little punctuation, bounded: it goes into logs and headers as is.
SANE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/+=-]{0,127}")
STARTS = frozenset({"http.response.start", "websocket.accept"})


class RequestIds:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        found = _incoming(scope) or uuid.uuid4().hex
        answered = (HEADER, found.encode("ascii"))

        async def send_with_id(message: Message) -> None:
            if message["type"] in STARTS:
                message["headers"] = [*message.get("headers", ()), answered]
            await send(message)

        token = request_id.set(found)
        try:
            await self.app(scope, receive, send_with_id)
        finally:
            request_id.reset(token)


def _incoming(scope: Scope) -> str | None:
    for name, value in scope["headers"]:
        if name == HEADER:
            text = value.decode("latin-1")
            return text if SANE.fullmatch(text) else None
    return None
