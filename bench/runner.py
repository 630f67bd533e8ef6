"""One benchmark run: processes up, data generated step by step, everything measured.

Order: Neo4j (started, or given) → `threadline serve` (started, or given; it applies the
schema) → the probe family → for each scale step: bulk families, then lineage and
coverage on the probe family (and, after the first step, the conformance check against a
family the service writes itself) → threads built through the service to run 1,000 →
throughput → summary build time → the API's peak memory → report.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import platform
import random
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

from neo4j import AsyncGraphDatabase, Driver, GraphDatabase

from bench import (
    conformance,
    context,
    families,
    handoffs,
    measure,
    queries,
    reference,
    report,
    service,
    summary,
)
from bench.baseline import Raw
from bench.bulk import BulkStats, BulkWriter
from bench.client import GraphQL
from bench.config import Config
from bench.measure import Log
from bench.records import Family
from bench.results import Results, ScaleStep
from graph.runtime.local_neo4j import LocalNeo4j

RESULTS = Path(__file__).parent / "RESULTS.md"


@dataclass
class Target:
    """Where to measure: processes to start, or ones already running."""

    neo4j_uri: str | None = None
    neo4j_auth: tuple[str, str] | None = None
    database: str = "neo4j"
    api_url: str | None = None
    api_token: str | None = None  # for the workspace `Config.workspace`
    reference_token: str | None = None  # for `Config.reference_workspace`
    api_pid: int | None = None
    home: Path = field(
        default_factory=lambda: Path(os.environ.get("THREADLINE_HOME", ".threadline"))
    )
    keep_neo4j: bool = False
    neo4j_heap: str | None = None  # of the throwaway Neo4j; default by scale
    neo4j_pagecache: str | None = None
    notes: tuple[str, ...] = ()


class _Stream:
    """Families 0, 1, 2, ... of the data set, across steps; keeps a few to check later."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.next = 0
        self.threads = 0
        self.runs = 0
        self.longest: Family | None = None  # the family with this step's longest thread
        self.sample: list[Family] = []  # and a uniform sample of 4 of the step's families
        self._seen = 0
        self._rng = random.Random(f"{config.seed}:kept")

    def until(self, threads: int) -> Iterator[Family]:
        while self.threads < threads:
            family = families.family(
                self.next, self.config.seed, self.config.shape, self.config.workspace
            )
            self.next += 1
            self.threads += len(family.threads)
            self.runs += family.runs()
            self._keep(family)
            yield family

    def kept(self) -> list[Family]:
        """The families kept during this step; forgets them."""
        found = [*([self.longest] if self.longest else []), *self.sample]
        self.longest, self.sample, self._seen = None, [], 0
        return found

    def _keep(self, family: Family) -> None:
        self._seen += 1
        if self.longest is None or _longest(family) > _longest(self.longest):
            self.longest = family
        elif len(self.sample) < 4:
            self.sample.append(family)
        elif (slot := self._rng.randrange(self._seen)) < 4:
            self.sample[slot] = family


def _longest(family: Family) -> int:
    return max(len(thread.runs) for thread in family.threads)


