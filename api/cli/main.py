"""`threadline`: serve the API, migrate the schema, manage the local Neo4j, query and
export the graph, seed a demo, make tokens."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from api.auth import OPEN_WORKSPACE
from api.cli import backup, checked, import_session, mcp_stdio, serve, tokens
from api.cli.checked import file_to_write
from api.cli.cypher import cypher_app
from api.cli.export_formats import ExportFormat
from api.cli.managed_neo4j import neo4j_app
from api.cli.target import TOKEN_OPTION, url_option
from api.settings import Settings
from graph.runtime.local_neo4j import LocalNeo4jError

if TYPE_CHECKING:
    from api.cli.demo import DemoFamily

app = typer.Typer(help="Threadline: lineage and context transfer for coding-agent threads.")
app.add_typer(neo4j_app, name="neo4j")
app.add_typer(cypher_app, name="cypher")
app.command()(serve.serve)
app.command()(serve.migrate)
app.command("new-token")(tokens.new_token)
app.command("revoke-token")(tokens.revoke_token)
app.command("mcp")(mcp_stdio.serve_stdio)
app.command("import")(import_session.import_file)
app.command("backup")(backup.backup_workspace)
app.command("restore")(backup.restore_workspace)


@app.command()
def demo(
    workspace: str = typer.Option(
        "default", help="The workspace to seed.", callback=checked.workspace
    ),
    url: str | None = url_option("Seed"),
    token: str | None = TOKEN_OPTION,
) -> None:
    """Seed a realistic thread family through the GraphQL API; print its /lineage URL."""
    from threadline_client.connect import service_base

    from api.cli.demo import DemoStopped, seed_demo
    from api.cli.demo_client import DemoError, Resume, in_process, remote
    from api.cli.stages import base_url
    from api.cli.target import quiet_driver_notifications, service_to_use
    from graph.errors import ThreadlineError

    settings = Settings()
    quiet_driver_notifications()
    running = base_url(settings)
    url = service_to_use(settings, url, workspace, "seeding")
    # What a rerun must match to carry on: the service and the token (its workspace), or
    # the Neo4j and the workspace.
    target = f"{service_base(url)} {token}" if url else str(settings.neo4j_uri or settings.home)
    resume = Resume(settings.home / "demo", f"{target} {workspace}")
    carried = resume.pending()
    if carried:
        typer.echo("the last `threadline demo` here stopped before the end: carrying on from there")
    key = resume.begin()

    async def seed() -> DemoFamily:
        client = remote(url, token) if url else in_process(settings, workspace)
        async with client as gql:
            return await seed_demo(gql, key)

    try:
        family = asyncio.run(seed())
    except DemoStopped as stopped:
        if not (carried or stopped.family.threads):  # nothing for a rerun to carry on
            resume.done()
        typer.echo(_one_line(str(stopped)), err=True)
        raise typer.Exit(1) from stopped
    except (DemoError, LocalNeo4jError, ThreadlineError, OSError) as error:
        if not carried:  # it could not begin: nothing for a rerun to carry on
            resume.done()
        if isinstance(error, LocalNeo4jError):  # its one line, then the tail of Neo4j's log
            reason = str(error)
        elif isinstance(error, ThreadlineError):  # in-process: the Neo4j it was given
            where = settings.neo4j_uri or "the managed local Neo4j"
            reason = f"Neo4j at {where}: {_one_line(error.message)}"
        else:
            reason = _one_line(str(error))
        typer.echo(f"The demo could not be seeded: {reason}", err=True)
        raise typer.Exit(1) from error
    resume.done()
    for role, thread_id in family.threads.items():
        typer.echo(f"{role:<16} {thread_id}")
    base = service_base(url) if url else running
    typer.echo(f"\nOpen {base}/lineage?thread={family.root}")
    if not url:
        typer.echo("(with `threadline serve` running)")
    if workspace != OPEN_WORKSPACE and not url:
        typer.echo(f"The page shows workspace {workspace!r} to a token of that workspace.")


def _one_line(text: str) -> str:
    return " ".join(text.split())


EXPORT_FORMAT = typer.Option(
    ExportFormat.json, "--format", "-f", help="json, graphml, mermaid or dot."
)
EXPORT_OUTPUT = typer.Option(
    None,
    "--output",
    "-o",
    help="File to write (default stdout).",
    callback=file_to_write,
)


@app.command("export")
def export_family(
    thread_id: str = typer.Argument(..., help="Any thread of the family."),
    workspace: str = typer.Option(
        "default", help="The thread's workspace.", callback=checked.workspace
    ),
    fmt: ExportFormat = EXPORT_FORMAT,
    output: Path | None = EXPORT_OUTPUT,
) -> None:
    """Write a thread family's lineage and coverage (read-only, from Neo4j)."""
    from api.cli.export import load_family
    from api.cli.export_formats import render
    from api.cli.target import neo4j_target, quiet_driver_notifications, say
    from graph.console import readonly

    quiet_driver_notifications()
    try:
        target = neo4j_target(Settings(), announce=say)
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
        threads = f"{len(family.threads)} thread" + ("" if len(family.threads) == 1 else "s")
        typer.echo(f"wrote {fmt.value} of {threads} to {output}", err=True)


@app.command("export-schema")
def export_schema() -> None:
    """Print the GraphQL SDL the code serves (kept in schema.graphql)."""
    from api.graphql.schema import build_schema

    typer.echo(build_schema(Settings()).as_str())
