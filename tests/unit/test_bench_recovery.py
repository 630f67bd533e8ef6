"""The recovery benchmark's verdict: the slowest round decides, against the target; an
answer "nothing was written" whose write committed misses its own target."""

from __future__ import annotations

from bench.recovery import TARGET_S, Audit, Round, table

CLEAN = Audit(said_unwritten=3, committed=0)


def test_the_slowest_round_of_readiness_and_probe_is_the_figure() -> None:
    rounds = [Round(0.02, 3.1, 9.0), Round(0.0, 4.0, None)]
    lines = table(rounds, CLEAN)
    assert "| 2 | 0.00 | 4.00 | - |" in lines
    slowest = next(line for line in lines if line.startswith("Slowest"))
    assert slowest.startswith(f"Slowest of readiness and probe: 4.00 s = {4.0 / TARGET_S:.2f} x")
    assert "(met)" in slowest and "median 9.00 s" in slowest


def test_one_slow_round_misses_the_target() -> None:
    lines = table([Round(0.0, 3.0, 4.0), Round(TARGET_S + 0.5, 1.0, 2.0)], CLEAN)
    assert any("(MISSED)" in line for line in lines if line.startswith("Slowest"))


def test_a_false_nothing_was_written_misses_the_audit() -> None:
    rounds = [Round(0.0, 1.0, 2.0)] * 5
    assert (
        "over 5 kills: 3, of which committed (a receipt in the graph): 0 (met"
        in table(rounds, CLEAN)[-1]
    )
    assert "MISSED" in table(rounds, Audit(said_unwritten=3, committed=1))[-1]
