"""What commands other than `serve` talk to: the Neo4j the service uses (consoles, export),
or the service itself (demo, import)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import typer

from api.settings import Settings


@dataclass(frozen=True)
class Neo4jTarget:
    uri: str
    auth: tuple[str, str] | None
    database: str


def neo4j_target(settings: Settings, announce: Callable[[str], None] | None = None) -> Neo4jTarget:
    """THREADLINE_NEO4J_URI when set, else the managed local Neo4j, started if needed.

    The same choice `serve` makes (api.app.connect_store), so a console reads what the
    API writes.
    """
    if settings.neo4j_uri:
        auth = (settings.neo4j_user, settings.neo4j_password) if settings.neo4j_password else None
        return Neo4jTarget(settings.neo4j_uri, auth, settings.neo4j_database)
    local = settings.local_neo4j()
    if not local.is_running() and announce is not None:
        announce(
            "THREADLINE_NEO4J_URI is unset: starting the managed local Neo4j "
            "(it keeps running; `threadline neo4j stop` stops it)..."
        )
    local.start()
    return Neo4jTarget(local.uri, local.credentials(), "neo4j")


def quiet_driver_notifications() -> None:
    """The driver logs every server notification as a warning; consoles print their own."""
    logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)


def say(line: str) -> None:
    """How a console command says what it does besides its answer: on stderr."""
    typer.echo(line, err=True)


# The options of the commands that drive the API (demo, import): which service, which token.
TOKEN_OPTION: Any = typer.Option(
    None, envvar="THREADLINE_TOKEN", help="Bearer token for --url; it decides the workspace."
)


def url_option(doing: str) -> Any:
    return typer.Option(
        None,
        help=f"{doing} a running Threadline at this base URL (default: the one at "
        "THREADLINE_HOST:THREADLINE_PORT when it answers, else in-process).",
    )


def service_to_use(settings: Settings, url: str | None, workspace: str, doing: str) -> str | None:
    """The service a command that drives the API sends to (None: the app in-process).

    `--url` when given; else, for the open workspace, the service at THREADLINE_HOST:PORT
    when it answers (so a token given is the one used, as it would be there); else none.
    Over a service the token decides the workspace, so `--workspace` then is refused
    rather than ignored.
    """
    from api.auth import OPEN_WORKSPACE
    from api.cli.stages import base_url, readiness

    if url is not None:
        if workspace != OPEN_WORKSPACE:
            raise typer.BadParameter(
                "over --url the token decides the workspace: leave out --workspace "
                "(it names the workspace of an in-process run)",
                param_hint="--workspace",
            )
        return url
    running = base_url(settings)
    if workspace == OPEN_WORKSPACE and readiness(f"{running}/readyz")[0]:
        typer.echo(f"{doing} the service at {running}")
        return running
    say(in_process_line(settings, running, workspace, doing))
    return None


def in_process_line(settings: Settings, running: str, workspace: str, doing: str) -> str:
    """The one line a command says when it writes in-process: why, and where to."""
    from api.auth import OPEN_WORKSPACE
    from api.front import neo4j_in_use

    why = (
        f"no service answers at {running}"
        if workspace == OPEN_WORKSPACE
        else f"--workspace {workspace} is written directly"
    )
    where = neo4j_in_use(settings).line()
    return f"in-process ({why}): {doing} {where}, workspace {workspace!r}"
