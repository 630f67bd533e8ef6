"""What `threadline serve` says while it starts: one line per stage as it happens, and
"ready at URL" only once /readyz answers 200, as a readiness probe would see it, followed
by every address the front door at `/` lists (api/front.py), one per line.

uvicorn's own start-up lines ("Application startup complete", "Uvicorn running on ...")
come before the warm-up ends, when /readyz still answers 503, so they are not shown;
its warnings and errors (a failed bind, a crashed worker) still are.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable

from api import front
from api.settings import Settings

POLL_S = 0.25
Say = Callable[[str], None]


def browsable(host: str) -> str:
    """The address a browser (or a probe) can open for a bind address."""
    if host in ("0.0.0.0", ""):
        return "127.0.0.1"
    if host == "::":
        return "[::1]"
    return f"[{host}]" if ":" in host else host


def base_url(settings: Settings) -> str:
    return f"http://{browsable(settings.host)}:{settings.port}"


def announce_when_ready(settings: Settings, say: Say) -> threading.Thread:
    """A daemon thread that asks /readyz until it answers 200, then says "ready at"; on
    the way, one line each time the service says Neo4j is unavailable, with its reason."""
    base = base_url(settings)

    def watch() -> None:
        said = ""
        while True:
            status, reason = readiness(f"{base}/readyz")
            if status == "ready":
                for line in front.ready_lines(settings, base):
                    say(line)
                return
            if status == "unavailable" and reason != said:
                say(f"waiting for Neo4j: {reason}")
                said = reason
            time.sleep(POLL_S)

    thread = threading.Thread(target=watch, name="threadline-ready", daemon=True)
    thread.start()
    return thread


def readiness(url: str) -> tuple[str, str]:
    """(status, reason) as /readyz answers; ("", "") while nothing listens yet. urllib, not
    httpx, whose every request would be an INFO log line."""
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return ("ready", "") if response.status == 200 else ("", "")
    except urllib.error.HTTPError as refused:
        body = refused.read()
    except OSError:
        return "", ""
    try:
        answer = json.loads(body)
    except ValueError:
        return "", ""
    if not isinstance(answer, dict):
        return "", ""
    return str(answer.get("status", "")), str(answer.get("reason", ""))
