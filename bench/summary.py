"""Summary build time: `resolvers.handoffs.summarizer.summarize` over a 1,000-run thread.

The summarizer is a pure function of the runs' digests (what the service keeps when a run
ends), so it is timed on its own, on digests of `RunNode` models built from the same
content the other measurements use, with the providers' budget of 32,000 tokens.
"""

from __future__ import annotations

import random
import time
from datetime import UTC, datetime, timedelta

from bench import content
from bench.client import provider_at
from bench.results import Stat
from graph.models import CheckpointNode, FileDiffStat, RunItem, RunNode, RunStatus
from graph.ranges import Ranges
from resolvers.handoffs.digests import digest_of
from resolvers.handoffs.planning import runs_named
from resolvers.handoffs.summarizer import summarize

MAX_TOKENS = 32000


def runs(count: int, seed: int) -> list[RunNode]:
    rng = random.Random(f"{seed}:summary")
    began = datetime(2025, 6, 1, tzinfo=UTC)
    built: list[RunNode] = []
    for ordinal in range(1, count + 1):
        said = content.run_content(rng, ordinal, "summary")
        at = began + timedelta(minutes=ordinal)
        checkpoint = None
        if said.checkpoint is not None:
            checkpoint = CheckpointNode(
                id=f"ckp_{ordinal}",
                runId=f"run_{ordinal}",
                ref=said.checkpoint["ref"],
                diffSummary=[FileDiffStat(**stat) for stat in said.checkpoint["diffSummary"]],
                createdAt=at,
            )
        built.append(
            RunNode(
                id=f"run_{ordinal}",
                threadId="thr_summary",
                ordinal=ordinal,
                provider=provider_at(ordinal),
                status=RunStatus.COMPLETED,
                input=said.input,
                providerThreadId=f"pth_{provider_at(ordinal)}",
                startedAt=at,
                completedAt=at,
                items=[RunItem(**item) for item in said.items],
                checkpoint=checkpoint,
            )
        )
    return built


def time_summary(count: int, reps: int, seed: int) -> tuple[Stat, int]:
    """Percentiles of `reps` summaries of `count` runs, and how many items they hold."""
    built = runs(count, seed)
    history = [digest_of(run) for run in built]
    title = f"# Context handoff: {runs_named(Ranges.span(1, count))} of this thread"
    summarize(history, title=title, max_tokens=MAX_TOKENS)  # warm
    seconds: list[float] = []
    for _ in range(reps):
        began = time.perf_counter()
        summarize(history, title=title, max_tokens=MAX_TOKENS)
        seconds.append(time.perf_counter() - began)
    return Stat.of(seconds), sum(len(run.items) for run in built)