async def run(config: Config, target: Target, log: Log) -> Results:
    began = time.perf_counter()
    results = Results(
        config={**config.describe(), "quick": config.measured_threads == 1},
        machine=machine(),
        versions={},
        started=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        notes=list(target.notes),
    )
    managed: LocalNeo4j | None = None
    api: service.Api | None = None
    started_api = False
    sync_driver: Driver | None = None
    try:
        uri, auth = target.neo4j_uri, target.neo4j_auth
        if uri is None:
            home = target.home / "neo4j" / "bench"
            log(f"starting a throwaway Neo4j in {home}")
            managed = await asyncio.to_thread(
                service.start_neo4j, home, config.label, target.neo4j_heap, target.neo4j_pagecache
            )
            uri, auth = managed.uri, None
        sync_driver = GraphDatabase.driver(uri, auth=auth)
        results.versions = versions(sync_driver, target.database)
        if target.neo4j_uri is not None:
            for workspace in (config.workspace, config.raw_workspace, config.reference_workspace):
                log(f"removing earlier data of workspace {workspace!r}")
                await asyncio.to_thread(wipe, sync_driver, target.database, workspace)
        if target.api_url is None:
            log("starting threadline serve")
            api = await asyncio.to_thread(
                service.start_api,
                target.home / "bench",
                uri,
                auth,
                target.database,
                [config.workspace, config.reference_workspace],
            )
            started_api = True
        else:
            tokens = {config.workspace: target.api_token or ""}
            if target.reference_token:
                tokens[config.reference_workspace] = target.reference_token
            api = service.Api(target.api_url, tokens, pid=target.api_pid)
        async_driver = AsyncGraphDatabase.driver(uri, auth=auth)
        gql = GraphQL(api.url, api.token(config.workspace))
        raw = Raw(async_driver, target.database)
        try:
            session = _Session(config, target, api, gql, raw, managed, results, log)
            await _measure(session, sync_driver)
            if started_api and config.api_processes > 1:
                await _spread(session, uri, auth)
        finally:
            await gql.close()
            await async_driver.close()
        if api.pid is not None:
            memory = service.memory_mb(api.pid)
            if memory is not None:
                results.api_peak_rss_mb, results.api_rss_mb = memory
    finally:
        if api is not None and started_api:
            api.stop()
        if sync_driver is not None:
            sync_driver.close()
        if managed is not None and not target.keep_neo4j:
            log("stopping the throwaway Neo4j")
            managed.stop()
    results.duration_seconds = time.perf_counter() - began
    return results


def write_report(results: Results, path: Path = RESULTS) -> None:
    path.write_text(report.render(results))


@dataclass(frozen=True)
class _Session:
    """What the measurements of one run share: its settings, the processes and clients
    it measures, and where the figures go."""

    config: Config
    target: Target
    api: service.Api
    gql: GraphQL
    raw: Raw
    managed: LocalNeo4j | None
    results: Results
    log: Log


