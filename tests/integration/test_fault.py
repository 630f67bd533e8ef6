"""Neo4j is SIGKILLed under a steady write load: nothing acknowledged is lost or half-applied.

Prints one line with the numbers (run pytest with -s to see it).
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from graph.local_neo4j import LocalNeo4j
from graph.store import Store, Tx

WORKERS = 4
STEPS_BEFORE_KILL = 40
DOWN_REQUESTS = 8
STEPS_AFTER_RESTART = 40

CREATE = 'mutation { createThread(title: "load") { id } }'
START = (
    'mutation($t: ID!) { startRun(threadId: $t, provider: "codex", input: "w") '
    "{ run { id } providerThread { id } } }"
)
ATTACH = 'mutation($p: ID!) { attachNativeThread(providerThreadId: $p, nativeRef: "n") { id } }'
COMPLETE = "mutation($r: ID!) { completeRun(runId: $r, checkpoint: {diffSummary: []}) { id } }"


@dataclass
class Ledger:
    """What the load was told: acknowledged ids by kind, outcomes by class."""

    outcomes: Counter[str] = field(default_factory=Counter)
    threads: set[str] = field(default_factory=set)
    runs: set[str] = field(default_factory=set)
    completed: set[str] = field(default_factory=set)

    async def send(self, http: httpx.AsyncClient, query: str, **variables: Any) -> Any:
        try:
            response = await http.post("/graphql", json={"query": query, "variables": variables})
        except httpx.TransportError:
            self.outcomes["transport error (outcome unknown)"] += 1
            return None
        assert response.status_code < 500, response.text
        body = response.json()
        if body.get("errors"):
            self.outcomes[body["errors"][0]["extensions"]["code"]] += 1
            return None
        self.outcomes["acknowledged"] += 1
        return body["data"]

    async def one_cycle(self, http: httpx.AsyncClient) -> None:
        created = await self.send(http, CREATE)
        if created is None:
            return
        thread = created["createThread"]["id"]
        self.threads.add(thread)
        started = await self.send(http, START, t=thread)
        if started is None:
            return
        run = started["startRun"]["run"]["id"]
        self.runs.add(run)
        if await self.send(http, ATTACH, p=started["startRun"]["providerThread"]["id"]) is None:
            return
        if await self.send(http, COMPLETE, r=run) is not None:
            self.completed.add(run)


async def load(ledger: Ledger, base: str, cycles: int) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        for _ in range(cycles):
            await ledger.one_cycle(http)


async def test_sigkill_loses_nothing_acknowledged(
    live_api: str, neo4j_server: LocalNeo4j | None, store: Store
) -> None:
    if neo4j_server is None:
        pytest.skip("needs the managed test server to kill and restart it")
    ledger = Ledger()
    per_worker = STEPS_BEFORE_KILL // WORKERS
    await asyncio.gather(*[load(ledger, live_api, per_worker) for _ in range(WORKERS)])
    background = [asyncio.create_task(load(ledger, live_api, per_worker)) for _ in range(WORKERS)]
    await asyncio.sleep(0.5)  # the kill lands in the middle of that load
    pid = neo4j_server.running_pid()
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    async with httpx.AsyncClient(base_url=live_api, timeout=60) as http:
        for _ in range(DOWN_REQUESTS // WORKERS):
            await asyncio.gather(*[ledger.one_cycle(http) for _ in range(WORKERS)])
    await asyncio.to_thread(neo4j_server.start)
    await asyncio.gather(*background)
    before_after = ledger.outcomes["acknowledged"]
    await asyncio.gather(
        *[load(ledger, live_api, STEPS_AFTER_RESTART // WORKERS) for _ in range(WORKERS)]
    )
    assert ledger.outcomes["acknowledged"] > before_after, "the load did not resume"
    assert ledger.outcomes["UNAVAILABLE"] > 0, "the outage was never seen"

    async def present(tx: Tx) -> dict[str, Any]:
        row = await tx.row(
            "testing/acknowledged",
            threads=sorted(ledger.threads),
            runs=sorted(ledger.runs),
            completed=sorted(ledger.completed),
        )
        integrity = await tx.row("testing/integrity")
        return {**(row or {}), **(integrity or {})}

    found = await store.read(present)
    lost = {
        "threads": len(ledger.threads) - found["threads"],
        "runs": len(ledger.runs) - found["runs"],
        "completed": len(ledger.completed) - found["completed"],
    }
    sent = sum(ledger.outcomes.values())
    print(
        f"\nfault test: sent {sent}, outcomes {dict(ledger.outcomes)}, "
        f"acknowledged threads {len(ledger.threads)} runs {len(ledger.runs)} "
        f"completed {len(ledger.completed)}, lost {lost}"
    )
    assert lost == {"threads": 0, "runs": 0, "completed": 0}
    assert found["runsWithoutProviderThread"] == 0
    assert found["handoffsWithoutTarget"] == 0
    assert found["handoffsWithoutCoverage"] == 0
    assert found["duplicateOrdinals"] == 0
