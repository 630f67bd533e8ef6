"""The audit log: access refusals and token administration, one JSON object per line.

Each line has `time` (UTC, ISO 8601), `event`, `token` (its name, never the token) and
`workspace` when known, `reason`, `path` (the endpoint, or the console command) and
`operation` (the GraphQL operation's name, when it has one). The lines go to
THREADLINE_AUDIT_LOG (appended; several processes may share it, each line is one write),
else to stderr through the logger `threadline.audit`: JSON there too, unless the service's
log lines are text (a terminal, or THREADLINE_LOG_FORMAT=text: api/process/logs.py), when
they are text lines with the same fields (`text_line`). A console command (`new-token`,
`revoke-token`) prints only its own answer: without THREADLINE_AUDIT_LOG its lines are
appended to `audit.log` in THREADLINE_HOME (`console_log`).
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from logging.handlers import WatchedFileHandler
from pathlib import Path

from api.auth import Principal, Refusal

LOGGER = "threadline.audit"

# The events, by name: refusals, then administration.
UNAUTHENTICATED = "unauthenticated"
EXPIRED = "expired"
FORBIDDEN = "forbidden"
RATE_LIMITED = "rate_limited"
HOST_REFUSED = "host_refused"  # a Host the service does not answer to (api/http/hosts.py)
ORIGIN_REFUSED = "origin_refused"  # a page on an origin that may not call it
TOKEN_CREATED = "token_created"
TOKEN_REVOKED = "token_revoked"
TOKENS_RELOADED = "tokens_reloaded"
TOKENS_RELOAD_FAILED = "tokens_reload_failed"


class Audit:
    """Writes audit lines to its handler while it is open (`opened`)."""

    def __init__(self, path: Path | None, text: bool = False) -> None:
        self.path = path
        self.text = text and path is None  # a file always gets JSON lines
        self._log = logging.getLogger(LOGGER)
        # Told each event as it is written: /metrics counts them (api/http/metrics.py).
        self.observer: Callable[[str], None] = lambda _event: None

    def record(
        self,
        event: str,
        reason: str,
        *,
        token: str | None = None,
        workspace: str | None = None,
        path: str | None = None,
        operation: str | None = None,
    ) -> None:
        line = {
            "time": datetime.now(UTC).isoformat(timespec="milliseconds"),
            "event": event,
            "token": token,
            "workspace": workspace,
            "reason": reason,
            "path": path,
            "operation": operation,
        }
        if self.text:
            self._log.info(text_line(line))
        else:
            self._log.info(json.dumps(line, ensure_ascii=False, separators=(",", ":")))
        self.observer(event)

    def refusal(self, refusal: Refusal, path: str, operation: str | None = None) -> None:
        self.record(
            refusal.event,
            refusal.message,
            token=refusal.token,
            workspace=refusal.workspace,
            path=path,
            operation=operation,
        )

    def rate_limited(self, principal: Principal, reason: str, path: str) -> None:
        self.record(
            RATE_LIMITED, reason, token=principal.name, workspace=principal.workspace, path=path
        )

    @contextmanager
    def opened(self) -> Iterator[Audit]:
        """The handler for the life of an app or a console command, then closed. One at a
        time per process: a later one replaces an earlier one's until it closes."""
        handler: logging.Handler = (
            WatchedFileHandler(self.path, encoding="utf-8")  # follows logrotate's moves
            if self.path is not None
            else logging.StreamHandler(sys.stderr)
        )
        handler.setFormatter(logging.Formatter("%(message)s"))
        saved = (self._log.handlers[:], self._log.propagate, self._log.level)
        self._log.handlers = [handler]
        self._log.propagate = False  # the lines are the log's own, not the app's
        self._log.setLevel(logging.INFO)
        try:
            yield self
        finally:
            self._log.handlers, self._log.propagate, level = saved
            self._log.setLevel(level)
            handler.close()


def text_line(line: dict[str, str | None]) -> str:
    """An audit line for a person: `time audit EVENT reason [path, operation, token,
    workspace]`, each field there only when known."""
    known = [
        f"{field} {line[field]}"
        for field in ("path", "operation", "token", "workspace")
        if line.get(field) is not None
    ]
    return f"{line['time']} audit {line['event']}: {line['reason']} [{', '.join(known)}]"


def console_log(audit_log: Path | None, home: Path) -> Path:
    """Where a console command's audit lines go: THREADLINE_AUDIT_LOG, else
    `audit.log` in THREADLINE_HOME (created with its folder)."""
    if audit_log is not None:
        return audit_log
    home.mkdir(parents=True, exist_ok=True)
    return home / "audit.log"
