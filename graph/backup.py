"""A workspace written to a snapshot and read back (docs/MODEL.md, "Snapshots").

A backup reads the workspace in one read transaction and streams it to the file as the
driver fetches it, so its memory does not grow with the graph. A restore writes it in one
write transaction, in batches of `BATCH` rows: it commits whole or writes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from graph import queries, snapshot
from graph.snapshot import Counts, Header, SnapshotError
from graph.store import Store, Tx

BATCH = 1000
WORKSPACE_PROPERTY = snapshot.WORKSPACE


class Sink(Protocol):
    def write(self, text: str, /) -> int: ...


class WorkspaceChangedError(RuntimeError):
    """A write landed in the workspace while the backup read it."""


class WorkspaceNotEmptyError(RuntimeError):
    """A restore was asked to write into a workspace that holds nodes."""


async def backup(store: Store, workspace: str, sink: Sink, now: str, timeout_s: float) -> Counts:
    """Write one workspace to `sink` as a snapshot; WorkspaceChangedError when a write
    landed while it was read (the caller discards what was written and tries again)."""

    async def work(tx: Tx) -> Counts:
        before = await tx.row("backup/watermark", workspace=workspace)
        version = await tx.row("migration/version")
        recorded = version["version"] if version and version["version"] is not None else 0
        sink.write(Header(workspace, int(recorded), now).line() + "\n")
        nodes = relationships = 0
        async for row in tx.stream("backup/nodes", workspace=workspace):
            sink.write(snapshot.node_line(row["ref"], row["props"]) + "\n")
            nodes += 1
        async for row in tx.stream("backup/relationships", workspace=workspace):
            line = snapshot.relationship_line(row["start"], row["type"], row["end"], row["props"])
            sink.write(line + "\n")
            relationships += 1
        if await tx.row("backup/watermark", workspace=workspace) != before:
            raise WorkspaceChangedError(f"workspace {workspace!r} changed while it was read")
        counts = Counts(nodes, relationships)
        sink.write(snapshot.trailer_line(counts) + "\n")
        return counts

    return await store.long(work, write=False, timeout_s=timeout_s)


async def restore(
    store: Store, lines: Iterable[str], as_workspace: str | None, timeout_s: float
) -> tuple[Header, str, Counts]:
    """Load a snapshot into its workspace (or `as_workspace`), which must be empty, then
    migrate, which upgrades data of an older schema version. Returns the snapshot's
    header, the workspace written and what was written."""
    records = snapshot.read(lines, queries.schema_version())
    target = as_workspace or records.header.workspace
    await store.migrate()

    async def work(tx: Tx) -> Counts:
        found = await tx.row("backup/occupied", workspace=target)
        if found is not None and found["occupied"]:
            raise WorkspaceNotEmptyError(
                f"workspace {target!r} is not empty: restore into an empty workspace "
                "(--as-workspace NAME) or an empty database"
            )
        loader = _Loader(tx, records.header.workspace, target)
        for record in records.lines:
            if await loader.add(record):
                break
        else:
            raise SnapshotError(
                f"the snapshot ends at line {records.at.line}, before its last line: "
                "it is incomplete"
            )
        await tx.row("backup/restore_finish", workspace=target)
        return loader.counts

    counts = await store.long(work, write=True, timeout_s=timeout_s)
    await store.migrate()
    return records.header, target, counts


class _Loader:
    """Rows of a snapshot, written in batches; checked against its trailer."""

    def __init__(self, tx: Tx, source: str, workspace: str) -> None:
        self._tx = tx
        self._source = source
        self._workspace = workspace
        self._nodes: list[dict[str, Any]] = []
        self._relationships: list[dict[str, Any]] = []
        self.counts = Counts()

    async def add(self, record: dict[str, Any]) -> bool:
        """Take one record; True at the trailer, once everything before it is written."""
        if "node" in record:
            if self._relationships:
                raise SnapshotError("a node follows relationships: the snapshot is out of order")
            self._nodes.append(
                {
                    "key": record["node"],
                    "labels": record["labels"],
                    "props": self._rewritten(snapshot.decode_map(record["props"])),
                }
            )
            if len(self._nodes) >= BATCH:
                await self._flush_nodes()
        elif "rel" in record:
            await self._flush_nodes()
            self._relationships.append(
                {
                    "from": record["from"],
                    "to": record["to"],
                    "type": record["rel"],
                    "props": self._rewritten(snapshot.decode_map(record["props"])),
                }
            )
            if len(self._relationships) >= BATCH:
                await self._flush_relationships()
        elif record.get("end") is True:
            await self._flush_nodes()
            await self._flush_relationships()
            expected = Counts(int(record["nodes"]), int(record["relationships"]))
            if expected != self.counts:
                raise SnapshotError(
                    f"the snapshot says {expected.nodes} nodes and {expected.relationships} "
                    f"relationships but holds {self.counts.nodes} and "
                    f"{self.counts.relationships}"
                )
            return True
        else:
            raise SnapshotError(f"a line is neither a node, a relationship nor the end: {record}")
        return False

    def _rewritten(self, props: dict[str, Any]) -> dict[str, Any]:
        """Every workspace name in `props` is the target's: the property, and where a JSON
        text embeds it (snapshot.renamed)."""
        if self._source == self._workspace:
            return props
        old, new = self._source, self._workspace
        found = {key: snapshot.renamed(value, old, new) for key, value in props.items()}
        if WORKSPACE_PROPERTY in found:
            found[WORKSPACE_PROPERTY] = self._workspace
        return found

    async def _flush_nodes(self) -> None:
        if not self._nodes:
            return
        await self._tx.rows("backup/restore_nodes", workspace=self._workspace, rows=self._nodes)
        self.counts = Counts(self.counts.nodes + len(self._nodes), self.counts.relationships)
        self._nodes = []

    async def _flush_relationships(self) -> None:
        if not self._relationships:
            return
        rows = self._relationships
        found = await self._tx.row(
            "backup/restore_relationships", workspace=self._workspace, rows=rows
        )
        created = int(found["created"]) if found else 0
        if created != len(rows):
            raise SnapshotError(
                f"{len(rows)} relationships matched {created} pairs of nodes: the snapshot "
                "names nodes it does not hold, or two nodes share a key"
            )
        self.counts = Counts(self.counts.nodes, self.counts.relationships + created)
        self._relationships = []
