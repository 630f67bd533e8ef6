"""Error mapping: coded errors pass through; anything unexpected is masked as INTERNAL.

Our own errors carry their code in `ThreadlineError.extensions`, which graphql-core
copies onto the GraphQL error it wraps them in. Errors graphql-core raises itself
(syntax, validation, coercion of the request's values) are the client's and get
INVALID_INPUT where they leave the service (`with_code`). Every other exception is a
bug: masked with a correlation id, and logged once, with its trace, here.

Every error that leaves the service also names the request it answers
(`extensions.requestId`, api/http/request_ids.py), as do the log lines of that request.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping
from typing import Any

from graphql import GraphQLError
from strawberry.extensions import MaskErrors

from api.process.logs import request_id
from graph.errors import ErrorCode, ThreadlineError

log = logging.getLogger("threadline.errors")


def is_clients(error: GraphQLError) -> bool:
    """An error the request caused, shown as it is; anything else is masked."""
    original = error.original_error
    if original is None or isinstance(original, ThreadlineError | GraphQLError):
        return True
    # graphql-core wraps a scalar's refusal of a request value (ValueError, TypeError)
    # in a path-less error; raised by a resolver or an extension, they are bugs.
    return error.path is None and isinstance(original, ValueError | TypeError)


class CodedErrors(MaskErrors):
    def __init__(self) -> None:
        super().__init__(should_mask_error=lambda error: not is_clients(error))

    def anonymise_error(self, error: GraphQLError) -> GraphQLError:
        correlation = uuid.uuid4().hex[:12]
        log.error("internal error %s", correlation, exc_info=error.original_error)
        return GraphQLError(
            f"Internal error (correlation id {correlation}); it has been logged.",
            nodes=error.nodes,
            source=error.source,
            positions=error.positions,
            path=error.path,
            extensions={"code": ErrorCode.INTERNAL.value, "correlationId": correlation},
        )


def with_code(formatted: Mapping[str, Any]) -> dict[str, Any]:
    """A formatted error as it leaves the service: with a code, INVALID_INPUT by default,
    and the id of the request it answers; logged at DEBUG (a client's error is its own
    business, but an operator looking into one finds it by its request id), UNAVAILABLE at
    WARNING (the database failed, not the client: an operator must see it)."""
    extensions = dict(formatted.get("extensions") or {})
    extensions.setdefault("code", ErrorCode.INVALID_INPUT.value)
    answering = request_id.get()
    if answering is not None:
        extensions["requestId"] = answering
    level = logging.WARNING if extensions["code"] == ErrorCode.UNAVAILABLE.value else logging.DEBUG
    log.log(level, "answered %s: %s", extensions["code"], formatted.get("message"))
    return {**formatted, "extensions": extensions}
