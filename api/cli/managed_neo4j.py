"""`threadline neo4j start|stop|status|uri|dump|load`: the managed local Neo4j (no Docker
needed)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import typer

from api.cli.checked import file_to_write, settings
from api.settings import test_neo4j, test_neo4j_servers
from graph.runtime import dumps
from graph.runtime.local_neo4j import LocalNeo4j, LocalNeo4jError

neo4j_app = typer.Typer(help="The managed local Neo4j (no Docker needed).")


def _instance(test: bool) -> LocalNeo4j:
    found = settings()
    if test:
        return test_neo4j(found.home, found.test_neo4j_bolt_port, found.test_neo4j_http_port)
    return found.local_neo4j()


def start(instance: LocalNeo4j) -> None:
    """Start the managed Neo4j, or exit with its one-line reason (and log tail). Each
    stage (fetching, starting) is one line on stdout as it begins."""
    try:
        instance.start(notify=lambda line: typer.echo(line, err=True), progress=typer.echo)
    except LocalNeo4jError as error:
        typer.echo(str(error), err=True)
        raise typer.Exit(1) from error


TEST_OPTION = typer.Option(False, "--test", help="The throwaway test server.")


@neo4j_app.command("start")
def neo4j_start(test: bool = TEST_OPTION) -> None:
    """Fetch (once) and start Neo4j; returns when it answers queries."""
    instance = _instance(test)
    start(instance)
    typer.echo(f"Neo4j is up at {instance.uri} (data in {instance.home})")


@neo4j_app.command("stop")
def neo4j_stop(test: bool = TEST_OPTION) -> None:
    """Stop the managed Neo4j (with --test, every test server a parallel run started)."""
    if test:
        stopped = any([server.stop() for server in test_neo4j_servers(settings().home)])
    else:
        stopped = _instance(test).stop()
    typer.echo("Neo4j stopped" if stopped else "Neo4j was not running")


@neo4j_app.command("status")
def neo4j_status(test: bool = TEST_OPTION) -> None:
    """Running (exit 0), exited and how (exit 4), or not started (exit 3)."""
    instance = _instance(test)
    start_hint = f"start it with `threadline neo4j start{' --test' if test else ''}`"
    pid = instance.running_pid()
    if pid is not None:
        typer.echo(f"running (pid {pid}) at {instance.uri}, {_answers(instance)}")
        return
    exit_status = instance.exit_status()
    if exit_status is not None:
        typer.echo(f"{exit_status} — {start_hint}")
        raise typer.Exit(4)
    typer.echo(f"not started — {start_hint}")
    raise typer.Exit(3)


def _answers(instance: LocalNeo4j) -> str:
    try:
        return "answers" if instance.answers() else "does not answer yet"
    except LocalNeo4jError as error:
        return str(error)


@neo4j_app.command("uri")
def neo4j_uri(test: bool = TEST_OPTION) -> None:
    """Print the Bolt URI the managed Neo4j listens on (or will, at its next start)."""
    typer.echo(_instance(test).uri)


DUMP_FILE = typer.Argument(..., help="The dump file to write.", callback=file_to_write)
LOAD_FILE = typer.Argument(..., help="A file written by `neo4j dump`.")


@neo4j_app.command("dump")
def neo4j_dump(file: Path = DUMP_FILE) -> None:
    """The whole managed database into FILE (neo4j-admin database dump; Neo4j stopped);
    a file already there is replaced, and the line says so."""
    replaced = " (replacing the file that was there)" if file.exists() else ""
    _admin(lambda instance: dumps.dump(instance, file), f"dumped the database to {file}{replaced}")


@neo4j_app.command("load")
def neo4j_load(file: Path = LOAD_FILE) -> None:
    """Replace the managed database with FILE (neo4j-admin database load; Neo4j stopped)."""
    _admin(lambda instance: dumps.load(instance, file), f"loaded the database from {file}")


def _admin(action: Callable[[LocalNeo4j], None], done: str) -> None:
    try:
        action(_instance(False))
    except LocalNeo4jError as error:
        typer.echo(str(error), err=True)
        raise typer.Exit(1) from error
    typer.echo(done)
