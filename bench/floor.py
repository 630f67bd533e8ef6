"""`python -m bench floor`: what a start → attach → complete cycle costs the API process
before any of its own work, beside what the cycle costs it in all.

A cycle is three requests, each one write transaction of two statements (the state read,
then the plan). Measured on one throwaway Neo4j and one `threadline serve`, with the same
number of clients for each figure, round after round:

- **request**: the API's CPU per request for `query { __typename }` with a write token,
  which passes the HTTP server, every middleware (host names, the token, the rate limit,
  request ids) and Strawberry with every extension of the schema, and no database;
- **transaction**: this process's CPU per write transaction of two one-row statements
  through the Neo4j driver, a session per transaction and BEGIN sent with the first
  statement as the service does, on uvloop as uvicorn runs the service;
- **cycle**: the API's CPU per real cycle, from the throughput step (`bench.measure`).

Three of each of the first two are the floor of a cycle on this stack: what no change to
the service's own code can take away. The rest is the service's: decisions, plans,
summaries, decoding rows, the answers' fields.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import statistics
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

import typer
import uvloop
from neo4j import AsyncDriver, AsyncGraphDatabase, AsyncManagedTransaction

from bench import measure, service
from bench.baseline import Raw
from bench.cli import NOTE, OTHER_OUTPUT
from bench.client import BenchError, GraphQL
from bench.config import preset
from bench.cpu import HARNESS, CpuMeter
from bench.measure import stderr_log

CLIENTS = typer.Option(8, "--clients", help="Clients (and transactions) at once.")
SECONDS = typer.Option(20.0, "--seconds", help="Seconds per figure.")
ROUNDS = typer.Option(3, "--rounds", help="Rounds of the three figures.")
REQUESTS_PER_CYCLE = 3  # start, attach, complete: one write transaction each
NO_DATABASE = "query { __typename }"
TRIVIAL = "RETURN $n AS n"


@dataclass(frozen=True)
class Round:
    request_ms: float  # API CPU per request that touches no database
    transaction_ms: float  # driver CPU per write transaction of two trivial statements
    cycle_ms: float  # API CPU per real cycle

    @property
    def floor_ms(self) -> float:
        return REQUESTS_PER_CYCLE * (self.request_ms + self.transaction_ms)

    def row(self, label: int | str) -> str:
        return (
            f"| {label} | {self.request_ms:.2f} | {self.transaction_ms:.2f} | "
            f"{self.floor_ms:.2f} | {self.cycle_ms:.2f} | {self.cycle_ms - self.floor_ms:.2f} |"
        )


def floor(
    clients: int = CLIENTS,
    seconds: float = SECONDS,
    rounds: int = ROUNDS,
    output: Path | None = OTHER_OUTPUT,
    note: str | None = NOTE,
) -> None:
    """The floor of a cycle's API CPU on this stack, beside the cycle's own."""
    began = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()[0]
    measured = uvloop.run(_run(clients, seconds, rounds))
    header = "| round | request, no database | transaction, 2 statements | floor of a cycle "
    lines = [
        f"Floor of a cycle (`python -m bench floor`), started {began}, {clients} clients, "
        f"{seconds:g} s per figure, load average {load:.1f} at the start and "
        f"{os.getloadavg()[0]:.1f} at the end. CPU milliseconds.",
        *([f"> {note}"] if note else []),
        "",
        header + "(3 x both) | the cycle's API CPU | the service's own |",
        "| ---: | ---: | ---: | ---: | ---: | ---: |",
        *(each.row(number) for number, each in enumerate(measured, start=1)),
        _median_row(measured),
    ]
    text = "\n".join(lines)
    typer.echo(text)
    if output is not None:
        output.write_text(text + "\n")


def _median_row(measured: list[Round]) -> str:
    middle = Round(
        statistics.median(each.request_ms for each in measured),
        statistics.median(each.transaction_ms for each in measured),
        statistics.median(each.cycle_ms for each in measured),
    )
    return middle.row("median")


async def _run(clients: int, seconds: float, rounds: int) -> list[Round]:
    config = replace(preset("1k"), concurrency=(clients,), throughput_seconds=seconds)
    home = Path(os.environ.get("THREADLINE_HOME", ".threadline"))
    stderr_log("starting a throwaway Neo4j")
    neo4j = await asyncio.to_thread(service.start_neo4j, home / "neo4j" / "bench-floor", "1k")
    try:
        stderr_log("starting threadline serve")
        api = await asyncio.to_thread(
            service.start_api,
            home / "bench-floor",
            neo4j.uri,
            None,
            "neo4j",
            [config.workspace],
        )
        driver = AsyncGraphDatabase.driver(neo4j.uri)
        gql = GraphQL(api.url, api.token(config.workspace))
        pids = {"api": [api.pid] if api.pid is not None else []}
        try:
            stderr_log("warming (not recorded)")
            await _requests(gql, pids, clients, seconds / 2)
            await _transactions(driver, clients, seconds / 2)
            found = []
            for number in range(1, rounds + 1):
                stderr_log(f"round {number}")
                rate = await measure.throughput(
                    [gql],
                    Raw(driver, "neo4j"),
                    replace(config, seed=number),
                    clients,
                    seconds,
                    pids,
                )
                found.append(
                    Round(
                        await _requests(gql, pids, clients, seconds),
                        await _transactions(driver, clients, seconds),
                        rate.cpu_ms["api"],
                    )
                )
                stderr_log("  " + found[-1].row(number))
            return found
        finally:
            await gql.close()
            await driver.close()
            api.stop()
    finally:
        neo4j.stop()


async def _requests(
    gql: GraphQL, pids: dict[str, list[int]], clients: int, seconds: float
) -> float:
    """The API's CPU per request that touches no database."""

    async def request() -> None:
        await gql(NO_DATABASE)

    meter = CpuMeter(pids)
    return await _per_call(meter, "api", request, clients, seconds)


async def _transactions(driver: AsyncDriver, clients: int, seconds: float) -> float:
    """This process's CPU per write transaction of two trivial statements."""

    async def statements(tx: AsyncManagedTransaction) -> None:
        for n in (1, 2):
            result = await tx.run(TRIVIAL, n=n)
            await result.consume()

    async def transaction() -> None:
        async with driver.session(database="neo4j") as session:
            # BEGIN goes with the first statement, as the service sends it (graph/store.py);
            # the driver's switch for that is private, and without it BEGIN goes alone.
            with getattr(session, "_pipelined_begin", contextlib.nullcontext()):
                await session.execute_write(statements)

    meter = CpuMeter({})
    return await _per_call(meter, HARNESS, transaction, clients, seconds)


async def _per_call(
    meter: CpuMeter,
    group: str,
    call: Callable[[], Awaitable[None]],
    clients: int,
    seconds: float,
) -> float:
    meter.start()
    calls, errors, _ = await measure.drive([call] * clients, seconds)
    if errors:
        raise BenchError(f"{errors} of {calls + errors} calls failed")
    return meter.per(calls)[group]
