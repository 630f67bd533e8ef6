"""What a run measured: plain data the report renders (and the smoke test inspects)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bench.fidelity import Row


@dataclass(frozen=True)
class Stat:
    """Latency percentiles in milliseconds (linear interpolation between ranks)."""

    n: int
    p50: float
    p95: float
    p99: float
    mean: float

    @classmethod
    def of(cls, seconds: Sequence[float]) -> Stat:
        return cls.of_values([value * 1000 for value in seconds])

    @classmethod
    def of_values(cls, values: Sequence[float]) -> Stat:
        """Percentiles of values in their own unit (tokens, %)."""
        if not values:
            raise ValueError("no samples")
        ordered = sorted(values)
        return cls(
            n=len(ordered),
            p50=percentile(ordered, 50),
            p95=percentile(ordered, 95),
            p99=percentile(ordered, 99),
            mean=sum(ordered) / len(ordered),
        )


def percentile(ordered: Sequence[float], q: float) -> float:
    if len(ordered) == 1:
        return ordered[0]
    rank = (len(ordered) - 1) * q / 100
    low, high = math.floor(rank), math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


@dataclass(frozen=True)
class Pair:
    """A GraphQL figure beside its raw-driver baseline, measured in the same run."""

    graphql: Stat
    raw: Stat

    @property
    def ratio(self) -> float:
        return self.graphql.p50 / self.raw.p50 if self.raw.p50 > 0 else math.inf


@dataclass
class ScaleStep:
    """The graph after one generation step, and what lineage and coverage cost on it."""

    label: str
    threads: int  # generated so far (cumulative, the probe family excluded)
    runs: int
    nodes: int  # the whole database
    relationships: int
    written: int  # nodes and relationships this step wrote
    bulk_seconds: float  # this step's generation and writes
    bulk_rows: int
    bulk_transactions: int
    generator_peak_rss_mb: float
    store_mb: float | None = None  # the Neo4j data folder, when the harness started Neo4j
    lineage: Pair | None = None
    lineage_round_trips: int | None = None
    lineage_nodes: int = 0
    coverage: Pair | None = None
    coverage_round_trips: int | None = None
    coverage_runs: int = 0
    search: Pair | None = None
    search_round_trips: int | None = None
    search_hits: int = 0
    threads_page: Pair | None = None
    threads_page_round_trips: int | None = None


@dataclass
class Window:
    """startRun, attachNativeThread and completeRun over runs `first`..`last` of threads."""

    ordinal: int
    first: int
    last: int
    start: Pair
    attach: Pair
    complete: Pair
    cycle: Pair
    round_trips: dict[str, int]  # median per operation


@dataclass
class ReadProbe:
    """`thread { runs providerThreads { coverage } }` on a thread with `runs` runs."""

    runs: int
    read: Pair
    round_trips: int
    provider_threads: int


@dataclass
class Rate:
    concurrency: int
    seconds: float
    cycles: int
    per_second: float
    errors: int
    raw_seconds: float
    raw_cycles: int
    raw_per_second: float
    raw_errors: int = 0
    api_processes: int = 1  # the clients spread round robin over this many API processes
    # CPU milliseconds per cycle by process group (bench/cpu.py): "api", "neo4j", "harness".
    cpu_ms: dict[str, float] = field(default_factory=dict)
    raw_cpu_ms: dict[str, float] = field(default_factory=dict)

    @property
    def ratio(self) -> float:
        return self.per_second / self.raw_per_second if self.raw_per_second else 0.0


@dataclass
class DeltaSaving:
    switches: int
    delta_tokens: Stat  # the delta handoff's tokens at each switch
    full_tokens: Stat  # the full handoff's tokens at the same switches
    saving: Stat  # 1 - delta / full at each switch, in %


@dataclass
class BudgetQuality:
    runs: int
    budget: int
    tokens: int
    score: float
    omitted: int
    fidelity: float = 1.0


@dataclass
class Results:
    config: dict[str, Any]
    machine: dict[str, str]
    versions: dict[str, str]
    started: str
    steps: list[ScaleStep] = field(default_factory=list)
    windows: list[Window] = field(default_factory=list)
    reads: list[ReadProbe] = field(default_factory=list)
    rates: list[Rate] = field(default_factory=list)
    summary: Stat | None = None
    summary_items: int = 0
    delta_saving: DeltaSaving | None = None
    budget_quality: list[BudgetQuality] = field(default_factory=list)
    fidelity_rows: list[Row] = field(default_factory=list)  # bench/handoffs.py
    api_peak_rss_mb: float | None = None
    api_rss_mb: float | None = None
    measured_cycle_seconds: float = 0.0
    raw_cycle_seconds: float = 0.0
    duration_seconds: float = 0.0
    conformance: list[str] = field(default_factory=list)  # problems; empty = conforms
    conformance_notes: list[str] = field(default_factory=list)
    conformance_checked: bool = False
    integrity: list[str] = field(default_factory=list)  # failed checks; empty = all passed
    integrity_checked: int = 0
    notes: list[str] = field(default_factory=list)

    def missing(self) -> list[str]:
        """Figures the run should have produced and did not (the smoke test's assertion)."""
        absent: list[str] = []
        if not self.steps:
            absent.append("scale steps")
        for step in self.steps:
            if step.lineage is None or step.lineage_round_trips is None:
                absent.append(f"lineage at {step.label}")
            if step.coverage is None or step.coverage_round_trips is None:
                absent.append(f"coverage at {step.label}")
        ordinals = self.config.get("ordinals", ())
        if sorted(w.ordinal for w in self.windows) != sorted(ordinals):
            absent.append("cycle windows")
        if sorted(r.runs for r in self.reads) != sorted(self.config.get("read_ordinals", ())):
            absent.append("thread reads")
        one_process = sorted(r.concurrency for r in self.rates if r.api_processes == 1)
        if one_process != sorted(self.config.get("concurrency", ())):
            absent.append("throughput")
        if self.summary is None:
            absent.append("summary build time")
        if self.delta_saving is None or not self.budget_quality:
            absent.append("delta saving and quality at budgets")
        if not self.fidelity_rows:
            absent.append("fidelity beside the baselines")
        if self.api_peak_rss_mb is None:
            absent.append("API peak RSS")
        if not self.conformance_checked:
            absent.append("conformance check")
        return absent
