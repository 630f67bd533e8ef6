"""A workspace written to a snapshot while commands go on writing it (docs/MODEL.md,
"Snapshots" and "Backups under load").

Neo4j Community reads are read-committed: a long read sees every commit made while it
runs, so no single read of a busy workspace is consistent. The backup reads in passes of
short transactions and stages what it reads on disk (graph/staging.py), each line with
its bundle: a thread with everything that hangs off it, a receipt, a usage limit.
1. The first pass reads everything. When the fingerprint (backup/fingerprint) is the same
   after it as before, it was consistent, and the backup is done (a quiet workspace).
2. Else each next pass reads again what commands wrote since the write position the pass
   before it started at (backup/changed), until few changes are left.
3. The last pass pauses the workspace's writers for at most `pause_s` (every slot of its
   write gate locked, graph/gates.py), reads the last changes, checks that the
   fingerprint did not move meanwhile (nothing wrote past the gate) and lets them go.
The snapshot is then written from the staged passes, each bundle as its last pass read
it: the workspace as of the pause. Memory holds only the names of the bundles read again.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any, Concatenate, ParamSpec, TypeVar

from neo4j.exceptions import Neo4jError

from graph import gates, snapshot
from graph.errors import ThreadlineError, being_restored
from graph.snapshot import Counts, Header
from graph.staging import Pass, Sink, Staging
from graph.store import Store
from graph.tx import Row, Tx

T = TypeVar("T")
P = ParamSpec("P")
THREAD_PAGE = 200  # threads whose bundles one read transaction answers
RECEIPT_PAGE = 5000
PAUSE_S = 2.0  # the longest a command waits on a backup's pause
PAUSE_WHEN = 200  # bundles changed in the last pass, at most, to try the pause
CATCH_UP_PASSES = 30  # then the pause is tried however many changed
PAUSE_TRIES = 3  # pauses a write landed in past the gate, before the backup stops
LATE_TRIES = 10  # pauses that could not end in time, before it stops
# Bookkeeping of the live store (the write position a node was written at), never part
# of a snapshot: in a restored workspace it would name positions of another gate.
NOT_SNAPSHOT = frozenset({"gateSlot", "gateSeq"})


class WorkspaceChangedError(RuntimeError):
    """Writes landed past the write gate during every pause the backup tried."""


@dataclass(frozen=True)
class Step:
    """What a backup reports as it goes."""

    phase: str  # "reading", "catching up", "paused", "writing"
    threads: int = 0  # read so far (reading), or in the workspace
    total: int = 0
    lines: int = 0  # staged so far
    changed: int = 0  # bundles read again in this pass
    passes: int = 0
    paused_ms: float = 0.0


@dataclass(frozen=True)
class Taken:
    """A backup's outcome: what the snapshot holds, the passes it took and the longest its
    pause held writers back (0 when the first pass was consistent)."""

    counts: Counts
    passes: int
    paused_ms: float


Progress = Callable[[Step], None]


@dataclass
class _Changes:
    threads: list[str] = field(default_factory=list)
    receipts: list[str] = field(default_factory=list)
    limits: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.threads) + len(self.receipts) + len(self.limits)


async def backup(
    store: Store,
    workspace: str,
    sink: Sink,
    now: str,
    timeout_s: float,
    progress: Progress | None = None,
    *,
    pause_s: float = PAUSE_S,
    staging: Path | None = None,
) -> Taken:
    """Write one workspace to `sink` as a snapshot, consistent as of one instant however
    busy the workspace is; stages its passes in `staging` (a temporary folder if None)."""
    if staging is None:
        with TemporaryDirectory(prefix="threadline-backup-") as folder:
            return await backup(
                store, workspace, sink, now, timeout_s, progress, pause_s=pause_s,
                staging=Path(folder) / "passes",
            )  # fmt: skip
    reader = _Reader(store, workspace, timeout_s, progress or (lambda step: None))
    with Staging(staging) as staged:
        version = await reader.open()
        passes, paused_ms = await reader.passes(staged, pause_s)
        reader.say(Step("writing", passes=passes, lines=sum(p.lines for p in staged.passes)))
        sink.write(Header(workspace, version, now).line() + "\n")
        counts = staged.write_to(sink)
        sink.write(snapshot.trailer_line(counts) + "\n")
    return Taken(counts, passes, paused_ms)


class _Reader:
    """The backup's reads: a pass over everything, passes over what changed, the pause."""

    def __init__(self, store: Store, workspace: str, timeout_s: float, say: Progress) -> None:
        self._store = store
        self._workspace = workspace
        self._timeout_s = timeout_s
        self.say = say

    async def open(self) -> int:
        """The graph's schema version, once the workspace is known not to be closed."""

        async def work(tx: Tx) -> int:
            if await gates.closed(tx, self._workspace):
                raise being_restored(self._workspace)
            found = await tx.row("migration/version")
            return int(found["version"]) if found and found["version"] is not None else 0

        return await self._read(work)

    async def passes(self, staged: Staging, pause_s: float) -> tuple[int, float]:
        """Stage the workspace as of one instant; the passes it took and the pause."""
        before = await self._read(self._fingerprint)
        marks = await self._read(self._marks)
        first = staged.new_pass()
        await self._everything(first, int(before["threads"]))
        staged.settle(first)
        if await self._read(self._fingerprint) == before:
            return 1, 0.0
        changed, catch_ups = -1, 0
        failed: dict[str, int] = {"late": 0, "moved": 0}
        while True:
            if 0 <= changed <= PAUSE_WHEN or catch_ups >= CATCH_UP_PASSES:
                held_ms, outcome = await self._paused(staged, marks, pause_s)
                if outcome == "held":
                    return len(staged.passes), held_ms
                failed[outcome] += 1
                self._give_up(failed, pause_s)
            later = await self._read(self._marks)
            changes = await self._read(self._changes, marks)
            pass_ = staged.new_pass()
            await self._read(self._again, changes, pass_)
            staged.settle(pass_)
            marks, changed, catch_ups = later, len(changes), catch_ups + 1
            self.say(Step("catching up", changed=changed, passes=len(staged.passes)))

    async def _everything(self, pass_: Pass, total: int) -> None:
        """The first pass: every thread's bundle, page by page, every receipt and limit."""
        after = ""  # before every id
        threads = 0
        while True:
            page = await self._read(self._thread_page, after)
            if not page:
                break
            await self._read(self._bundles, page, pass_)
            threads, after = threads + len(page), page[-1]
            self.say(Step("reading", threads=threads, total=total, lines=pass_.lines))
        receipt = ""
        while True:
            last = await self._read(self._receipts, pass_, after=receipt)
            if last is None:
                break
            receipt = last
        await self._read(self._limits, pass_, None)
        self.say(Step("reading", threads=threads, total=total, lines=pass_.lines))

    def _give_up(self, failed: dict[str, int], pause_s: float) -> None:
        """WorkspaceChangedError once pauses failed too often: writes landed past the gate
        in PAUSE_TRIES of them, or LATE_TRIES could not end within `pause_s`."""
        if failed["moved"] >= PAUSE_TRIES:
            raise WorkspaceChangedError(
                f"workspace {self._workspace!r} changed past its write gate during "
                f"{PAUSE_TRIES} pauses (a Threadline older than this one writing it, or "
                "Cypher run by hand?): back it up when those writes stop (or dump the whole "
                "managed Neo4j while it is stopped: `threadline neo4j dump`)"
            )
        if failed["late"] >= LATE_TRIES:
            raise WorkspaceChangedError(
                f"the last changes to workspace {self._workspace!r} could not be read within "
                f"--pause-s {pause_s:g} on any of {LATE_TRIES} tries: give the pause longer"
            )

    async def _paused(self, staged: Staging, marks: list[int], pause_s: float) -> tuple[float, str]:
        """The last pass, with the workspace's writers held at its gate: how long they
        were held (ms), and "held"; or "late" when it could not end within `pause_s`, or
        "moved" when a write landed past the gate (its reads are then dropped)."""
        pass_ = staged.new_pass()
        started = time.perf_counter()

        async def work(tx: Tx) -> bool:
            await tx.row("backup/pause", workspace=self._workspace, slots=gates.SLOTS)
            before = await self._fingerprint(tx)
            await self._again(tx, await self._changes(tx, marks), pass_)
            return await self._fingerprint(tx) == before

        try:
            same = await self._store.long(work, write=True, timeout_s=pause_s, keep=False)
            outcome = "held" if same else "moved"
        except Neo4jError as error:
            if not (error.is_retryable() or "Transaction" in (error.code or "")):
                raise  # a statement the server refuses is a bug, not a busy workspace
            outcome = "late"
        except ThreadlineError:
            outcome = "late"
        held_ms = (time.perf_counter() - started) * 1000
        if outcome != "held":
            staged.drop(pass_)
            return held_ms, outcome
        staged.settle(pass_)
        self.say(Step("paused", changed=len(pass_.bundles), paused_ms=held_ms))
        return held_ms, outcome

    async def _again(self, tx: Tx, changes: _Changes, pass_: Pass) -> None:
        """Read again what changed: the bundles of its threads, its receipts, its limits."""
        for start in range(0, len(changes.threads), THREAD_PAGE):
            await self._bundles(tx, changes.threads[start : start + THREAD_PAGE], pass_)
        if changes.receipts:
            await self._receipts(tx, pass_, ids=changes.receipts)
        if changes.limits:
            await self._limits(tx, pass_, changes.limits)

    async def _fingerprint(self, tx: Tx) -> Row:
        found = await tx.row("backup/fingerprint", workspace=self._workspace)
        assert found is not None  # aggregations answer one row
        return found

    async def _marks(self, tx: Tx) -> list[int]:
        marks = [0] * gates.SLOTS
        for row in await tx.rows("backup/marks", workspace=self._workspace):
            if 0 <= int(row["slot"]) < gates.SLOTS:
                marks[int(row["slot"])] = int(row["seq"] or 0)
        return marks

    async def _changes(self, tx: Tx, marks: list[int]) -> _Changes:
        found = _Changes()
        for row in await tx.rows("backup/changed", workspace=self._workspace, marks=marks):
            kind = row["kind"]
            into = {"thread": found.threads, "receipt": found.receipts, "limit": found.limits}
            into[kind].append(row["id"])
        return found

    async def _thread_page(self, tx: Tx, after: str) -> list[str]:
        rows = await tx.rows(
            "backup/thread_ids", workspace=self._workspace, after=after, page=THREAD_PAGE
        )
        return [row["id"] for row in rows]

    async def _bundles(self, tx: Tx, thread_ids: list[str], pass_: Pass) -> None:
        async for row in tx.stream(
            "backup/bundles", workspace=self._workspace, threadIds=thread_ids
        ):
            tag = ("thread", row["bundle"])
            props = _kept(row["props"])
            if row["type"] is None:
                pass_.node(tag, snapshot.node_line(row["ref"], props))
            else:
                line = snapshot.relationship_line(row["ref"], row["type"], row["end"], props)
                pass_.relationship(tag, line)

    async def _receipts(
        self, tx: Tx, pass_: Pass, *, after: str | None = None, ids: list[str] | None = None
    ) -> str | None:
        """A page of receipts (or those of `ids`); the last commandId read (None: none)."""
        last = None
        async for row in tx.stream(
            "backup/receipts",
            workspace=self._workspace,
            after=after,
            ids=ids,
            page=len(ids) if ids is not None else RECEIPT_PAGE,
        ):
            last = row["commandId"]
            pass_.node(("receipt", last), snapshot.node_line(row["ref"], _kept(row["props"])))
        return last

    async def _limits(self, tx: Tx, pass_: Pass, ids: list[str] | None) -> None:
        async for row in tx.stream("backup/limits", workspace=self._workspace, ids=ids):
            line = snapshot.node_line(row["ref"], _kept(row["props"]))
            pass_.node(("limit", row["id"]), line)

    async def _read(
        self, work: Callable[Concatenate[Tx, P], Awaitable[T]], *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """`work` in one short read transaction, never retried (a staged pass must not
        hold a read twice; the operator runs a failed backup again)."""
        return await self._store.long(
            lambda tx: work(tx, *args, **kwargs), write=False, timeout_s=self._timeout_s
        )


def _kept(pairs: list[list[Any]]) -> dict[str, Any]:
    props = snapshot.from_pairs(pairs)
    if NOT_SNAPSHOT.isdisjoint(props):
        return props
    return {key: value for key, value in props.items() if key not in NOT_SNAPSHOT}
