"""Backups that restore and upgrades that keep data: `threadline backup`, `restore`,
`migrate --check`, and a Threadline older than its graph refused.

Each committed snapshot (tests/fixtures/snapshots/schema-N-demo.jsonl, N the schema version
of the release that made it) holds the demo family, a usage limit and a receipt, written by
`graph.backup` (`python -m tests.support.snapshots FILE`). Every later release restores and
migrates each of them here, so every change proves it upgrades old data."""

from __future__ import annotations

import asyncio
import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from typer.testing import CliRunner

from api.cli import app
from graph import migrations, queries
from graph import restore as restores
from graph.migrations import GraphTooNewError
from graph.runtime.ports import free_ports
from graph.snapshot import SnapshotError, canonical
from graph.store import Store
from graph.tx import Tx
from tests.support.graphql import GraphQLClient, make_app_client, wipe
from tests.support.managed import cli_env
from tests.support.snapshots import FIXTURES, TIMEOUT_S, canonical_export, export, token_for

SNAPSHOT = FIXTURES / "schema-8-demo.jsonl"
THREADS = "{ threads(first: 50) { edges { node { runs(includeRolledBack: true) { ordinal } } } } }"


def lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


async def restore(store: Store, text: list[str], workspace: str | None = None) -> str:
    _, written, _ = await restores.restore(store, text, workspace, TIMEOUT_S)
    return written


