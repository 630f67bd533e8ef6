"""The benchmark harness at its smallest scale (CI's smoke test): no timing is asserted.

It runs the generator at a tiny scale and one quick pass of every measurement against a
real `threadline serve` on the test Neo4j, then asserts that every figure was produced and
that the generated data is sound: it has the shapes the service writes, and the service
reads it back as generated (coverage of generated threads, lineage of the generated
20-deep family, every GraphQL answer equal to the raw query's rows).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench import report, subscriptions
from bench.config import Config
from bench.families import Shape, probe_family
from bench.measure import LINEAGE_DEPTH
from bench.runner import Target, run

pytestmark = pytest.mark.process  # starts processes of its own

TINY = Config(
    scales=(("tiny", 50),),
    shape=Shape(max_runs=30),
    ordinals=(5, 20),
    window=3,
    measured_threads=1,
    warmup_runs=2,
    read_ordinals=(1, 5, 20),
    read_samples=2,
    lineage_samples=2,
    concurrency=(1, 4),
    spread_concurrency=4,
    throughput_seconds=1.0,
    summary_runs=30,
    summary_reps=2,
    batch_rows=500,  # several transactions per statement
    workspace="bench-smoke",
    raw_workspace="bench-smoke-raw",
    reference_workspace="bench-smoke-ref",
)


async def test_every_figure_is_produced_on_sound_data(neo4j_uri: str, tmp_path: Path) -> None:
    password = os.environ.get("THREADLINE_TEST_NEO4J_PASSWORD")
    user = os.environ.get("THREADLINE_TEST_NEO4J_USER", "neo4j")
    target = Target(
        neo4j_uri=neo4j_uri, neo4j_auth=(user, password) if password else None, home=tmp_path
    )

    results = await run(TINY, target, log=lambda line: None)

    assert results.missing() == []
    assert results.conformance_checked and results.conformance == []
    assert results.integrity == [] and results.integrity_checked > 0
    probe = probe_family(TINY.seed, TINY.shape)
    step = results.steps[0]
    assert step.threads >= 50
    assert step.lineage_nodes == sum(1 for t in probe.threads if t.depth <= LINEAGE_DEPTH)
    assert all(window.round_trips["start"] > 0 for window in results.windows)
    assert all(rate.cycles > 0 and rate.raw_cycles > 0 for rate in results.rates)
    assert [rate.api_processes for rate in results.rates] == [1, 1, 2]
    assert all({"api", "harness"} <= set(rate.cpu_ms) for rate in results.rates)
    assert results.api_peak_rss_mb is not None and results.api_peak_rss_mb > 0
    text = report.render(results)
    for heading in ("## Targets", "## Data", "## Throughput", "## Checks"):
        assert heading in text


def test_python_m_bench_is_the_harness() -> None:
    answer = subprocess.run(
        [sys.executable, "-m", "bench", "--help"], capture_output=True, text=True, check=False
    )
    assert answer.returncode == 0
    assert "--scale" in answer.stdout


def test_every_subscriber_gets_every_event_once_in_order(neo4j_uri: str, tmp_path: Path) -> None:
    password = os.environ.get("THREADLINE_TEST_NEO4J_PASSWORD")
    user = os.environ.get("THREADLINE_TEST_NEO4J_USER", "neo4j")
    tiny = subscriptions.Outcome(subscribers=6, threads=2, duration_s=2.0, pace=10.0, poll_s=0.1)

    outcome = subscriptions.run(
        tmp_path, neo4j_uri, (user, password) if password else None, tiny, log=lambda line: None
    )

    delivery = outcome.delivery
    assert delivery is not None and delivery.errors == []
    assert delivery.complete == 6 and delivery.lost == 0 and delivery.duplicated == 0
    assert outcome.mutations > 0 and len(delivery.since_ack) > 0
    assert outcome.memory.idle > 0 and outcome.memory.connected > 0
    assert "## Targets" in subscriptions.render(outcome, "python -m bench subscriptions")


def test_python_m_bench_subscriptions_is_the_subscriptions_bench() -> None:
    answer = subprocess.run(
        [sys.executable, "-m", "bench", "subscriptions", "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert answer.returncode == 0
    assert "--subscribers" in answer.stdout
