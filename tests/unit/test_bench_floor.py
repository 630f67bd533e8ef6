"""bench/floor.py: the floor of a cycle's API CPU, and what is left to the service."""

from __future__ import annotations

import asyncio

import pytest

from bench import floor
from bench.floor import Round

pytestmark = pytest.mark.bench


def test_the_floor_is_three_requests_and_three_transactions() -> None:
    measured = Round(request_ms=0.5, transaction_ms=1.0, cycle_ms=10.0)
    assert measured.floor_ms == pytest.approx(4.5)
    assert measured.row(2) == "| 2 | 0.50 | 1.00 | 4.50 | 10.00 | 5.50 |"


def test_the_median_row_takes_each_column_s_median() -> None:
    rounds = [Round(0.4, 1.2, 9.0), Round(0.6, 0.8, 12.0), Round(0.5, 1.0, 10.0)]
    assert floor._median_row(rounds) == "| median | 0.50 | 1.00 | 4.50 | 10.00 | 5.50 |"


def test_a_failed_call_fails_the_figure() -> None:
    async def failing() -> None:
        raise floor.BenchError("refused")

    meter = floor.CpuMeter({})
    with pytest.raises(floor.BenchError, match="calls failed"):
        asyncio.run(floor._per_call(meter, floor.HARNESS, failing, 2, 0.05))
