"""`threadline backup` and `threadline restore`: one workspace to a snapshot file and back
(docs/MODEL.md, "Snapshots"). Every failure is one line and exit code 1."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

import typer
from neo4j.exceptions import Neo4jError

from api.cli import checked
from api.cli.checked import file_to_write
from api.cli.checked import settings as checked_settings
from graph import backup as snapshots
from graph.errors import ThreadlineError
from graph.runtime.local_neo4j import LocalNeo4jError
from graph.snapshot import Counts, Header, SnapshotError
from graph.store import GraphTooNewError, Store

T = TypeVar("T")
ATTEMPTS = 3  # a backup that raced a write is taken again, up to this many times
TIMEOUT = typer.Option(3600.0, "--timeout-s", help="Bound of the one transaction.")
BACKUP_FILE = typer.Argument(
    ..., help="The snapshot to write (JSON Lines).", callback=file_to_write
)
SNAPSHOT_FILE = typer.Argument(
    ..., help="A snapshot written by `threadline backup`.", exists=True, dir_okay=False
)
AS_WORKSPACE = typer.Option(
    None,
    "--as-workspace",
    help="Restore into this workspace instead of the snapshot's.",
    callback=checked.workspace,
)
REFUSALS = (
    SnapshotError,
    snapshots.WorkspaceNotEmptyError,
    snapshots.WorkspaceChangedError,
    GraphTooNewError,
    ThreadlineError,
    LocalNeo4jError,
    Neo4jError,
    OSError,
)


def backup_workspace(
    file: Path = BACKUP_FILE,
    workspace: str = typer.Option(
        "default", help="The workspace to back up.", callback=checked.workspace
    ),
    timeout_s: float = TIMEOUT,
) -> None:
    """Write one workspace to FILE: a consistent snapshot, read in one transaction."""
    partial = file.with_name(f".{file.name}.partial")

    async def attempt(store: Store) -> Counts:
        for tries in range(1, ATTEMPTS + 1):
            try:
                with partial.open("w", encoding="utf-8") as sink:
                    now = datetime.now(UTC).isoformat()
                    return await snapshots.backup(store, workspace, sink, now, timeout_s)
            except snapshots.WorkspaceChangedError as error:
                if tries == ATTEMPTS:
                    raise snapshots.WorkspaceChangedError(
                        f"{error}, on each of {ATTEMPTS} tries: back it up when its writes "
                        "pause (or dump the whole managed Neo4j while it is stopped: "
                        "`threadline neo4j dump`)"
                    ) from error
        raise AssertionError("the loop returns or raises")  # pragma: no cover

    try:
        counts = _run(attempt)
        if counts.nodes == 0:  # most often a mistyped name: a file of nothing hides it
            typer.echo(f"workspace {workspace!r} holds nothing: no snapshot written", err=True)
            raise typer.Exit(1)
    except typer.Exit:
        partial.unlink(missing_ok=True)  # FILE is written whole or not at all
        raise
    partial.replace(file)
    typer.echo(
        f"wrote workspace {workspace!r}: {counts.nodes} nodes, "
        f"{counts.relationships} relationships to {file}"
    )


def restore_workspace(
    file: Path = SNAPSHOT_FILE,
    as_workspace: str | None = AS_WORKSPACE,
    timeout_s: float = TIMEOUT,
) -> None:
    """Load a snapshot into an empty workspace, in one transaction, then migrate."""

    async def load(store: Store) -> tuple[Header, str, Counts]:
        with file.open(encoding="utf-8") as lines:
            return await snapshots.restore(store, lines, as_workspace, timeout_s)

    header, workspace, counts = _run(load)
    typer.echo(
        f"restored {counts.nodes} nodes, {counts.relationships} relationships into workspace "
        f"{workspace!r} (snapshot of {header.workspace!r} at schema version "
        f"{header.schema_version}, taken {header.created_at})"
    )


def _run(work: Callable[[Store], Awaitable[T]]) -> T:
    from api.app import connect_store
    from api.cli.target import neo4j_target, quiet_driver_notifications, say

    quiet_driver_notifications()

    async def run() -> T:
        settings = checked_settings()
        neo4j_target(settings, announce=say)  # the managed one is started saying so
        store = connect_store(settings)
        try:
            return await work(store)
        finally:
            await store.close()

    try:
        return asyncio.run(run())
    except REFUSALS as error:
        typer.echo(_one_line(error), err=True)
        raise typer.Exit(1) from error


def _one_line(error: BaseException) -> str:
    text = error.message if isinstance(error, Neo4jError | ThreadlineError) else str(error)
    return " ".join((text or type(error).__name__).split())
