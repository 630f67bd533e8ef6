"""Read-only Cypher for consoles: ready-made analysis queries and ad-hoc text.

Two locks keep a console from writing: the query's type is read from `EXPLAIN` before
it runs (only `r`, read-only, passes), and it runs in a read transaction, which the
server refuses to write in. Neo4j also calls a few things that reach past the graph
"read-only": those plan operators are refused too (OUTSIDE_THE_GRAPH).
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

from graph import queries
from graph.errors import being_restored

T = TypeVar("T")
READ_ONLY = "r"
QUERY_TYPES = {
    "r": "read-only",
    "w": "write-only",
    "rw": "read and write",
    # Neo4j types administration commands (SHOW USERS, CREATE DATABASE, ...) as "s" too.
    "s": "a schema or administration command",
}

# Read-only by type, yet not reading the graph: LOAD CSV reads any file Neo4j can read or
# fetches a URL, and TERMINATE TRANSACTIONS ends other sessions' work.
OUTSIDE_THE_GRAPH = {
    "LoadCSV": "LOAD CSV reads files or URLs outside the graph",
    "TerminateTransactions": "TERMINATE TRANSACTIONS ends other sessions' transactions",
}


class ConsoleError(RuntimeError):
    """A query the console will not run, or one that Neo4j refused."""


class WriteRefusedError(ConsoleError):
    pass


# Plan operators that read nodes or relationships (or the counts Neo4j keeps of them), as
# opposed to a query that only computes (`RETURN 1`) or calls a procedure.
GRAPH_READS = ("Scan", "Seek", "Expand", "ById", "CountStore", "ShortestPath")


@dataclass(frozen=True)
class Table:
    columns: list[str]
    rows: list[list[Any]]
    notes: list[str] = field(default_factory=list)
    reads_graph: bool = False

    def records(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]


@dataclass(frozen=True)
class ReadOnlyGraph:
    driver: Driver
    database: str

    def refuse_closed(self, workspace: str) -> None:
        """ConsoleError while a restore holds `workspace` closed (docs/MODEL.md, "Restores"):
        a console reads it before and after its query, so it prints nothing of a restore
        that has not ended."""
        closed = self.run(queries.load("gate/closed"), {"workspace": workspace}).records()
        if closed and closed[0]["closed"]:
            raise ConsoleError(being_restored(workspace).message)

    def query_type(self, text: str, params: Mapping[str, Any]) -> str:
        """What the server says the query does, without running it."""
        return self._explained(text, params)[0]

    def plan(self, text: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """The plan tree `EXPLAIN` gives (operatorType, args, children), nothing run."""

        def explain(tx: ManagedTransaction) -> dict[str, Any]:
            summary = tx.run(f"EXPLAIN {text}", dict(params)).consume()
            return dict(summary.plan or {})

        return self._read(explain)

    def run(self, text: str, params: Mapping[str, Any]) -> Table:
        """Run a read-only query in a read transaction; anything else is refused first."""
        kind, operators = self._explained(text, params)
        if kind != READ_ONLY:
            raise WriteRefusedError(
                f"Refused: this query is {QUERY_TYPES.get(kind, kind)} (type {kind!r}); "
                "the console runs read-only queries only. Nothing was run."
            )
        outside = [OUTSIDE_THE_GRAPH[op] for op in operators if op in OUTSIDE_THE_GRAPH]
        if outside:
            raise WriteRefusedError(
                f"Refused: {'; '.join(outside)}; the console reads the graph only. Nothing was run."
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
            reads = any(part in op for op in operators for part in GRAPH_READS)
            return Table(list(result.keys()), rows, notes, reads)

        return self._read(read)

    def _explained(self, text: str, params: Mapping[str, Any]) -> tuple[str, list[str]]:
        """The query's type and every operator of its plan (without the `@db` suffix)."""

        def explain(tx: ManagedTransaction) -> tuple[str, list[str]]:
            summary = tx.run(f"EXPLAIN {text}", dict(params)).consume()
            return str(summary.query_type), _operators(dict(summary.plan or {}))

        return self._read(explain)

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


def _operators(plan: Mapping[str, Any]) -> list[str]:
    own = str(plan.get("operatorType", "")).split("@")[0]
    return [own, *(op for child in plan.get("children", []) for op in _operators(child))]


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
