"""course.timing: the honest timer warms up, synchronises and repeats."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from course.simulate import FakeGPU, simulate_hardware
from course.timing import (
    TimingResult,
    benchmark,
    compare,
    format_seconds,
    synchronize,
)


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


class BusyLaptop:
    """A seeded synthetic clock: each call of a variant advances it by the
    variant's own cost, times a jitter of its own and, in slow phases (another
    program busy: ``block`` calls slow, ``block`` calls not), ``slow``."""

    def __init__(self, seed: int, jitter: float = 0.25, slow: float = 2.0, block=12):
        import random

        self.now, self.calls, self.block = 0.0, 0, block
        self.random, self.jitter, self.slow = random.Random(seed), jitter, slow

    def __call__(self) -> float:
        return self.now

    def work(self, cost: float):
        def run():
            phase = self.slow if (self.calls // self.block) % 2 else 1.0
            self.calls += 1
            self.now += cost * phase * math.exp(self.random.gauss(0, self.jitter))

        return run


def test_compare_rarely_sees_a_difference_between_equal_variants():
    """95% intervals: about 1 comparison in 20 of equal work looks different by
    chance; on a machine with slow phases, no more than 1 in 10."""
    told = []
    for seed in range(40):
        clock = BusyLaptop(seed)
        variants = {"A": clock.work(1e-3), "B": clock.work(1e-3)}
        _, (ratio,) = compare(variants, "A", clock=clock, seconds=2.0)
        told.append(ratio.clear)
        assert 0.8 < ratio.ratio < 1.25, ratio
    assert sum(told) <= 4, f"{sum(told)} of 40 equal pairs reported as different"
    quiet = BusyLaptop(0, slow=1.0)
    _, (ratio,) = compare({"A": quiet.work(1), "B": quiet.work(1)}, "A", clock=quiet)
    assert "no difference beyond noise" in str(ratio)


@pytest.mark.parametrize("seed", range(5))
def test_compare_measures_a_real_difference_within_ten_percent(seed):
    clock = BusyLaptop(seed)
    variants = {"base": clock.work(1e-3), "slow": clock.work(1.5e-3)}
    results, (ratio,) = compare(variants, "base", clock=clock, seconds=60.0)
    assert ratio.clear and ratio.ratio == pytest.approx(1.5, rel=0.1)
    assert ratio.low <= 1.5 <= ratio.high
    assert ratio.high / ratio.ratio - 1 <= 0.10 + 1e-9  # it stopped when narrow
    assert len(results["base"].times) == len(results["slow"].times) == ratio.rounds


def test_interleaving_cancels_a_slow_phase_that_fools_one_after_the_other():
    """Sequential timing (all of A, then all of B) puts B in the slow phase and
    reports a difference that is not there; interleaved rounds do not."""
    clock = BusyLaptop(0, jitter=0.05, slow=3.0)
    work = clock.work(1e-3)
    first = benchmark(work, repeat=10, clock=clock).median
    second = benchmark(work, repeat=10, clock=clock).median
    assert abs(second / first - 1) > 0.3  # the trap: the same work, "different"
    _, (ratio,) = compare({"A": work, "B": work}, "A", clock=clock, seconds=5.0)
    assert not ratio.clear and abs(ratio.ratio - 1) < 0.1


def test_compare_stops_at_its_time_budget_and_says_what_it_could_tell():
    clock = BusyLaptop(1, jitter=1.0)  # so noisy that ±10% never comes
    variants = {"A": clock.work(1.0), "B": clock.work(1.0)}
    results, (ratio,) = compare(variants, "A", clock=clock, seconds=30.0)
    assert 30.0 <= clock.now < 30.0 + 2 * 3 * 15  # one round past the budget at most
    assert ratio.rounds >= 5 and not ratio.clear


def test_compare_runs_torch_on_one_thread_and_gives_the_threads_back():
    import torch

    before = torch.get_num_threads()
    seen = []
    compare(
        {"A": lambda: seen.append(torch.get_num_threads()), "B": lambda: None},
        "A",
        min_rounds=2,
        seconds=0.0,
    )
    assert set(seen) == {1} and torch.get_num_threads() == before


def test_compare_rejects_an_unknown_baseline_with_the_names_it_has():
    with pytest.raises(ValueError, match="'X' is not one of"):
        compare({"A": lambda: None}, "X")


def test_one_torch_thread_holds_torch_to_one_thread_and_restores_it():
    import torch

    from course.timing import one_torch_thread

    before = torch.get_num_threads()
    with one_torch_thread():
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before
    with pytest.raises(RuntimeError), one_torch_thread():
        raise RuntimeError("restored even so")
    assert torch.get_num_threads() == before
