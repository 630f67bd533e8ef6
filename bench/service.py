"""The processes the harness measures: a Neo4j and a `threadline serve`, started or given.

The API runs as its own process (`python -m api.cli serve`, the `threadline serve`
entry point) with a tokens file naming the harness's workspaces, so every request goes
through real HTTP, uvicorn and the service's access control, and its memory is its own
(VmHWM in /proc/<pid>/status).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from graph.runtime.local_neo4j import LocalNeo4j

# One query's database budget inside the served API. The default (5 s) is for users; the
# harness measures latency and must not turn a slow answer on a busy machine into an error.
API_DB_TIMEOUT_S = "60"
# The per-token rate limit (on by default, 50/s) would cap the throughput figures at the
# limit: the harness measures the service, so its API runs with the limit out of reach
# (the limiter still counts every request). The fairness benchmark sets its own.
API_RATE_LIMIT = {"THREADLINE_RATE_LIMIT_RPS": "1000000", "THREADLINE_RATE_LIMIT_BURST": "1000000"}
# How long a new API may take to say ready: its warm-up plans every statement once, which
# on a fresh Neo4j and a busy 2-core box has taken more than two minutes.
READY_S = 300
# Heap and page cache of the throwaway Neo4j by scale. The store takes about 1 GB per 10k
# generated threads (plus transaction logs), so 100k wants a machine with 16 GB or more.
MEMORY = {"1k": ("1g", "1g"), "10k": ("1g", "2g"), "100k": ("2g", "8g")}


class ServiceError(RuntimeError):
    """A process the harness needs did not start or answer."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_neo4j(
    home: Path,
    scale: str,
    heap: str | None = None,
    pagecache: str | None = None,
    keep_data: bool = False,
) -> LocalNeo4j:
    """A throwaway Neo4j for this run: free ports, auth off, and an empty data folder
    (`keep_data`: the one an earlier run left)."""
    default_heap, default_pagecache = MEMORY.get(scale, MEMORY["100k"])
    instance = LocalNeo4j(
        home,
        bolt_port=free_port(),
        http_port=free_port(),
        auth_enabled=False,
        heap=heap or default_heap,
        pagecache=pagecache or default_pagecache,
        throwaway=True,
    )
    if instance.is_running():
        raise ServiceError(
            f"A bench Neo4j already runs from {home} (pid {instance.running_pid()}): stop it "
            "or pass --neo4j-uri."
        )
    if not keep_data:
        shutil.rmtree(home / "data", ignore_errors=True)
    instance.start()
    return instance


@contextlib.contextmanager
def neo4j_or_throwaway(
    name: str, uri: str | None, password: str | None
) -> Iterator[tuple[Path, str, tuple[str, str] | None]]:
    """The Neo4j at `uri` (user `neo4j`), or a throwaway one started under
    THREADLINE_HOME/neo4j/<name> and stopped on leaving: that folder, the URI, the auth."""
    home = Path(os.environ.get("THREADLINE_HOME", ".threadline")) / "neo4j" / name
    if uri:
        yield home, uri, ("neo4j", password) if password else None
        return
    instance = start_neo4j(home, "1k")
    try:
        yield home, instance.uri, None
    finally:
        instance.stop()


@dataclass
class Api:
    url: str
    tokens: dict[str, str]  # workspace -> bearer token
    pid: int | None = None
    process: subprocess.Popen[bytes] | None = None
    log: Path | None = None
    extra: dict[str, str] = field(default_factory=dict)

    def token(self, workspace: str) -> str | None:
        return self.tokens.get(workspace)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)


def start_api(
    folder: Path,
    neo4j_uri: str,
    auth: tuple[str, str] | None,
    database: str,
    workspaces: list[str],
    tokens: dict[str, str] | None = None,
    extra_env: dict[str, str] | None = None,
    source: Path | None = None,
) -> Api:
    """`threadline serve` on a free port, one write token per workspace (new ones, or
    `tokens`: another process of the same service); `extra_env`: THREADLINE_* settings;
    `source`: another checkout of Threadline to serve from (its packages first on the
    path, in the same environment), for an A/B of two commits."""
    folder = folder.resolve()  # the process may run elsewhere (`source`)
    folder.mkdir(parents=True, exist_ok=True)
    if tokens is None:
        tokens = {workspace: secrets.token_urlsafe(24) for workspace in workspaces}
    entries = [
        f'[[tokens]]\nname = "bench-{workspace}"\n'
        f'sha256 = "{hashlib.sha256(token.encode()).hexdigest()}"\n'
        f'scopes = ["write"]\nworkspace = "{workspace}"\n'
        for workspace, token in tokens.items()
    ]
    tokens_file = folder / "tokens.toml"
    tokens_file.write_text("\n".join(entries))
    port = free_port()
    env = {
        **os.environ,
        "THREADLINE_NEO4J_URI": neo4j_uri,
        "THREADLINE_NEO4J_DATABASE": database,
        "THREADLINE_HOST": "127.0.0.1",
        "THREADLINE_PORT": str(port),
        "THREADLINE_TOKENS_FILE": str(tokens_file),
        "THREADLINE_DB_TIMEOUT_S": API_DB_TIMEOUT_S,
        **API_RATE_LIMIT,
        **(extra_env or {}),
    }
    env.pop("THREADLINE_NEO4J_PASSWORD", None)
    if source is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(source), env.get("PYTHONPATH", "")]).rstrip(
            os.pathsep
        )
    if auth is not None:
        env["THREADLINE_NEO4J_USER"], env["THREADLINE_NEO4J_PASSWORD"] = auth
    log = folder / "serve.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "api.cli", "serve"],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            cwd=source,
        )
    api = Api(f"http://127.0.0.1:{port}", tokens, process.pid, process, log)
    deadline = time.monotonic() + READY_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ServiceError(f"threadline serve exited:\n{log.read_text()[-3000:]}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{api.url}/readyz", timeout=2).status_code == 200:
                return api
        time.sleep(0.3)
    api.stop()
    raise ServiceError(f"threadline serve did not become ready:\n{log.read_text()[-3000:]}")


def memory_mb(pid: int) -> tuple[float, float] | None:
    """(peak RSS, current RSS) of a process in MB, from /proc/<pid>/status."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    values: dict[str, float] = {}
    for line in status.splitlines():
        key, _, rest = line.partition(":")
        if key in ("VmHWM", "VmRSS"):
            values[key] = float(rest.split()[0]) / 1024  # kB
    if "VmHWM" not in values or "VmRSS" not in values:
        return None
    return values["VmHWM"], values["VmRSS"]
