"""What a long console command says while it works: a line per phase as it begins, and
every few seconds a line of counts with the rate since the phase began, on stderr as
`serve` says its stages (api/cli/stages.py)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

Say = Callable[[str], None]
EVERY_S = 5.0


class Progress:
    """Lines of one command (`what: ...`), at most one counts line every `every_s`."""

    def __init__(
        self,
        what: str,
        say: Say,
        every_s: float = EVERY_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._what = what
        self._say = say
        self._every_s = every_s
        self._clock = clock
        self._phase = ""
        self._started = self._began = self._last = clock()
        self._base = 0

    def phase(self, name: str, text: str, done: int = 0) -> None:
        """A phase begins (said once, whatever the counts lines after it)."""
        if name != self._phase:
            at = self._clock()
            self._phase, self._began, self._last, self._base = name, at, at, done
            self._say(f"{self._what}: {text}")

    def elapsed(self) -> float:
        """Seconds since the command began."""
        return self._clock() - self._started

    def counts(self, text: str, done: int, unit: str, *, now: bool = False) -> None:
        """`text` with the rate of `done` (in `unit`s) since the phase began, if the last
        counts line is old enough (or `now`)."""
        at = self._clock()
        if not now and at - self._last < self._every_s:
            return
        self._last = at
        elapsed = at - self._began
        rate = (done - self._base) / elapsed if elapsed > 0 else 0.0
        self._say(f"{self._what}: {text}, {rate:,.0f} {unit}/s")


class CountedLines:
    """A file's lines as text, counting the bytes read, for a share of the file done."""

    def __init__(self, path: Path) -> None:
        self.size = max(path.stat().st_size, 1)
        self.read = 0
        self._path = path

    def __iter__(self) -> Iterator[str]:
        with self._path.open("rb") as file:
            for raw in file:
                self.read += len(raw)
                yield raw.decode("utf-8")

    def share(self) -> int:
        """Percent of the file read so far."""
        return int(100 * self.read / self.size)
