"""`threadline`: serve the API, migrate the schema, manage the local Neo4j."""

from __future__ import annotations

import asyncio

import typer
import uvicorn

from api.settings import Settings, test_neo4j
from graph.local_neo4j import LocalNeo4j, LocalNeo4jError

app = typer.Typer(help="Threadline: lineage and context transfer for coding-agent threads.")
neo4j_app = typer.Typer(help="The managed local Neo4j (no Docker needed).")
app.add_typer(neo4j_app, name="neo4j")


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
