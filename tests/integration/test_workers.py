"""`threadline serve --workers N` (THREADLINE_WORKERS): N API processes on one port."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import httpx
import pytest

from tests.support.managed import ready, wait_for
from tests.support.served import served

pytestmark = pytest.mark.process  # starts processes of its own


def workers_of(parent: int) -> list[int]:
    """The API worker processes `parent` spawned (uvicorn starts them with `spawn`)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            command = (stat.parent / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue
        if ppid == parent and b"spawn_main" in command:
            found.append(int(stat.parent.name))
    return found


def alive(pid: int) -> bool:
    return Path(f"/proc/{pid}").exists()


async def create_threads(base: str, count: int) -> set[str]:
    """Each on its own connection, all at once: the workers share the listening socket."""

    async def one(n: int) -> str:
        async with httpx.AsyncClient(base_url=base, timeout=30) as http:
            response = await http.post(
                "/graphql",
                json={"query": f'mutation {{ createThread(title: "w{n}") {{ id }} }}'},
            )
            return str(response.json()["data"]["createThread"]["id"])

    return set(await asyncio.gather(*(one(n) for n in range(count))))


def both_workers(server: subprocess.Popen[bytes], log: Path) -> list[int]:
    """The two workers of `server`, once both are up."""
    assert wait_for(lambda: len(workers_of(server.pid)) == 2, 60), log.read_text()[-2000:]
    return workers_of(server.pid)


def all_gone(workers: list[int], timeout_s: float) -> bool:
    return wait_for(lambda: not any(alive(pid) for pid in workers), timeout_s)


def test_workers_share_one_port_and_stop_with_the_server(neo4j_uri: str, tmp_path: Path) -> None:
    with served(neo4j_uri, tmp_path, WORKERS="2") as (base, server):
        workers = both_workers(server, tmp_path / "serve.log")
        assert len(asyncio.run(create_threads(base, 16))) == 16
        assert wait_for(lambda: ready(f"{base}/readyz"), 120)  # each worker warms up
    assert all_gone(workers, 20)


def test_workers_stop_when_their_server_is_killed(neo4j_uri: str, tmp_path: Path) -> None:
    """SIGKILL leaves the supervisor no chance to stop its workers: they stop themselves."""
    with served(neo4j_uri, tmp_path, WORKERS="2") as (_, server):
        workers = both_workers(server, tmp_path / "serve.log")
        server.kill()
        server.wait()
        assert all_gone(workers, 30), (tmp_path / "serve.log").read_text()[-2000:]
