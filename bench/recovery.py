"""`python -m bench recovery`: how soon the service is back after Neo4j dies.

A `threadline serve` with the users' request bound (THREADLINE_DB_TIMEOUT_S 5 s) works
on a throwaway Neo4j while a few clients drive threads through it. Each round SIGKILLs
the Neo4j, leaves it down for a few seconds, then starts it again on the same data
without touching the API. Measured from Neo4j's own first answer over Bolt (not from the
restart command): when `/readyz` is 200 again, and when a probe's `createThread` (one
commandId, sent every 0.2 s, as a client checking that the service writes would) is
first acknowledged. When the load's clients next finish a whole cycle (a thread made, a
run started, attached and completed) is reported too: each command waits for its own
statements to be planned again, so the load comes back later than the probe.

Target: readiness and the probe's first write within 5 s of Bolt answering, in every
round; the figure is the slowest round over the target.

Every write carries a commandId, and each one whose last answer said "nothing was
written" (UNAVAILABLE with no `outcome`) is looked up among the receipts in the graph at
the end: one found there committed, and that answer was false (a probe sends its
commandId again until it is acknowledged: only its last answer counts). Target: none,
over every kill. The fault test
(tests/integration/test_fault.py) asserts what clients are told during the same outage;
the time it takes is measured here.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import typer
from neo4j import GraphDatabase

from bench import queries, service
from bench.cli import OTHER_OUTPUT
from bench.client import CREATE_THREAD, BenchError, GraphQL, ServiceThread
from graph.runtime.local_neo4j import LocalNeo4j

TARGET_S = 5.0
OUTAGE_S = 4.0
POLL_S = 0.2
PHASE_S = 180.0  # a phase that takes longer is reported as a failure, not waited on
LOADERS = 4
BASELINE_CYCLES = 10  # cycles (four writes each) acknowledged before the first kill
WORKSPACE = "recovery"
USERS_DB_TIMEOUT = {"THREADLINE_DB_TIMEOUT_S": "5"}


@dataclass(frozen=True)
class Audit:
    """Writes answered "nothing was written", and how many of them had in fact committed."""

    said_unwritten: int
    committed: int


@dataclass(frozen=True)
class Round:
    ready_s: float  # /readyz 200, after Bolt first answered
    probe_s: float  # the probe's first acknowledged createThread, after Bolt
    load_s: float | None  # the load's first whole cycle acknowledged, after Bolt

    @property
    def slowest(self) -> float:
        return max(self.ready_s, self.probe_s)


class Load:
    """Clients cycling threads through the service, noting when each write is acknowledged."""

    def __init__(self, gql: GraphQL, seed: int) -> None:
        self.gql, self.rng = gql, random.Random(seed)
        self.acknowledged: list[float] = []
        self.probes_unwritten: list[str] = []  # the probes' commandIds last said unwritten
        self.stop = asyncio.Event()
        self._written = asyncio.Condition()

    async def client(self) -> None:
        """A new thread per cycle, as the fault test's clients: a cycle cut off midway may
        leave its run in progress, and the thread would refuse the next start."""
        while not self.stop.is_set():
            try:
                thread = await ServiceThread.create(self.gql, self.rng, "Recovery")
                await thread.cycle()
                async with self._written:
                    self.acknowledged.append(time.monotonic())
                    self._written.notify_all()
            except BenchError:  # down, or a command cut off: this client starts again
                await asyncio.sleep(POLL_S)

    async def written(self, count: int, since: float = 0.0) -> float | None:
        """When the `count`-th write since `since` was acknowledged; None after PHASE_S
        (the load may still be waiting for its statements to be planned)."""

        def later() -> list[float]:
            return [at for at in self.acknowledged if at >= since]

        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(PHASE_S), self._written:
                await self._written.wait_for(lambda: len(later()) >= count)
                return later()[count - 1]
        return None


def first_bolt_answer(uri: str, auth: tuple[str, str] | None = None) -> float:
    """When Neo4j first answers a query: a fresh connection each try, and none of the
    driver's own retries, which would notice late."""
    deadline = time.monotonic() + PHASE_S
    while time.monotonic() < deadline:
        try:
            with (
                GraphDatabase.driver(uri, auth=auth, connection_timeout=0.2) as driver,
                driver.session() as session,
            ):
                session.run("RETURN 1").consume()
            return time.monotonic()
        except Exception:  # any failure to answer is "not yet"
            time.sleep(0.05)
    raise service.ServiceError("Neo4j did not answer Bolt again")


async def first_ready(url: str) -> float:
    deadline = time.monotonic() + PHASE_S
    async with httpx.AsyncClient(timeout=2) as http:
        while time.monotonic() < deadline:
            with contextlib.suppress(httpx.HTTPError):
                if (await http.get(f"{url}/readyz")).status_code == 200:
                    return time.monotonic()
            await asyncio.sleep(0.05)
    raise service.ServiceError("/readyz did not answer 200 again")


