"""A snapshot written back into a workspace in batches, whole or not at all as seen from
outside (docs/MODEL.md, "Restores").

A restore of any size runs in transactions of a bounded size, so Neo4j's transaction
memory never grows with the snapshot:
1. *close*: every slot of the target's write gate locked (graph/gates.py), then a Restore
   node made. Until it goes, the workspace is closed: its commands are refused at the
   gate and the API answers none of its reads (api/closed.py). It must hold no node;
2. *load*: the snapshot's nodes, then its relationships, a batch a transaction, under a
   hidden workspace name no one can use, each batch recording on the Restore node how far
   into the snapshot it reached;
3. *name*: the restored nodes given the target's name, a batch a transaction, once no API
   process can still read the workspace as open (`DRAIN_S`);
4. *open*: the Restore node deleted, one small transaction.

A restore that stops (a kill, Neo4j going away) leaves the workspace closed. Run again
with the same snapshot, it resumes where the last committed batch ended; with `discard`
its batches are deleted and the workspace opens empty. A snapshot found cut off or
corrupt on the way is discarded at once.
"""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import chain
from typing import Any

from neo4j.exceptions import DriverError, Neo4jError

from graph import gates, migrations, queries, snapshot
from graph.errors import ThreadlineError
from graph.snapshot import Counts, Header, SnapshotError
from graph.store import Store
from graph.tx import Tx

BATCH_ROWS = 1000
# A batch also ends at this much snapshot text: nodes differ in size by a thousandfold
# (a full handoff holds about 250 KB), and a transaction's memory follows their bytes.
BATCH_CHARS = 1 << 18
# Naming a node changes its workspace in every index that holds it: 500 a transaction
# hold a few MB. On a Neo4j whose transaction memory is smaller still, a batch that
# exceeds it is tried again at half its size (`_named`).
NAME_BATCH = 500
# How long after closing a workspace its restored nodes may take its name: the time an
# API process trusts what it last read of closed workspaces (`gates.TRUST_S`), with room
# to spare. An operation that read the workspace as open then checks again as it ends, so
# it has ended by then, or ends refused (api/closed.py).
DRAIN_S = gates.TRUST_S + 1.0
HIDDEN_PREFIX = "~restoring:"  # no workspace name may begin with "~"


class WorkspaceNotEmptyError(RuntimeError):
    """A restore was asked to write into a workspace that holds nodes."""


class RestoreMismatchError(RuntimeError):
    """A stopped restore of another snapshot holds the workspace closed."""


class RestoreTakenOverError(RuntimeError):
    """Another process resumed this restore: this one stops writing."""


class RestoreStoppedError(RuntimeError):
    """A restore that stopped after it closed its workspace (Neo4j went away, a batch was
    refused): the workspace stays closed until the restore is resumed or discarded."""

    def __init__(self, workspace: str, cause: BaseException) -> None:
        said = getattr(cause, "message", None) or str(cause) or type(cause).__name__
        super().__init__(
            f"{said}: the restore stopped, and workspace {workspace!r} stays closed; run the "
            "same command again to resume it, or `threadline restore --discard "
            f"{workspace}` to remove it"
        )


@dataclass(frozen=True)
class Step:
    """What a restore reports as it goes: its phase, and what it has written so far."""

    phase: str  # "resuming", "loading", "naming", "opened", "discarding"
    counts: Counts
    named: int = 0
    line: int = 0


Progress = Callable[[Step], None]


def hidden_name(workspace: str) -> str:
    return f"{HIDDEN_PREFIX}{workspace}"


def identity(header_line: str) -> str:
    """What makes a snapshot the same one when a stopped restore is resumed."""
    return hashlib.sha256(header_line.strip().encode()).hexdigest()


async def restore(
    store: Store,
    lines: Iterable[str],
    as_workspace: str | None,
    timeout_s: float,
    progress: Progress | None = None,
) -> tuple[Header, str, Counts]:
    """Load a snapshot into its workspace (or `as_workspace`), which must be empty unless
    a stopped restore of the same snapshot holds it, which this one resumes; then migrate,
    which upgrades data of an older schema version. Returns the snapshot's header, the
    workspace written and what was written."""
    say = progress or (lambda step: None)
    text = iter(lines)
    first = next(text, "")
    records = snapshot.read(chain([first], text), queries.schema_version())
    target = as_workspace or records.header.workspace
    await migrations.migrate(store)
    batches = _Batches(store, target, timeout_s)
    held = await batches.close(identity(first))
    if held.line:
        say(Step("resuming", held.counts, line=held.line))
    loader = _Loader(batches, records.header.workspace, target, held, say)
    try:
        await loader.load(records)
        await batches.name(say)
        await batches.open()
    except SnapshotError:
        # The snapshot itself cannot be restored (cut off, corrupt, out of order): what it
        # got to write goes, and the workspace opens as it was. Any other stop leaves the
        # workspace closed, to be resumed or discarded.
        await batches.discard(lambda step: None)
        raise
    except (Neo4jError, DriverError, ThreadlineError, OSError) as error:
        raise RestoreStoppedError(target, error) from error
    say(Step("opened", loader.counts))
    await migrations.migrate(store)
    return records.header, target, loader.counts


