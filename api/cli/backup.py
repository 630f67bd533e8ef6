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
from api.cli.progress import CountedLines, Progress
from api.cli.target import say
from graph import backup, restore
from graph.errors import ThreadlineError
from graph.migrations import GraphTooNewError
from graph.runtime.local_neo4j import LocalNeo4jError
from graph.snapshot import Counts, Header, SnapshotError, check_complete
from graph.store import Store

T = TypeVar("T")
TIMEOUT = typer.Option(3600.0, "--timeout-s", help="Bound of each transaction.")
BACKUP_FILE = typer.Argument(
    ..., help="The snapshot to write (JSON Lines).", callback=file_to_write
)
SNAPSHOT_FILE = typer.Argument(
    None,
    help="A snapshot written by `threadline backup` (not with --discard).",
    exists=True,
    dir_okay=False,
)
AS_WORKSPACE = typer.Option(
    None,
    "--as-workspace",
    help="Restore into this workspace instead of the snapshot's.",
    callback=checked.workspace,
)
DISCARD = typer.Option(
    None,
    "--discard",
    metavar="WORKSPACE",
    help="Remove what a stopped restore of WORKSPACE wrote, and open it again (empty).",
    callback=checked.workspace,
)
REFUSALS = (
    SnapshotError,
    restore.WorkspaceNotEmptyError,
    restore.RestoreMismatchError,
    restore.RestoreTakenOverError,
    restore.RestoreStoppedError,
    backup.WorkspaceChangedError,
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
    pause_s: float = typer.Option(
        backup.PAUSE_S,
        "--pause-s",
        help="The longest the workspace's writers wait on the backup's last pass.",
        min=0.1,
    ),
) -> None:
    """Write one workspace to FILE: a snapshot consistent as of one instant, taken while
    commands go on writing it (they wait at most --pause-s once)."""
    partial = file.with_name(f".{file.name}.partial")
    staging = file.with_name(f".{file.name}.staging")
    shown = Progress("backup", say)

    def step(done: backup.Step) -> None:
        _backup_line(shown, done, workspace)

    async def take(store: Store) -> backup.Taken:
        with partial.open("w", encoding="utf-8") as sink:
            now = datetime.now(UTC).isoformat()
            return await backup.backup(
                store, workspace, sink, now, timeout_s, step, pause_s=pause_s, staging=staging
            )

    try:
        taken = _run(take)
        if taken.counts.nodes == 0:  # most often a mistyped name: a file of nothing hides it
            typer.echo(f"workspace {workspace!r} holds nothing: no snapshot written", err=True)
            raise typer.Exit(1)
    except typer.Exit:
        partial.unlink(missing_ok=True)  # FILE is written whole or not at all
        raise
    partial.replace(file)
    counts = taken.counts
    paused = f"; writers paused {taken.paused_ms:,.0f} ms" if taken.paused_ms else ""
    typer.echo(
        f"wrote workspace {workspace!r}: {counts.nodes} nodes, "
        f"{counts.relationships} relationships to {file} ({taken.passes} "
        f"pass{'es' if taken.passes > 1 else ''}{paused})"
    )


def _backup_line(shown: Progress, done: backup.Step, workspace: str) -> None:
    """A backup's progress (api/cli/progress.py): its phases and its counts."""
    if done.phase in ("reading", "writing") and not (done.total or done.lines):
        return  # nothing to say of an empty workspace but that it is (backup_workspace)
    match done.phase:
        case "reading":
            shown.phase("reading", f"reading workspace {workspace!r} ({done.total:,} threads)")
            shown.counts(
                f"{done.threads:,} of {done.total:,} threads read ({done.lines:,} lines)",
                done.lines,
                "lines",
            )
        case "catching up":
            shown.phase("catching up", "reading again what commands wrote meanwhile")
            shown.counts(
                f"pass {done.passes}: {done.changed:,} threads, receipts or limits changed",
                done.passes,
                "passes",
                now=True,
            )
        case "paused":
            shown.phase(
                "paused",
                f"writers held {done.paused_ms:,.0f} ms while the last {done.changed:,} "
                "changes were read",
            )
        case "writing":
            shown.phase(
                "writing",
                f"read in {shown.elapsed():,.1f} s; writing the snapshot from "
                f"{done.passes} pass(es)",
            )


def restore_workspace(
    file: Path | None = SNAPSHOT_FILE,
    as_workspace: str | None = AS_WORKSPACE,
    discard: str | None = DISCARD,
    timeout_s: float = TIMEOUT,
) -> None:
    """Load a snapshot into an empty workspace in batches, then migrate. The workspace is
    closed until the restore ends: run again with the same snapshot, a restore that
    stopped resumes; --discard removes it."""
    if discard is not None:
        if file is not None or as_workspace is not None:
            raise typer.BadParameter("--discard takes no FILE and no --as-workspace")
        _discard(discard, timeout_s)
        return
    if file is None:
        raise typer.BadParameter("name the snapshot FILE to restore (or --discard WORKSPACE)")
    lines = CountedLines(file)
    shown = Progress("restore", say)
    try:
        check_complete(file)  # a cut-off file is refused before anything is written
    except SnapshotError as error:
        typer.echo(_one_line(error), err=True)
        raise typer.Exit(1) from error

    def step(done: restore.Step) -> None:
        _restore_line(shown, done, lines)

    async def load(store: Store) -> tuple[Header, str, Counts]:
        return await restore.restore(store, lines, as_workspace, timeout_s, step)

    header, workspace, counts = _run(load)
    typer.echo(
        f"restored {counts.nodes} nodes, {counts.relationships} relationships into workspace "
        f"{workspace!r} (snapshot of {header.workspace!r} at schema version "
        f"{header.schema_version}, taken {header.created_at})"
    )


def _restore_line(shown: Progress, done: restore.Step, lines: CountedLines) -> None:
    """A restore's progress (api/cli/progress.py): its phases and its counts."""
    counts = done.counts
    written = f"{counts.nodes:,} nodes, {counts.relationships:,} relationships"
    match done.phase:
        case "resuming":
            shown.phase(
                "resuming",
                f"resuming a restore that stopped at line {done.line:,} ({written} written)",
                done.line,
            )
        case "loading":
            shown.phase("loading", "loading the snapshot (the workspace stays closed)", 0)
            shown.counts(f"{written} written, {lines.share()}% of the file", done.line, "lines")
        case "naming":
            shown.phase("naming", "giving the restored nodes the workspace's name")
            shown.counts(f"{done.named:,} nodes named", done.named, "nodes")
        case "opened":
            shown.phase(
                "opened", f"done in {shown.elapsed():,.1f} s: {written}; the workspace is open"
            )


def _discard(workspace: str, timeout_s: float) -> None:
    shown = Progress("restore --discard", say)

    def step(done: restore.Step) -> None:
        shown.phase("discarding", f"deleting what the restore of {workspace!r} wrote")
        shown.counts(f"{done.counts.nodes:,} nodes deleted", done.counts.nodes, "nodes")

    async def work(store: Store) -> int:
        return await restore.discard(store, workspace, timeout_s, step)

    deleted = _run(work)
    typer.echo(
        f"discarded the restore of workspace {workspace!r}: {deleted} nodes deleted; "
        "it is open, and empty"
    )


def _run(work: Callable[[Store], Awaitable[T]]) -> T:
    from api.app import connect_store
    from api.cli.target import neo4j_target, quiet_driver_notifications

    quiet_driver_notifications()

    async def run() -> T:
        settings = checked.settings()
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
