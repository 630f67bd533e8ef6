"""Schema migrations: the statements in cypher/schema/, applied in order and idempotent,
and the schema version the graph records."""

from __future__ import annotations

from neo4j.exceptions import DriverError

from graph import queries
from graph.store import Store, unavailable


class GraphTooNewError(RuntimeError):
    """The graph was migrated by a newer Threadline than this one."""

    def __init__(self, graph: int, code: int) -> None:
        super().__init__(
            f"The graph is at schema version {graph}, newer than this Threadline's "
            f"schema version {code}: run a Threadline of schema version {graph} or newer "
            "(or restore a backup taken before the upgrade into an empty database)."
        )
        self.graph = graph
        self.code = code


async def migrate(store: Store) -> int:
    """Apply every schema statement (idempotent) and record the code's schema version.
    Returns how many statements ran. A graph whose recorded version is newer than the
    code's is refused before anything runs (GraphTooNewError)."""
    code = queries.schema_version()
    try:
        found = await graph_version(store)
        if found > code:
            raise GraphTooNewError(found, code)
        statements = queries.schema_statements()
        async with store.session() as session:
            for statement in statements:
                store.round_trips += 1
                await session.run(statement)
            store.round_trips += 1
            await session.run(queries.load("migration/record"), {"version": code})
    except DriverError as error:
        raise unavailable(error) from error
    return len(statements)


async def graph_version(store: Store) -> int:
    """The schema version the graph records; 0 when it records none."""
    async with store.session() as session:
        store.round_trips += 1
        row = await (await session.run(queries.load("migration/version"))).single()
    return int(row["version"]) if row is not None and row["version"] is not None else 0


async def pending(store: Store) -> list[queries.Migration]:
    """The migrations newer than the graph's recorded schema version."""
    found = await graph_version(store)
    return [migration for migration in queries.migrations() if migration.version > found]
