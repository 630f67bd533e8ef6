"""Error mapping: coded errors pass through; anything else is masked as INTERNAL."""

from __future__ import annotations

import logging
import uuid
from typing import Any

from graphql import GraphQLError
from strawberry.extensions import MaskErrors

from graph.errors import ErrorCode, ThreadlineError

log = logging.getLogger("threadline.errors")


def _original(error: GraphQLError) -> BaseException | None:
    return error.original_error


def is_coded(error: GraphQLError) -> bool:
    """Our own coded errors, and errors outside any resolver (parsing, validation,
    variable coercion: the request's fault), are shown as they are."""
    original = _original(error)
    return original is None or isinstance(original, ThreadlineError) or error.path is None


class CodedErrors(MaskErrors):
    """Masks unexpected exceptions with a correlation id, logged with the trace."""

    def __init__(self) -> None:
        super().__init__(should_mask_error=lambda error: not is_coded(error))

    def _process_errors(self, errors: list[GraphQLError]) -> list[GraphQLError]:
        # Codes go on the error itself, so HTTP and websocket answers both carry them.
        return [self.anonymise_error(e) if not is_coded(e) else _coded(e) for e in errors]

    def anonymise_error(self, error: GraphQLError) -> GraphQLError:
        correlation = uuid.uuid4().hex[:12]
        log.error("internal error %s", correlation, exc_info=_original(error))
        return GraphQLError(
            f"Internal error (correlation id {correlation}); it has been logged.",
            nodes=error.nodes,
            source=error.source,
            positions=error.positions,
            path=error.path,
            extensions={"code": ErrorCode.INTERNAL.value, "correlationId": correlation},
        )


def _coded(error: GraphQLError) -> GraphQLError:
    if (error.extensions or {}).get("code"):
        return error
    return GraphQLError(
        error.message,
        nodes=error.nodes,
        source=error.source,
        positions=error.positions,
        path=error.path,
        original_error=error.original_error,
        extensions={**(error.extensions or {}), "code": code_of(error)},
    )


def code_of(error: GraphQLError) -> str:
    original = _original(error)
    if isinstance(original, ThreadlineError):
        return original.code.value
    if original is None or error.path is None:
        return ErrorCode.INVALID_INPUT.value
    return ErrorCode.INTERNAL.value


def with_code(error: GraphQLError) -> dict[str, Any]:
    formatted = error.formatted
    extensions = dict(formatted.get("extensions") or {})
    extensions.setdefault("code", code_of(error))
    formatted["extensions"] = extensions
    return dict(formatted)
