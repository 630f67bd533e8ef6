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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class _Child:
    arguments: list[str]
    reaper: threading.Thread


# Children launched by this process, by pid: what each was started with, and the thread
# that reaps it.
_children: dict[int, _Child] = {}
_children_lock = threading.Lock()


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
    """The arguments `pid` was started with; None when /proc cannot tell.

    For a child of ours not yet reaped, the arguments we gave it: just after a launch its
    /proc command line reads empty, as the child has closed its pipe to us (so Popen has
    returned) before the kernel has set up the new program's arguments.
    """
    with _children_lock:
        child = _children.get(pid)
    if child is not None and child.reaper.is_alive():
        return child.arguments
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
    with _children_lock:
        _children[process.pid] = _Child(_arguments(process.args), thread)
    thread.start()


def settle(pid: int, timeout_s: float = 10.0) -> None:
    """If this process launched `pid` and it has ended, wait until its exit is recorded."""
    with _children_lock:
        child = _children.get(pid)
    if child is None:
        return
    thread = child.reaper
    # Not "unless alive": a process that is exiting is not yet a zombie; wait anyway.
    thread.join(timeout_s)
    if not thread.is_alive():
        with _children_lock:
            _children.pop(pid, None)


def _arguments(args: object) -> list[str]:
    # Popen takes one string or a sequence of str/bytes/paths; /proc shows them as str.
    if isinstance(args, (str, bytes, os.PathLike)):
        return [os.fsdecode(args)]
    if isinstance(args, Sequence):
        return [os.fsdecode(argument) for argument in args]
    return [str(args)]
