"""`threadline serve` as a separate process on the test Neo4j, for tests of real HTTP."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from api.settings import Settings

# Tests that flood on purpose (load, races, fuzzing, the suite's shared server) raise the
# per-token rate limit, which is on by default; tests/integration/test_rate_limits.py
# tests the limit itself.
FLOOD_RATE = {"rate_limit_rps": 1_000_000.0, "rate_limit_burst": 1_000_000}
FLOOD_ENV = {key.upper(): str(value) for key, value in FLOOD_RATE.items()}
# The request bound users get by default; the suite's services get 30 s (tests/conftest.py)
# unless a test, like those of outages, runs with this one.
USERS_DB_TIMEOUT_S = Settings.model_fields["db_timeout_s"].default


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def serve(neo4j_uri: str, folder: Path, **settings: str) -> Iterator[str]:
    """`threadline serve` as a separate process on the test Neo4j: real HTTP, real uvicorn,
    once /readyz says ready.

    `settings` are extra THREADLINE_* variables, e.g. TOKENS_FILE. Yields the base URL.
    """
    with served(neo4j_uri, folder, **settings) as (base, _):
        yield base


@contextmanager
def served(
    neo4j_uri: str, folder: Path, **settings: str
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`serve`, with the `threadline serve` process itself."""
    port = free_port()
    env = {
        **os.environ,
        "THREADLINE_NEO4J_URI": neo4j_uri,
        "THREADLINE_PORT": str(port),
        "THREADLINE_HOST": "127.0.0.1",
        **{f"THREADLINE_{key}": value for key, value in settings.items()},
    }
    password = os.environ.get("THREADLINE_TEST_NEO4J_PASSWORD")
    if password:
        env["THREADLINE_NEO4J_PASSWORD"] = password
    log = (folder / "serve.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "api.cli", "serve"], env=env, stdout=log, stderr=subprocess.STDOUT
    )
    base = f"http://127.0.0.1:{port}"
    # Ready, as a deployment's readiness probe waits: until the warm-up has planned the
    # statements, requests are served but may take seconds (a 5 s budget then runs out).
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/readyz", timeout=5).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    else:
        process.kill()
        raise RuntimeError("threadline serve did not come up")
    try:
        yield base, process
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()
