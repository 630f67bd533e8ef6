"""The Neo4j store: one async driver, managed transactions, named queries only."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from neo4j import AsyncDriver, AsyncGraphDatabase, AsyncManagedTransaction, AsyncSession
from neo4j.exceptions import (
    ConstraintError,
    DriverError,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)

from graph import queries
from graph.errors import ErrorCode, ThreadlineError

T = TypeVar("T")
Row = dict[str, Any]
TxWork = Callable[["Tx"], Awaitable[T]]


class Tx:
    """A managed transaction that runs named queries and counts round trips."""

    def __init__(self, tx: AsyncManagedTransaction, store: Store) -> None:
        self._tx = tx
        self._store = store

    async def rows(self, name: str, **params: Any) -> list[Row]:
        return await self._run(queries.load(name), params)

    async def bounded_rows(self, name: str, hops: int, **params: Any) -> list[Row]:
        """A named query with a variable-length hop bound (see queries.with_hops)."""
        return await self._run(queries.with_hops(name, hops), params)

    async def _run(self, text: str, params: dict[str, Any]) -> list[Row]:
        self._store.round_trips += 1
        result = await self._tx.run(text, params)
        return [record.data() async for record in result]

    async def row(self, name: str, **params: Any) -> Row | None:
        found = await self.rows(name, **params)
        return found[0] if found else None


class Store:
    def __init__(self, driver: AsyncDriver, database: str) -> None:
        self._driver = driver
        self._database = database
        self._bookmarks = AsyncGraphDatabase.bookmark_manager()
        self.round_trips = 0

    @classmethod
    def connect(
        cls,
        uri: str,
        auth: tuple[str, str] | None,
        database: str = "neo4j",
        timeout_s: float = 10.0,
    ) -> Store:
        driver = AsyncGraphDatabase.driver(
            uri,
            auth=auth,
            connection_timeout=min(timeout_s, 3.0),
            connection_acquisition_timeout=timeout_s,
            max_transaction_retry_time=timeout_s,
            liveness_check_timeout=1.0,
        )
        return cls(driver, database)

    async def close(self) -> None:
        await self._driver.close()

    async def read(self, work: TxWork[T]) -> T:
        return await self._execute(work, write=False)

    async def write(self, work: TxWork[T]) -> T:
        return await self._execute(work, write=True)

    async def ping(self) -> None:
        """Raise UNAVAILABLE unless the database answers a query.

        An auto-commit query, not a managed transaction: readiness must answer at
        once instead of retrying through an outage.
        """
        try:
            async with self._session() as session:
                self.round_trips += 1
                result = await session.run(queries.load("health/ping"))
                row = await result.single()
        except (DriverError, OSError) as error:
            raise _unavailable(error) from error
        if row is None or row.get("one") != 1:
            raise ThreadlineError(ErrorCode.UNAVAILABLE, "Neo4j answered ping unexpectedly.")

    async def migrate(self) -> int:
        """Apply every schema statement; idempotent. Returns how many ran."""
        statements = queries.schema_statements()
        try:
            async with self._session() as session:
                for statement in statements:
                    self.round_trips += 1
                    await session.run(statement)
        except (ServiceUnavailable, SessionExpired) as error:
            raise _unavailable(error) from error
        return len(statements)

    def _session(self) -> AsyncSession:
        # One bookmark manager per store: read-your-writes across sessions, also on clusters.
        return self._driver.session(database=self._database, bookmark_manager=self._bookmarks)

    async def _execute(self, work: TxWork[T], write: bool) -> T:
        async def in_tx(tx: AsyncManagedTransaction) -> T:
            return await work(Tx(tx, self))

        try:
            async with self._session() as session:
                if write:
                    return await session.execute_write(in_tx)
                return await session.execute_read(in_tx)
        except ConstraintError as error:
            raise ThreadlineError(
                ErrorCode.CONFLICT, "A concurrent change touched the same object; try again."
            ) from error
        except (ServiceUnavailable, SessionExpired, TransientError) as error:
            raise _unavailable(error) from error
        except DriverError as error:
            raise _unavailable(error) from error


def _unavailable(error: Exception) -> ThreadlineError:
    return ThreadlineError(
        ErrorCode.UNAVAILABLE, f"The graph database is unavailable ({type(error).__name__}); retry."
    )
