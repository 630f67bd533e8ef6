"""Log lines, each naming the request it served.

`threadline serve` writes one JSON object per line to stderr (`time`, `level`, `logger`,
`message`, `request_id`, then whatever the call passed in `extra`) when stderr is not a
terminal, or when THREADLINE_LOG_FORMAT=json; text lines for a person at a terminal, or
with THREADLINE_LOG_FORMAT=text. The request id is the one api/http/request_ids.py sets
for the request being served (null outside one); `trace_id` is added while a span is
recording (api/process/telemetry.py).
"""

from __future__ import annotations

import copy
import logging
import sys
from contextvars import ContextVar
from typing import Any

from opentelemetry import trace
from pythonjsonlogger.core import RESERVED_ATTRS
from uvicorn.config import LOGGING_CONFIG

from api.settings import LogFormat

request_id: ContextVar[str | None] = ContextVar("threadline_request_id", default=None)

JSON_FIELDS = ["levelname", "name", "message", "request_id"]
RENAMED = {"levelname": "level", "name": "logger"}
# uvicorn's copy of the message with terminal colours: not for a log collector.
NOT_LOGGED = [*RESERVED_ATTRS, "color_message", "taskName"]
TEXT_LINE = "%(levelprefix)s %(message)s [%(name)s, request %(request_id)s]"
# Libraries whose info lines are noise in a service's log: the driver's notes on each
# schema statement, every httpx request, the MCP library's session chatter, and
# uvicorn's start-up lines, which come before the warm-up ends (`threadline serve` says
# "ready at" itself once /readyz answers 200). Their warnings and errors still show, but
# for the driver's line per broken connection (`neo4j.io`, at ERROR): each is a request
# the service answers UNAVAILABLE and logs itself, once, at WARNING.
QUIET = {
    "neo4j": "WARNING",
    "neo4j.io": "CRITICAL",
    "httpx": "WARNING",
    "mcp": "WARNING",
    "uvicorn.error": "WARNING",
}


class RequestIdFilter(logging.Filter):
    """Puts the request id (and the trace id, while tracing) on every record it sees."""

    def __init__(self, missing: str | None = None) -> None:
        super().__init__()
        self._missing = missing

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id.get() or self._missing
        span = trace.get_current_span().get_span_context()
        if span.is_valid:
            record.trace_id = trace.format_trace_id(span.trace_id)
        return True


def json_formatter() -> logging.Formatter:
    from pythonjsonlogger.json import JsonFormatter

    return JsonFormatter(
        JSON_FIELDS,
        rename_fields=RENAMED,
        reserved_attrs=NOT_LOGGED,
        timestamp="time",
        defaults={"time": None},  # holds the first place for the timestamp, written last
    )


def logging_config(fmt: LogFormat, level: str = "INFO") -> dict[str, Any]:
    """The `logging.config.dictConfig` of `threadline serve` (uvicorn's `log_config`):
    uvicorn's own lines and ours, in one format."""
    config = _json_config(level) if as_json(fmt) else _text_config(level)
    config["loggers"].update({name: {"level": quiet} for name, quiet in QUIET.items()})
    return config


def as_json(fmt: LogFormat) -> bool:
    """Whether lines to stderr are JSON: asked for, or `auto` and stderr is no terminal."""
    return fmt is LogFormat.json or (fmt is LogFormat.auto and not sys.stderr.isatty())


def _json_config(level: str) -> dict[str, Any]:
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"request_id": {"()": RequestIdFilter}},
        "formatters": {"json": {"()": json_formatter}},
        "handlers": {
            "stderr": {
                "class": "logging.StreamHandler",
                "stream": "ext://sys.stderr",
                "formatter": "json",
                "filters": ["request_id"],
            }
        },
        "root": {"handlers": ["stderr"], "level": level},
        # uvicorn's loggers pass their lines on to the root's handler.
        "loggers": {
            name: {"handlers": [], "propagate": True}
            for name in ("uvicorn", "uvicorn.error", "uvicorn.access")
        },
    }


def _text_config(level: str) -> dict[str, Any]:
    """uvicorn's lines as uvicorn writes them; ours with their logger and request."""
    config = copy.deepcopy(LOGGING_CONFIG)
    # uvicorn writes its access lines to stdout; every line goes to stderr here, as in JSON.
    config["handlers"]["access"]["stream"] = "ext://sys.stderr"
    config["filters"] = {"request_id": {"()": RequestIdFilter, "missing": "-"}}
    config["formatters"]["threadline"] = {
        "()": "uvicorn.logging.DefaultFormatter",
        "fmt": TEXT_LINE,
    }
    config["handlers"]["threadline"] = {
        "class": "logging.StreamHandler",
        "stream": "ext://sys.stderr",
        "formatter": "threadline",
        "filters": ["request_id"],
    }
    config["root"] = {"handlers": ["threadline"], "level": level}
    return config
