"""`python -m bench`: the harness's one command and its options."""

from __future__ import annotations

import asyncio
import importlib
import sys
from pathlib import Path

import typer

SCALE = typer.Option("1k", "--scale", help="1k, 10k or 100k threads (every step up to it).")
QUICK = typer.Option(False, "--quick", help="Fewer samples and threads: checks, not figures.")
NEO4J_URI = typer.Option(
    None,
    "--neo4j-uri",
    help="A running Neo4j (its bench workspaces are emptied first); "
    "default: start a throwaway one under THREADLINE_HOME/neo4j/bench.",
)
NEO4J_USER = typer.Option("neo4j", "--neo4j-user")
NEO4J_PASSWORD = typer.Option(None, "--neo4j-password", envvar="BENCH_NEO4J_PASSWORD")
DATABASE = typer.Option("neo4j", "--database")
API_URL = typer.Option(
    None, "--api-url", help="A running `threadline serve` (default: start one on the Neo4j)."
)
API_TOKEN = typer.Option(
    None,
    "--api-token",
    envvar="BENCH_API_TOKEN",
    help="With --api-url: a write token for the workspace `bench`.",
)
REFERENCE_TOKEN = typer.Option(
    None,
    "--reference-token",
    envvar="BENCH_REFERENCE_TOKEN",
    help="With --api-url: a write token for `bench-ref` (enables the conformance check).",
)
API_PID = typer.Option(None, "--api-pid", help="With --api-url: its pid, for peak RSS.")
OUTPUT = typer.Option(
    None, "--output", help="Where to write the report (default bench/RESULTS.md)."
)
KEEP = typer.Option(False, "--keep-neo4j", help="Leave the throwaway Neo4j running.")
HEAP = typer.Option(None, "--neo4j-heap", help="Heap of the throwaway Neo4j (default by scale).")
PAGECACHE = typer.Option(
    None, "--neo4j-pagecache", help="Page cache of the throwaway Neo4j (default by scale)."
)
NOTE = typer.Option(None, "--note", help="A line for the report, e.g. what else the box ran.")
SEED = typer.Option(7, "--seed", help="The data set: the same seed gives the same families.")
# The other benchmarks' own (OTHER_BENCHMARKS below).
OTHER_NEO4J_URI = typer.Option(
    None, "--neo4j-uri", help="A running Neo4j (default: a throwaway one)."
)
OTHER_OUTPUT = typer.Option(None, "--output", help="Also write the report here.")


def bench(
    scale: str = SCALE,
    quick: bool = QUICK,
    neo4j_uri: str | None = NEO4J_URI,
    neo4j_user: str = NEO4J_USER,
    neo4j_password: str | None = NEO4J_PASSWORD,
    database: str = DATABASE,
    api_url: str | None = API_URL,
    api_token: str | None = API_TOKEN,
    reference_token: str | None = REFERENCE_TOKEN,
    api_pid: int | None = API_PID,
    output: Path | None = OUTPUT,
    keep_neo4j: bool = KEEP,
    neo4j_heap: str | None = HEAP,
    neo4j_pagecache: str | None = PAGECACHE,
    note: str | None = NOTE,
    seed: int = SEED,
) -> None:
    """Generate realistic thread families in Neo4j and measure Threadline over HTTP."""
    from dataclasses import replace

    from bench import report
    from bench.config import preset
    from bench.measure import stderr_log
    from bench.runner import RESULTS, Target, run, write_report
    from graph.runtime.local_neo4j import LocalNeo4jError

    try:
        config = replace(preset(scale, quick), seed=seed)
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--scale") from error
    if api_url and not api_token:
        raise typer.BadParameter("--api-url needs --api-token", param_hint="--api-token")
    target = Target(
        neo4j_uri=neo4j_uri,
        neo4j_auth=(neo4j_user, neo4j_password) if neo4j_password else None,
        database=database,
        api_url=api_url,
        api_token=api_token,
        reference_token=reference_token,
        api_pid=api_pid,
        keep_neo4j=keep_neo4j,
        neo4j_heap=neo4j_heap,
        neo4j_pagecache=neo4j_pagecache,
        notes=(note,) if note else (),
    )
    try:
        results = asyncio.run(run(config, target, stderr_log))
    except (LocalNeo4jError, OSError, RuntimeError) as error:
        typer.echo(f"The benchmark stopped: {error}", err=True)
        raise typer.Exit(1) from error
    write_report(results, output or RESULTS)
    typer.echo(report.render(results))
    typer.echo(f"wrote {output or RESULTS}", err=True)
    if results.conformance or results.integrity:
        typer.echo("Some checks failed: see the Checks section.", err=True)
        raise typer.Exit(2)


# The other benchmarks, by their first argument: each is the function of that name in
# bench/<name>.py (fairness of the rate limit, many live subscribers, a 2,000-thread
# family, recovery after Neo4j dies, backup and restore at scale; the generated session
# files and the fidelity of handoffs, both in-process; only the throughput step, with
# an A/B of two checkouts; the floor of a cycle's CPU on this stack), imported only when
# chosen.
OTHER_BENCHMARKS = (
    "fairness",
    "subscriptions",
    "family",
    "recovery",
    "backups",
    "sessions",
    "handoffs",
    "rates",
    "floor",
)


def main() -> None:
    """`python -m bench [options]` is the benchmark; `python -m bench NAME [options]` one of
    OTHER_BENCHMARKS."""
    name = sys.argv[1] if len(sys.argv) > 1 else ""
    if name not in OTHER_BENCHMARKS:
        typer.run(bench)
        return
    del sys.argv[1]
    typer.run(getattr(importlib.import_module(f"bench.{name}"), name))