async def discard(store: Store, workspace: str, timeout_s: float, progress: Progress) -> int:
    """Delete what a stopped restore of `workspace` wrote, and open it (empty); how many
    nodes went. RestoreMismatchError when no restore holds it."""
    batches = _Batches(store, workspace, timeout_s)
    return await batches.discard(progress)


@dataclass(frozen=True)
class _Held:
    """A Restore node as this process holds it: how far its batches reached."""

    line: int
    counts: Counts


class _Batches:
    """The restore's transactions, each one checked to be this process's to write."""

    def __init__(self, store: Store, workspace: str, timeout_s: float) -> None:
        self._store = store
        self._workspace = workspace
        self._timeout_s = timeout_s
        self._run = uuid.uuid4().hex

    async def close(self, snapshot_id: str) -> _Held:
        """Close the workspace for this restore, or take over a stopped one of the same
        snapshot."""
        fresh = {
            "run": self._run,
            "hidden": hidden_name(self._workspace),
            "snapshot": snapshot_id,
            "phase": "LOADING",
            "line": 0,
            "nodes": 0,
            "relationships": 0,
            "startedAt": datetime.now(UTC).isoformat(),
        }

        async def work(tx: Tx) -> _Held:
            found = await tx.row(
                "restore/close", workspace=self._workspace, slots=gates.SLOTS, fresh=fresh
            )
            assert found is not None  # MERGE answers its node
            held = found["restore"]
            if found["made"]:
                occupied = await tx.row("restore/occupied", workspace=self._workspace)
                if occupied is not None and occupied["occupied"]:
                    raise WorkspaceNotEmptyError(  # rolled back: nothing is closed
                        f"workspace {self._workspace!r} is not empty: restore into an empty "
                        "workspace (--as-workspace NAME) or an empty database"
                    )
            elif held["snapshot"] != snapshot_id:
                raise RestoreMismatchError(
                    f"a restore of another snapshot into workspace {self._workspace!r} "
                    "stopped before it ended: resume it with its own snapshot, or remove it "
                    f"with `threadline restore --discard {self._workspace}`"
                )
            else:
                await tx.rows("restore/claim", workspace=self._workspace, run=self._run)
            return _Held(int(held["line"]), Counts(int(held["nodes"]), int(held["relationships"])))

        return await self._store.long(work, write=True, timeout_s=self._timeout_s)

    async def write(self, kind: str, rows: list[dict[str, Any]], line: int) -> int:
        """One batch of nodes or relationships ("restore/nodes" or "/relationships"), with
        the snapshot line it reaches; how many it created."""

        async def work(tx: Tx) -> int:
            found = await tx.row(
                kind, workspace=self._workspace, run=self._run, rows=rows, line=line
            )
            if found is None:
                raise self._taken_over()
            return int(found["created"])

        return await self._store.long(work, write=True, timeout_s=self._timeout_s)

    async def name(self, say: Progress) -> None:
        """Give the loaded nodes the target's name, once the workspace has been closed
        for `DRAIN_S`."""

        async def loaded(tx: Tx) -> float:
            found = await tx.row("restore/loaded", workspace=self._workspace, run=self._run)
            if found is None:
                raise self._taken_over()
            return int(found["closedForMs"]) / 1000

        closed_for = await self._store.long(loaded, write=True, timeout_s=self._timeout_s)
        if closed_for < DRAIN_S:
            await asyncio.sleep(DRAIN_S - closed_for)
        named, size = 0, NAME_BATCH
        say(Step("naming", Counts()))
        while True:
            try:
                batch = await self._repeat("restore/name", "named", size)
            except Neo4jError as error:
                if "Memory" not in (error.code or "") or size == 1:
                    raise
                size //= 2  # rolled back whole: the same nodes, fewer at a time
                continue
            if not batch:
                return
            named += batch
            say(Step("naming", Counts(), named=named))

    async def open(self) -> None:
        opened = await self._repeat("restore/open", "opened")
        if not opened:
            raise self._taken_over()

    async def discard(self, say: Progress) -> int:
        async def claim(tx: Tx) -> str | None:
            found = await tx.row("restore/claim", workspace=self._workspace, run=self._run)
            return None if found is None else str(found["run"])

        if await self._store.long(claim, write=True, timeout_s=self._timeout_s) is None:
            raise RestoreMismatchError(f"no restore holds workspace {self._workspace!r}")
        deleted = 0
        for kind in ("restore/discard_hidden", "restore/discard_named"):
            while batch := await self._repeat(kind, "deleted", NAME_BATCH):
                deleted += batch
                say(Step("discarding", Counts(nodes=deleted)))
        await self.open()
        return deleted

    async def _repeat(self, name: str, column: str, batch: int = 0) -> int:
        """One transaction of a statement that answers a count (0 when the statement
        matched no Restore node of this process, as discard_named while loading)."""

        async def work(tx: Tx) -> int:
            found = await tx.row(name, workspace=self._workspace, run=self._run, batch=batch)
            return int(found[column]) if found else 0

        return await self._store.long(work, write=True, timeout_s=self._timeout_s)

    def _taken_over(self) -> RestoreTakenOverError:
        return RestoreTakenOverError(
            f"another process took over the restore of workspace {self._workspace!r} "
            "(or discarded it): this one stops"
        )


