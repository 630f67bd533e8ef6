"""`threadline`: serve the API, migrate the schema, manage the local Neo4j."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

import typer
import uvicorn

from api.auth import OPEN_WORKSPACE
from api.cypher_cli import cypher_app
from api.export_formats import ExportFormat
from api.settings import Settings, test_neo4j
from graph.local_neo4j import LocalNeo4j, LocalNeo4jError

if TYPE_CHECKING:
    from api.demo import DemoFamily

app = typer.Typer(help="Threadline: lineage and context transfer for coding-agent threads.")
neo4j_app = typer.Typer(help="The managed local Neo4j (no Docker needed).")
app.add_typer(neo4j_app, name="neo4j")
app.add_typer(cypher_app, name="cypher")


def _instance(test: bool) -> LocalNeo4j:
    settings = Settings()
    return test_neo4j(settings.home) if test else settings.local_neo4j()


@app.command()
def serve(
    host: str | None = typer.Option(None, help="Bind address (default THREADLINE_HOST)."),
    port: int | None = typer.Option(None, help="Port (default THREADLINE_PORT)."),
) -> None:
    """Run the GraphQL API; starts the local Neo4j when THREADLINE_NEO4J_URI is unset."""
    from api.app import create_app, load_tokens
    from api.auth import refuse_open_public_bind

    settings = Settings()
    if host:
        settings.host = host
    if port:
        settings.port = port
    try:
        refuse_open_public_bind(settings.host, load_tokens(settings))
    except ValueError as error:
        typer.echo(str(error), err=True)
        raise typer.Exit(2) from error
    if not settings.neo4j_uri:
        typer.echo("THREADLINE_NEO4J_URI is unset: starting the managed local Neo4j...")
        try:
            settings.local_neo4j().start()
        except LocalNeo4jError as error:
            typer.echo(str(error), err=True)
            raise typer.Exit(1) from error
    uvicorn.run(create_app(settings), host=settings.host, port=settings.port)


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


@neo4j_app.command("start")
def neo4j_start(test: bool = typer.Option(False, help="The throwaway test server.")) -> None:
    """Fetch (once) and start Neo4j; returns when it answers queries."""
    instance = _instance(test)
    try:
        instance.start()
    except LocalNeo4jError as error:
        typer.echo(str(error), err=True)
        raise typer.Exit(1) from error
    typer.echo(f"Neo4j is up at {instance.uri} (data in {instance.home})")


@neo4j_app.command("stop")
def neo4j_stop(test: bool = typer.Option(False, help="The throwaway test server.")) -> None:
    """Stop the managed Neo4j."""
    stopped = _instance(test).stop()
    typer.echo("Neo4j stopped" if stopped else "Neo4j was not running")


@neo4j_app.command("status")
def neo4j_status(test: bool = typer.Option(False, help="The throwaway test server.")) -> None:
    """Say whether the managed Neo4j runs and answers."""
    instance = _instance(test)
    pid = instance.running_pid()
    if pid is None:
        typer.echo("stopped")
        raise typer.Exit(3)
    answers = "answers" if instance.answers() else "does not answer yet"
    typer.echo(f"running (pid {pid}) at {instance.uri}, {answers}")


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
) -> None:
    """Make a bearer token: prints it once, and the [[tokens]] entry for the tokens file."""
    import hashlib
    import secrets

    token = secrets.token_urlsafe(32)
    digest = hashlib.sha256(token.encode()).hexdigest()
    typer.echo(f"token (shown once): {token}\n")
    typer.echo(
        f'[[tokens]]\nname = "{name}"\nsha256 = "{digest}"\nscopes = ["{scope}"]\n'
        f'workspace = "{workspace}"'
    )


if __name__ == "__main__":
    app()
