"""`threadline`: serve the API, migrate the schema, manage the local Neo4j."""

from __future__ import annotations

import asyncio
import hashlib
import ipaddress
import json
import os
import secrets
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
import uvicorn
from pydantic import ValidationError

from api.auth import OPEN_WORKSPACE
from api.cypher_cli import cypher_app
from api.export_formats import ExportFormat
from api.settings import Settings, test_neo4j
from bench.cli import bench
from graph.local_neo4j import LocalNeo4j, LocalNeo4jError
from graph.runtime.ports import is_free

if TYPE_CHECKING:
    from api.demo import DemoFamily

app = typer.Typer(help="Threadline: lineage and context transfer for coding-agent threads.")
neo4j_app = typer.Typer(help="The managed local Neo4j (no Docker needed).")
app.add_typer(neo4j_app, name="neo4j")
app.add_typer(cypher_app, name="cypher")
app.command("bench")(bench)  # the benchmark harness (bench/): same as `python -m bench`


def _settings() -> Settings:
    """The settings, or one line naming the bad variable (never a traceback)."""
    try:
        return Settings()
    except ValidationError as error:
        problems = "; ".join(
            f"THREADLINE_{'_'.join(str(part) for part in e['loc']).upper()}: {e['msg']}"
            for e in error.errors()
        )
        typer.echo(f"Invalid setting: {problems}", err=True)
        raise typer.Exit(2) from error


def _instance(test: bool) -> LocalNeo4j:
    settings = _settings()
    if test:
        return test_neo4j(
            settings.home, settings.test_neo4j_bolt_port, settings.test_neo4j_http_port
        )
    return settings.local_neo4j()


def _start(instance: LocalNeo4j) -> None:
    """Start the managed Neo4j, or exit with its one-line reason (and log tail)."""
    try:
        instance.start(notify=lambda line: typer.echo(line, err=True))
    except LocalNeo4jError as error:
        typer.echo(str(error), err=True)
        raise typer.Exit(1) from error


def _check_neo4j_credentials(settings: Settings) -> None:
    """One clear line when the configured Neo4j refuses the credentials, instead of a
    traceback per worker. A Neo4j that does not answer yet is no reason to stop: the
    service starts and says so on /readyz."""
    if not settings.neo4j_uri:
        return
    from neo4j import GraphDatabase
    from neo4j.exceptions import AuthError, DriverError, Neo4jError

    auth = (settings.neo4j_user, settings.neo4j_password) if settings.neo4j_password else None
    try:
        with GraphDatabase.driver(settings.neo4j_uri, auth=auth, connection_timeout=2) as driver:
            driver.verify_connectivity()
    except AuthError as error:
        hint = "unset" if settings.neo4j_password is None else "set"
        typer.echo(
            f"Neo4j at {settings.neo4j_uri} refused the credentials ({error.message}); "
            f"THREADLINE_NEO4J_PASSWORD is {hint}. The managed Neo4j's password is in "
            f"{settings.home}/neo4j/default/password.",
            err=True,
        )
        raise typer.Exit(2) from error
    except (DriverError, Neo4jError, OSError, ValueError):
        return


def _check_tokens_file(settings: Settings) -> None:
    path = settings.tokens_file
    if path is None or path.is_file():
        return
    what = "is a directory" if path.is_dir() else "does not exist"
    typer.echo(
        f"THREADLINE_TOKENS_FILE {path} {what}: create it with "
        f"`threadline new-token NAME --workspace W --append {path}`.",
        err=True,
    )
    raise typer.Exit(2)


