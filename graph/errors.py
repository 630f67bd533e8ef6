"""The coded errors every layer raises and the API reports (SEMANTICS "Commands, errors")."""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    UNAUTHENTICATED = "UNAUTHENTICATED"
    FORBIDDEN = "FORBIDDEN"
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