def records(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


def tally(text: str) -> Counter[str]:
    """Nodes by label and relationships by type."""
    found: Counter[str] = Counter()
    for record in records(text):
        if "node" in record:
            found[record["labels"][0]] += 1
        elif "rel" in record:
            found[record["rel"]] += 1
    return found


async def set_graph_version(store: Store, version: int) -> None:
    async def work(tx: Tx) -> None:
        await tx.rows("testing/set_schema_version", version=version)

    await store.write(work)


async def cli(neo4j_uri: str, *args: str) -> Result:
    # The commands run their own event loop: off this one, in a thread.
    return await asyncio.to_thread(CliRunner().invoke, app, list(args), env=cli_env(neo4j_uri))


@pytest.mark.parametrize("committed", sorted(FIXTURES.glob("*.jsonl")), ids=lambda p: p.name)
async def test_every_committed_snapshot_restores_and_upgrades_with_nothing_lost(
    clean_store: Store, committed: Path
) -> None:
    held = canonical(lines(committed))
    workspace = await restore(clean_store, lines(committed))
    await migrations.migrate(clean_store)
    assert await migrations.pending(clean_store) == []

    now = await canonical_export(clean_store, workspace)
    assert tally(now) == tally(held)
    # A later migration may add properties; it must not lose or change any.
    before = {r.get("node") or json.dumps(r, sort_keys=True): r for r in records(held)}
    after = {r.get("node") or json.dumps(r, sort_keys=True): r for r in records(now)}
    assert before.keys() <= after.keys()
    for key, record in before.items():
        if "node" in record:
            assert record["props"].items() <= after[key]["props"].items(), key

    # And the service reads it: every thread with its runs, under a token of the workspace.
    with token_for(workspace) as (settings, token):
        async with make_app_client(clean_store, settings) as http:
            http.headers["Authorization"] = f"Bearer {token}"
            answer = await GraphQLClient(http)(THREADS)
    runs = sum(len(edge["node"]["runs"]) for edge in answer["threads"]["edges"])
    assert (len(answer["threads"]["edges"]), runs) == (tally(held)["Thread"], tally(held)["Run"])


async def test_a_backup_restores_exactly_into_another_workspace_and_after_a_wipe(
    clean_store: Store,
) -> None:
    await restore(clean_store, lines(SNAPSHOT), "origin")
    taken = await export(clean_store, "origin")
    expected = canonical(taken.splitlines())
    assert records(taken)[0]["workspace"] == "origin"

    assert await restore(clean_store, taken.splitlines(), "copy") == "copy"
    assert await canonical_export(clean_store, "copy") == expected
    assert await canonical_export(clean_store, "origin") == expected  # untouched
    # Not even inside a receipt's stored answer, which holds the nodes it wrote.
    assert "origin" not in await export(clean_store, "copy")

    await wipe(clean_store)
    assert await restore(clean_store, taken.splitlines()) == "origin"
    assert await canonical_export(clean_store, "origin") == expected


async def test_a_restore_into_a_workspace_that_holds_data_writes_nothing(
    clean_store: Store,
) -> None:
    await restore(clean_store, lines(SNAPSHOT), "taken")
    before = await export(clean_store, "taken")
    with pytest.raises(restores.WorkspaceNotEmptyError, match="'taken' is not empty"):
        await restore(clean_store, lines(SNAPSHOT), "taken")
    assert canonical(before.splitlines()) == await canonical_export(clean_store, "taken")


async def test_a_truncated_or_newer_snapshot_is_refused_and_writes_nothing(
    clean_store: Store,
) -> None:
    text = lines(SNAPSHOT)
    with pytest.raises(SnapshotError, match=f"ends at line {len(text) - 1}, .* incomplete"):
        await restore(clean_store, text[:-1], "cut")
    assert tally(await export(clean_store, "cut")) == Counter()
    mid_line = [*text[:-2], text[-2][: len(text[-2]) // 2]]
    with pytest.raises(SnapshotError, match=f"line {len(text) - 1} is not JSON .*cut off"):
        await restore(clean_store, mid_line, "cut")
    assert tally(await export(clean_store, "cut")) == Counter()

    header = json.loads(text[0])
    newer = json.dumps({**header, "schemaVersion": queries.schema_version() + 1})
    with pytest.raises(SnapshotError, match="newer than this Threadline"):
        await restore(clean_store, [newer, *text[1:]], "newer")


async def test_the_cli_backs_up_restores_and_refuses_in_one_line(
    clean_store: Store, neo4j_uri: str, tmp_path: Path
) -> None:
    restored = await cli(neo4j_uri, "restore", str(SNAPSHOT), "--as-workspace", "cli")
    assert restored.exit_code == 0, restored.output
    assert "into workspace 'cli'" in restored.output

    again = await cli(neo4j_uri, "restore", str(SNAPSHOT), "--as-workspace", "cli")
    assert again.exit_code == 1
    assert again.output.strip().splitlines() == [
        "workspace 'cli' is not empty: restore into an empty workspace (--as-workspace NAME) "
        "or an empty database"
    ]

    file = tmp_path / "cli.jsonl"
    taken = await cli(neo4j_uri, "backup", "--workspace", "cli", str(file))
    assert taken.exit_code == 0, taken.output
    assert canonical(lines(file)) == canonical(lines(SNAPSHOT))
    assert sorted(os.listdir(tmp_path)) == ["cli.jsonl"]  # no partial file left
    nothing = await cli(neo4j_uri, "backup", "--workspace", "clj", str(tmp_path / "clj.jsonl"))
    assert nothing.exit_code == 1
    assert nothing.output.strip() == "workspace 'clj' holds nothing: no snapshot written"
    assert sorted(os.listdir(tmp_path)) == ["cli.jsonl"]

    cut, text = tmp_path / "cut.jsonl", lines(file)
    cut.write_text("\n".join([*text[:-2], text[-2][: len(text[-2]) // 2]]))
    refused = await cli(neo4j_uri, "restore", str(cut), "--as-workspace", "cut")
    assert refused.exit_code == 1
    (said,) = [line for line in refused.output.splitlines() if line.strip()]
    assert said.startswith(f"line {len(text) - 1} is not JSON (")
    assert said.endswith("): cut off or corrupt")
    missing = await cli(neo4j_uri, "restore", str(tmp_path / "missing.jsonl"))
    assert missing.exit_code == 2 and "does not exist" in missing.output


async def test_migrate_check_lists_what_is_pending(clean_store: Store, neo4j_uri: str) -> None:
    await migrations.migrate(clean_store)
    done = await cli(neo4j_uri, "migrate", "--check")
    assert done.exit_code == 0, done.output
    assert "no pending migrations" in done.output

    older = queries.migrations()[-2].version
    await set_graph_version(clean_store, older)
    pending = await cli(neo4j_uri, "migrate", "--check")
    assert pending.exit_code == 1, pending.output
    newest = queries.migrations()[-1]
    assert f"pending: {newest.version:03d}_{newest.name}" in pending.output
    assert f"graph schema version {older}" in pending.output

    applied = await cli(neo4j_uri, "migrate")
    assert applied.exit_code == 0, applied.output
    assert await migrations.graph_version(clean_store) == queries.schema_version()


async def test_a_threadline_older_than_its_graph_is_refused(
    clean_store: Store, neo4j_uri: str
) -> None:
    code = queries.schema_version()
    await migrations.migrate(clean_store)
    await set_graph_version(clean_store, code + 1)
    try:
        with pytest.raises(GraphTooNewError):
            await migrations.migrate(clean_store)
        env = {**cli_env(neo4j_uri), "THREADLINE_PORT": str(free_ports(1)[0])}
        served = await asyncio.to_thread(CliRunner().invoke, app, ["serve"], env=env)
        assert served.exit_code == 2, served.output
        assert served.output.strip().splitlines() == [
            f"The graph is at schema version {code + 1}, newer than this Threadline's schema "
            f"version {code}: run a Threadline of schema version {code + 1} or newer."
        ]
        checked = await cli(neo4j_uri, "migrate", "--check")
        assert checked.exit_code == 2
        assert f"schema version {code + 1}" in checked.output
    finally:
        await wipe(clean_store)
        await migrations.migrate(clean_store)
