"""course.timing: the honest timer warms up, synchronises and repeats."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from course.simulate import FakeGPU, simulate_hardware
from course.timing import TimingResult, benchmark, format_seconds, synchronize


class RecordingDevice:
    """A device stand-in that records every synchronize() call."""

    def __init__(self, log):
        self.log = log

    def synchronize(self):
        self.log.append("sync")


def test_benchmark_synchronises_around_every_timed_run():
    log = []
    ticks = itertools.count()
    result = benchmark(
        lambda: log.append("call"),
        RecordingDevice(log),
        warmup=2,
        repeat=3,
        clock=lambda: float(next(ticks)),
    )
    assert log[:2] == ["call", "call"]  # warm-up first
    timed = log[3:]
    # each timed run: sync, (clock), call, sync, (clock)
    assert timed == ["sync", "call", "sync"] * 3
    assert result.times == (1.0, 1.0, 1.0)


def test_benchmark_divides_by_number_of_calls():
    ticks = iter([0.0, 10.0, 10.0, 30.0])
    result = benchmark(
        lambda: None, warmup=0, repeat=2, number=5, clock=lambda: next(ticks)
    )
    assert result.times == pytest.approx((2.0, 4.0), rel=1e-12)
    assert result.median == pytest.approx(3.0, rel=1e-12)
    assert result.best == pytest.approx(2.0, rel=1e-12)


def test_median_and_spread():
    result = TimingResult((1.0, 2.0, 3.0, 4.0, 100.0))
    assert result.median == pytest.approx(3.0)
    assert result.spread == pytest.approx(2.0)  # IQR: 4 - 2
    assert TimingResult((5.0,)).spread == 0.0
    assert "median 3.000 s" in str(result)


@pytest.mark.parametrize("kwargs", [{"repeat": 0}, {"number": 0}, {"warmup": -1}])
def test_benchmark_rejects_nonsense(kwargs):
    with pytest.raises(ValueError):
        benchmark(lambda: None, **kwargs)


def test_synchronize_uses_torch_cuda_for_cuda_devices():
    with simulate_hardware(gpus=[FakeGPU(), FakeGPU()]) as hw:
        synchronize("cuda:1")
        synchronize("cpu")
        synchronize(None)
    assert hw.synchronize_calls == [1]


def test_benchmark_measures_real_work():
    result = benchmark(lambda: sum(range(1000)), repeat=5)
    assert len(result.times) == 5
    assert all(t > 0 for t in result.times)


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(2e-9, "2 ns"), (3.5e-6, "3.5 µs"), (0.0123, "12.30 ms"), (2.5, "2.500 s")],
)
def test_format_seconds(seconds, text):
    assert format_seconds(seconds) == text


@given(st.lists(st.floats(1e-9, 1e3), min_size=1, max_size=50))
def test_median_lies_within_the_runs_and_spread_is_not_negative(times):
    result = TimingResult(tuple(times))
    assert min(times) <= result.median <= max(times)
    assert result.spread >= 0.0
    assert result.best == min(times)