@app.command()
def serve(
    host: str | None = typer.Option(None, help="Bind address (default THREADLINE_HOST)."),
    port: int | None = typer.Option(None, help="Port (default THREADLINE_PORT)."),
    workers: int | None = typer.Option(
        None, min=1, max=64, help="API processes sharing the port (default THREADLINE_WORKERS)."
    ),
) -> None:
    """Run the GraphQL API; starts the local Neo4j when THREADLINE_NEO4J_URI is unset."""
    from api.app import create_app, load_tokens
    from api.auth import refuse_open_public_bind

    settings = _settings()
    if host:
        settings.host = host
    if port:
        settings.port = port
    if workers:
        settings.workers = workers
    _check_tokens_file(settings)
    _refuse_taken_port(settings)
    _check_neo4j_credentials(settings)
    try:
        refuse_open_public_bind(settings.host, load_tokens(settings))
    except ValueError as error:
        typer.echo(str(error), err=True)
        raise typer.Exit(2) from error
    if not settings.neo4j_uri:
        typer.echo("THREADLINE_NEO4J_URI is unset: using the managed local Neo4j...")
        _start(settings.local_neo4j())
    if settings.workers == 1:
        uvicorn.run(
            create_app(settings),
            host=settings.host,
            port=settings.port,
            access_log=settings.access_log,
        )
        return
    # Each worker process builds its own app from the same THREADLINE_* environment; the
    # host and port only matter to the socket this process binds and hands to them.
    uvicorn.run(
        "api.app:create_app",
        factory=True,
        host=settings.host,
        port=settings.port,
        workers=settings.workers,
        access_log=settings.access_log,
    )


def _refuse_taken_port(settings: Settings) -> None:
    """One clear line before anything starts, instead of uvicorn's bind error after Neo4j
    and the app have started. Checked for IPv4 addresses, the ones a bind test covers."""
    try:
        ipv4 = ipaddress.ip_address(settings.host).version == 4
    except ValueError:  # a host name: uvicorn resolves it and reports its own error
        ipv4 = False
    if ipv4 and not is_free(settings.port, settings.host):
        typer.echo(
            f"Port {settings.port} on {settings.host} is taken by another program: "
            "set THREADLINE_PORT (or --port) to a free one.",
            err=True,
        )
        raise typer.Exit(1)


@app.command()
def migrate() -> None:
    """Apply constraints and indexes (idempotent)."""
    from api.app import connect_store

    async def run() -> int:
        store = connect_store(Settings())
        try:
            return await store.migrate()
        finally:
            await store.close()

    typer.echo(f"applied {asyncio.run(run())} schema statements")


TEST_OPTION = typer.Option(False, "--test", help="The throwaway test server.")


@neo4j_app.command("start")
def neo4j_start(test: bool = TEST_OPTION) -> None:
    """Fetch (once) and start Neo4j; returns when it answers queries."""
    instance = _instance(test)
    _start(instance)
    typer.echo(f"Neo4j is up at {instance.uri} (data in {instance.home})")


@neo4j_app.command("stop")
def neo4j_stop(test: bool = TEST_OPTION) -> None:
    """Stop the managed Neo4j."""
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


@app.command()
def demo(
    workspace: str = typer.Option("default", help="The workspace to seed."),
    url: str | None = typer.Option(
        None, help="Seed a running Threadline at this base URL instead of in-process."
    ),
    token: str | None = typer.Option(
        None, envvar="THREADLINE_TOKEN", help="Bearer token for --url; it decides the workspace."
    ),
) -> None:
    """Seed a realistic thread family through the GraphQL API; print its /lineage URL."""
    from api.demo import seed_demo
    from api.demo_client import DemoError, in_process, remote
    from api.target import quiet_driver_notifications

    settings = Settings()
    quiet_driver_notifications()

    async def seed() -> DemoFamily:
        client = remote(url, token) if url else in_process(settings, workspace)
        async with client as gql:
            return await seed_demo(gql)

    try:
        family = asyncio.run(seed())
    except (DemoError, LocalNeo4jError, OSError) as error:
        typer.echo(f"The demo could not be seeded: {error}", err=True)
        raise typer.Exit(1) from error
    for role, thread_id in family.threads.items():
        typer.echo(f"{role:<16} {thread_id}")
    base = url.rstrip("/") if url else f"http://{_browsable(settings.host)}:{settings.port}"
    typer.echo(f"\nOpen {base}/lineage?thread={family.root}")
    if not url:
        typer.echo("(with `threadline serve` running)")
    if workspace != OPEN_WORKSPACE and not url:
        typer.echo(f"The page shows workspace {workspace!r} to a token of that workspace.")


