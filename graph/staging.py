"""A backup's passes on disk (graph/backup.py): what each pass read, line by line, tagged
with the bundle each line belongs to, and the snapshot written from them with each
bundle as the last pass that read it found it.

A bundle is a thread with everything that hangs off it, a receipt or a usage limit (its
tag: kind and id). Passes after the first read only what changed, so memory holds the tags
of those bundles alone, never one per line or per node of the workspace.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import TracebackType
from typing import Protocol

from graph.snapshot import Counts

Tag = tuple[str, str]  # ("thread", id), ("receipt", commandId), ("limit", id)


class Sink(Protocol):
    """Where a snapshot goes: a text file, or a buffer in tests."""

    def write(self, text: str, /) -> int: ...


class Pass:
    """The lines one pass read: a file of node lines and one of relationship lines."""

    def __init__(self, number: int, folder: Path) -> None:
        self.number = number
        self.bundles: set[str] = set()  # the tags this pass read, after the first
        self.lines = 0
        self._files = [
            (folder / f"pass-{number}-{kind}.tagged").open("w", encoding="utf-8")
            for kind in ("nodes", "relationships")
        ]
        self._tag: Tag | None = None
        self._key = ""

    @property
    def paths(self) -> list[Path]:
        return [Path(file.name) for file in self._files]

    def node(self, tag: Tag, line: str) -> None:
        self._write(0, tag, line)

    def relationship(self, tag: Tag, line: str) -> None:
        self._write(1, tag, line)

    def close(self) -> None:
        for file in self._files:
            file.close()

    def _write(self, which: int, tag: Tag, line: str) -> None:
        if tag != self._tag:  # a bundle's lines come together: encode its tag once
            self._tag, self._key = tag, json.dumps(tag)
            if self.number:
                self.bundles.add(self._key)
        self._files[which].write(f"{self._key}\t{line}\n")
        self.lines += 1


class Staging:
    """The passes of one backup in `folder` (made, and removed when it ends; what a killed
    backup left there goes when the next one begins)."""

    def __init__(self, folder: Path) -> None:
        self._folder = folder
        self._numbered = 0
        self.passes: list[Pass] = []
        self._latest: dict[str, int] = {}  # tag -> number of the last pass that read it

    def __enter__(self) -> Staging:
        self._folder.mkdir(exist_ok=True)
        for stale in self._folder.glob("pass-*.tagged"):  # left by a backup that was killed
            stale.unlink()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        for pass_ in list(self.passes):
            self.drop(pass_)
        self._folder.rmdir()  # made by __enter__, empty again

    def new_pass(self) -> Pass:
        pass_ = Pass(self._numbered, self._folder)
        self._numbered += 1
        self.passes.append(pass_)
        return pass_

    def settle(self, pass_: Pass) -> None:
        """`pass_` read whole: its bundles are now as it read them."""
        pass_.close()
        for key in pass_.bundles:
            self._latest[key] = pass_.number

    def drop(self, pass_: Pass) -> None:
        """`pass_` forgotten (a pause that did not hold), its files removed."""
        pass_.close()
        for path in pass_.paths:
            path.unlink(missing_ok=True)
        self.passes.remove(pass_)

    def write_to(self, sink: Sink) -> Counts:
        """Every node line, then every relationship line, each bundle's from its last
        pass; what was written."""
        written = []
        for which in (0, 1):
            count = 0
            for pass_ in self.passes:
                pass_.close()
                count += self._copy(pass_, which, sink)
            written.append(count)
        return Counts(*written)

    def _copy(self, pass_: Pass, which: int, sink: Sink) -> int:
        count = 0
        with pass_.paths[which].open(encoding="utf-8") as lines:
            for tagged in lines:
                key, line = tagged.split("\t", 1)
                if self._latest.get(key, 0) == pass_.number:
                    sink.write(line)
                    count += 1
        return count