async def first_write(gql: GraphQL, probe: str) -> float:
    deadline = time.monotonic() + PHASE_S
    while time.monotonic() < deadline:
        with contextlib.suppress(BenchError):
            await gql(CREATE_THREAD, title=probe, commandId=probe)
            return time.monotonic()
        await asyncio.sleep(POLL_S)
    raise service.ServiceError("no write was acknowledged again")


async def one_round(neo4j: LocalNeo4j, api: service.Api, load: Load, number: int) -> Round:
    pid = neo4j.running_pid()
    if pid is None:
        raise service.ServiceError("the throwaway Neo4j is not running")
    os.kill(pid, signal.SIGKILL)
    await asyncio.sleep(OUTAGE_S)
    probe = GraphQL(api.url, api.token(WORKSPACE))
    try:
        bolt = asyncio.create_task(asyncio.to_thread(first_bolt_answer, neo4j.uri))
        ready = asyncio.create_task(first_ready(api.url))
        written = asyncio.create_task(first_write(probe, f"recovery-probe-{number}"))
        await asyncio.to_thread(neo4j.start)
        bolt_at, ready_at, written_at = await bolt, await ready, await written
    finally:
        load.probes_unwritten.extend(probe.said_unwritten)
        await probe.close()
    load_at = await load.written(1, since=bolt_at)
    # Readiness may come before the Bolt probe's own first answer: that counts as 0.
    after = max(ready_at - bolt_at, 0.0)
    return Round(
        after,
        max(written_at - bolt_at, 0.0),
        None if load_at is None else max(load_at - bolt_at, 0.0),
    )


def audit(uri: str, said_unwritten: list[str]) -> Audit:
    """How many writes answered "nothing was written" have a receipt: they committed."""
    with GraphDatabase.driver(uri) as driver:
        records, _, _ = driver.execute_query(
            queries.load("check/receipts"), commandIds=said_unwritten, workspace=WORKSPACE
        )
    return Audit(len(said_unwritten), len(records))


async def _run(neo4j: LocalNeo4j, folder: Path, rounds: int) -> tuple[list[Round], Audit]:
    api = service.start_api(folder, neo4j.uri, None, "neo4j", [WORKSPACE], None, USERS_DB_TIMEOUT)
    load = Load(GraphQL(api.url, api.token(WORKSPACE)), seed=7)
    clients = [asyncio.create_task(load.client()) for _ in range(LOADERS)]
    try:
        if await load.written(BASELINE_CYCLES) is None:  # under way, statements planned
            raise service.ServiceError("the load wrote nothing")
        results = []
        for number in range(rounds):
            results.append(await one_round(neo4j, api, load, number))
            await asyncio.sleep(OUTAGE_S)  # the load settles before the next kill
    finally:
        load.stop.set()
        await asyncio.gather(*clients)
        await load.gql.close()
        api.stop()
    return results, audit(neo4j.uri, [*load.gql.said_unwritten, *load.probes_unwritten])


def table(results: list[Round], found: Audit) -> list[str]:
    worst = max(result.slowest for result in results)
    verdict = "met" if worst <= TARGET_S else "MISSED"
    loads = [r.load_s for r in results if r.load_s is not None]
    return [
        f"Back after a Neo4j restart: {len(results)} rounds of SIGKILL, {OUTAGE_S:g} s down, "
        f"start again; {LOADERS} clients cycling threads; request bound 5 s. Seconds after "
        f"Neo4j first answered Bolt. Target: readiness and the probe's first write <= "
        f"{TARGET_S:g} s in every round.",
        "",
        "| round | /readyz 200 | probe's first write | load's first whole cycle |",
        "| --- | --- | --- | --- |",
        *(
            f"| {n + 1} | {r.ready_s:.2f} | {r.probe_s:.2f} | "
            f"{'-' if r.load_s is None else f'{r.load_s:.2f}'} |"
            for n, r in enumerate(results)
        ),
        "",
        f"Slowest of readiness and probe: {worst:.2f} s = {worst / TARGET_S:.2f} x the target "
        f"({verdict}). Load's first whole cycle: median "
        f"{statistics.median(loads) if loads else float('nan'):.2f} s.",
        "",
        f'Answers "nothing was written" over {len(results)} kills: {found.said_unwritten}, of '
        f"which committed (a receipt in the graph): {found.committed} "
        f"({'met' if found.committed == 0 else 'MISSED'}: target 0).",
    ]


def recovery(
    rounds: int = typer.Option(3, "--rounds", help="Kill and restart Neo4j this many times."),
    output: Path | None = OTHER_OUTPUT,
) -> None:
    """Kill Neo4j under load and start it again: how soon the same API is ready and writes."""
    home = Path(os.environ.get("THREADLINE_HOME", ".threadline")) / "neo4j" / "recovery"
    neo4j = service.start_neo4j(home, "1k")
    try:
        results, found = asyncio.run(_run(neo4j, home / "api", rounds))
    finally:
        neo4j.stop()
    lines = table(results, found)
    typer.echo("\n".join(lines))
    if output is not None:
        output.write_text("\n".join(lines) + "\n")
