"""Helpers for tests that run a managed Neo4j (or `threadline serve` starting one) of
their own, in a THREADLINE_HOME of their own that borrows the suite's jars."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from api.settings import Settings, test_neo4j
from graph.runtime.ports import free_ports

CLI_TIMEOUT_S = 180


def cli(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`threadline ARGS` in a fresh process, with only the THREADLINE_ variables given. A
    `serve` gets a free API port unless the test names one: another program may hold 8000,
    and `serve` checks its port before anything else a test means to see."""
    clean = {key: value for key, value in os.environ.items() if not key.startswith("THREADLINE_")}
    (port,) = free_ports(1)
    return subprocess.run(
        [sys.executable, "-m", "api.cli", *args],
        env={**clean, "THREADLINE_HOME": str(home), "THREADLINE_PORT": str(port), **env},
        capture_output=True,
        text=True,
        timeout=CLI_TIMEOUT_S,
        check=False,
    )


def borrowing_jars(root: Path) -> Path:
    """`root` made a THREADLINE_HOME whose jar folder is the suite's (a symlink)."""
    jars = test_neo4j(Settings().home)
    jars.fetch_jars()
    (root / "neo4j").mkdir(parents=True)
    (root / "neo4j" / jars.lib_dir.name).symlink_to(jars.lib_dir)
    return root


def wait_for(condition: Callable[[], bool], timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


def ready(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def cli_env(neo4j_uri: str) -> dict[str, str]:
    """The CLI reads the test Neo4j the way `serve` would: from THREADLINE_* settings."""
    env = {"THREADLINE_NEO4J_URI": neo4j_uri}
    password = os.environ.get("THREADLINE_TEST_NEO4J_PASSWORD")
    if password:
        env["THREADLINE_NEO4J_PASSWORD"] = password
    return env
