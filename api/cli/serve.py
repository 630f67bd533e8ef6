"""`threadline serve` and `threadline migrate`: the API, and the schema it needs."""

from __future__ import annotations

import asyncio
import ipaddress
import os

import typer
import uvicorn
from neo4j.exceptions import DriverError, Neo4jError

from api.cli import checked, stages
from api.cli.managed_neo4j import start
from api.process.logs import logging_config
from api.settings import Settings
from graph import migrations
from graph.errors import ThreadlineError
from graph.runtime.ports import is_free
from graph.store import Store


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


def serve(
    host: str | None = typer.Option(None, help="Bind address (default THREADLINE_HOST)."),
    port: int | None = typer.Option(None, help="Port (default THREADLINE_PORT)."),
    workers: int | None = typer.Option(
        None, min=1, max=64, help="API processes sharing the port (default THREADLINE_WORKERS)."
    ),
) -> None:
    """Run the GraphQL API; starts the local Neo4j when THREADLINE_NEO4J_URI is unset."""
    from api.app import create_app
    from api.auth import refuse_open_public_bind

    settings = checked.settings()
    if host:
        settings.host = host
        # Worker processes read their settings from the environment, and each answers to
        # the name of the host it serves on (api/http/hosts.py).
        os.environ["THREADLINE_HOST"] = host
    if port:
        settings.port = port
    if workers:
        settings.workers = workers
    tokens = checked.tokens(settings)
    _refuse_taken_port(settings)
    _check_neo4j_credentials(settings)
    try:
        refuse_open_public_bind(settings.host, tokens)
    except ValueError as error:
        typer.echo(str(error), err=True)
        raise typer.Exit(2) from error
    if not settings.neo4j_uri:
        start(settings.local_neo4j())
    _refuse_newer_graph(settings)
    log_config = logging_config(settings.log_format, settings.log_level)
    stages.announce_when_ready(settings, typer.echo)
    if settings.workers == 1:
        uvicorn.run(
            create_app(settings, announce=typer.echo),
            host=settings.host,
            port=settings.port,
            timeout_keep_alive=settings.keep_alive_s,
            access_log=settings.access_log,
            log_config=log_config,
        )
    else:
        typer.echo(f"starting {settings.workers} API processes (each migrates and warms up)")
        # Each worker process builds its own app from the same THREADLINE_* environment; the
        # host and port only matter to the socket this process binds and hands to them.
        uvicorn.run(
            "api.app:create_app",
            factory=True,
            host=settings.host,
            port=settings.port,
            workers=settings.workers,
            timeout_keep_alive=settings.keep_alive_s,
            access_log=settings.access_log,
            log_config=log_config,
        )
    typer.echo(stopped_line(settings))


def stopped_line(settings: Settings) -> str:
    """What `serve` says when it stops (Ctrl-C, SIGTERM): what became of the Neo4j."""
    if settings.neo4j_uri:
        return f"stopped; Neo4j at {settings.neo4j_uri} is not Threadline's: left as it was"
    local = settings.local_neo4j()
    return (
        f"stopped; the managed Neo4j keeps running at {local.uri} (data in {local.home}): "
        "stop it with `threadline neo4j stop`"
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


def migrate(
    check: bool = typer.Option(
        False, "--check", help="List the pending migrations, apply nothing: exit 1 if any."
    ),
) -> None:
    """Apply constraints, indexes and backfills (idempotent); record the schema version."""
    from api.app import connect_store
    from graph import queries
    from graph.migrations import GraphTooNewError

    async def run() -> None:
        store = connect_store(checked.settings())
        try:
            if check:
                await _check(store)
            else:
                typer.echo(f"applied {await migrations.migrate(store)} schema statements")
                typer.echo(f"schema version {queries.schema_version()}")
        finally:
            await store.close()

    try:
        asyncio.run(run())
    except (GraphTooNewError, ThreadlineError) as error:
        typer.echo(str(error), err=True)
        raise typer.Exit(2) from error


async def _check(store: Store) -> None:
    from graph import queries
    from graph.migrations import GraphTooNewError

    graph, code = await migrations.graph_version(store), queries.schema_version()
    if graph > code:
        raise GraphTooNewError(graph, code)
    pending = await migrations.pending(store)
    typer.echo(f"graph schema version {graph}, this Threadline's {code}")
    for migration in pending:
        typer.echo(f"pending: {migration.version:03d}_{migration.name}")
    if pending:
        raise typer.Exit(1)
    typer.echo("no pending migrations")


def _refuse_newer_graph(settings: Settings) -> None:
    """One line, before anything is served, when the graph was migrated by a newer
    Threadline: this one would misread what that one wrote. A Neo4j that does not answer
    is no reason to stop here (the start-up migration checks again)."""
    from api.app import connect_store
    from graph import queries

    async def graph_version() -> int:
        store = connect_store(settings)
        try:
            return await migrations.graph_version(store)
        finally:
            await store.close()

    try:
        graph = asyncio.run(graph_version())
    except (DriverError, Neo4jError, OSError):
        return
    code = queries.schema_version()
    if graph > code:
        typer.echo(
            f"The graph is at schema version {graph}, newer than this Threadline's schema "
            f"version {code}: run a Threadline of schema version {graph} or newer.",
            err=True,
        )
        raise typer.Exit(2)
