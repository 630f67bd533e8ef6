"""`threadline mcp`: the MCP tools over stdio, for an agent on this machine.

The process serves one caller: the holder of THREADLINE_TOKEN when a tokens file is set,
else the open workspace. Nothing but the protocol is written to stdout.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging.config
import os
from typing import TYPE_CHECKING

import typer

from api.cli import checked
from graph.errors import ThreadlineError
from graph.migrations import GraphTooNewError
from graph.runtime.local_neo4j import LocalNeo4jError

if TYPE_CHECKING:
    from api.auth import Principal
    from api.settings import Settings

TOKEN_ENV = "THREADLINE_TOKEN"
# How long a call made before the warm-up has ended waits for it (then it runs anyway).
COLD_WAIT_S = 60.0


def principal(settings: Settings) -> Principal:
    """The one caller this process serves: the holder of THREADLINE_TOKEN (a tokens file
    that is missing or not valid is one line, exit 2)."""
    token = os.environ.get(TOKEN_ENV)
    return checked.tokens(settings).authenticate(f"Bearer {token}" if token else None)


async def _serve(settings: Settings, caller: Principal) -> None:
    # The app (its schema, services and lifespan) is heavy to import: only for this command.
    from api.app import create_app
    from api.mcp import server
    from api.mcp.tools import Gateway

    app = create_app(settings)
    gateway: Gateway = app.state.gateway.waiting_for_warm_up(COLD_WAIT_S)
    async with app.router.lifespan_context(app):
        # Ready before the protocol is served: an agent's first call, often made as soon
        # as the process answers, then takes what later calls take (it took 12-20 s on a
        # cold process). Bounded: a Neo4j that goes away meanwhile is served all the same.
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(COLD_WAIT_S):
                await gateway.ready(caller)
        _say("threadline mcp: ready")
        await server.build(gateway, lambda _: caller).run_stdio_async()


def serve_stdio() -> None:
    """Serve the MCP tools over stdin/stdout (workspace and token from the environment)."""
    from api.process.logs import logging_config

    settings = checked.settings()
    try:
        caller = principal(settings)
    except ThreadlineError as error:
        typer.echo(f"{error.message} Set {TOKEN_ENV} to a token of the tokens file.", err=True)
        raise typer.Exit(2) from error
    # The log lines `serve` writes, on stderr: without them every start printed the
    # driver's note on each schema statement whose index was already made.
    logging.config.dictConfig(logging_config(settings.log_format, settings.log_level))
    say_which_neo4j(settings)
    try:
        asyncio.run(_serve(settings, caller))
    except ThreadlineError as error:  # the schema could not be migrated: Neo4j is away
        cause = type(error.__cause__ or error).__name__
        _say(
            f"threadline mcp: Neo4j did not answer ({cause}): start it, or set "
            "THREADLINE_NEO4J_URI to one that runs, then start this again."
        )
        raise typer.Exit(1) from error
    except GraphTooNewError as error:
        _say(f"threadline mcp: {error}")
        raise typer.Exit(1) from error


def say_which_neo4j(settings: Settings) -> None:
    """On stderr, which Neo4j this process uses, starting the managed one if it must: an
    agent's MCP configuration that leaves out the service's settings would otherwise
    start a Neo4j of its own in silence, and the agent see none of the service's threads."""
    if settings.neo4j_uri:
        _say(f"threadline mcp: Neo4j at {settings.neo4j_uri} (THREADLINE_NEO4J_URI)")
        return
    local = settings.local_neo4j()
    try:
        local.start(notify=_say, progress=_say)
    except LocalNeo4jError as error:
        _say(str(error))
        raise typer.Exit(1) from error
    _say(f"threadline mcp: the managed Neo4j at {local.uri} (data in {local.home})")


def _say(line: str) -> None:
    typer.echo(line, err=True)  # stdout carries the protocol alone
