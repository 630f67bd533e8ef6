"""`threadline mcp`: the MCP tools over stdio, for an agent on this machine.

The process serves one caller: the holder of THREADLINE_TOKEN when a tokens file is set,
else the open workspace. Nothing but the protocol is written to stdout.
"""

from __future__ import annotations

import asyncio
import logging.config
import os
from typing import TYPE_CHECKING

import typer

from api.cli import checked
from api.cli.checked import settings as checked_settings
from graph.errors import ThreadlineError

if TYPE_CHECKING:
    from api.auth import Principal
    from api.settings import Settings

TOKEN_ENV = "THREADLINE_TOKEN"


def principal(settings: Settings) -> Principal:
    """The one caller this process serves: the holder of THREADLINE_TOKEN (a tokens file
    that is missing or not valid is one line, exit 2)."""
    token = os.environ.get(TOKEN_ENV)
    return checked.tokens(settings).authenticate(f"Bearer {token}" if token else None)


async def _serve(settings: Settings, caller: Principal) -> None:
    # The app (its schema, services and lifespan) is heavy to import: only for this command.
    from api.app import create_app
    from api.mcp import server as mcp
    from api.mcp.tools import Gateway

    app = create_app(settings)
    gateway: Gateway = app.state.gateway
    async with app.router.lifespan_context(app):
        await mcp.build(gateway, lambda _: caller).run_stdio_async()


def serve_stdio() -> None:
    """Serve the MCP tools over stdin/stdout (workspace and token from the environment)."""
    from api.process.logs import logging_config

    settings = checked_settings()
    try:
        caller = principal(settings)
    except ThreadlineError as error:
        typer.echo(f"{error.message} Set {TOKEN_ENV} to a token of the tokens file.", err=True)
        raise typer.Exit(2) from error
    # The log lines `serve` writes, on stderr: without them every start printed the
    # driver's note on each schema statement whose index was already made.
    logging.config.dictConfig(logging_config(settings.log_format, settings.log_level))
    asyncio.run(_serve(settings, caller))
