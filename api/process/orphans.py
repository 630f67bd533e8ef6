"""A uvicorn worker stops when the process that started it is gone.

`threadline serve --workers N` runs a supervisor and N worker processes. The supervisor
stops its workers on SIGTERM or SIGINT, but one killed with SIGKILL cannot, and its
workers would go on serving the port. A worker (spawned by multiprocessing) holds a pipe
from its parent that becomes readable when the parent exits; on that, it stops itself as
the supervisor would have: with SIGTERM, which uvicorn answers with a graceful shutdown.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
from collections.abc import Callable


def stop_with_parent(loop: asyncio.AbstractEventLoop) -> Callable[[], None]:
    """Watch the parent of a worker process (nothing for a `serve` itself); returns the
    function that stops watching."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return lambda: None
    sentinel = parent.sentinel

    def parent_exited() -> None:
        loop.remove_reader(sentinel)
        os.kill(os.getpid(), signal.SIGTERM)

    def unwatch() -> None:
        loop.remove_reader(sentinel)

    loop.add_reader(sentinel, parent_exited)
    return unwatch
