"""GraphQL over HTTP: a response's media type, and its status under that type.

`Accept` chooses (python-mimeparse weighs its ranges): `application/graphql-response+json`
when the client prefers it, `application/json` otherwise (no `Accept`, `*/*`, both
equally, or neither named).

- Under `application/json` every well-formed request answers 200 with `data`, as it always
  has; only a refusal before the request is read (a missing or unknown token: 401; a
  malformed body: 4xx) answers otherwise.
- Under `application/graphql-response+json` a request error (the document does not parse
  or validate, the variables do not coerce, or the operation is refused before it runs)
  answers without `data` and with a 4xx (`status_of`); once execution began the answer
  holds `data`, null or not, and is 200.

docs/SECURITY.md states the 401; docs/ERRORS.md states the rest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

import mimeparse
from strawberry.types import ExecutionResult

from graph.errors import ErrorCode

JSON = "application/json"
GRAPHQL_RESPONSE = "application/graphql-response+json"
# On a tie the later wins: a client that accepts both alike keeps application/json.
SUPPORTED = [GRAPHQL_RESPONSE, JSON]

# A request error's status by its code; any other code is the client's request: 400.
STATUS_BY_CODE = {
    ErrorCode.UNAUTHENTICATED.value: 401,
    ErrorCode.FORBIDDEN.value: 403,
    ErrorCode.RATE_LIMITED.value: 429,
    ErrorCode.INTERNAL.value: 500,
    ErrorCode.UNAVAILABLE.value: 503,
}


@lru_cache(maxsize=64)
def negotiated(accept: str | None) -> str:
    """The media type a response with this `Accept` header has."""
    if not accept:
        return JSON
    try:
        return mimeparse.best_match(SUPPORTED, accept) or JSON
    except ValueError:  # a malformed range: answered as if none were named
        return JSON


def executed(result: ExecutionResult) -> bool:
    """Whether execution began: graphql-core answers `data` (even null) once it has, and
    every error it raises before (parsing, validation, coercing the variables), like a
    refusal before execution, has no path."""
    return result.data is not None or any(error.path for error in result.errors or ())


def keeps_data(media: str, result: ExecutionResult) -> bool:
    """Whether the answer holds a `data` entry."""
    return media == JSON or executed(result)


def status_of(media: str, answer: Mapping[str, Any] | Sequence[Mapping[str, Any]]) -> int:
    """The HTTP status of a GraphQL answer under `media`."""
    if media == JSON or not isinstance(answer, Mapping) or "data" in answer:
        return 200
    codes = [error.get("extensions", {}).get("code") for error in answer.get("errors", ())]
    return STATUS_BY_CODE.get(codes[0], 400) if codes else 400
