"""The recovery benchmark's verdict: the slowest round decides, against the target."""

from __future__ import annotations

from bench.recovery import TARGET_S, Round, table


def test_the_slowest_round_of_readiness_and_probe_is_the_figure() -> None:
    rounds = [Round(0.02, 3.1, 9.0), Round(0.0, 4.0, None)]
    lines = table(rounds)
    assert "| 2 | 0.00 | 4.00 | - |" in lines
    assert lines[-1].startswith(f"Slowest of readiness and probe: 4.00 s = {4.0 / TARGET_S:.2f} x")
    assert "(met)" in lines[-1] and "median 9.00 s" in lines[-1]


def test_one_slow_round_misses_the_target() -> None:
    lines = table([Round(0.0, 3.0, 4.0), Round(TARGET_S + 0.5, 1.0, 2.0)])
    assert "(MISSED)" in lines[-1]
