"""Processes of the managed Neo4j: liveness, identity, and reaping our children.

A server this process launched is its child: unless someone waits on it, its
death leaves a zombie and its exit status is lost. `watch` waits in a daemon
thread and hands the status on, so the death is both reaped and recorded.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

# Children launched by this process, by pid, with the thread that reaps each.
_reapers: dict[int, threading.Thread] = {}
_reapers_lock = threading.Lock()


def alive(pid: int) -> bool:
    """True while `pid` runs; a zombie (dead, not yet reaped) counts as gone."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


def command_line(pid: int) -> list[str] | None:
    """The arguments `pid` was started with; None when /proc cannot tell."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    return raw.decode(errors="replace").split("\0")


def describe_exit(returncode: int) -> str:
    """'signal SIGKILL' or 'code 1', as Popen reports a child's end."""
    if returncode < 0:
        try:
            return f"signal {signal.Signals(-returncode).name}"
        except ValueError:
            return f"signal {-returncode}"
    return f"code {returncode}"


def watch(process: subprocess.Popen[bytes], on_exit: Callable[[int, int], None]) -> None:
    """Reap `process` when it ends and call on_exit(pid, returncode) from a daemon thread."""

    def reap() -> None:
        on_exit(process.pid, process.wait())

    thread = threading.Thread(target=reap, name=f"reap-neo4j-{process.pid}", daemon=True)
    with _reapers_lock:
        _reapers[process.pid] = thread
    thread.start()


def settle(pid: int, timeout_s: float = 10.0) -> None:
    """If this process launched `pid` and it has ended, wait until its exit is recorded."""
    with _reapers_lock:
        thread = _reapers.get(pid)
    if thread is None:
        return
    # Not "unless alive": a process that is exiting has lost its command line (so it no
    # longer counts as our server) before it becomes a zombie; wait for the reaper anyway.
    thread.join(timeout_s)
    if not thread.is_alive():
        with _reapers_lock:
            _reapers.pop(pid, None)
