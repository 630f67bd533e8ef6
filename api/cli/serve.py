"""`threadline serve` and `threadline migrate`: the API, and the schema it needs."""

from __future__ import annotations

import asyncio
import ipaddress

import typer
import uvicorn

from api.cli import stages
from api.cli.checked import settings as checked_settings
from api.cli.managed_neo4j import start
from api.process.logs import logging_config
from api.settings import Settings
from graph.runtime.ports import is_free


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

    settings = checked_settings()
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
        start(settings.local_neo4j())
    log_config = logging_config(settings.log_format, settings.log_level)
    stages.announce_when_ready(settings, typer.echo)
    if settings.workers == 1:
        uvicorn.run(
            create_app(settings, announce=typer.echo),
            host=settings.host,
            port=settings.port,
            access_log=settings.access_log,
            log_config=log_config,
        )
        return
    typer.echo(f"starting {settings.workers} API processes (each migrates and warms up)")
    # Each worker process builds its own app from the same THREADLINE_* environment; the
    # host and port only matter to the socket this process binds and hands to them.
    uvicorn.run(
        "api.app:create_app",
        factory=True,
        host=settings.host,
        port=settings.port,
        workers=settings.workers,
        access_log=settings.access_log,
        log_config=log_config,
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
