"""A restore larger than Neo4j's transaction memory: `threadline restore` on a managed
Neo4j whose `dbms.memory.transaction.total.max` is 10 MiB (the least it takes; its heap the
default) restores a snapshot over four times that, exactly; the workspace answers nothing
and takes no write until the restore ends; a restore killed halfway leaves nothing
visible, and resumes, or is discarded, with one command (docs/MODEL.md, "Restores").

The workspace is the benchmark's generator's (bench/families.py): about 600 threads with
their runs, items, handoffs, transfers, events and receipts, written on the suite's test
Neo4j and backed up there with `threadline backup`."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from neo4j import GraphDatabase

from api.settings import Settings
from bench.bulk import BulkWriter
from bench.families import Shape, families
from bench.runner import wipe
from graph import migrations
from graph import restore as restores
from graph.runtime.local_neo4j import LocalNeo4j
from graph.snapshot import canonical
from graph.store import Store
from graph.tx import Tx
from tests.support.graphql import GraphQLClient, connect_test_store, make_app_client
from tests.support.managed import CLI_TIMEOUT_S, borrowing_jars, cli_env
from tests.support.snapshots import TIMEOUT_S, export, token_for

# It starts a Neo4j of its own and writes a snapshot four times what one transaction may
# hold, twice: about 4.5 min on a box at load 8, past the suite's 300 s guard against hangs.
pytestmark = [pytest.mark.process, pytest.mark.timeout(900)]

LIMIT_MB = 10  # the least Neo4j takes
THREADS = 600
THREADS_QUERY = "{ threads(first: 5) { edges { node { id } } } }"
CREATE = 'mutation { createThread(title: "into a restore") { id } }'


@pytest.fixture(scope="module")
def snapshot_file(neo4j_uri: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The generated workspace, backed up from the suite's test Neo4j."""
    file = tmp_path_factory.mktemp("large") / "large.jsonl"
    with GraphDatabase.driver(neo4j_uri, auth=_auth()) as driver:
        wipe(driver, "neo4j", "large")
        writer = BulkWriter(driver, "neo4j", "large", batch_rows=2000)
        writer.write(families(0, THREADS, seed=11, shape=Shape(max_runs=40)))
        taken = _threadline(neo4j_uri, "backup", "--workspace", "large", str(file))
        wipe(driver, "neo4j", "large")
    assert taken.returncode == 0, taken.stderr
    return file


@pytest.fixture(scope="module")
def small(home_of_module: Path) -> Iterator[LocalNeo4j]:
    """The managed Neo4j, its transaction memory lowered to LIMIT_MB."""
    instance = replace(
        Settings(home=home_of_module).local_neo4j(),
        throwaway=True,
        auth_enabled=False,  # as the suite's own test servers
        more_settings=(f"dbms.memory.transaction.total.max={LIMIT_MB}m",),
    )
    instance.start()
    yield instance
    instance.stop()


