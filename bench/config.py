"""What a run generates and measures: presets for --scale and --quick, or any Config."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from bench.families import Shape

SCALES = {"1k": 1_000, "10k": 10_000, "100k": 100_000}


@dataclass(frozen=True)
class Config:
    # The graph grows through these steps (label, generated threads in total); lineage and
    # coverage are measured at each, everything else at the last.
    scales: tuple[tuple[str, int], ...]
    seed: int = 7
    shape: Shape = field(default_factory=Shape)
    # startRun/attach/complete are timed over the `window` runs ending at each ordinal, on
    # `measured_threads` threads built through the service, and beside raw-driver threads.
    ordinals: tuple[int, ...] = (20, 200, 1000)
    window: int = 10
    measured_threads: int = 5
    warmup_runs: int = 25  # untimed cycles on one service and one raw thread first
    # The thread read, after these runs of every measured thread.
    read_ordinals: tuple[int, ...] = (1, 20, 200, 1000)
    read_samples: int = 20
    lineage_samples: int = 50
    concurrency: tuple[int, ...] = (1, 8, 32)
    # Throughput again at this concurrency with the clients spread over several API
    # processes on the one Neo4j (when the harness starts the API itself); 1: not measured.
    api_processes: int = 2
    spread_concurrency: int = 8
    throughput_seconds: float = 30.0
    summary_runs: int = 1000
    summary_reps: int = 20
    batch_rows: int = 5000
    workspace: str = "bench"  # generated and measured data
    raw_workspace: str = "bench-raw"  # the raw driver's own threads
    reference_workspace: str = "bench-ref"  # written by the service, for the conformance check

    @property
    def label(self) -> str:
        return self.scales[-1][0]

    def describe(self) -> dict[str, Any]:
        values = asdict(self)
        values["shape"] = asdict(self.shape)
        return values


def preset(scale: str, quick: bool = False) -> Config:
    """Every standard step up to `scale` (so one run reports 1k → `scale` ratios)."""
    if scale not in SCALES:
        raise ValueError(f"scale must be one of {', '.join(SCALES)}")
    steps = tuple((label, n) for label, n in SCALES.items() if n <= SCALES[scale])
    if not quick:
        return Config(scales=steps)
    return Config(
        scales=steps,
        measured_threads=1,
        read_samples=5,
        lineage_samples=10,
        throughput_seconds=5.0,
        summary_reps=5,
    )
