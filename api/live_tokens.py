"""The tokens file as it is now: every API process re-reads it when it changes.

A request looks at the file's size, modification time and inode at most once per
`CHECK_S` (one `stat`), and re-reads it when any of them changed; SIGHUP re-reads it at
once. A file that no longer parses (or is gone) leaves the last good tokens in force and
says so on the log and in the audit log, once per change.
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

from api import audit
from api.audit import Audit
from api.auth import Principal, TokenBook

log = logging.getLogger("threadline.tokens")
CHECK_S = 1.0


def signature(path: Path) -> tuple[int, int, int] | None:
    """What changes when the file is written or replaced; None when it cannot be read."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size, stat.st_ino


class LiveTokens:
    """An `Authenticator` over the tokens file (or the open service when there is none)."""

    def __init__(self, path: Path | None, audit_log: Audit, check_s: float = CHECK_S) -> None:
        self._path = path
        self._audit = audit_log
        self._check_s = check_s
        # The first read fails loudly: a service must not start on a broken tokens file.
        self._seen = signature(path) if path else None
        self._book = TokenBook.from_toml(path.read_text() if path else None, path)
        self._next_check = time.monotonic() + check_s

    @property
    def book(self) -> TokenBook:
        if self._path is not None and time.monotonic() >= self._next_check:
            self.refresh()
        return self._book

    @property
    def open(self) -> bool:
        return self._book.open

    def authenticate(self, authorization: str | None) -> Principal:
        return self.book.authenticate(authorization)

    def refresh(self, force: bool = False) -> None:
        """Re-read the file if it changed since it was last read (or when `force`)."""
        if self._path is None:
            return
        self._next_check = time.monotonic() + self._check_s
        seen = signature(self._path)
        if seen == self._seen and not force:
            return
        self._seen = seen
        try:
            book = TokenBook.from_toml(self._path.read_text(), self._path)
        except (OSError, ValueError) as error:
            reason = f"kept the last good tokens ({len(self._book)}): {error}"
            log.error("The tokens file %s was not reloaded: %s", self._path, reason)
            self._audit.record(audit.TOKENS_RELOAD_FAILED, reason, path=str(self._path))
            return
        self._book = book
        self._audit.record(audit.TOKENS_RELOADED, f"{len(book)} tokens", path=str(self._path))
