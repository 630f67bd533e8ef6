"""Reading what `threadline serve` says while it starts, line by line, as it says it."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

START_S = 180
STAGES = ("migrating the schema", "warming up", "ready at")


class Lines:
    """The lines a process prints (stdout and stderr together), read as they come."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process
        self.seen: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def until(self, wanted: Callable[[str], bool], timeout_s: float = START_S) -> str:
        """The first new line `wanted` accepts, right when it is printed."""
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                line = self._queue.get(timeout=max(deadline - time.monotonic(), 0.01))
            except queue.Empty:
                raise AssertionError(f"not printed in {timeout_s:.0f}s: {self.seen}") from None
            if line is None:
                raise AssertionError(f"the process ended; it printed: {self.seen}")
            self.seen.append(line)
            if wanted(line):
                return line


@contextmanager
def serving(port: int, env: dict[str, str]) -> Iterator[Lines]:
    """`threadline serve` on `port` with only the THREADLINE_ variables given."""
    clean = {key: value for key, value in os.environ.items() if not key.startswith("THREADLINE_")}
    process = subprocess.Popen(
        [sys.executable, "-m", "api.cli", "serve"],
        env={**clean, "THREADLINE_PORT": str(port), **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    try:
        yield Lines(process)
    finally:
        process.terminate()
        process.wait(timeout=30)


def said_in_order(
    lines: Lines, port: int, first: tuple[str, ...], timeout_s: float = START_S
) -> list[str]:
    """Waits for each stage line in turn; /readyz is asked the moment "ready at" appears."""
    said = [
        lines.until(lambda line, s=stage: line.startswith(s), timeout_s) for stage in first + STAGES
    ]
    assert said[-1] == f"ready at http://127.0.0.1:{port}/"
    assert httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=5).status_code == 200
    return said
