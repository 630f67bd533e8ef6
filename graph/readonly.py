"""Read-only Cypher for consoles: ready-made analysis queries and ad-hoc text.

Two locks keep a console from writing: the query's type is read from `EXPLAIN` before
it runs (only `r`, read-only, passes), and it runs in a read transaction, which the
server refuses to write in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from neo4j import READ_ACCESS, Driver, GraphDatabase, ManagedTransaction, NotificationSeverity
from neo4j.exceptions import DriverError, Neo4jError
from neo4j.graph import Node, Path, Relationship
from neo4j.time import Date, DateTime, Duration, Time

T = TypeVar("T")
READ_ONLY = "r"
QUERY_TYPES = {
    "r": "read-only",
    "w": "write-only",
    "rw": "read and write",
    "s": "schema change",
}


class ConsoleError(RuntimeError):
    """A query the console will not run, or one that Neo4j refused."""


class WriteRefusedError(ConsoleError):
    pass


@dataclass(frozen=True)
class Table:
    columns: list[str]
    rows: list[list[Any]]
    notes: list[str] = field(default_factory=list)

    def records(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]


@dataclass(frozen=True)
class ReadOnlyGraph:
    driver: Driver
    database: str

    def query_type(self, text: str, params: Mapping[str, Any]) -> str:
        """What the server says the query does, without running it."""

        def explain(tx: ManagedTransaction) -> str:
            summary = tx.run(f"EXPLAIN {text}", dict(params)).consume()
            return str(summary.query_type)

        return self._read(explain)

    def plan(self, text: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """The plan tree `EXPLAIN` gives (operatorType, args, children), nothing run."""

        def explain(tx: ManagedTransaction) -> dict[str, Any]:
            summary = tx.run(f"EXPLAIN {text}", dict(params)).consume()
            return dict(summary.plan or {})

        return self._read(explain)

    def run(self, text: str, params: Mapping[str, Any]) -> Table:
        """Run a read-only query in a read transaction; anything else is refused first."""
        kind = self.query_type(text, params)
        if kind != READ_ONLY:
            raise WriteRefusedError(
                f"Refused: this query is {QUERY_TYPES.get(kind, kind)} (type {kind!r}); "
                "the console runs read-only queries only. Nothing was run."
            )

        def read(tx: ManagedTransaction) -> Table:
            result = tx.run(text, dict(params))
            rows = [[plain(value) for value in record.values()] for record in result]
            summary = result.consume()
            notes = [
                status.status_description
                for status in summary.gql_status_objects
                if status.is_notification and status.severity is NotificationSeverity.WARNING
            ]
            return Table(list(result.keys()), rows, notes)

        return self._read(read)

    def _read(self, work: Callable[[ManagedTransaction], T]) -> T:
        try:
            with self.driver.session(
                database=self.database, default_access_mode=READ_ACCESS
            ) as session:
                return session.execute_read(work)
        except Neo4jError as error:
            raise ConsoleError(f"Neo4j refused the query: {error.message}") from error
        except DriverError as error:
            raise ConsoleError(f"Neo4j is unavailable: {error}") from error


@contextmanager
def connect(uri: str, auth: tuple[str, str] | None, database: str) -> Iterator[ReadOnlyGraph]:
    driver = GraphDatabase.driver(uri, auth=auth, connection_timeout=5.0)
    try:
        yield ReadOnlyGraph(driver, database)
    finally:
        driver.close()


def plain(value: Any) -> Any:
    """A value JSON can hold: nodes and relationships as property maps, times as ISO text."""
    if isinstance(value, Node):
        return {"labels": sorted(value.labels), **{k: plain(v) for k, v in value.items()}}
    if isinstance(value, Relationship):
        return {"type": value.type, **{k: plain(v) for k, v in value.items()}}
    if isinstance(value, Path):
        return [plain(node) for node in value.nodes]
    if isinstance(value, DateTime | Date | Time):
        return value.iso_format()
    if isinstance(value, Duration):
        return str(value)
    if isinstance(value, Mapping):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return [plain(item) for item in value]
    return value
