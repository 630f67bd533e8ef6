"""`python -m bench rates`: only the throughput step, and its CPU per cycle, with an A/B.

The main benchmark's throughput step (`bench.measure.throughput`: each client on its own
fresh thread cycling start → attach → complete, then raw clients doing the baseline cycle
at the same concurrency, the CPU of each process from /proc) on a throwaway Neo4j and a
`threadline serve`, without the data generation and the other figures. With `--against
DIR` (a checkout of another commit, e.g. `git worktree add DIR <commit>`), a second API
is served from there on the same Neo4j and the rounds alternate A (DIR), B (this
checkout), A, B, ... so that the load of a shared box falls on both alike.
"""

from __future__ import annotations

import asyncio
import os
import statistics
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

import typer
from neo4j import AsyncGraphDatabase

from bench import measure, service
from bench.baseline import Raw
from bench.cli import NOTE, OTHER_OUTPUT
from bench.client import GraphQL
from bench.config import preset
from bench.measure import stderr_log
from bench.results import Rate

CLIENTS = typer.Option("8,32", "--clients", help="Concurrencies to measure, comma-separated.")
SECONDS = typer.Option(30.0, "--seconds", help="Seconds per throughput figure (and raw's).")
ROUNDS = typer.Option(1, "--rounds", help="Rounds; with --against each round is A then B.")
READY = typer.Option(
    service.READY_S, "--ready-s", help="How long each API may take to say ready (its warm-up)."
)
WARM = typer.Option(
    20.0, "--warm", help="Seconds of unrecorded cycles per API first (a cold JVM and process)."
)
AGAINST = typer.Option(
    None, "--against", help="Another checkout to serve from as A (this checkout is B)."
)


@dataclass(frozen=True)
class Measured:
    side: str  # "A" (--against) or "B" (this checkout)
    round: int
    rate: Rate

    def row(self) -> str:
        rate = self.rate
        api = rate.cpu_ms.get("api")
        neo4j = rate.cpu_ms.get("neo4j")
        raw_neo4j = rate.raw_cpu_ms.get("neo4j")
        neo4j_ratio = neo4j / raw_neo4j if neo4j and raw_neo4j else None
        return (
            f"| {self.side} | {self.round} | {rate.concurrency} | {rate.per_second:.1f} | "
            f"{rate.raw_per_second:.1f} | {rate.ratio:.2f} | {_ms(api)} | {_ms(neo4j)} | "
            f"{_ms(raw_neo4j)} | {'' if neo4j_ratio is None else f'{neo4j_ratio:.2f}x'} | "
            f"{rate.errors} |"
        )


def _ms(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}"


def rates(
    clients: str = CLIENTS,
    seconds: float = SECONDS,
    rounds: int = ROUNDS,
    against: Path | None = AGAINST,
    warm: float = WARM,
    ready_s: int = READY,
    output: Path | None = OTHER_OUTPUT,
    note: str | None = NOTE,
) -> None:
    """Throughput at each concurrency beside the raw driver, with CPU ms per cycle."""
    concurrency = [int(part) for part in clients.split(",") if part.strip()]
    began = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()[0]
    service.READY_S = ready_s  # a busy box's warm-up on a fresh Neo4j takes minutes
    measured = asyncio.run(
        _run(concurrency, seconds, rounds, against.resolve() if against else None, warm)
    )
    lines = [
        f"Throughput step only (`python -m bench rates`), started {began}, {seconds:g} s per "
        f"figure, load average {load:.1f} at the start and {os.getloadavg()[0]:.1f} at the end"
        + (f"; A: {against}, B: this checkout, interleaved A, B per round" if against else "")
        + ".",
        *([f"> {note}"] if note else []),
        "",
        "| side | round | clients | cycles/s | raw cycles/s | / raw | API CPU ms/cycle | "
        "Neo4j CPU ms/cycle | raw's Neo4j ms/cycle | Neo4j / raw | errors |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        *(m.row() for m in measured),
        "",
        "Medians by side and clients:",
        "",
        "| side | clients | / raw | API CPU ms/cycle | Neo4j CPU ms/cycle | Neo4j / raw |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
        *_medians(measured),
    ]
    text = "\n".join(lines)
    typer.echo(text)
    if output is not None:
        output.write_text(text + "\n")


