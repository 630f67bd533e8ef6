"""The garbage collector, set for a process whose start-up objects live as long as it does.

At start-up the app builds what every request then uses: the GraphQL schema, the
driver, compiled validators, cached documents. Python's cyclic collector would walk all
of them on every full collection; `gc.freeze` takes them out of its sight. A young
collection walks every container made since the last one that is still alive, and with
requests in flight most are (their frames, futures and models), to be walked again a
generation up: collected every 7,000 allocations instead of Python's 700, they are
mostly gone by then. Together about 7% of the API's CPU under load (docs/SCALING.md,
"Where the time and the CPU go"); garbage with cycles waits a little longer.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

YOUNG_THRESHOLD = 7_000  # Python's default: 700


@contextmanager
def settled() -> Iterator[None]:
    """For the app's lifespan: what exists now is frozen, and thawed when it ends."""
    previous = gc.get_threshold()
    _start_up_garbage_collected()
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, previous[1], previous[2])
    try:
        yield
    finally:
        gc.set_threshold(*previous)
        gc.unfreeze()


@cache
def _start_up_garbage_collected() -> None:
    """A full collection before a process's first freeze only, so that start-up garbage is
    not frozen. A process that runs the app again (the test suite runs one per test) would
    otherwise walk its whole heap each time: about 0.25 s a test in a pytest process (71
    tests took 45-47 s of CPU with it, 27-29 s without). What a later lifespan freezes is
    thawed when it ends."""
    gc.collect()
