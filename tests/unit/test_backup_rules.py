"""Backup and restore rules without a database: a write during a backup is noticed, and a
restore stops (writing nothing, its transaction rolled back) on a file that breaks its
rules."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, cast

import pytest

from graph import backup
from graph.snapshot import SnapshotError, trailer_line
from graph.store import Store
from tests.support.snapshots import tiny_snapshot


class FakeTx:
    """Answers the backup's and the restore's statements from lists; records writes."""

    def __init__(self, watermarks: list[dict[str, int]], created: int | None = None) -> None:
        self.watermarks = watermarks
        self.created = created
        self.written: list[tuple[str, list[dict[str, Any]]]] = []

    async def row(self, name: str, **params: Any) -> dict[str, Any] | None:
        if name == "backup/watermark":
            return self.watermarks.pop(0)
        if name == "backup/restore_relationships":
            self.written.append((name, params["rows"]))
            return {"created": len(params["rows"]) if self.created is None else self.created}
        return {"version": 5, "occupied": False, "restored": 0}

    async def rows(self, name: str, **params: Any) -> list[dict[str, Any]]:
        self.written.append((name, params["rows"]))
        return []

    async def stream(self, name: str, **params: Any) -> AsyncIterator[dict[str, Any]]:
        thread = {"labels": ["Thread"], "id": "t1", "element": "a"}
        if name == "backup/nodes":
            yield {"ref": thread, "props": {"id": "t1", "workspace": "w"}}


class FakeStore:
    def __init__(self, tx: FakeTx) -> None:
        self.tx = tx

    async def long(
        self, work: Callable[[Any], Awaitable[Any]], *, write: bool, timeout_s: float
    ) -> Any:
        return await work(self.tx)

    async def migrate(self) -> int:
        return 0


def store(tx: FakeTx) -> Store:
    return cast(Store, FakeStore(tx))


async def test_a_write_during_a_backup_is_noticed() -> None:
    same = {"nodes": 1, "versions": 0, "endedLimits": 0}
    sink = io.StringIO()
    counts = await backup.backup(store(FakeTx([same, dict(same)])), "w", sink, "now", 1)
    assert (counts.nodes, counts.relationships) == (1, 0)
    assert sink.getvalue().splitlines()[-1] == trailer_line(counts)

    moved = {**same, "versions": 1}
    with pytest.raises(backup.WorkspaceChangedError):
        await backup.backup(store(FakeTx([same, moved])), "w", io.StringIO(), "now", 1)


async def test_a_restore_stops_on_a_file_that_breaks_its_rules() -> None:
    good = tiny_snapshot("w")
    tx = FakeTx([])
    _, workspace, counts = await backup.restore(store(tx), good, "copy", 1)
    assert (workspace, counts.nodes, counts.relationships) == ("copy", 2, 1)

    cases = {
        "incomplete": good[:-1],
        "says 3 nodes": [*good[:-1], good[-1].replace('"nodes": 2', '"nodes": 3')],
        "out of order": [good[0], good[3], good[1], good[-1]],
        "neither a node": [good[0], '{"what": 1}', good[-1]],
    }
    for message, lines in cases.items():
        with pytest.raises(SnapshotError, match=message):
            await backup.restore(store(FakeTx([])), lines, None, 1)
    with pytest.raises(SnapshotError, match="share a key"):
        await backup.restore(store(FakeTx([], created=2)), good, None, 1)
