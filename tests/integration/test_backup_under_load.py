"""A backup of a workspace that four clients keep writing, none of them pausing: `threadline
backup` completes; restored elsewhere, its snapshot holds every run's thread, every
handoff's runs and every transfer's ends, and each thread as one instant had it (its
events and runs as its own counters say); no writer got an error. The writers' latency
while the backup ran is printed, never asserted (docs/MODEL.md, "Backups under load"),
beside theirs for as long again after it, with no backup. The backup starts once every
writer has made `WARM_REQUESTS` requests: the seeding changes the graph enough that Neo4j
plans the writers' first statements again, seconds each, which is no part of a backup."""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from neo4j import GraphDatabase

from bench.bulk import BulkWriter
from bench.families import Shape, families
from graph import restore as restores
from graph.store import Store
from graph.tx import Tx
from tests.support.graphql import GraphQLClient, make_app_client
from tests.support.managed import cli_env
from tests.support.snapshots import TIMEOUT_S, token_for
from tests.support.steps import FORK, run_once

pytestmark = pytest.mark.process  # runs `threadline backup`
WRITERS = 4
SEEDED_THREADS = 150  # so that the backup's first pass takes a while to read
WARM_REQUESTS = 12  # each writer's, before the backup starts: two cycles and more
MERGE_BACK = "mutation($id: ID!) { mergeBack(forkThreadId: $id) { id } }"
CREATE = "mutation($t: String) { createThread(title: $t) { id } }"
UNLIMITED = {"rate_limit_rps": 1e6, "rate_limit_burst": 10**6}


class Timed(GraphQLClient):
    """A client that keeps when each request began and how long it took."""

    def __init__(self, base: GraphQLClient, token: str) -> None:
        super().__init__(base.http)
        self.token = token
        self.took: list[tuple[float, float]] = []

    async def post(
        self, query: str, headers: dict[str, str] | None = None, **variables: Any
    ) -> dict[str, Any]:
        began = time.monotonic()
        try:
            auth = {"Authorization": f"Bearer {self.token}", **(headers or {})}
            return await super().post(query, headers=auth, **variables)
        finally:
            self.took.append((began, time.monotonic() - began))


async def writer(gql: Timed, number: int, stop: asyncio.Event, errors: list[str]) -> None:
    """Runs on its own threads, switching provider (handoffs), forking, running on the
    fork (a transfer consumed) and merging it back (a transfer into the parent)."""
    try:
        thread = (await gql(CREATE, t=f"writer {number}"))["createThread"]["id"]
        cycle = 0
        while not stop.is_set():
            cycle += 1
            provider = "codex" if cycle % 4 < 2 else "claude"
            done = await run_once(
                gql, thread, provider, f"step {cycle}", items=[{"kind": "DECISION", "text": "d"}]
            )
            if cycle % 5 == 0:
                fork = (await gql(FORK, id=thread, at={"runId": done["run"]["id"]}))["forkThread"]
                await run_once(gql, fork["id"], provider, "on the fork")
                await gql(MERGE_BACK, id=fork["id"])
            if cycle % 7 == 0:
                thread = (await gql(CREATE, t=f"writer {number}"))["createThread"]["id"]
    except Exception as error:
        errors.append(f"writer {number}: {error!r}")


async def invariants(store: Store, workspace: str) -> dict[str, int]:
    async def read(tx: Tx) -> dict[str, int]:
        found = await tx.row("testing/invariants", workspace=workspace)
        assert found is not None
        return {key: int(value) for key, value in found.items()}

    return await store.read(read)


def seed(neo4j_uri: str, workspace: str) -> None:
    password = os.environ.get("THREADLINE_TEST_NEO4J_PASSWORD")
    auth = ("neo4j", password) if password else None
    with GraphDatabase.driver(neo4j_uri, auth=auth) as driver:
        writer = BulkWriter(driver, "neo4j", workspace, batch_rows=2000)
        writer.write(families(0, SEEDED_THREADS, seed=5, shape=Shape(max_runs=30)))


async def test_a_backup_of_a_workspace_four_clients_write_completes_consistent(
    clean_store: Store, neo4j_uri: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    await asyncio.to_thread(seed, neo4j_uri, "busy")
    file = tmp_path / "busy.jsonl"
    stop, errors = asyncio.Event(), list[str]()
    with token_for("busy") as (settings, token):
        # The writers share one token: its rate limit would refuse them, backup or not.
        unlimited = settings.model_copy(update=UNLIMITED)
        async with make_app_client(clean_store, unlimited) as http:
            clients = [Timed(GraphQLClient(http), token) for _ in range(WRITERS)]
            writers = [
                asyncio.create_task(writer(gql, n, stop, errors)) for n, gql in enumerate(clients)
            ]
            await warmed(clients, writers)
            began = time.monotonic()
            backup = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "api.cli", "backup", "--workspace", "busy", str(file),
                env={**os.environ, **cli_env(neo4j_uri)},
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )  # fmt: skip
            said, progress = await backup.communicate()
            ended = time.monotonic()
            await asyncio.sleep(ended - began)  # the writers alone, as long again
            stop.set()
            await asyncio.gather(*writers)

    assert backup.returncode == 0, progress.decode()
    assert errors == []
    assert "passes" in said.decode() and "writers paused" in said.decode(), said.decode()
    assert await invariants(clean_store, "busy") == dict.fromkeys(EXPECTED, 0)
    text = file.read_text(encoding="utf-8").splitlines()
    await restores.restore(clean_store, text, "elsewhere", TIMEOUT_S)
    assert await invariants(clean_store, "elsewhere") == dict.fromkeys(EXPECTED, 0)

    during = sorted(took for each in clients for at, took in each.took if began <= at <= ended)
    after = sorted(took for each in clients for at, took in each.took if at > ended)
    with capsys.disabled():
        print(
            f"\n{WRITERS} writers during the backup ({ended - began:.1f} s, "
            f"{said.decode().strip()}): {latency(during)}; as long again after it: "
            f"{latency(after)}"
        )


async def warmed(clients: list[Timed], writers: list[asyncio.Task[None]]) -> None:
    """Once every writer has made WARM_REQUESTS requests (or one has stopped: an error,
    which the test then reports)."""
    while not all(len(each.took) >= WARM_REQUESTS for each in clients):
        if any(task.done() for task in writers):
            return
        await asyncio.sleep(0.05)


def latency(took: list[float]) -> str:
    if not took:
        return "no requests"
    return (
        f"{len(took)} requests, p50 {1000 * statistics.median(took):.0f} ms, "
        f"p99 {1000 * took[int(0.99 * (len(took) - 1))]:.0f} ms, longest {1000 * took[-1]:.0f} ms"
    )


EXPECTED = (
    "runsWithoutThread",
    "handoffsMissingRuns",
    "transfersWithoutEnds",
    "threadsWithTornEvents",
    "threadsWithTornRuns",
)
