"""`python -m bench backups`: how long `threadline backup` and `threadline restore` take on
the benchmark's workspaces, and how much memory the command uses, at 1k threads and up.

A throwaway Neo4j (or `--neo4j-uri`) gets the generated families of `--scale` (the same
as the main benchmark's, workspace `bench`), a step at a time as the main benchmark grows
its graph (1k, then 10k, then 100k). At each step the harness runs, as separate processes
and from outside:
- `threadline backup --workspace bench FILE`: its wall time and peak RSS (the kernel's
  own account of the process, `wait4`);
- `threadline restore FILE --as-workspace bench-copy`: the same, and the restore's time per
  1,000 threads;
- the exactness check: the copy's nodes by label and relationships by type, counted in
  Neo4j, against the workspace's; a sample of nodes of every label with an id, read by id
  on both sides, each with the same properties (but the write position the live store
  keeps on some, which is no part of a snapshot).
The copy is then deleted and the graph grows to the next step. Nothing writes meanwhile:
the figures are for a quiet workspace (the backup's first pass is its only one);
tests/integration/test_backup_under_load.py has one under writes.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import typer
from neo4j import Driver, GraphDatabase

from bench import queries, service
from bench.bulk import BulkWriter
from bench.cli import NEO4J_PASSWORD, OTHER_OUTPUT, SCALE, SEED
from bench.config import SCALES
from bench.families import Shape, families
from bench.runner import machine, versions, wipe

WORKSPACE = "bench"
COPY = "bench-copy"
LABELS = (
    "Thread",
    "Run",
    "ProviderThread",
    "ContextHandoff",
    "ContextTransfer",
    "ThreadEvent",
    "Checkpoint",
)
SAMPLE = 50  # nodes per label
POLL_S = 0.2
NEO4J_URI = typer.Option(
    None,
    "--neo4j-uri",
    help="A running Neo4j (its workspaces bench and bench-copy are emptied first); "
    "default: a throwaway one under THREADLINE_HOME/neo4j/backups.",
)
NOT_SNAPSHOT = frozenset({"gateSlot", "gateSeq"})  # graph/backup.py: the live store's own


@dataclass(frozen=True)
class Timed:
    seconds: float
    peak_rss_mb: float
    said: str  # its last line on stdout


@dataclass
class Step:
    label: str
    threads: int
    lines: int = 0
    snapshot_mb: float = 0.0
    backup: Timed | None = None
    restore: Timed | None = None
    counts: dict[str, int] = field(default_factory=dict)
    differences: list[str] = field(default_factory=list)
    sampled: int = 0

    @property
    def restore_s_per_1k_threads(self) -> float:
        assert self.restore is not None
        return self.restore.seconds * 1000 / self.threads


def threadline(args: list[str], env: dict[str, str], progress: Path | None = None) -> Timed:
    """`threadline ARGS` as its own process: wall time, peak RSS, its last line; its
    progress lines (stderr) into `progress`, each with the time it arrived. The peak
    is the process's own high-water mark (VmHWM), read every `POLL_S` while it runs (the
    kernel's `wait4` account would start from the harness's own size, inherited at fork)."""
    began = time.perf_counter()
    peak = 0.0
    with (
        tempfile.TemporaryFile("w+") as out,
        subprocess.Popen(
            [sys.executable, "-m", "api.cli", *args],
            env=env,
            stdout=out,
            stderr=subprocess.PIPE if progress else subprocess.DEVNULL,
            text=True,
        ) as process,
    ):
        logging = _logged(process, progress, began) if progress else None
        while process.poll() is None:
            found = service.memory_mb(process.pid)
            peak = max(peak, found[0] if found else 0.0)
            time.sleep(POLL_S)
        if logging is not None:
            logging.join()
        out.seek(0)
        said = out.read()
    seconds = time.perf_counter() - began
    if process.returncode != 0:
        raise service.ServiceError(f"threadline {' '.join(args)} failed: {said[-2000:]}")
    lines = said.strip().splitlines()
    return Timed(seconds, peak, lines[-1] if lines else "")


def _logged(process: subprocess.Popen[str], into: Path, began: float) -> threading.Thread:
    """A thread that writes the process's stderr lines into `into`, each after the seconds
    since `began`: the phases of a long command, as they went."""

    def copy() -> None:
        assert process.stderr is not None
        with into.open("w") as log:
            for line in process.stderr:
                log.write(f"{time.perf_counter() - began:9.1f} s  {line}")
                log.flush()

    thread = threading.Thread(target=copy, daemon=True)
    thread.start()
    return thread


def counted(driver: Driver, workspace: str) -> dict[str, int]:
    records, _, _ = driver.execute_query(
        queries.load("backups/labels"), workspace=workspace, database_="neo4j"
    )
    return {record["kind"]: int(record["count"]) for record in records}


def sampled(driver: Driver, rng: random.Random) -> tuple[int, list[str]]:
    """A sample of every label's nodes with ids compared between the workspace and its
    copy: how many, and what differed. Ids are random hex after their kind's prefix, so
    those after a random point of the hex are a random sample."""
    differences: list[str] = []
    total = 0
    for label in LABELS:
        records, _, _ = driver.execute_query(
            queries.load("backups/sample"),
            workspace=WORKSPACE,
            label=label,
            after=f"{rng.getrandbits(8):02x}",
            limit=SAMPLE,
            database_="neo4j",
        )
        picked = {r["id"]: _kept(r["props"]) for r in records}
        copies, _, _ = driver.execute_query(
            queries.load("backups/by_ids"),
            workspace=COPY,
            label=label,
            ids=list(picked),
            database_="neo4j",
        )
        found = {r["id"]: _kept(r["props"]) for r in copies}
        for ident, props in picked.items():
            copy = found.get(ident)
            if copy is None:
                differences.append(f"{label} {ident}: missing from the copy")
            elif {**copy, "workspace": WORKSPACE} != props:
                keys = sorted(k for k in props.keys() | copy.keys() if props.get(k) != copy.get(k))
                differences.append(f"{label} {ident}: {', '.join(keys)} differ")
        total += len(picked)
    return total, differences


def _kept(props: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in props.items() if key not in NOT_SNAPSHOT}


def one_step(driver: Driver, step: Step, folder: Path, env: dict[str, str], seed: int) -> None:
    file = folder / f"bench-{step.label}.jsonl"
    logs = folder / f"bench-{step.label}"
    step.backup = threadline(
        ["backup", "--workspace", WORKSPACE, str(file)], env, Path(f"{logs}.backup.log")
    )
    step.snapshot_mb = file.stat().st_size / 2**20
    with file.open("rb") as lines:
        step.lines = sum(1 for _ in lines)
    step.restore = threadline(
        ["restore", str(file), "--as-workspace", COPY], env, Path(f"{logs}.restore.log")
    )
    step.counts = counted(driver, WORKSPACE)
    copied = counted(driver, COPY)
    step.differences = [
        f"{kind}: {step.counts.get(kind, 0)} in the workspace, {copied.get(kind, 0)} in the copy"
        for kind in sorted(step.counts.keys() | copied.keys())
        if step.counts.get(kind, 0) != copied.get(kind, 0)
    ]
    step.sampled, unequal = sampled(driver, random.Random(seed))
    step.differences += unequal
    file.unlink()


def report(steps: list[Step], facts: dict[str, str]) -> list[str]:
    lines = [
        "# Backup and restore at scale (`python -m bench backups`)",
        "",
        *(f"- {key}: {value}" for key, value in facts.items()),
        "",
        "| step | threads | snapshot (lines, MB) | backup | backup peak RSS | restore | "
        "restore peak RSS | restore per 1,000 threads | exact |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for step in steps:
        assert step.backup is not None and step.restore is not None
        exact = "yes" if not step.differences else f"NO ({len(step.differences)})"
        lines.append(
            f"| {step.label} | {step.threads:,} | {step.lines:,}, {step.snapshot_mb:,.0f} | "
            f"{step.backup.seconds:,.1f} s ({step.lines / step.backup.seconds:,.0f} lines/s) | "
            f"{step.backup.peak_rss_mb:,.0f} MB | "
            f"{step.restore.seconds:,.1f} s ({step.lines / step.restore.seconds:,.0f} lines/s) | "
            f"{step.restore.peak_rss_mb:,.0f} MB | {step.restore_s_per_1k_threads:,.1f} s | "
            f"{exact} |"
        )
    lines.append("")
    for step in steps:
        nodes = sum(n for kind, n in step.counts.items() if kind.startswith("node "))
        rels = sum(n for kind, n in step.counts.items() if kind.startswith("relationship "))
        lines.append(
            f"- {step.label}: {nodes:,} nodes and {rels:,} relationships compared by label "
            f"and type, {step.sampled} sampled nodes by their properties"
            + (f"; differences: {'; '.join(step.differences[:10])}" if step.differences else "")
        )
        assert step.backup is not None and step.restore is not None
        lines.append(f"  - backup: {step.backup.said}")
        lines.append(f"  - restore: {step.restore.said}")
    return lines


def backups(
    scale: str = SCALE,
    neo4j_uri: str | None = NEO4J_URI,
    neo4j_password: str | None = NEO4J_PASSWORD,
    seed: int = SEED,
    output: Path | None = OTHER_OUTPUT,
    note: str | None = typer.Option(None, "--note", help="A line for the report."),
    measure: str | None = typer.Option(
        None,
        "--measure",
        help="Steps to measure, comma-separated (default: every step up to --scale); the "
        "graph still grows through the others, so a step's workspace is the same either way.",
    ),
    reuse: bool = typer.Option(
        False,
        "--reuse",
        help="Measure the workspace an earlier run left (in its throwaway Neo4j's data, or "
        "at --neo4j-uri) as it is: no wiping, no generating; it must hold --scale's threads.",
    ),
) -> None:
    """Back up and restore the benchmark's workspace at each step up to --scale."""
    if scale not in SCALES:
        raise typer.BadParameter(f"scale must be one of {', '.join(SCALES)}")
    measured = _measured(measure, scale)
    home = Path(os.environ.get("THREADLINE_HOME", ".threadline")) / "neo4j" / "backups"
    instance = None if neo4j_uri else service.start_neo4j(home, scale, keep_data=reuse)
    uri = neo4j_uri or (instance.uri if instance else "")
    auth = ("neo4j", neo4j_password) if neo4j_password else None
    env = {**os.environ, "THREADLINE_NEO4J_URI": uri}
    if auth is not None:
        env["THREADLINE_NEO4J_PASSWORD"] = neo4j_password or ""
    folder = home / "snapshots"
    folder.mkdir(parents=True, exist_ok=True)
    steps: list[Step] = []
    began = time.perf_counter()
    try:
        with GraphDatabase.driver(uri, auth=auth) as driver:
            facts = {**machine(), **versions(driver, "neo4j"), "load average at start": _load()}
            if _restore_left(driver):
                threadline(["restore", "--discard", COPY], env)
            for workspace in (WORKSPACE, COPY) if not reuse else (COPY,):
                wipe(driver, "neo4j", workspace)
            threadline(["migrate"], env)  # the schema a serving Threadline has
            family, have = 0, 0
            writer = BulkWriter(driver, "neo4j", WORKSPACE)
            if reuse:
                measured = _reused(driver, scale, measured)
            for label, threads in ((k, n) for k, n in SCALES.items() if n <= SCALES[scale]):
                if not reuse:
                    stats = writer.write(families(family, threads - have, seed, Shape()))
                    family, have = family + stats.families, have + stats.threads
                if label not in measured:
                    continue
                step = Step(label, _threads(driver))
                typer.echo(f"{label}: {step.threads:,} threads in the workspace", err=True)
                one_step(driver, step, folder, env, seed)
                steps.append(step)
                typer.echo("\n".join(report(steps[-1:], {})[4:]), err=True)
                if output is not None:  # each step as it ends: a long run may be stopped
                    so_far = {**facts, "steps done": ", ".join(s.label for s in steps)}
                    output.write_text("\n".join(report(steps, so_far)) + "\n")
                wipe(driver, "neo4j", COPY)  # after the report: at 100k it takes a while
    finally:
        if instance is not None:
            instance.stop()
    facts["whole run"] = f"{(time.perf_counter() - began) / 60:.0f} min"
    facts["load average at end"] = _load()
    if note:
        facts["note"] = note
    lines = report(steps, facts)
    typer.echo("\n".join(lines))
    if output is not None:
        output.write_text("\n".join(lines) + "\n")
    if any(step.differences for step in steps):
        raise typer.Exit(2)


