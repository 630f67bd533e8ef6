"""The coded errors every layer raises and the API reports (SEMANTICS "Commands, errors")."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import cast


class ErrorCode(StrEnum):
    UNAUTHENTICATED = "UNAUTHENTICATED"
    FORBIDDEN = "FORBIDDEN"
    MISDIRECTED = "MISDIRECTED"  # a Host the service does not answer to (HTTP 421)
    NOT_FOUND = "NOT_FOUND"
    INVALID_INPUT = "INVALID_INPUT"
    CONFLICT = "CONFLICT"
    UNSUPPORTED_TRANSFER = "UNSUPPORTED_TRANSFER"
    CONTEXT_TOO_LARGE = "CONTEXT_TOO_LARGE"
    PROVIDER_LIMITED = "PROVIDER_LIMITED"
    RATE_LIMITED = "RATE_LIMITED"
    UNAVAILABLE = "UNAVAILABLE"
    INTERNAL = "INTERNAL"


# What an error's extensions may carry beside its code: JSON scalars and lists of names.
Extension = str | int | list[str] | None


class ThreadlineError(Exception):
    """A failure a caller can act on; its message is shown to them verbatim, its
    `extensions` (e.g. `outcome`) beside its code."""

    def __init__(self, code: ErrorCode, message: str, **extensions: Extension) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.extensions: dict[str, Extension] = {"code": code.value, **extensions}

    @classmethod
    def unauthenticated(cls) -> ThreadlineError:
        return cls(ErrorCode.UNAUTHENTICATED, "Send `Authorization: Bearer <token>`.")


# What a write's answer says was written, least known first: nothing (no `outcome`), maybe
# (`UNKNOWN`: a commit was sent and not acknowledged), or the change itself (`COMMITTED`).
_OUTCOME_WEIGHT = {None: 0, "UNKNOWN": 1, "COMMITTED": 2}


def outcome_weight(extensions: Mapping[str, object] | None) -> int:
    """How much an UNAVAILABLE answer says may have been written (0 for any other error).

    One rule for every layer that retries a write (the store's own retries, a receipt's
    look-up, the console's clients): tried several times, a write answers the weightiest
    of its tries, so "nothing was written" stands only when no try sent its commit."""
    if not extensions or extensions.get("code") != ErrorCode.UNAVAILABLE.value:
        return 0
    return _OUTCOME_WEIGHT.get(cast(str | None, extensions.get("outcome")), 0)


def weightier(kept: ThreadlineError | None, last: ThreadlineError) -> ThreadlineError:
    """Of an earlier try's error and the last one's, the one a retried write answers. A
    last error that is not UNAVAILABLE is an answer of its own (a receipt's replay starts
    from it), so it stands."""
    if last.code is not ErrorCode.UNAVAILABLE or kept is None:
        return last
    return kept if outcome_weight(kept.extensions) > outcome_weight(last.extensions) else last


def not_found(kind: str, ident: str) -> ThreadlineError:
    return ThreadlineError(ErrorCode.NOT_FOUND, f"No {kind} with id {ident!r} in this workspace.")


def conflict(message: str) -> ThreadlineError:
    return ThreadlineError(ErrorCode.CONFLICT, message)


def invalid(message: str) -> ThreadlineError:
    return ThreadlineError(ErrorCode.INVALID_INPUT, message)


def being_restored(workspace: str) -> ThreadlineError:
    """A workspace a restore holds closed (docs/MODEL.md, "Write gates"): nothing of it is
    read or written until the restore ends or is discarded."""
    return ThreadlineError(
        ErrorCode.UNAVAILABLE,
        f"Workspace {workspace!r} is being restored (or a restore of it stopped): it answers "
        "again once `threadline restore` has finished it, or `threadline restore --discard` "
        "has removed it; nothing was read or written.",
    )