def _browsable(host: str) -> str:
    """A bind-all address is not one a browser can open; the loopback one is."""
    return "127.0.0.1" if host in ("0.0.0.0", "::", "") else host


EXPORT_FORMAT = typer.Option(
    ExportFormat.json, "--format", "-f", help="json, graphml, mermaid or dot."
)
EXPORT_OUTPUT = typer.Option(None, "--output", "-o", help="File to write (default stdout).")


@app.command("export")
def export_family(
    thread_id: str = typer.Argument(..., help="Any thread of the family."),
    workspace: str = typer.Option("default", help="The thread's workspace."),
    fmt: ExportFormat = EXPORT_FORMAT,
    output: Path | None = EXPORT_OUTPUT,
) -> None:
    """Write a thread family's lineage and coverage (read-only, from Neo4j)."""
    from api.export import load_family
    from api.export_formats import render
    from api.target import neo4j_target, quiet_driver_notifications
    from graph import readonly

    quiet_driver_notifications()
    try:
        target = neo4j_target(Settings(), announce=lambda line: typer.echo(line, err=True))
        with readonly.connect(target.uri, target.auth, target.database) as graph:
            family = load_family(graph, thread_id, workspace)
    except (readonly.ConsoleError, LocalNeo4jError) as error:
        typer.echo(str(error), err=True)
        raise typer.Exit(1) from error
    if family is None:
        typer.echo(f"No thread {thread_id!r} in workspace {workspace!r}.", err=True)
        raise typer.Exit(1)
    text = render(family, fmt)
    if output is None:
        typer.echo(text)
    else:
        output.write_text(text + "\n")
        typer.echo(f"wrote {fmt.value} of {len(family.threads)} threads to {output}", err=True)


@app.command("export-schema")
def export_schema() -> None:
    """Print the GraphQL SDL the code serves (kept in schema.graphql)."""
    from api.schema import build_schema

    typer.echo(build_schema(Settings()).as_str())


@app.command("new-token")
def new_token(
    name: str = typer.Argument(..., help="Who the token is for."),
    workspace: str = typer.Option("default", help="The workspace it sees."),
    scope: str = typer.Option("write", help="read, write or admin."),
    append: Annotated[
        Path | None, typer.Option(help="Append the entry to this tokens file (created if missing).")
    ] = None,
) -> None:
    """Make a bearer token: prints it once, and its entry for the tokens file."""
    token = secrets.token_urlsafe(32)
    # JSON strings are valid TOML basic strings, so any name or workspace is quoted right.
    entry = (
        f"[[tokens]]\nname = {json.dumps(name)}\n"
        f'sha256 = "{hashlib.sha256(token.encode()).hexdigest()}"\n'
        f"scopes = [{json.dumps(scope)}]\nworkspace = {json.dumps(workspace)}\n"
    )
    if append is not None:
        _append_token(append, entry)
        typer.echo(f"token (shown once): {token}\n\nentry {name!r} appended to {append}")
        return
    typer.echo(f"token (shown once): {token}\n")
    typer.echo(entry, nl=False)


def _append_token(path: Path, entry: str) -> None:
    """Append `entry`, keeping the file a valid tokens file; exit with one line if it cannot."""
    from api.auth import TokenBook

    try:
        existing = path.read_text() if path.exists() else ""
        TokenBook.from_toml(existing + "\n" + entry)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        with os.fdopen(fd, "a") as tokens:
            tokens.write(("\n" if existing.strip() else "") + entry)
    except (OSError, ValueError) as error:
        typer.echo(f"Cannot append to {path}: {error}", err=True)
        raise typer.Exit(2) from error


if __name__ == "__main__":
    app()
