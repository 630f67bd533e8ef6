"""Requests refused before execution: malformed bodies and JSON, unsupported methods.

Strawberry answers these with plain-text 4xx; clients of this API always get a
GraphQL-shaped body with `extensions.code` instead, and never a 5xx.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import TYPE_CHECKING

from cross_web import HTTPException
from graphql import GraphQLError, OperationDefinitionNode, parse
from starlette.responses import JSONResponse

from api.auth import Refusal
from api.graphql.errors import with_code
from api.http.media import JSON
from graph.errors import ErrorCode

if TYPE_CHECKING:
    from api.services import Services

STATUS_BY_REASON = {"Unsupported content type": 415}


def decode_json(data: str | bytes, max_depth: int) -> object:
    """JSON as Strawberry expects it, with every way a body can be malformed made a
    JSONDecodeError (which Strawberry answers as a request error): invalid UTF-8,
    and nesting deeper than `max_depth`, which would otherwise exhaust the stack."""
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        value = json.loads(text)
    except UnicodeDecodeError as error:
        raise json.JSONDecodeError("The body is not valid UTF-8", "", error.start) from error
    except RecursionError as error:
        raise json.JSONDecodeError(f"JSON nested deeper than {max_depth}", "", 0) from error
    # Counting brackets (in C) bounds the depth from above, so most bodies skip the walk.
    nestable = text.count("[") + text.count("{")
    if nestable > max_depth and _depth(value) > max_depth:
        raise json.JSONDecodeError(f"JSON nested deeper than {max_depth}", "", 0)
    return value


def _depth(value: object) -> int:
    """Nesting depth of a decoded JSON value, without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, level + 1) for child in children)
    return deepest


def refusal_response(
    error: HTTPException, services: Services, authorization: str | None, media: str = JSON
) -> JSONResponse:
    """A coded GraphQL error body in `media`; an unauthenticated caller learns only that."""
    unauthenticated = refused_caller(services, authorization, "/graphql", media)
    if unauthenticated is not None:
        return unauthenticated
    status = STATUS_BY_REASON.get(error.reason, error.status_code)
    return coded(status, ErrorCode.INVALID_INPUT, error.reason, media)


def refused_caller(
    services: Services, authorization: str | None, path: str, media: str = JSON
) -> JSONResponse | None:
    """401 with a coded body (and an audit line) when a tokens file is set and no valid
    token was sent."""
    try:
        services.tokens.authenticate(authorization)
    except Refusal as refused:
        services.audit.refusal(refused, path)
        return coded(401, ErrorCode.UNAUTHENTICATED, refused.message, media)
    return None


def coded(status: int, code: ErrorCode, message: str, media: str = JSON) -> JSONResponse:
    """A refusal before execution: `status`, and a GraphQL-shaped body with its code."""
    error = with_code({"message": message, "extensions": {"code": code.value}})
    return JSONResponse({"errors": [error]}, status_code=status, media_type=media)


def unnamed_choice(query: str | None, operation_name: str | None, max_tokens: int) -> str | None:
    """Why a request is refused when it has several operations and names none (the GraphQL
    spec's request error), else None. Unparsable documents are left to the executor."""
    if operation_name is not None or not query:
        return None
    count = _operations(query, max_tokens)
    if count < 2:
        return None
    return f"The document has {count} operations; name the one to run in `operationName`."


@lru_cache(maxsize=512)
def _operations(query: str, max_tokens: int) -> int:
    """How many operations the document has (0 when it does not parse); kept per text."""
    try:
        document = parse(query, no_location=True, max_tokens=max_tokens)
    except GraphQLError:
        return 0
    return sum(isinstance(d, OperationDefinitionNode) for d in document.definitions)
