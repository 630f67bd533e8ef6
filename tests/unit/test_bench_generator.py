"""The benchmark's family generator, without a database: shapes, determinism, the ladder."""

from __future__ import annotations

import random
import statistics

from bench import model
from bench.families import Shape, family, probe_family, runs_per_thread

SHAPE = Shape()


def test_a_family_is_the_same_at_every_scale_and_ids_follow_the_workspace() -> None:
    first, again = family(3, 7, SHAPE, "bench"), family(3, 7, SHAPE, "bench")
    elsewhere = family(3, 7, SHAPE, "other")
    assert [t.id for t in first.threads] == [t.id for t in again.threads]
    assert [len(t.runs) for t in first.threads] == [len(t.runs) for t in elsewhere.threads]
    assert {t.id for t in first.threads}.isdisjoint(t.id for t in elsewhere.threads)


def test_runs_per_thread_are_heavy_tailed_and_capped() -> None:
    rng = random.Random(1)
    draws = [runs_per_thread(rng, SHAPE) for _ in range(20_000)]
    assert min(draws) >= 1
    assert max(draws) == SHAPE.max_runs
    assert statistics.median(draws) <= 8
    assert sum(1 for n in draws if n >= 200) > 0


def test_the_probe_family_is_a_fork_chain_20_deep_with_a_subagent_on_every_level() -> None:
    probe = probe_family(7, SHAPE)
    forks = [t for t in probe.threads if t.relationship == "FORK"]
    subagents = [t for t in probe.threads if t.relationship == "SUBAGENT"]
    assert sorted(t.depth for t in forks) == list(range(1, 21))
    assert len(subagents) == 20
    assert probe.depth == 21
    assert len(probe.threads[0].runs) == 50


def test_families_hold_switches_forks_subagents_and_rollbacks() -> None:
    drawn = [family(i, 7, SHAPE) for i in range(400)]
    threads = [t for f in drawn for t in f.threads]
    statuses = {r.status for t in threads for r in t.runs}
    assert {"COMPLETED", "FAILED", "ROLLED_BACK"} <= statuses
    assert {t.relationship for t in threads} >= {None, "FORK", "SUBAGENT"}
    kinds = {x.type for f in drawn for x in f.transfers}
    assert kinds == {"FORK", "SUBAGENT_SPAWN", "SUBAGENT_RESULT", "MERGE_BACK"}
    strategies = {h.strategy for t in threads for h in t.handoffs}
    assert {"DELTA_SINCE_TARGET_LAST_SEEN", "FULL_THREAD_SUMMARY", "MANUAL_CONTEXT"} <= strategies
    assert any(pt.status == "STALE" for t in threads for pt in t.provider_threads)
    assert max(f.depth for f in drawn) >= 2


def test_the_provider_thread_of_the_latest_run_has_seen_the_whole_thread() -> None:
    """The ladder: a start hands over whatever the provider thread missed."""
    for index in range(300):
        for thread in family(index, 7, SHAPE).threads:
            history = [r for r in thread.runs if r.status in ("COMPLETED", "FAILED")]
            if not history:
                continue
            coverage = model.expected_coverage(thread)[history[-1].provider_thread_id]
            assert coverage["missingRunOrdinals"] == [], thread.id


def test_rows_carry_the_workspace_and_gapless_event_sequences() -> None:
    rows = model.Rows()
    for index in range(50):
        model.add_family(rows, family(index, 7, SHAPE), "bench")
    for name, data in rows.statements():
        for row in data:
            props = row.get("props", row)
            if name not in ("lineage", "provider_thread_forks", "events"):
                assert props["workspace"] == "bench", name
    threads = {row["props"]["id"]: row["props"] for row in rows.threads}
    for row in rows.events:
        seqs = [event["seq"] for event in row["events"]]
        assert seqs == list(range(1, len(seqs) + 1))
        assert threads[row["threadId"]]["eventSeq"] == len(seqs)


def test_the_large_family_shape_is_a_deep_uneven_tree() -> None:
    """`python -m bench family`: parents before children, depth at most 8, a few threads
    with many children, and the same tree for the same seed."""
    from bench.family import MAX_DEPTH, shape

    plan = shape(2000, 7)
    assert len(plan) == 2000 and plan == shape(2000, 7)
    assert all(p.parent is not None and p.parent < p.index for p in plan[1:])
    assert max(p.depth for p in plan) == MAX_DEPTH
    fan_out = [sum(1 for c in plan if c.parent == p.index) for p in plan]
    assert max(fan_out) >= 20 and statistics.median(fan_out) <= 1
    assert {p.kind for p in plan[1:]} == {"FORK", "SUBAGENT"}
    assert all(p.runs >= 1 for p in plan)