async def _measure(session: _Session, driver: Driver) -> None:
    config, target, api, managed = session.config, session.target, session.api, session.managed
    gql, raw, results, log = session.gql, session.raw, session.results, session.log
    store = managed.home / "data" if managed else None
    writer = BulkWriter(driver, target.database, config.workspace, config.batch_rows)
    probe = families.probe_family(config.seed, config.shape, config.workspace)
    await asyncio.to_thread(writer.write, [probe])
    stream = _Stream(config)
    for index, (label, threads) in enumerate(config.scales):
        log(f"generating families up to {threads:,} threads ({label})")

        def progress(stats: BulkStats) -> None:
            log(
                f"  {stats.threads:,} threads, {stats.runs:,} runs written ({stats.rows:,} "
                f"rows, {stats.transactions:,} transactions) in {stats.seconds:.0f} s"
            )

        before, _, _ = driver.execute_query(queries.load("check/sizes"), database_=target.database)
        stats = await asyncio.to_thread(writer.write, stream.until(threads), progress)
        sizes, _, _ = driver.execute_query(queries.load("check/sizes"), database_=target.database)
        step = ScaleStep(
            label=label,
            threads=stream.threads,
            runs=stream.runs,
            nodes=int(sizes[0]["nodes"]),
            relationships=int(sizes[0]["relationships"]),
            written=int(sizes[0]["nodes"])
            - int(before[0]["nodes"])
            + int(sizes[0]["relationships"])
            - int(before[0]["relationships"]),
            bulk_seconds=stats.seconds,
            bulk_rows=stats.rows,
            bulk_transactions=stats.transactions,
            generator_peak_rss_mb=stats.peak_rss_mb,
            store_mb=None if store is None else await asyncio.to_thread(folder_mb, store),
        )
        log(
            f"{label}: {step.threads:,} threads, {step.runs:,} runs, {step.nodes:,} nodes in "
            f"{stats.seconds:.0f} s"
        )
        if index == 0:
            await _conformance(config, api, driver, target.database, results, log)
        await _scale_reads(config, gql, raw, probe, stream.kept(), step, results)
        results.steps.append(step)
    log(
        f"building {config.measured_threads} thread(s) through the service to run "
        f"{max(config.ordinals)}"
    )
    windows, reads, in_cycles, raw_in_cycles, problems = await measure.measured_threads(
        gql, raw, config, log
    )
    results.windows, results.reads = windows, reads
    results.measured_cycle_seconds, results.raw_cycle_seconds = in_cycles, raw_in_cycles
    results.integrity += problems
    results.integrity_checked += 2 * len(config.read_ordinals) * config.measured_threads
    for concurrency in config.concurrency:
        log(f"throughput with {concurrency} client(s)")
        results.rates.append(
            await measure.throughput(
                [gql], raw, config, concurrency, config.throughput_seconds, _pids([api], managed)
            )
        )
    log(f"summarising {config.summary_runs} runs")
    results.summary, results.summary_items = await asyncio.to_thread(
        summary.time_summary, config.summary_runs, config.summary_reps, config.seed
    )
    log("delta against full handoffs, quality at budgets")
    results.delta_saving = await asyncio.to_thread(
        context.delta_saving, config.summary_runs, config.seed
    )
    results.budget_quality = await asyncio.to_thread(
        context.budget_quality, config.summary_runs, config.seed
    )
    log("fidelity beside T3 Code's rule and the naive one")
    results.fidelity_rows = await asyncio.to_thread(handoffs.rows, config.seed)


async def _spread(session: _Session, uri: str, auth: tuple[str, str] | None) -> None:
    """Throughput with the clients spread over several API processes on the one Neo4j, as
    behind a round-robin balancer (docs/SCALING.md, "Several API processes")."""
    config, target, api, managed = session.config, session.target, session.api, session.managed
    gql, raw, results, log = session.gql, session.raw, session.results, session.log
    log(f"starting {config.api_processes - 1} more threadline serve process(es)")
    more = [
        await asyncio.to_thread(
            service.start_api,
            target.home / "bench" / f"api-{n + 2}",
            uri,
            auth,
            target.database,
            list(api.tokens),
            dict(api.tokens),
        )
        for n in range(config.api_processes - 1)
    ]
    clients = [gql, *(GraphQL(other.url, other.token(config.workspace)) for other in more)]
    try:
        concurrency = config.spread_concurrency
        log(f"throughput with {concurrency} client(s) over {len(clients)} API processes")
        results.rates.append(
            await measure.throughput(
                clients,
                raw,
                config,
                concurrency,
                config.throughput_seconds,
                _pids([api, *more], managed),
            )
        )
    finally:
        for client in clients[1:]:
            await client.close()
        for other in more:
            other.stop()


def _pids(apis: list[service.Api], managed: LocalNeo4j | None) -> dict[str, list[int]]:
    """The processes whose CPU a throughput figure records (those the harness knows)."""
    neo4j = managed.running_pid() if managed else None
    api_pids = [api.pid for api in apis if api.pid is not None]
    return {
        "api": api_pids if len(api_pids) == len(apis) else [],  # all of them or none
        "neo4j": [neo4j] if neo4j is not None else [],
    }


async def _conformance(
    config: Config,
    api: service.Api,
    driver: Driver,
    database: str,
    results: Results,
    log: Log,
) -> None:
    token = api.token(config.reference_workspace)
    if token is None:
        results.notes.append("Conformance not checked: no token for the reference workspace.")
        return
    log("the service writes the reference family; comparing shapes")
    client = GraphQL(api.url, token)
    try:
        await reference.seed_reference(client, config.seed)
    finally:
        await client.close()
    found = await asyncio.to_thread(
        conformance.check, driver, database, config.workspace, config.reference_workspace
    )
    results.conformance, results.conformance_notes = found.problems, found.notes
    results.conformance_checked = True
    for problem in found.problems:
        log(f"CONFORMANCE: {problem}")


