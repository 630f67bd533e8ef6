"""Whole-database dumps of the managed Neo4j (`threadline neo4j dump|load`), through
`neo4j-admin database dump|load`, which needs the server stopped."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from graph.runtime.local_neo4j import LocalNeo4j, LocalNeo4jError

DATABASE = "neo4j"
# Lines around neo4j-admin's reason: its advice to run with an option `threadline` does not
# have, its summary, and the JVM's note of options taken from the environment.
ADMIN_NOISE = (
    "Run with '--verbose'",
    "Load failed for databases",
    "Dump failed for databases",
    "NOTE: Picked up",
    "Picked up",
)
# Its progress, line after line, before the reason of a load that fails part way.
ADMIN_PROGRESS = ("Files:", "Done:")


def dump(instance: LocalNeo4j, target: Path) -> None:
    """The managed server's database into the file `target` (replaced if it exists)."""
    _refuse_running(instance, "dump")
    target = target.resolve()
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".dump-") as folder:
        _admin(instance, "dump", f"--to-path={folder}")
        (Path(folder) / f"{DATABASE}.dump").replace(target)


def load(instance: LocalNeo4j, source: Path) -> None:
    """The file `source`, made by `dump`, as the managed server's database (replacing it).
    A load that fails leaves the database that was there as it was."""
    _refuse_running(instance, "load")
    source = source.resolve()
    if not source.is_file():
        raise LocalNeo4jError(f"{source} is not a file: nothing was loaded")
    with tempfile.TemporaryDirectory(prefix="threadline-load-") as folder:
        copy = Path(folder) / f"{DATABASE}.dump"
        shutil.copyfile(source, copy)
        with _kept_until_loaded(instance):
            try:
                _admin(instance, "load", f"--from-path={folder}", "--overwrite-destination=true")
            except LocalNeo4jError as error:
                said = str(error).replace(str(copy), str(source))
                raise LocalNeo4jError(f"{said}; the database there is as it was") from error


@contextmanager
def _kept_until_loaded(instance: LocalNeo4j) -> Iterator[None]:
    """The database's folders moved aside while `neo4j-admin` loads, which empties them
    before it reads the file: put back if the load fails, removed once it succeeds."""
    data = instance.home / "data"
    folders = [data / "databases" / DATABASE, data / "transactions" / DATABASE]
    data.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=data, prefix=".before-load-") as kept:
        aside = {folder: Path(kept) / str(n) for n, folder in enumerate(folders)}
        moved = [folder for folder in folders if folder.exists()]
        for folder in moved:
            folder.rename(aside[folder])
        try:
            yield
        except BaseException:
            for folder in folders:
                shutil.rmtree(folder, ignore_errors=True)
            for folder in moved:
                aside[folder].rename(folder)
            raise


def _refuse_running(instance: LocalNeo4j, action: str) -> None:
    if instance.is_running():
        raise LocalNeo4jError(
            f"Neo4j is running: stop it first (`threadline neo4j stop`), then {action} again"
        )


def _admin(instance: LocalNeo4j, action: str, *arguments: str) -> None:
    done = instance.admin("database", action, DATABASE, *arguments)
    if done.returncode != 0:
        raise LocalNeo4jError(f"neo4j-admin database {action} failed: {_reason(done)}")


def _reason(done: subprocess.CompletedProcess[str]) -> str:
    """neo4j-admin's own reason: its line saying what failed, else its first line that is
    neither progress nor advice on seeing more."""
    lines = [line.strip() for line in (done.stderr or done.stdout).splitlines() if line.strip()]
    reasons = [line for line in lines if not line.startswith(ADMIN_NOISE + ADMIN_PROGRESS)]
    failed = [line for line in reasons if line.startswith("Failed to")]
    return (failed or reasons or lines or [f"exit code {done.returncode}"])[0]
