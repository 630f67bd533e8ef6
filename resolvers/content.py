"""Run content a decision reads: digests by thread and ordinal, loaded on demand.

A decision first runs on the thread's state alone. Where it needs the content of runs
(a handoff to build, a delta to weigh), it asks `Content`; what is not loaded yet is
recorded as missing and the caller loads exactly that and decides again. A decision
that builds no handoff reads no run content at all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from graph.models import RunDigest
from graph.ranges import Ranges

Clock = Callable[[], float]


def no_clock() -> float:
    """A stopwatch that never moves: summaries built without one record 0 ms."""
    return 0.0


class Content:
    """`clock` (seconds, monotonic) times the local summaries: the caller gives it, as it
    gives ids and the time, so a decision stays a function of what it is given."""

    def __init__(
        self, digests: Iterable[tuple[str, RunDigest]] = (), clock: Clock = no_clock
    ) -> None:
        self._digests: dict[tuple[str, int], RunDigest] = {}
        self._missing: dict[str, Ranges] = {}
        self.clock = clock
        self.add(digests)

    def add(self, digests: Iterable[tuple[str, RunDigest]]) -> None:
        for thread_id, digest in digests:
            self._digests[(thread_id, digest.ordinal)] = digest

    def runs(self, thread_id: str, ordinals: Ranges) -> list[RunDigest]:
        """The digests of the thread's runs at `ordinals`, in order; any not loaded yet
        are recorded in `missing` and left out."""
        found: list[RunDigest] = []
        lacking: list[int] = []
        for ordinal in ordinals:
            digest = self._digests.get((thread_id, ordinal))
            if digest is None:
                lacking.append(ordinal)
            else:
                found.append(digest)
        if lacking:
            self._missing[thread_id] = self._missing.get(thread_id, Ranges()) | Ranges.of(lacking)
        return found

    @property
    def complete(self) -> bool:
        """Whether every run asked for so far was there: a decision that lacked some is
        made again once the caller has loaded them, so it is no answer yet."""
        return not self._missing

    def take_missing(self) -> dict[str, Ranges]:
        """What the last decision asked for and did not have; forgets it."""
        missing, self._missing = self._missing, {}
        return missing