@pytest.fixture(scope="module")
def home_of_module(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return borrowing_jars(tmp_path_factory.mktemp("restore-home") / "home")


@pytest.fixture
async def small_store(small: LocalNeo4j) -> AsyncIterator[Store]:
    store = connect_test_store(small.uri)
    await migrations.migrate(store)
    # Planned before the tests, as the suite's own store is: an app made on this store
    # later would otherwise start the warm-up, whose transactions would go on in the
    # background beside the restores, drawing on the same 10 MiB of transaction memory.
    await store.warm_up.wait()
    yield store
    await store.close()


def _auth() -> tuple[str, str] | None:
    password = os.environ.get("THREADLINE_TEST_NEO4J_PASSWORD")
    return ("neo4j", password) if password else None


def _threadline(uri: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **cli_env(uri)}
    return subprocess.run(
        [sys.executable, "-m", "api.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=CLI_TIMEOUT_S * 2,
        check=False,
    )


async def killed_halfway(store: Store, uri: str, file: Path, workspace: str) -> None:
    """`threadline restore` started; once it has said it wrote a batch, and while it goes
    on writing, the workspace is checked to answer nothing; then the restore is SIGKILLed."""
    restore = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "api.cli", "restore", str(file), "--as-workspace", workspace,
        env={**os.environ, **cli_env(uri)},
        stderr=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    assert restore.stderr is not None
    said = []
    async for line in restore.stderr:  # progress: a counts line every few seconds
        said.append(line.decode())
        if b"written" in line:
            break
    assert any("written" in line for line in said), said
    await refused_everywhere(store, uri, workspace)
    assert restore.returncode is None, "the restore ended before it was killed"
    restore.send_signal(signal.SIGKILL)
    await restore.wait()


async def nodes_named(store: Store, workspace: str) -> int:
    async def count(tx: Tx) -> int:
        found = await tx.row("testing/count_workspace", workspace=workspace)
        return int(found["nodes"]) if found else -1

    return await store.read(count)


async def refused_by_mcp(uri: str, workspace: str) -> None:
    """`threadline mcp`'s tools answer UNAVAILABLE for the workspace."""
    with token_for(workspace) as (settings, token):
        assert settings.tokens_file is not None
        env = {
            **os.environ,
            **cli_env(uri),
            "THREADLINE_TOKENS_FILE": str(settings.tokens_file),
            "THREADLINE_TOKEN": token,
        }
        command = StdioServerParameters(
            command=sys.executable, args=["-m", "api.cli", "mcp"], env=env
        )
        async with Client(command, read_timeout_seconds=120) as client:
            result = await client.call_tool("list_threads", {})
    assert result.is_error and result.structured_content is not None
    assert result.structured_content["code"] == "UNAVAILABLE"


async def refused_everywhere(store: Store, uri: str, workspace: str) -> None:
    """The workspace answers no read (GraphQL, export) and takes no write."""
    with token_for(workspace) as (settings, token):
        async with make_app_client(store, settings) as http:
            http.headers["Authorization"] = f"Bearer {token}"
            gql = GraphQLClient(http)
            for operation in (THREADS_QUERY, CREATE):
                refused = await gql.refused("UNAVAILABLE", operation)
                assert "is being restored" in refused["message"]
    exported = _threadline(uri, "export", "any-thread", "--workspace", workspace)
    assert exported.returncode == 1
    assert "is being restored" in exported.stderr
    assert await nodes_named(store, workspace) == 0


async def test_a_snapshot_four_times_the_transaction_memory_restores_exactly_after_a_kill(
    snapshot_file: Path, small: LocalNeo4j, small_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert size_of(snapshot_file) >= 4 * LIMIT_MB * 2**20
    # In one transaction the snapshot does not fit this Neo4j: the first batch of all its
    # nodes fails on the memory limit, and the workspace stays closed, nothing visible.
    with monkeypatch.context() as patch:
        patch.setattr(restores, "BATCH_ROWS", 10**9)
        patch.setattr(restores, "BATCH_CHARS", 10**12)
        stopped = r"memory\.transaction\.total\.max.*'whole' stays closed"
        with pytest.raises(restores.RestoreStoppedError, match=stopped):
            await restores.restore(small_store, _lines(snapshot_file), "whole", TIMEOUT_S)
    await refused_everywhere(small_store, small.uri, "whole")

    # Killed halfway: nothing visible, no write taken; the same command resumes it.
    await killed_halfway(small_store, small.uri, snapshot_file, "copy")
    await refused_everywhere(small_store, small.uri, "copy")
    await refused_by_mcp(small.uri, "copy")
    resumed = _threadline(small.uri, "restore", str(snapshot_file), "--as-workspace", "copy")
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming a restore that stopped at line" in resumed.stderr
    assert "into workspace 'copy'" in resumed.stdout

    restored = await export(small_store, "copy")
    assert canonical(restored.splitlines()) == canonical(_lines(snapshot_file))
    with token_for("copy") as (settings, token):
        async with make_app_client(small_store, settings) as http:
            http.headers["Authorization"] = f"Bearer {token}"
            answer = await GraphQLClient(http)(THREADS_QUERY)
    assert len(answer["threads"]["edges"]) == 5

    # Or discarded with one command: the workspace opens, empty.
    discarded = _threadline(small.uri, "restore", "--discard", "whole")
    assert discarded.returncode == 0, discarded.stderr
    assert "it is open, and empty" in discarded.stdout
    with token_for("whole") as (settings, token):
        async with make_app_client(small_store, settings) as http:
            http.headers["Authorization"] = f"Bearer {token}"
            assert (await GraphQLClient(http)(THREADS_QUERY))["threads"]["edges"] == []
    assert await nodes_named(small_store, restores.hidden_name("whole")) == 0


async def test_a_restore_killed_halfway_is_discarded_with_one_command(
    snapshot_file: Path, small: LocalNeo4j, small_store: Store
) -> None:
    await killed_halfway(small_store, small.uri, snapshot_file, "gone")
    await refused_everywhere(small_store, small.uri, "gone")
    assert await nodes_named(small_store, restores.hidden_name("gone")) > 0

    discarded = _threadline(small.uri, "restore", "--discard", "gone")
    assert discarded.returncode == 0, discarded.stderr
    assert await nodes_named(small_store, restores.hidden_name("gone")) == 0
    assert await nodes_named(small_store, "gone") == 0
    nothing = _threadline(small.uri, "restore", "--discard", "gone")
    assert nothing.returncode == 1
    assert nothing.stderr.strip() == "no restore holds workspace 'gone'"


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def size_of(path: Path) -> int:
    return path.stat().st_size
