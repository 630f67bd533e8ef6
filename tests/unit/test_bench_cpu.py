"""bench/cpu.py: the CPU a process spends, as the throughput table reports it."""

from __future__ import annotations

import os

from bench.cpu import HARNESS, CpuMeter, cpu_seconds


def _spin(seconds: float) -> None:
    began = os.times().user
    while os.times().user - began < seconds:
        pass


def test_a_process_s_cpu_is_read_and_a_gone_one_is_absent() -> None:
    first = cpu_seconds(os.getpid())
    _spin(0.05)
    later = cpu_seconds(os.getpid())
    assert first is not None and later is not None and later > first
    assert cpu_seconds(2**22 + 12345) is None  # above any pid_max default: no such process


def test_the_meter_divides_each_group_s_cpu_by_the_count() -> None:
    meter = CpuMeter({"self": [os.getpid()], "unknown": []})
    meter.start()
    _spin(0.05)
    per = meter.per(10)
    assert set(per) == {"self", HARNESS}  # a group without pids is absent, not zero
    assert per["self"] >= 0 and per[HARNESS] >= 4  # at least 50 ms over 10
