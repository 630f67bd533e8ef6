"""The measurements: each GraphQL figure over HTTP beside its raw-driver baseline.

Latency is measured with one client at a time (round trips too: the service's counter
is process-wide); GraphQL and raw samples are interleaved so both see the same machine.
Every read is also checked: the GraphQL answer must equal the raw query's rows, and on
generated data both must equal what the generator meant (`bench.model`).
"""

from __future__ import annotations

import asyncio
import random
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from neo4j.exceptions import DriverError, Neo4jError

from bench import model
from bench.baseline import Raw, RawCycle, RawThread
from bench.client import (
    LINEAGE,
    SEARCH,
    THREAD_COVERAGE,
    THREADS_PAGE,
    BenchError,
    Cycle,
    GraphQL,
    ServiceThread,
    timed_query,
)
from bench.config import Config
from bench.cpu import CpuMeter
from bench.records import Family, ThreadRecord
from bench.results import Pair, Rate, ReadProbe, Stat, Window
from graph.models import RunStatus
from resolvers import search as searching

# bench/cypher/baseline/lineage.cypher fixes the same hop bound: Cypher cannot take it as a
# parameter, and the harness substitutes no text.
LINEAGE_DEPTH = 20
OPERATIONS = ("start", "attach", "complete", "cycle")

Log = Callable[[str], None]


