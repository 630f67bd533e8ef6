"""`python -m bench fairness`: does one workspace's flood slow another's normal calls?

A `threadline serve` with the default rate limit (50 requests/s, burst 200 per token)
holds two workspaces. `calm` reads its thread (`thread { runs providerThreads { coverage
} }`) at an agent's pace, ten calls a second: first alone, then while `flood` polls its
thread list (`threads(first: 5)`, a runaway client's cheap loop) from 8 clients at full
speed, ignoring every 429. The figure is calm's p95
under the flood over its p95 alone (target at most 2). With `--unlimited-too` the same
is measured again on a second API without a limit (RATE_LIMIT_RPS=0), for comparison.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import typer

from bench import service
from bench.cli import NEO4J_PASSWORD, OTHER_NEO4J_URI
from bench.client import THREAD_COVERAGE, BenchError, GraphQL, ServiceThread
from bench.results import Stat

FLOODERS = 8
CALM_PACE_S = 0.1
TARGET_RATIO = 2.0
WORKSPACES = ["calm", "flood"]
DEFAULT_LIMIT = {"THREADLINE_RATE_LIMIT_RPS": "50", "THREADLINE_RATE_LIMIT_BURST": "200"}
NO_LIMIT = {"THREADLINE_RATE_LIMIT_RPS": "0"}
FLOOD_READ = "query { threads(first: 5) { edges { cursor } } }"
OUTPUT = typer.Option(None, "--output", help="Also write the table here.")


@dataclass(frozen=True)
class Fairness:
    label: str
    alone: Stat
    flooded: Stat
    flood_answers: Counter[str]  # "ok" or the error code, per flood request
    flood_seconds: float

    @property
    def ratio(self) -> float:
        return self.flooded.p95 / self.alone.p95

    def lines(self) -> list[str]:
        sent = sum(self.flood_answers.values())
        answers = ", ".join(f"{code} {n}" for code, n in self.flood_answers.most_common())
        verdict = "met" if self.ratio <= TARGET_RATIO else "MISSED"
        return [
            f"| {self.label} | {self.alone.p50:.1f} / {self.alone.p95:.1f} | "
            f"{self.flooded.p50:.1f} / {self.flooded.p95:.1f} | {self.ratio:.2f} ({verdict}) | "
            f"{sent / self.flood_seconds:.0f}/s: {answers} |"
        ]


async def _calm(gql: GraphQL, thread_id: str, samples: int) -> Stat:
    seconds = []
    for _ in range(samples):
        began = time.perf_counter()
        await gql(THREAD_COVERAGE, id=thread_id)
        took = time.perf_counter() - began
        seconds.append(took)
        await asyncio.sleep(max(0.0, CALM_PACE_S - took))
    return Stat.of(seconds)


async def _flood(gql: GraphQL, stop: asyncio.Event, answers: Counter[str]) -> None:
    while not stop.is_set():
        try:
            await gql(FLOOD_READ)
            answers["ok"] += 1
        except BenchError as error:  # a 429 among them: this client ignores Retry-After
            answers[str(error).split(":")[0]] += 1


async def measure(api: service.Api, label: str, samples: int, seed: int) -> Fairness:
    calm, flood = (GraphQL(api.url, api.token(w)) for w in WORKSPACES)
    try:
        rng = random.Random(seed)
        calm_thread = await ServiceThread.create(calm, rng, "Calm")
        flood_thread = await ServiceThread.create(flood, rng, "Flood")
        for _ in range(3):  # a few runs, so the read has something to read
            await calm_thread.cycle()
            await flood_thread.cycle()
        await _calm(calm, calm_thread.thread_id, 10)  # warm
        alone = await _calm(calm, calm_thread.thread_id, samples)
        stop, answers = asyncio.Event(), Counter[str]()
        began = time.perf_counter()
        flooders = [asyncio.create_task(_flood(flood, stop, answers)) for _ in range(FLOODERS)]
        await asyncio.sleep(1.0)  # the flood is under way (and past its burst) first
        flooded = await _calm(calm, calm_thread.thread_id, samples)
        stop.set()
        await asyncio.gather(*flooders)
        return Fairness(label, alone, flooded, answers, time.perf_counter() - began)
    finally:
        await calm.close()
        await flood.close()


async def _run(
    folder: Path, neo4j: tuple[str, tuple[str, str] | None], samples: int, unlimited: bool
) -> list[Fairness]:
    results = []
    settings = [("default limit (50/s, burst 200)", DEFAULT_LIMIT)]
    if unlimited:
        settings.append(("no limit", NO_LIMIT))
    for n, (label, env) in enumerate(settings):
        uri, auth = neo4j
        api = service.start_api(folder / f"api-{n}", uri, auth, "neo4j", WORKSPACES, None, env)
        try:
            results.append(await measure(api, label, samples, seed=n))
        finally:
            api.stop()
    return results


def fairness(
    neo4j_uri: str | None = OTHER_NEO4J_URI,
    neo4j_password: str | None = NEO4J_PASSWORD,
    samples: int = typer.Option(200, "--samples", help="Calm reads per phase."),
    unlimited_too: bool = typer.Option(
        False, "--unlimited-too", help="Measure again on an API without a limit."
    ),
    output: Path | None = OUTPUT,
) -> None:
    """One workspace floods with 8 clients while another reads at an agent's pace: the
    second's p95 under the flood over its p95 alone."""
    with service.neo4j_or_throwaway("fairness", neo4j_uri, neo4j_password) as (home, uri, auth):
        results = asyncio.run(_run(home / "runs", (uri, auth), samples, unlimited_too))
    table = [
        f"Fairness: calm's thread read, {samples} samples per phase at 10/s; "
        f"{FLOODERS} flood clients at full speed in another workspace. Target: p95 ratio "
        f"<= {TARGET_RATIO:g}.",
        "",
        "| API | calm alone p50 / p95 ms | calm under flood p50 / p95 ms | p95 ratio | "
        "flood requests |",
        "| --- | --- | --- | --- | --- |",
        *(line for result in results for line in result.lines()),
    ]
    typer.echo("\n".join(table))
    if output is not None:
        output.write_text("\n".join(table) + "\n")
