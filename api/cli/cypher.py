"""`threadline cypher`: the analysis library and ad-hoc Cypher, read-only, on the
Neo4j the service uses."""

from __future__ import annotations

import json
from typing import Any, NoReturn

import typer

from api.cli import checked
from api.cli.output import OutputFormat, render
from api.cli.target import neo4j_target, quiet_driver_notifications, say
from api.settings import Settings
from graph.console import analysis, readonly
from graph.runtime.local_neo4j import LocalNeo4jError

cypher_app = typer.Typer(
    help="Read-only Cypher: the ready-made analysis queries and ad-hoc ones.",
    no_args_is_help=True,
)

FORMAT = typer.Option(OutputFormat.table, "--format", "-f", help="table, json or csv.")
WORKSPACE = typer.Option(
    "default",
    "--workspace",
    "-w",
    help="The workspace read ($workspace).",
    callback=checked.workspace,
)
PARAMS = typer.Option(None, "--param", "-p", help="A parameter as NAME=VALUE; repeatable.")


@cypher_app.command("list")
def list_queries(fmt: OutputFormat = FORMAT) -> None:
    """Each ready-made query (cypher/analysis/): what it answers and its parameters."""
    queries = analysis.catalogue()
    if fmt is OutputFormat.table:
        typer.echo("\n\n".join(_describe(query) for query in queries))
        return
    rows = [
        [q.name, q.description, [p.signature() + " — " + p.meaning for p in q.params]]
        for q in queries
    ]
    typer.echo(render(readonly.Table(["name", "description", "params"], rows), fmt))


@cypher_app.command("run")
def run_query(
    name: str = typer.Argument(..., help="A name from `threadline cypher list`."),
    params: list[str] | None = PARAMS,
    workspace: str = WORKSPACE,
    fmt: OutputFormat = FORMAT,
) -> None:
    """Run one ready-made query in a read transaction."""
    try:
        query = analysis.get(name)
        values = query.parameters(_pairs(params), workspace)
    except analysis.AnalysisError as error:
        _fail(str(error), 2)
    _print(_read(query.text, values), fmt)


@cypher_app.command("query")
def ad_hoc(
    text: str = typer.Argument(..., help="Cypher; use $workspace to stay in one workspace."),
    params: list[str] | None = PARAMS,
    workspace: str = WORKSPACE,
    fmt: OutputFormat = FORMAT,
) -> None:
    """Run ad-hoc Cypher; a query that would write is refused before it runs."""
    values: dict[str, Any] = {k: _json_or_text(v) for k, v in _pairs(params).items()}
    values["workspace"] = workspace
    table = _read(text, values)
    # Only for a query that ran and read nodes: a refusal, or `RETURN 1`, says enough.
    if "$workspace" not in text and table.reads_graph:
        typer.echo("note: the query does not use $workspace, so it reads every workspace", err=True)
    _print(table, fmt)


def _read(text: str, values: dict[str, Any]) -> readonly.Table:
    quiet_driver_notifications()
    try:
        target = neo4j_target(Settings(), announce=say)
        with readonly.connect(target.uri, target.auth, target.database) as graph:
            graph.refuse_closed(values["workspace"])
            table = graph.run(text, values)
            graph.refuse_closed(values["workspace"])
            return table
    except readonly.WriteRefusedError as error:
        _fail(str(error), 2)
    except (readonly.ConsoleError, LocalNeo4jError) as error:
        _fail(str(error), 1)


def _print(table: readonly.Table, fmt: OutputFormat) -> None:
    for note in table.notes:
        typer.echo(f"note: {note}", err=True)
    typer.echo(render(table, fmt))


def _describe(query: analysis.AnalysisQuery) -> str:
    lines = [query.name, f"    {query.description}"]
    for p in query.params:
        option = "--workspace W" if p.name == analysis.WORKSPACE else f"--param {p.signature()}"
        lines.append(f"    {option}  {p.meaning}")
    return "\n".join(lines)


def _pairs(params: list[str] | None) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for param in params or []:
        name, sep, value = param.partition("=")
        if not sep or not name.strip():
            _fail(f"--param takes NAME=VALUE, not {param!r}", 2)
        pairs[name.strip()] = value
    return pairs


def _json_or_text(value: str) -> Any:
    """Ad-hoc parameters: JSON when they parse (5, true, [1, 2]), else plain text."""
    try:
        return json.loads(value)
    except ValueError:
        return value


def _fail(message: str, code: int) -> NoReturn:
    typer.echo(message, err=True)
    raise typer.Exit(code)