async def _scale_reads(
    config: Config,
    gql: GraphQL,
    raw: Raw,
    probe: Family,
    kept: list[Family],
    step: ScaleStep,
    results: Results,
) -> None:
    where = f"at {step.label}"
    lineage = await measure.lineage_read(
        gql, raw, config.workspace, probe.root_id, config.lineage_samples
    )
    step.lineage, step.lineage_round_trips = lineage.pair(), lineage.round_trips
    step.lineage_nodes = len(lineage.answer["lineage"]["nodes"])
    results.integrity += measure.lineage_problems(lineage.answer, lineage.row, probe, where)
    coverage = await measure.thread_read(
        gql, raw, config.workspace, probe.root_id, config.lineage_samples
    )
    step.coverage, step.coverage_round_trips = coverage.pair(), coverage.round_trips
    step.coverage_runs = len(coverage.answer["thread"]["runs"])
    root = probe.threads[0]
    results.integrity += measure.thread_answer_problems(coverage.answer, coverage.row, where)
    results.integrity += measure.expected_thread_problems(coverage.answer, root, where)
    results.integrity_checked += 4
    search = await measure.search_read(gql, raw, config.workspace, config.lineage_samples)
    step.search, step.search_round_trips = search.pair(), search.round_trips
    step.search_hits = len(search.answer["search"])
    results.integrity += measure.search_problems(search.answer, search.row, where)
    results.integrity_checked += 1
    page = await measure.threads_page_read(gql, raw, config.workspace, config.lineage_samples)
    step.threads_page, step.threads_page_round_trips = page.pair(), page.round_trips
    results.integrity += measure.threads_page_problems(page.answer, page.row, where)
    results.integrity_checked += 1
    for family in kept:  # generated threads read back as the generator meant them
        for thread in family.threads:
            read = await measure.thread_read(gql, raw, config.workspace, thread.id, 1, warmup=0)
            results.integrity += measure.thread_answer_problems(read.answer, read.row, where)
            results.integrity += measure.expected_thread_problems(read.answer, thread, where)
            results.integrity_checked += 2


def folder_mb(folder: Path) -> float:
    """Bytes under `folder` (the throwaway Neo4j's data: store files and transaction logs)."""
    total = 0
    for path in folder.rglob("*"):
        with contextlib.suppress(OSError):
            if path.is_file():
                total += path.stat().st_size
    return total / 1024 / 1024


def wipe(driver: Driver, database: str, workspace: str) -> None:
    with driver.session(database=database) as session:  # auto-commit: CALL IN TRANSACTIONS
        session.run(queries.load("check/wipe_workspace"), workspace=workspace).consume()


def machine() -> dict[str, str]:
    cpu = "unknown"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    ram = "unknown"
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                ram = f"{int(line.split()[1]) / 1024 / 1024:.1f} GB"
    return {
        "CPU": cpu,
        "cores": str(os.cpu_count()),
        "RAM": ram,
        "OS": platform.platform(),
    }


def versions(driver: Driver, database: str) -> dict[str, str]:
    found = {"Python": platform.python_version()}
    records, _, _ = driver.execute_query(queries.load("check/versions"), database_=database)
    for record in records:
        found[record["name"]] = f"{record['version']} {record['edition']}"
    for package in ("neo4j", "neo4j-rust-ext", "strawberry-graphql", "uvicorn", "threadline"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            found[package] = metadata.version(package)
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            cwd=Path(__file__).parent,
        ).stdout.strip()
        if commit:
            found["threadline commit"] = commit
    return found
