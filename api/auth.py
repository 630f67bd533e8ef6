"""Bearer tokens, scopes and workspaces (SEMANTICS "Commands, errors, access").

The tokens file holds only SHA-256 digests. Scopes are ordered: `admin`
includes `write`, which includes `read`. Without a tokens file the service is
open, in one workspace `default`, and binds only to loopback addresses.
"""

from __future__ import annotations

import hashlib
import ipaddress
import tomllib
from enum import IntEnum

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from graph.errors import ErrorCode, ThreadlineError

OPEN_WORKSPACE = "default"


class Scope(IntEnum):
    read = 1
    write = 2
    admin = 3


class Principal(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    workspace: str
    scope: Scope

    def require(self, needed: Scope) -> None:
        if self.scope < needed:
            raise ThreadlineError(
                ErrorCode.FORBIDDEN,
                f"Token {self.name!r} has scope {self.scope.name}; this needs {needed.name}.",
            )


OPEN = Principal(name="open", workspace=OPEN_WORKSPACE, scope=Scope.admin)


class TokenEntry(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    sha256: str = Field(pattern=r"^[0-9a-fA-F]{64}$")
    scopes: list[str] = Field(min_length=1)
    workspace: str = Field(min_length=1)

    def principal(self) -> Principal:
        try:
            scope = max(Scope[s] for s in self.scopes)
        except KeyError as error:
            raise ValueError(f"token {self.name!r}: unknown scope {error}") from error
        return Principal(name=self.name, workspace=self.workspace, scope=scope)


class TokenBook:
    """Who a bearer token is; None means the service runs open."""

    def __init__(self, entries: list[TokenEntry] | None) -> None:
        self._by_digest = (
            {entry.sha256.lower(): entry.principal() for entry in entries}
            if entries is not None
            else None
        )

    @property
    def open(self) -> bool:
        return self._by_digest is None

    @classmethod
    def from_toml(cls, text: str | None) -> TokenBook:
        if text is None:
            return cls(None)
        try:
            raw = tomllib.loads(text).get("tokens", [])
            return cls([TokenEntry.model_validate(entry) for entry in raw])
        except (tomllib.TOMLDecodeError, ValidationError, ValueError) as error:
            raise ValueError(f"Invalid tokens file: {error}") from error

    def authenticate(self, authorization: str | None) -> Principal:
        if self._by_digest is None:
            return OPEN
        scheme, _, token = (authorization or "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise ThreadlineError(
                ErrorCode.UNAUTHENTICATED, "Send `Authorization: Bearer <token>`."
            )
        digest = hashlib.sha256(token.strip().encode()).hexdigest()
        principal = self._by_digest.get(digest)
        if principal is None:
            raise ThreadlineError(ErrorCode.UNAUTHENTICATED, "The bearer token is not known.")
        return principal


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def refuse_open_public_bind(host: str, book: TokenBook) -> None:
    """An open service (no tokens file) must not listen beyond this machine."""
    if book.open and not is_loopback(host):
        raise ValueError(
            f"Refusing to serve on {host} without THREADLINE_TOKENS_FILE: an open service "
            "binds only to a loopback address (127.0.0.1, ::1, localhost)."
        )
