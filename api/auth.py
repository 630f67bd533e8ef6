"""Bearer tokens, scopes, workspaces and expiry (SEMANTICS "Commands, errors, access").

The tokens file holds only SHA-256 digests. Scopes are ordered: `admin`
includes `write`, which includes `read`. Without a tokens file the service is
open, in one workspace `default`, and binds only to loopback addresses. A token
whose `expires` has passed is refused as UNAUTHENTICATED, saying so.
"""

from __future__ import annotations

import hashlib
import ipaddress
import re
import tomllib
from datetime import UTC, date, datetime, timedelta
from enum import IntEnum
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from graph.errors import ErrorCode, ThreadlineError

OPEN_WORKSPACE = "default"
# Names a shell, a file name and a log line carry unquoted: what `--workspace` and a
# tokens-file entry accept.
WORKSPACE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def workspace_name(name: str) -> str:
    """`name` if it names a workspace, else ValueError saying what one is."""
    if WORKSPACE_NAME.fullmatch(name) is None:
        raise ValueError(
            f"{name!r} is not a workspace name: 1 to 64 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit"
        )
    return name


class Scope(IntEnum):
    read = 1
    write = 2
    admin = 3


class Refusal(ThreadlineError):
    """An access refusal, with what the audit log records of it (never the token itself):
    its event (`unauthenticated`, `expired`, `forbidden`) and the token's name and
    workspace when they are known."""

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        event: str,
        token: str | None = None,
        workspace: str | None = None,
    ) -> None:
        super().__init__(code, message)
        self.event, self.token, self.workspace = event, token, workspace


def unauthenticated(message: str = "Send `Authorization: Bearer <token>`.") -> Refusal:
    return Refusal(ErrorCode.UNAUTHENTICATED, message, "unauthenticated")


class Principal(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    workspace: str
    scope: Scope
    # This token's own rate limit (the tokens file's `rps` and `burst`); None: the settings'.
    rps: float | None = None
    burst: int | None = None

    def require(self, needed: Scope) -> None:
        if self.scope < needed:
            raise Refusal(
                ErrorCode.FORBIDDEN,
                f"Token {self.name!r} has scope {self.scope.name}; this needs {needed.name}.",
                "forbidden",
                self.name,
                self.workspace,
            )


OPEN = Principal(name="open", workspace=OPEN_WORKSPACE, scope=Scope.admin)


DURATION = re.compile(r"^\s*(\d+)\s*([mhdw])\s*$")
UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def instant(value: datetime | date | str) -> datetime:
    """An expiry as an aware UTC instant: a TOML date-time or an ISO 8601 string; without
    an offset it is UTC, and a date alone is 00:00 UTC of that day (the token works up to
    the start of that date)."""
    if isinstance(value, str):
        text = value.strip()
        try:
            value = date.fromisoformat(text) if len(text) == 10 else datetime.fromisoformat(text)
        except ValueError as error:
            raise ValueError(f"{value!r} is not an ISO 8601 date or date-time") from error
    if not isinstance(value, datetime):
        value = datetime(value.year, value.month, value.day)
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def expiry(text: str, now: datetime) -> datetime:
    """`new-token --expires`: a duration from `now` (a whole number and m, h, d or w:
    `30d`) or an instant as the tokens file takes it (`instant`)."""
    duration = DURATION.match(text)
    if duration:
        return now + timedelta(**{UNITS[duration[2]]: int(duration[1])})
    return instant(text)


class TokenEntry(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    sha256: str = Field(pattern=r"^[0-9a-fA-F]{64}$")
    scopes: list[str] = Field(min_length=1)
    workspace: str
    expires: datetime | None = None
    rps: float | None = Field(default=None, gt=0)
    burst: int | None = Field(default=None, ge=1)

    @field_validator("workspace")
    @classmethod
    def _workspace(cls, value: str) -> str:
        return workspace_name(value)

    @field_validator("expires", mode="before")
    @classmethod
    def _instant(cls, value: object) -> datetime | None:
        if value is None or isinstance(value, datetime | date | str):
            return None if value is None else instant(value)
        raise ValueError("expires is a TOML date-time or an ISO 8601 string")

    def principal(self) -> Principal:
        try:
            scope = max(Scope[s] for s in self.scopes)
        except KeyError as error:
            raise ValueError(f"token {self.name!r}: unknown scope {error}") from error
        return Principal(
            name=self.name, workspace=self.workspace, scope=scope, rps=self.rps, burst=self.burst
        )


def _entry(number: int, raw: object) -> TokenEntry:
    """The file's `number`th entry, or one line naming it and every field it gets wrong."""
    try:
        return TokenEntry.model_validate(raw)
    except ValidationError as error:
        name = raw.get("name") if isinstance(raw, dict) else None
        problems = "; ".join(
            f"{'.'.join(str(part) for part in e['loc']) or 'the entry'}: "
            f"{e['msg'].removeprefix('Value error, ')}"
            for e in error.errors()
        )
        named = f" ({name!r})" if isinstance(name, str) else ""
        raise ValueError(f"entry {number}{named}: {problems}") from error


class Authenticator(Protocol):
    """Who a bearer token is: a tokens file read once (`TokenBook`) or kept current."""

    @property
    def open(self) -> bool: ...

    def authenticate(self, authorization: str | None) -> Principal: ...


class TokenBook:
    """Who a bearer token is; None means the service runs open."""

    def __init__(self, entries: list[TokenEntry] | None) -> None:
        self._by_digest = (
            {entry.sha256.lower(): (entry.principal(), entry.expires) for entry in entries}
            if entries is not None
            else None
        )

    @property
    def open(self) -> bool:
        return self._by_digest is None

    def __len__(self) -> int:
        return len(self._by_digest or {})

    @classmethod
    def from_toml(cls, text: str | None, source: object = None) -> TokenBook:
        """The book of a tokens file's `text` (None: open); `source`, the file, is named in
        the one-line refusal of a file that is not valid."""
        if text is None:
            return cls(None)
        try:
            raw = tomllib.loads(text).get("tokens", [])
            return cls([_entry(number, entry) for number, entry in enumerate(raw, 1)])
        except (tomllib.TOMLDecodeError, ValueError) as error:
            where = f" {source}" if source is not None else ""
            raise ValueError(f"Invalid tokens file{where}: {error}") from error

    def authenticate(self, authorization: str | None, now: datetime | None = None) -> Principal:
        if self._by_digest is None:
            return OPEN
        scheme, _, token = (authorization or "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise unauthenticated()
        digest = hashlib.sha256(token.strip().encode()).hexdigest()
        found = self._by_digest.get(digest)
        if found is None:
            raise unauthenticated("The bearer token is not known.")
        principal, expires = found
        if expires is not None and expires <= (now or datetime.now(UTC)):
            raise Refusal(
                ErrorCode.UNAUTHENTICATED,
                f"The bearer token {principal.name!r} expired at {expires.isoformat()}.",
                "expired",
                principal.name,
                principal.workspace,
            )
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
