"""A transaction as the service's code sees it: named queries only, each counted, planned
before it first runs on a cold server, and traced while traces are exported."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from neo4j import AsyncManagedTransaction, AsyncTransaction
from opentelemetry.trace import SpanKind

from graph import queries

if TYPE_CHECKING:
    from graph.store import Store

Row = dict[str, Any]


class Tx:
    """A managed transaction that runs named queries and counts round trips."""

    def __init__(self, tx: AsyncManagedTransaction | AsyncTransaction, store: Store) -> None:
        self._tx = tx
        self._store = store
        # The slot of its workspace's write gate this transaction passes, once it has
        # (graph/gates.py): the same slot for every statement of one transaction.
        self.gate_slot: int | None = None
        self.gated = False
        # A process's own housekeeping (Store.read(counted=False)) is no request's cost.
        self.counted = True

    async def rows(self, name: str, **params: Any) -> list[Row]:
        return await self._run(name, queries.load(name), params)

    async def bounded_rows(self, name: str, hops: int, **params: Any) -> list[Row]:
        """A named query with a variable-length hop bound (see queries.with_hops)."""
        return await self._run(name, queries.with_hops(name, hops), params)

    async def sectioned_rows(self, name: str, **params: Any) -> list[Row]:
        """A named query of sections (queries.trimmed) with only those whose list parameter
        is not empty; the empty lists are not sent."""
        used = {key: value for key, value in params.items() if value != []}
        return await self._run(name, queries.trimmed(name, used), used)

    async def _run(self, name: str, text: str, params: dict[str, Any]) -> list[Row]:
        """Every statement a request sends passes here: counted, and traced when the
        store has a tracer (only while traces are exported: api/process/telemetry.py)."""
        self._store.round_trips += 1 if self.counted else 0
        self._store.warm_up.remember_shape(name, text, params)
        await self._store.warm_up.planned(name, text, params)
        tracer = self._store.tracer
        if tracer is None or not self.counted:  # housekeeping is no request's statement
            return await self._fetch(text, params)
        attributes = self._store.span_attributes(name, params)
        with tracer.start_as_current_span(
            f"{name}.cypher", kind=SpanKind.CLIENT, attributes=attributes
        ):
            return await self._fetch(text, params)

    async def _fetch(self, text: str, params: dict[str, Any]) -> list[Row]:
        result = await self._tx.run(text, params)
        return [dict(record) async for record in result]

    async def stream(self, name: str, **params: Any) -> AsyncIterator[Row]:
        """A named query's rows one at a time, as the driver fetches them in batches:
        memory stays constant however many rows it answers."""
        self._store.round_trips += 1 if self.counted else 0
        result = await self._tx.run(queries.load(name), params)
        async for record in result:
            yield dict(record)

    async def row(self, name: str, **params: Any) -> Row | None:
        found = await self.rows(name, **params)
        return found[0] if found else None