def _medians(measured: list[Measured]) -> list[str]:
    rows = []
    for side in sorted({m.side for m in measured}):
        for clients in sorted({m.rate.concurrency for m in measured}):
            group = [m.rate for m in measured if m.side == side and m.rate.concurrency == clients]
            api = [r.cpu_ms["api"] for r in group if "api" in r.cpu_ms]
            neo4j = [r.cpu_ms["neo4j"] for r in group if "neo4j" in r.cpu_ms]
            ratio = [
                r.cpu_ms["neo4j"] / r.raw_cpu_ms["neo4j"]
                for r in group
                if r.cpu_ms.get("neo4j") and r.raw_cpu_ms.get("neo4j")
            ]
            rows.append(
                f"| {side} | {clients} | {statistics.median(r.ratio for r in group):.2f} | "
                f"{_ms(statistics.median(api) if api else None)} | "
                f"{_ms(statistics.median(neo4j) if neo4j else None)} | "
                f"{f'{statistics.median(ratio):.2f}x' if ratio else ''} |"
            )
    return rows


async def _run(
    concurrency: list[int], seconds: float, rounds: int, against: Path | None, warm: float
) -> list[Measured]:
    config = replace(preset("1k"), concurrency=tuple(concurrency), throughput_seconds=seconds)
    home = Path(os.environ.get("THREADLINE_HOME", ".threadline"))
    stderr_log("starting a throwaway Neo4j")
    neo4j = await asyncio.to_thread(service.start_neo4j, home / "neo4j" / "bench-rates", "1k")
    apis: dict[str, service.Api] = {}
    found: list[Measured] = []
    try:
        sides = {"A": against, "B": None} if against else {"B": None}
        for side, source in sides.items():
            stderr_log(f"starting threadline serve {side}" + (f" from {source}" if source else ""))
            apis[side] = await asyncio.to_thread(
                service.start_api,
                home / "bench-rates" / side,
                neo4j.uri,
                None,
                "neo4j",
                [config.workspace],
                None,
                None,
                source,
            )
        driver = AsyncGraphDatabase.driver(neo4j.uri)
        raw = Raw(driver, "neo4j")
        clients = {
            side: GraphQL(api.url, api.token(config.workspace)) for side, api in apis.items()
        }
        neo4j_pid = neo4j.running_pid()
        try:
            for side in apis:
                stderr_log(f"warming {side} for {warm:g} s (not recorded)")
                warming = replace(config, seed=config.seed + 1000 + len(found))
                found.append(
                    Measured(
                        side,
                        0,
                        await measure.throughput(
                            [clients[side]], raw, warming, max(concurrency), warm, {}
                        ),
                    )
                )
            found.clear()
            for round_ in range(1, rounds + 1):
                for side, api in apis.items():
                    pids = {
                        "api": [api.pid] if api.pid is not None else [],
                        "neo4j": [neo4j_pid] if neo4j_pid is not None else [],
                    }
                    for count in concurrency:
                        stderr_log(f"round {round_}, {side}: {count} client(s)")
                        # A seed of its own per figure: the raw threads' ids come from it.
                        seed = config.seed + len(found)
                        rate = await measure.throughput(
                            [clients[side]], raw, replace(config, seed=seed), count, seconds, pids
                        )
                        found.append(Measured(side, round_, rate))
                        stderr_log("  " + found[-1].row())
        finally:
            for client in clients.values():
                await client.close()
            await driver.close()
    finally:
        for api in apis.values():
            api.stop()
        neo4j.stop()
    return found


__all__ = ["rates"]
