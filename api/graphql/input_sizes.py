"""Input limits: sizes of text, names and lists on every root field, and of request bodies.

Checked once, on the arguments of the root field (graphql-core has already
coerced them), so no resolver needs its own size checks.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from graphql import GraphQLResolveInfo
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from strawberry.types import ExecutionContext
from strawberry.types.graphql import OperationType

from api.graphql.errors import with_code
from api.settings import Settings
from graph.errors import invalid
from graph.store import deadline_in

# Arguments that carry prose or summaries, by their GraphQL names (the names the root
# field's arguments arrive under); every other string is a name, id or ref.
TEXT_ARGUMENTS = frozenset(
    {"input", "reason", "task", "result", "summaryText", "text", "attributes"}
)
# Arguments that carry a whole file: bounded by the request body's limit alone.
FILE_ARGUMENTS = frozenset({"content"})


def check_root_arguments(
    settings: Settings, info: GraphQLResolveInfo[Any], kwargs: Mapping[str, Any]
) -> None:
    """INVALID_INPUT when an argument of a root field is over its size limit; nested
    fields pass (their arguments were the root's to check)."""
    if info.path.prev is None:
        for name, value in kwargs.items():
            _check(settings, name, value)


@contextmanager
def operation_deadline(settings: Settings, execution: ExecutionContext) -> Iterator[None]:
    """Every store call of one query or mutation answers within DB_TIMEOUT_S, together.
    A subscription lives on; each of its reads is bounded on its own."""
    streaming = (
        execution.graphql_document is not None
        and execution.operation_type is OperationType.SUBSCRIPTION
    )
    if streaming:
        yield
        return
    with deadline_in(settings.db_timeout_s):
        yield


def _check(settings: Settings, name: str, value: Any) -> None:
    if isinstance(value, str):
        if not value.isascii() and _has_lone_surrogate(value):
            raise invalid(f"{name} is not valid Unicode: it holds a lone surrogate.")
        limit = (
            settings.max_body_bytes
            if name in FILE_ARGUMENTS
            else settings.max_text_chars
            if name in TEXT_ARGUMENTS
            else settings.max_name_chars
        )
        if len(value) > limit:
            raise invalid(f"{name} is {len(value)} characters; the limit is {limit}.")
    elif isinstance(value, dict):
        if name == "attributes":
            size = len(json.dumps(value, default=str))
            if size > settings.max_text_chars:
                raise invalid(
                    f"attributes are {size} characters of JSON; the limit is "
                    f"{settings.max_text_chars}."
                )
            return
        for key, item in value.items():
            _check(settings, key, item)
    elif isinstance(value, list):
        if len(value) > settings.max_list_items:
            raise invalid(
                f"{name} has {len(value)} entries; the limit is {settings.max_list_items}."
            )
        for item in value:
            _check(settings, name, item)
    elif hasattr(value, "__dict__") and not isinstance(value, type):
        for key, item in vars(value).items():
            _check(settings, key, item)


def _has_lone_surrogate(value: str) -> bool:
    """JSON may carry `\\ud800` alone; no database or client can store or read it."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


class BodyLimit:
    """Answers 413 to request bodies larger than `max_bytes`, declared or streamed."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await _too_large(send, self.max_bytes)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.max_bytes:
                raise _TooLarge
            return message

        try:
            await self.app(scope, counted, send)
        except _TooLarge:
            await _too_large(send, self.max_bytes)


class _TooLarge(Exception):
    pass


async def _too_large(send: Send, max_bytes: int) -> None:
    error = with_code({"message": f"Request body over {max_bytes} bytes."})
    body = json.dumps({"errors": [error]}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
