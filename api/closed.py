"""Workspaces a restore holds closed, as this API process knows them (docs/MODEL.md,
"Restores"): an operation on one is refused as it begins and a query again as it ends, so
none answers anything of a restore that has not ended.

Commands are refused exactly, at the write gate (graph/gates.py). Reads take no lock, so
each process reads the Restore nodes at most once every `gates.TRUST_S` and trusts what
it read that long. An operation that found its workspace open at both ends read nothing
restored: the restore names its nodes only once a workspace has been closed for longer
than that (graph/restore.py, `DRAIN_S`), and by then every process has read it closed.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from graph import gates
from graph.errors import being_restored
from graph.store import Store
from graph.tx import Tx


class ClosedWorkspaces:
    def __init__(
        self,
        store: Store,
        trust_s: float = gates.TRUST_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._store = store
        self._trust_s = trust_s
        self._clock = clock
        self._closed: frozenset[str] = frozenset()
        self._read_at = -float("inf")  # when the last read was sent
        self._reading: asyncio.Task[None] | None = None

    async def refuse(self, workspace: str) -> None:
        """UNAVAILABLE when a restore holds `workspace` closed."""
        if workspace and workspace in await self._current():
            raise being_restored(workspace)

    async def _current(self) -> frozenset[str]:
        if self._clock() - self._read_at >= self._trust_s:
            if self._reading is None or self._reading.done():
                self._reading = asyncio.create_task(self._read())
            await asyncio.shield(self._reading)  # one read for every operation waiting
        return self._closed

    async def _read(self) -> None:
        sent = self._clock()  # what it reads is at least this fresh

        async def scopes(tx: Tx) -> frozenset[str]:
            return frozenset(row["scope"] for row in await tx.rows("gate/restoring"))

        self._closed = await self._store.read(scopes, counted=False)
        self._read_at = sent