def _measured(measure: str | None, scale: str) -> set[str]:
    steps = [label for label, n in SCALES.items() if n <= SCALES[scale]]
    if measure is None:
        return set(steps)
    chosen = {label.strip() for label in measure.split(",") if label.strip()}
    if not chosen or not chosen <= set(steps):
        raise typer.BadParameter(f"--measure takes steps among {', '.join(steps)}")
    return chosen


def _reused(driver: Driver, scale: str, measured: set[str]) -> set[str]:
    """--reuse measures the workspace as it is: only --scale's step, which it must hold."""
    if measured != {scale}:
        raise typer.BadParameter(f"--reuse measures one step: --measure {scale}")
    if _threads(driver) < SCALES[scale]:
        raise typer.BadParameter(
            f"--reuse needs workspace {WORKSPACE!r} to hold {SCALES[scale]:,} threads "
            f"(it holds {_threads(driver):,}): run without --reuse first"
        )
    return measured


def _load() -> str:
    """The 1, 5 and 15 minute load averages: the box is shared, and its figures with it."""
    return " / ".join(f"{value:.1f}" for value in os.getloadavg())


def _restore_left(driver: Driver) -> bool:
    records, _, _ = driver.execute_query(
        queries.load("backups/restore_left"), workspace=COPY, database_="neo4j"
    )
    return bool(records[0]["left"])


def _threads(driver: Driver) -> int:
    records, _, _ = driver.execute_query(
        queries.load("backups/threads"), workspace=WORKSPACE, database_="neo4j"
    )
    return int(records[0]["threads"])
