"""CPU time spent by processes while something runs: where a throughput figure's cycles go.

Read from /proc/<pid>/stat (user + system time), so Linux only; elsewhere, and for a
process the harness did not start (no pid), the figure is absent.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

HARNESS = "harness"


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of process `pid` so far, or None if unreadable."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The fields after the command name start at stat(5)'s third: utime is 14, stime 15.
    fields = stat.rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class CpuMeter:
    """CPU seconds of named groups of processes, and of this one (HARNESS), from `start`."""

    groups: Mapping[str, Sequence[int]]
    _began: dict[str, float] = field(default_factory=dict)

    def start(self) -> None:
        self._began = self._now()

    def per(self, count: int) -> dict[str, float]:
        """Milliseconds of CPU per `count` (e.g. per cycle) since `start`, by group."""
        now = self._now()
        return {
            name: (value - self._began[name]) * 1000 / max(count, 1)
            for name, value in now.items()
            if name in self._began
        }

    def _now(self) -> dict[str, float]:
        found: dict[str, float] = {HARNESS: time.process_time()}
        for name, pids in self.groups.items():
            seconds = [cpu_seconds(pid) for pid in pids]
            if pids and all(s is not None for s in seconds):
                found[name] = sum(s for s in seconds if s is not None)
        return found
