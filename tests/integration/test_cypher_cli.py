"""`threadline cypher list|run|query` on the demo graph: read-only, three formats."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest
from click.testing import Result
from typer.testing import CliRunner

from api.cli import app
from graph.console import analysis, readonly
from graph.store import Store
from graph.tx import Tx
from tests.support.managed import cli_env
from tests.support.seeded import Seeded


def cypher(neo4j_uri: str, *args: str) -> Result:
    # The cypher commands are synchronous: no event loop of their own to clash with.
    return CliRunner().invoke(app, ["cypher", *args], env=cli_env(neo4j_uri))


def test_list_shows_every_query_with_its_description_and_parameters() -> None:
    result = CliRunner().invoke(app, ["cypher", "list"])
    assert result.exit_code == 0, result.output
    for query in analysis.catalogue():
        block = result.output.split(f"{query.name}\n", 1)[1].split("\n\n", 1)[0]
        assert block.splitlines()[0].strip() == query.description
        for param in query.params:
            assert param.meaning in block

    listed = json.loads(CliRunner().invoke(app, ["cypher", "list", "--format", "json"]).output)
    assert [q["name"] for q in listed] == analysis.names()
    assert all(q["description"] for q in listed)


async def test_run_prints_the_rows_as_json_csv_and_a_table(
    seeded: Seeded, graph: readonly.ReadOnlyGraph, neo4j_uri: str
) -> None:
    query = analysis.get("stale_provider_threads")
    expected = graph.run(query.text, query.parameters({}, "default")).records()

    as_json = cypher(neo4j_uri, "run", "stale_provider_threads", "--format", "json")
    assert as_json.exit_code == 0, as_json.output
    assert json.loads(as_json.stdout) == expected

    as_csv = cypher(neo4j_uri, "run", "stale_provider_threads", "--format", "csv")
    parsed = list(csv.DictReader(io.StringIO(as_csv.stdout)))
    assert [row["providerThread"] for row in parsed] == [r["providerThread"] for r in expected]
    assert parsed[0].keys() == expected[0].keys()

    as_table = cypher(neo4j_uri, "run", "stale_provider_threads")
    lines = as_table.stdout.splitlines()
    assert lines[0].split() == list(expected[0])
    assert lines[-1] == f"({len(expected)} rows)"


async def test_run_takes_typed_parameters_and_the_workspace(seeded: Seeded, neo4j_uri: str) -> None:
    run_id = seeded.demo.runs[("root", 9)]
    result = cypher(
        neo4j_uri, "run", "context_provenance", "--param", f"runId={run_id}", "-f", "json"
    )
    [row] = json.loads(result.stdout)
    assert row["coveredRuns"] == [6, 7, 8]
    elsewhere = cypher(
        neo4j_uri, "run", "context_provenance", "-p", f"runId={run_id}", "-w", "other", "-f", "json"
    )
    assert json.loads(elsewhere.stdout) == []  # the run is not in workspace `other`

    missing = cypher(neo4j_uri, "run", "context_provenance")
    assert missing.exit_code == 2 and "needs --param runId" in missing.output
    wrong = cypher(neo4j_uri, "run", "handoff_tokens", "-p", "includeSuperseded=maybe")
    assert wrong.exit_code == 2 and "includeSuperseded must be bool" in wrong.output
    unknown = cypher(neo4j_uri, "run", "no_such_query")
    assert unknown.exit_code == 2 and "cypher list" in unknown.output


async def test_query_runs_ad_hoc_reads_with_parameters(seeded: Seeded, neo4j_uri: str) -> None:
    result = cypher(
        neo4j_uri,
        "query",
        "MATCH (t:Thread {workspace: $workspace}) WHERE t.parentId IS NULL "
        "RETURN t.id AS root, $answer AS answer",
        "-p",
        "answer=42",
        "-f",
        "json",
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == [{"root": seeded.demo.root, "answer": 42}]


WRITES = [
    "CREATE (n:Intruder) RETURN n",
    "MERGE (t:Thread {id: 'x', workspace: $workspace}) RETURN t",
    "MATCH (t:Thread {workspace: $workspace}) SET t.title = 'defaced'",
    "MATCH (t:Thread {workspace: $workspace}) DETACH DELETE t",
    "MATCH (t:Thread {workspace: $workspace}) CALL (t) { SET t.hidden = true } RETURN count(*)",
    "CREATE INDEX intruder IF NOT EXISTS FOR (n:Intruder) ON (n.x)",
]


async def count_nodes(store: Store) -> int:
    async def read(tx: Tx) -> list[dict[str, Any]]:
        return await tx.rows("testing/count_nodes")

    return int((await store.read(read))[0]["nodes"])


@pytest.mark.parametrize("text", WRITES)
async def test_query_refuses_writes_and_writes_nothing(
    seeded: Seeded, store: Store, neo4j_uri: str, text: str
) -> None:
    before = await count_nodes(store)
    result = cypher(neo4j_uri, "query", text)
    assert result.exit_code == 2
    assert "Refused" in result.output and "read-only queries only" in result.output
    assert await count_nodes(store) == before
    titles = await seeded.gql("query($id: ID!) { thread(id: $id) { title } }", id=seeded.demo.root)
    assert titles["thread"]["title"] != "defaced"


OUTSIDE = [
    'LOAD CSV FROM "file:///etc/passwd" AS row RETURN row LIMIT 1',
    'LOAD CSV FROM "http://127.0.0.1:9/x.csv" AS row RETURN row',
    'TERMINATE TRANSACTIONS "neo4j-transaction-1"',
]


@pytest.mark.parametrize("text", OUTSIDE)
def test_query_refuses_reads_past_the_graph(seeded: Seeded, neo4j_uri: str, text: str) -> None:
    # Neo4j types these read-only; they read files, fetch URLs or end others' work.
    result = cypher(neo4j_uri, "query", text)
    assert result.exit_code == 2, result.output
    assert "Refused" in result.output and "the console reads the graph only" in result.output
    assert "root:" not in result.output


def test_query_names_administration_commands_for_what_they_are(neo4j_uri: str) -> None:
    result = cypher(neo4j_uri, "query", "SHOW USERS")
    assert result.exit_code == 2, result.output
    assert "schema or administration command" in result.output, result.output
    assert "$workspace" not in result.output, result.output


def test_a_query_without_workspace_says_it_reads_every_workspace(neo4j_uri: str) -> None:
    for read in ("MATCH (t:Thread) RETURN count(t) AS n", "MATCH (t:Thread) RETURN t.id"):
        result = cypher(neo4j_uri, "query", read)
        assert result.exit_code == 0, result.output
        assert "does not use $workspace, so it reads every workspace" in result.output
    reads_no_node = cypher(neo4j_uri, "query", "RETURN 1 AS one")
    assert reads_no_node.exit_code == 0, reads_no_node.output
    assert "$workspace" not in reads_no_node.output
