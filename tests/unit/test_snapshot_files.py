"""A snapshot file cut off is refused before a restore writes anything, naming its line
(graph.snapshot.check_complete)."""

from __future__ import annotations

from pathlib import Path

import pytest

from graph.snapshot import SnapshotError, check_complete
from tests.support.snapshots import tiny_snapshot


def written(folder: Path, text: str) -> Path:
    path = folder / "snapshot.jsonl"
    path.write_bytes(text.encode())
    return path


def test_a_whole_snapshot_passes_with_or_without_its_last_newline(tmp_path: Path) -> None:
    body = "\n".join(tiny_snapshot("w"))
    check_complete(written(tmp_path, body))
    check_complete(written(tmp_path, body + "\n\n"))


def test_a_cut_snapshot_is_refused_naming_its_last_line(tmp_path: Path) -> None:
    lines = tiny_snapshot("w")
    with pytest.raises(SnapshotError, match=f"ends at line {len(lines) - 1}, .* incomplete"):
        check_complete(written(tmp_path, "\n".join(lines[:-1]) + "\n"))
    cut = [*lines[:-2], lines[-2][: len(lines[-2]) // 2]]
    with pytest.raises(SnapshotError, match=f"line {len(lines) - 1} is not JSON .*cut off"):
        check_complete(written(tmp_path, "\n".join(cut)))
    with pytest.raises(SnapshotError, match="empty"):
        check_complete(written(tmp_path, "\n \n"))