def stderr_log(line: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {line}", file=sys.stderr, flush=True)


# ---- reads -----------------------------------------------------------------------------


@dataclass
class Sampled:
    """One read measured both ways: samples, the service's round trips, both answers."""

    service: list[float]
    raw: list[float]
    round_trips: int
    answer: dict[str, Any]
    row: dict[str, Any]

    def pair(self) -> Pair:
        return Pair(Stat.of(self.service), Stat.of(self.raw))


async def paired(
    gql: GraphQL,
    raw: Raw,
    read: tuple[str, dict[str, Any]],
    baseline: tuple[str, dict[str, Any]],
    samples: int,
    row: Callable[[list[dict[str, Any]]], dict[str, Any]],
    warmup: int = 2,
) -> Sampled:
    """A GraphQL `read` (query, variables) and its `baseline` statement (name, parameters)
    over the raw driver, interleaved after `warmup` rounds (plans compiled, caches warm);
    the raw answer as `row` makes it of its rows."""
    query, variables = read
    statement, params = baseline
    for _ in range(warmup):
        await gql(query, **variables)
        await raw.read(statement, **params)
    answer, counted = await timed_query(gql, True, query, **variables)
    service: list[float] = []
    direct: list[float] = []
    rows: list[dict[str, Any]] = []
    for _ in range(samples):
        answer, timed = await timed_query(gql, False, query, **variables)
        service.append(timed.seconds)
        rows, seconds = await raw.read(statement, **params)
        direct.append(seconds)
    assert counted.round_trips is not None
    return Sampled(service, direct, counted.round_trips, answer, row(rows))


def _first(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return rows[0]


async def thread_read(
    gql: GraphQL, raw: Raw, workspace: str, thread_id: str, samples: int, warmup: int = 2
) -> Sampled:
    """The issue's thread read and its raw equivalent, interleaved."""
    return await paired(
        gql,
        raw,
        (THREAD_COVERAGE, {"id": thread_id}),
        ("baseline/thread_coverage", {"workspace": workspace, "threadId": thread_id}),
        samples,
        _first,
        warmup,
    )


def thread_answer_problems(answer: dict[str, Any], row: dict[str, Any], what: str) -> list[str]:
    thread = answer["thread"]
    problems: list[str] = []
    if thread is None:
        return [f"{what}: the service does not find the thread"]
    if thread["runs"] != row["runs"]:
        problems.append(f"{what}: runs differ between GraphQL and the raw read")
    mine = [{"id": pt["id"], **pt["coverage"]} for pt in thread["providerThreads"]]
    if mine != row["providerThreads"]:
        problems.append(f"{what}: coverage differs between GraphQL and the raw read")
    return problems


def expected_thread_problems(answer: dict[str, Any], record: ThreadRecord, what: str) -> list[str]:
    """The service's answer against the generator's own account of the thread."""
    thread = answer["thread"]
    if thread is None:
        return [f"{what}: the service does not find generated thread {record.id}"]
    runs = [{"ordinal": r.ordinal, "status": r.status} for r in record.runs]
    expected_runs = [r for r in runs if r["status"] != RunStatus.ROLLED_BACK]
    problems = []
    if thread["runs"] != expected_runs:
        problems.append(f"{what}: runs of generated thread {record.id} read back differently")
    expected = model.expected_coverage(record)
    found = {pt["id"]: pt["coverage"] for pt in thread["providerThreads"]}
    if found != expected:
        problems.append(f"{what}: coverage of generated thread {record.id} reads back differently")
    return problems


async def lineage_read(
    gql: GraphQL, raw: Raw, workspace: str, thread_id: str, samples: int
) -> Sampled:
    return await paired(
        gql,
        raw,
        (LINEAGE, {"id": thread_id, "depth": LINEAGE_DEPTH}),
        ("baseline/lineage", {"workspace": workspace, "threadId": thread_id}),
        samples,
        _first,
    )


SEARCH_QUERY = "refactor payments"
SEARCH_FIRST = 20


async def search_read(gql: GraphQL, raw: Raw, workspace: str, samples: int) -> Sampled:
    """`search(query, first: 20)` and the same full-text query over the raw driver."""
    queries = searching.lucene(workspace, searching.words(SEARCH_QUERY), None)
    assert queries is not None  # without kinds every field is searched
    params = {
        "workspace": workspace,
        **queries.model_dump(),
        "candidates": searching.candidates(SEARCH_FIRST),
        "first": SEARCH_FIRST,
    }
    return await paired(
        gql,
        raw,
        (SEARCH, {"q": SEARCH_QUERY, "first": SEARCH_FIRST}),
        ("baseline/search", params),
        samples,
        lambda rows: {"hits": rows},
    )


PAGE_FIRST = 20


async def threads_page_read(gql: GraphQL, raw: Raw, workspace: str, samples: int) -> Sampled:
    """`threads(first: 20, newestFirst: true)` and the same page over the raw driver."""
    return await paired(
        gql,
        raw,
        (THREADS_PAGE, {"first": PAGE_FIRST}),
        ("baseline/threads_page", {"workspace": workspace, "first": PAGE_FIRST}),
        samples,
        lambda rows: {"ids": [row["id"] for row in rows]},
    )


def threads_page_problems(answer: dict[str, Any], row: dict[str, Any], what: str) -> list[str]:
    """The service's page against the raw one: the same threads, in the same order."""
    mine = [edge["node"]["id"] for edge in answer["threads"]["edges"]]
    if mine != row["ids"]:
        return [f"{what}: the newest page of threads differs between GraphQL and the raw read"]
    return []


def search_problems(answer: dict[str, Any], row: dict[str, Any], what: str) -> list[str]:
    """The service's hits against the raw query's: the same places, in the same order."""
    mine = [(h["thread"]["id"], h["runOrdinal"], h["index"]) for h in answer["search"]]
    raw = [(h["threadId"], h["runOrdinal"], h["index"]) for h in row["hits"]]
    problems = []
    if mine != raw:
        problems.append(f"{what}: search hits differ between GraphQL and the raw read")
    if not mine:
        problems.append(f"{what}: search found nothing for {SEARCH_QUERY!r}")
    return problems


def lineage_problems(
    answer: dict[str, Any], row: dict[str, Any], family: Family, what: str
) -> list[str]:
    lineage = answer["lineage"]
    problems: list[str] = []
    if lineage["nodes"] != row["nodes"]:
        problems.append(f"{what}: lineage nodes differ between GraphQL and the raw read")
    key = [(e["from"], e["to"], e["relationship"], e["sourceRunOrdinal"]) for e in row["edges"]]
    mine = [
        (e["from"], e["to"], e["relationship"], e["sourceRunOrdinal"]) for e in lineage["edges"]
    ]
    if sorted(mine) != sorted(key):
        problems.append(f"{what}: lineage edges differ between GraphQL and the raw read")
    within = [t for t in family.threads if t.depth <= LINEAGE_DEPTH]
    depths = sorted(node["depth"] for node in lineage["nodes"])
    if len(lineage["nodes"]) != len(within):
        problems.append(
            f"{what}: lineage has {len(lineage['nodes'])} threads, the family {len(within)}"
        )
    if depths and depths[-1] != max(t.depth for t in within):
        problems.append(f"{what}: lineage is {depths[-1]} deep, the family was generated deeper")
    return problems


# ---- cycles at run 20, 200, 1,000 -----------------------------------------------------------


class Windows:
    """Samples per window (ordinal) and operation, service and raw."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.of: dict[int, int] = {}
        for ordinal in config.ordinals:
            width = max(1, min(config.window, ordinal))
            for n in range(ordinal - width + 1, ordinal + 1):
                self.of[n] = ordinal
        self.service: dict[int, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
        self.raw: dict[int, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
        self.trips: dict[int, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))

    def add(self, cycle: Cycle) -> None:
        window = self.of[cycle.ordinal]
        values = (cycle.start, cycle.attach, cycle.complete)
        for name, timed in zip(OPERATIONS, values, strict=False):
            self.service[window][name].append(timed.seconds)
            if timed.round_trips is not None:
                self.trips[window][name].append(timed.round_trips)
        self.service[window]["cycle"].append(cycle.seconds)

    def add_raw(self, cycle: RawCycle) -> None:
        window = self.of[cycle.ordinal]
        for name, seconds in zip(
            OPERATIONS, (cycle.start, cycle.attach, cycle.complete, cycle.seconds), strict=True
        ):
            self.raw[window][name].append(seconds)

    def results(self) -> list[Window]:
        found: list[Window] = []
        for ordinal in self.config.ordinals:
            width = max(1, min(self.config.window, ordinal))
            pairs = {
                name: Pair(Stat.of(self.service[ordinal][name]), Stat.of(self.raw[ordinal][name]))
                for name in OPERATIONS
            }
            found.append(
                Window(
                    ordinal=ordinal,
                    first=ordinal - width + 1,
                    last=ordinal,
                    start=pairs["start"],
                    attach=pairs["attach"],
                    complete=pairs["complete"],
                    cycle=pairs["cycle"],
                    round_trips={
                        name: int(statistics.median(values))
                        for name, values in self.trips[ordinal].items()
                    },
                )
            )
        return found


async def measured_threads(
    gql: GraphQL, raw: Raw, config: Config, log: Log
) -> tuple[list[Window], list[ReadProbe], float, float, list[str]]:
    """Threads built through the service to the last ordinal, timed in the windows, each
    beside a raw-driver thread built in step with it: each ordinal's service cycle and
    raw cycle run back to back, so a window's two sides see the same machine and the same
    graph (built one after the other, the raw side ran minutes later, on a graph and a
    JIT that the service's threads had warmed).

    Returns the windows, the thread reads at `read_ordinals`, the seconds the service
    and the raw driver spent in their cycles, and any integrity problem.
    """
    windows = Windows(config)
    last = max((*config.ordinals, *config.read_ordinals))
    reads: dict[int, _Probe] = defaultdict(_Probe)
    problems: list[str] = []
    # Query plans compiled and code paths warm on both sides (a switch included), untimed.
    warm = await ServiceThread.create(gql, random.Random(f"{config.seed}:warm"), "Warm-up")
    raw_warm = await RawThread.create(
        raw, config.raw_workspace, random.Random(f"{config.seed}:raw-warm"), "Raw warm-up"
    )
    for _ in range(config.warmup_runs):
        await warm.cycle()
        await raw_warm.cycle()
    service_seconds = raw_seconds = 0.0
    for index in range(config.measured_threads):
        rng = random.Random(f"{config.seed}:measured:{index}")
        thread = await ServiceThread.create(gql, rng, f"Measured thread {index + 1}")
        raw_rng = random.Random(f"{config.seed}:raw:{index}")
        raw_thread = await RawThread.create(
            raw, config.raw_workspace, raw_rng, f"Raw thread {index + 1}"
        )
        began = time.perf_counter()
        while thread.ordinal < last:
            counting = thread.ordinal + 1 in windows.of
            cycle = await thread.cycle(count_round_trips=counting)
            raw_cycle = await raw_thread.cycle()
            service_seconds += cycle.seconds
            raw_seconds += raw_cycle.seconds
            if counting:
                windows.add(cycle)
                windows.add_raw(raw_cycle)
            if cycle.ordinal in config.read_ordinals:
                read = await thread_read(
                    gql, raw, config.workspace, thread.thread_id, config.read_samples
                )
                probe = reads[cycle.ordinal]
                probe.service += read.service
                probe.raw += read.raw
                probe.trips.append(read.round_trips)
                probe.pts = len(read.answer["thread"]["providerThreads"])
                problems += thread_answer_problems(
                    read.answer, read.row, f"thread at run {cycle.ordinal}"
                )
            if cycle.ordinal % 100 == 0:
                log(
                    f"measured thread {index + 1}/{config.measured_threads}: run {cycle.ordinal}"
                    f" (cycle {cycle.seconds * 1000:.0f} ms, {time.perf_counter() - began:.0f} s)"
                )
    probes = [
        ReadProbe(
            runs=ordinal,
            read=Pair(Stat.of(reads[ordinal].service), Stat.of(reads[ordinal].raw)),
            round_trips=int(statistics.median(reads[ordinal].trips)),
            provider_threads=reads[ordinal].pts,
        )
        for ordinal in sorted(config.read_ordinals)
    ]
    return windows.results(), probes, service_seconds, raw_seconds, problems


@dataclass
class _Probe:
    service: list[float] = field(default_factory=list)
    raw: list[float] = field(default_factory=list)
    trips: list[int] = field(default_factory=list)
    pts: int = 0


# ---- throughput -------------------------------------------------------------------------


async def throughput(
    gqls: Sequence[GraphQL],
    raw: Raw,
    config: Config,
    concurrency: int,
    seconds: float,
    pids: Mapping[str, Sequence[int]],
) -> Rate:
    """Cycles per second with `concurrency` clients, each on its own thread and the
    clients spread round robin over `gqls` (one per API process); then raw. `pids`: the
    API and Neo4j processes, whose CPU per cycle is recorded beside the harness's own."""
    tag = f"{concurrency}x{len(gqls)}"
    service_threads = [
        await ServiceThread.create(
            gqls[i % len(gqls)], random.Random(f"{config.seed}:rate:{tag}:{i}"), f"Rate {tag}.{i}"
        )
        for i in range(concurrency)
    ]
    await asyncio.gather(*(thread.cycle() for thread in service_threads))  # warm
    meter = CpuMeter(pids)
    meter.start()
    cycles, errors, elapsed = await drive([t.cycle for t in service_threads], seconds)
    cpu_ms = meter.per(cycles)
    raw_threads = [
        await RawThread.create(
            raw,
            config.raw_workspace,
            random.Random(f"{config.seed}:raw-rate:{tag}:{i}"),
            f"Raw rate {tag}.{i}",
        )
        for i in range(concurrency)
    ]
    await asyncio.gather(*(thread.cycle() for thread in raw_threads))
    meter.start()
    raw_cycles, raw_errors, raw_elapsed = await drive([t.cycle for t in raw_threads], seconds)
    raw_cpu_ms = {name: ms for name, ms in meter.per(raw_cycles).items() if name != "api"}
    return Rate(
        concurrency=concurrency,
        seconds=elapsed,
        cycles=cycles,
        per_second=cycles / elapsed,
        errors=errors,
        raw_seconds=raw_elapsed,
        raw_cycles=raw_cycles,
        raw_per_second=raw_cycles / raw_elapsed,
        raw_errors=raw_errors,
        api_processes=len(gqls),
        cpu_ms=cpu_ms,
        raw_cpu_ms=raw_cpu_ms,
    )


async def drive(clients: list[Callable[[], Any]], seconds: float) -> tuple[int, int, float]:
    """Each of `clients` called again and again for `seconds`, all at once: the calls done,
    the calls failed (each followed by a pause of 0.1 s) and the seconds it took."""
    done = 0
    errors = 0
    began = time.perf_counter()
    deadline = began + seconds

    async def client(cycle: Callable[[], Any]) -> None:
        nonlocal done, errors
        while time.perf_counter() < deadline:
            try:
                await cycle()
                done += 1
            except (BenchError, DriverError, Neo4jError):
                errors += 1
                await asyncio.sleep(0.1)

    await asyncio.gather(*(client(cycle) for cycle in clients))
    return done, errors, time.perf_counter() - began
