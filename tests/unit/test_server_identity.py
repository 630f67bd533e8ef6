"""Which pid is the managed Neo4j: a child of ours by the arguments we launched it with,
any other process by its /proc command line.

No Neo4j runs here: `sleep` stands in for the server, since identity is decided from the
pid file, /proc and the children this process launched.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from graph.runtime import process
from graph.runtime.local_neo4j import LocalNeo4j


def launch_watched(arguments: list[str]) -> subprocess.Popen[bytes]:
    child = subprocess.Popen(arguments)
    process.watch(child, lambda _pid, _returncode: None)
    return child


@pytest.fixture
def stand_in(tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A child of ours given --home-dir of `tmp_path`'s instance, which /proc never shows:
    the shell replaces itself with `sleep`, as a launched program's /proc line is empty
    until the kernel has set up its arguments."""
    home = (tmp_path / "neo4j" / "default").resolve()
    child = launch_watched(["sh", "-c", "exec sleep 60", "sh", f"--home-dir={home}"])
    deadline = time.monotonic() + 10
    while Path(f"/proc/{child.pid}/cmdline").read_bytes().split(b"\0")[0] != b"sleep":
        assert time.monotonic() < deadline, "the shell never became sleep"
        time.sleep(0.01)
    yield child
    child.kill()
    process.settle(child.pid)


def instance_recording(home: Path, pid: int) -> LocalNeo4j:
    instance = LocalNeo4j(home=home)
    instance.home.mkdir(parents=True, exist_ok=True)
    instance.pid_file.write_text(str(pid))
    return instance


def test_a_child_of_ours_is_known_by_the_arguments_we_gave_it(
    stand_in: subprocess.Popen[bytes],
) -> None:
    assert process.command_line(stand_in.pid) == stand_in.args
    stand_in.kill()
    process.settle(stand_in.pid)
    assert process.command_line(stand_in.pid) is None


def test_our_server_is_the_child_launched_for_this_home_only(
    tmp_path: Path, stand_in: subprocess.Popen[bytes]
) -> None:
    ours = instance_recording(tmp_path / "neo4j" / "default", stand_in.pid)
    assert ours.running_pid() == stand_in.pid
    other_home = instance_recording(tmp_path / "other" / "default", stand_in.pid)
    assert other_home.running_pid() is None


def test_a_stranger_with_our_pid_is_neither_our_server_nor_stopped(tmp_path: Path) -> None:
    # A pid reused by another program must never be taken for the server.
    stranger = subprocess.Popen(["sleep", "60"])
    try:
        instance = instance_recording(tmp_path / "neo4j" / "default", stranger.pid)
        assert instance.running_pid() is None
        assert instance.stop() is False
        assert stranger.poll() is None
    finally:
        stranger.kill()
        stranger.wait()
