"""A workspace written to a snapshot and read back (docs/MODEL.md, "Snapshots").

A backup reads the workspace in one read transaction and streams it to the file as the
driver fetches it, so its memory does not grow with the graph. A restore writes it in one
write transaction, in batches of `BATCH` rows: it commits whole or writes nothing.
"""

from __future__ import annotations

from typing import Protocol

from graph import snapshot
from graph.snapshot import Counts, Header
from graph.store import Store, Tx


class Sink(Protocol):
    def write(self, text: str, /) -> int: ...


class WorkspaceChangedError(RuntimeError):
    """A write landed in the workspace while the backup read it."""


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
