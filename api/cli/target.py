"""The Neo4j the service uses, for commands other than `serve` (consoles, export)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

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