class _Loader:
    """A snapshot's records, written in batches; checked against its trailer."""

    def __init__(
        self, batches: _Batches, source: str, workspace: str, held: _Held, say: Progress
    ) -> None:
        self._batches = batches
        self._source = source
        self._workspace = workspace
        self._skip = held.line  # records up to this line were written before
        self._say = say
        self._kind = ""
        self._rows: list[dict[str, Any]] = []
        self._chars = 0
        self._line = 0  # of the last record in the batch
        self.counts = held.counts

    async def load(self, records: snapshot.Records) -> None:
        for record in records.lines:
            if records.at.line <= self._skip and "end" not in record:
                continue  # written by the restore this one resumes
            if await self._add(record, records.at):
                return
        raise SnapshotError(
            f"the snapshot ends at line {records.at.line}, before its last line: it is incomplete"
        )

    async def _add(self, record: dict[str, Any], at: snapshot.Position) -> bool:
        """Take one record; True at the trailer, once everything before it is written."""
        if "node" in record:
            if self._kind == "restore/relationships" or self.counts.relationships:
                raise SnapshotError("a node follows relationships: the snapshot is out of order")
            props, times = snapshot.split_times(record["props"])
            row = {
                "key": record["node"],
                "labels": record["labels"],
                "props": self._rewritten(props),
                "times": times,
            }
            await self._take("restore/nodes", row, at)
        elif "rel" in record:
            props, times = snapshot.split_times(record["props"])
            row = {
                "from": record["from"],
                "to": record["to"],
                "type": record["rel"],
                "props": self._rewritten(props),
                "times": times,
            }
            await self._take("restore/relationships", row, at)
        elif record.get("end") is True:
            await self._flush()
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

    async def _take(self, kind: str, row: dict[str, Any], at: snapshot.Position) -> None:
        if kind != self._kind:
            await self._flush()
            self._kind = kind
        self._rows.append(row)
        self._line = at.line
        self._chars += at.size
        if len(self._rows) >= BATCH_ROWS or self._chars >= BATCH_CHARS:
            await self._flush()

    async def _flush(self) -> None:
        if not self._rows:
            return
        rows, self._rows, self._chars = self._rows, [], 0
        created = await self._batches.write(self._kind, rows, self._line)
        nodes = self._kind == "restore/nodes"
        if created != len(rows) and not nodes:
            raise SnapshotError(
                f"{len(rows)} relationships matched {created} pairs of nodes: the snapshot "
                "names nodes it does not hold, or two nodes share a key"
            )
        self.counts = Counts(
            self.counts.nodes + (created if nodes else 0),
            self.counts.relationships + (0 if nodes else created),
        )
        self._say(Step("loading", self.counts, line=self._line))

    def _rewritten(self, props: dict[str, Any]) -> dict[str, Any]:
        """Every workspace name in `props` is the target's: the property, and where a JSON
        text embeds it (snapshot.renamed). The node is written under the hidden name,
        which naming turns into the target's."""
        if self._source == self._workspace:
            return props
        old, new = self._source, self._workspace
        found = {key: snapshot.renamed(value, old, new) for key, value in props.items()}
        if snapshot.WORKSPACE in found:
            found[snapshot.WORKSPACE] = self._workspace
        return found
