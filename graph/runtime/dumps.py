"""Whole-database dumps of the managed Neo4j (`threadline neo4j dump|load`), through
`neo4j-admin database dump|load`, which needs the server stopped."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from graph.runtime.local_neo4j import LocalNeo4j, LocalNeo4jError

DATABASE = "neo4j"


def dump(instance: LocalNeo4j, target: Path) -> None:
    """The managed server's database into the file `target` (replaced if it exists)."""
    _refuse_running(instance, "dump")
    target = target.resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".dump-") as folder:
        _admin(instance, "dump", f"--to-path={folder}")
        (Path(folder) / f"{DATABASE}.dump").replace(target)


def load(instance: LocalNeo4j, source: Path) -> None:
    """The file `source`, made by `dump`, as the managed server's database (replacing it)."""
    _refuse_running(instance, "load")
    source = source.resolve()
    if not source.is_file():
        raise LocalNeo4jError(f"{source} is not a file: nothing was loaded")
    with tempfile.TemporaryDirectory(prefix="threadline-load-") as folder:
        shutil.copyfile(source, Path(folder) / f"{DATABASE}.dump")
        _admin(instance, "load", f"--from-path={folder}", "--overwrite-destination=true")


def _refuse_running(instance: LocalNeo4j, action: str) -> None:
    if instance.is_running():
        raise LocalNeo4jError(
            f"Neo4j is running: stop it first (`threadline neo4j stop`), then {action} again"
        )


def _admin(instance: LocalNeo4j, action: str, *arguments: str) -> None:
    done = instance.admin("database", action, DATABASE, *arguments)
    if done.returncode != 0:
        lines = [line for line in (done.stderr or done.stdout).splitlines() if line.strip()]
        raise LocalNeo4jError(
            f"neo4j-admin database {action} failed: {lines[-1] if lines else done.returncode}"
        )
