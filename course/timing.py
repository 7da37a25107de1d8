"""An honest timer for code that may run asynchronously on a GPU.

A GPU call returns as soon as the work is *queued*, not when it is done, so
``time.perf_counter()`` around it measures almost nothing. :func:`benchmark`

1. runs the function a few times first (warm-up: CUDA context, kernel
   compilation, caches, memory pools);
2. synchronises the device before starting and before stopping the clock;
3. repeats the measurement and reports the median and the spread.

The CPU needs no synchronisation, but the same timer serves it, so CPU and GPU
numbers are measured the same way.
"""

from __future__ import annotations

import contextlib
import math
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any


def _waited(device: Any) -> None:
    """Tell a :class:`course.sync.SyncCounter` in use that the host waited: one
    synchronisation (a CPU's wait counts only where the counter plays a GPU)."""
    sync = sys.modules.get("course.sync")
    if sync is not None:
        on_cpu = isinstance(device, str) and device.split(":")[0] == "cpu"
        on_cpu = on_cpu or getattr(device, "type", None) == "cpu"
        sync.note_wait("synchronize", device_wait=not on_cpu)


def synchronize(device: Any = None) -> None:
    """Wait until every queued operation on ``device`` has finished.

    ``device`` may be a torch device or its name (``"cuda:0"``, ``"mps"``,
    ``"cpu"``), the string ``"cupy"`` (CuPy's current device), or any object
    with a ``synchronize()`` method (a ``cupy.cuda.Device`` or a stream).
    ``None`` and the CPU need no waiting.
    """
    if device is None:
        return
    _waited(device)
    sync_method = getattr(device, "synchronize", None)
    if callable(sync_method):
        sync_method()
        return
    if str(device) == "cupy":
        import cupy

        cupy.cuda.get_current_stream().synchronize()
        return
    torch = sys.modules.get("torch")
    if torch is None:
        import torch
    dev = torch.device(device)
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)
    elif dev.type == "mps":
        torch.mps.synchronize()


@dataclass(frozen=True)
class TimingResult:
    """Repeated timings of one piece of work, in seconds."""

    times: tuple[float, ...]
    device: str = "cpu"
    label: str = ""
    number: int = 1
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def median(self) -> float:
        """Median time of one call, in seconds."""
        return statistics.median(self.times)

    @property
    def quartiles(self) -> tuple[float, float]:
        """First and third quartiles of one call's time, in seconds (both the
        one time for a single run)."""
        if len(self.times) < 2:
            return self.times[0], self.times[0]
        q1, _, q3 = statistics.quantiles(self.times, n=4, method="inclusive")
        return q1, q3

    @property
    def spread(self) -> float:
        """Interquartile range of one call's time, in seconds (0 for < 2 runs)."""
        q1, q3 = self.quartiles
        return q3 - q1

    @property
    def best(self) -> float:
        """Fastest call, in seconds."""
        return min(self.times)

    def __str__(self) -> str:
        name = f"{self.label} " if self.label else ""
        return (
            f"{name}on {self.device}: median {format_seconds(self.median)}"
            f" (IQR {format_seconds(self.spread)}, {len(self.times)} runs)"
        )


def format_seconds(seconds: float) -> str:
    """Format a duration with a unit a person can read (ns, µs, ms, s)."""
    if seconds < 1e-6:
        return f"{seconds * 1e9:.0f} ns"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.3f} s"


def benchmark(
    fn: Callable[[], Any],
    device: Any = None,
    *,
    warmup: int = 2,
    repeat: int = 7,
    number: int = 1,
    label: str = "",
    clock: Callable[[], float] = time.perf_counter,
) -> TimingResult:
    """Time ``fn()`` honestly: warm up, synchronise, repeat, keep every run.

    Args:
        fn: the work to time, called with no arguments.
        device: where ``fn`` queues its work (see :func:`synchronize`).
        warmup: calls made before timing starts.
        repeat: timed runs; the median and spread are taken over these.
        number: calls per timed run (use more for very short work); each time
            reported is per call.
        label: a name shown when the result is printed.
        clock: the clock to read (replaceable in tests).

    Raises:
        ValueError: ``repeat`` or ``number`` is below 1, or ``warmup`` below 0.
    """
    if repeat < 1 or number < 1 or warmup < 0:
        raise ValueError("benchmark needs repeat >= 1, number >= 1 and warmup >= 0")
    for _ in range(warmup):
        fn()
    synchronize(device)
    times = []
    for _ in range(repeat):
        synchronize(device)
        start = clock()
        for _ in range(number):
            fn()
        synchronize(device)
        times.append((clock() - start) / number)
    return TimingResult(
        tuple(times), device=str(device or "cpu"), label=label, number=number
    )


#: Two-sided 95% quantiles of Student's t, by degrees of freedom (1-30); above
#: 30 the normal 1.96 is within 4%.
_T95 = tuple(
    float(t)
    for t in "12.71 4.30 3.18 2.78 2.57 2.45 2.36 2.31 2.26 2.23 2.20 2.18 2.16 2.14 "
    "2.13 2.12 2.11 2.10 2.09 2.09 2.08 2.07 2.07 2.06 2.06 2.06 2.05 2.05 2.05 "
    "2.04".split()
)


@dataclass(frozen=True)
class Ratio:
    """One variant against the baseline: the ratio of their times and its 95%
    confidence interval, from paired, interleaved runs."""

    name: str
    ratio: float
    low: float
    high: float
    rounds: int

    @property
    def clear(self) -> bool:
        """Whether the interval leaves out 1: a difference beyond noise."""
        return not self.low <= 1.0 <= self.high

    def __str__(self) -> str:
        if not self.clear:
            return (
                f"{self.name}: no difference beyond noise (ratio {self.ratio:.2f}, "
                f"95% interval {self.low:.2f}-{self.high:.2f}, {self.rounds} rounds)"
            )
        return (
            f"{self.name}: {self.ratio:.2f}x the time (95% interval "
            f"{self.low:.2f}-{self.high:.2f}, {self.rounds} rounds)"
        )


def _interval(logs: list[float]) -> tuple[float, float]:
    """Mean of ``logs`` and the half-width of its 95% interval."""
    n = len(logs)
    mean = statistics.fmean(logs)
    if n < 2:
        return mean, float("inf")
    t = _T95[n - 2] if n - 1 <= len(_T95) else 1.96
    return mean, t * statistics.stdev(logs) / n**0.5


@contextlib.contextmanager
def one_torch_thread() -> Iterator[None]:
    """Run torch on one thread inside the block (if torch is loaded): small
    operations on several threads time the thread pool more than the work, and
    a busy machine's other programs more than either."""
    torch = sys.modules.get("torch")
    if torch is None:
        yield
        return
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def compare(
    variants: dict[str, Callable[[], Any]],
    baseline: str,
    device: Any = None,
    *,
    within: float = 0.10,
    seconds: float = 20.0,
    min_rounds: int = 5,
    one_thread: bool = True,
    clock: Callable[[], float] = time.perf_counter,
) -> tuple[dict[str, TimingResult], list[Ratio]]:
    """Time variants against ``baseline`` so that a busy machine cannot fake a
    difference.

    Each round runs every variant once, in an order that alternates (A B C,
    then C B A, ...), so a slow phase of the machine (another program, a
    thermal limit) falls on all of them alike. Each variant's time is divided
    by the baseline's *in the same round*; rounds go on until every ratio's
    95% confidence interval is within ``within`` (±10%) of the ratio, or
    ``seconds`` have passed, whichever comes first (at least ``min_rounds``).
    A ratio whose interval holds 1 is reported as "no difference beyond noise".

    Args:
        variants: the work, by name; each called with no arguments.
        baseline: the name of the variant the others are held against.
        device: where the work is queued (see :func:`synchronize`).
        within: the relative half-width of interval to stop at.
        seconds: the time budget (the clock's seconds).
        min_rounds: rounds run whatever the budget says (at least 2).
        one_thread: run torch on one thread meanwhile (small operations on
            several threads time the thread pool more than the work).
        clock: the clock to read (replaceable in tests).

    Returns:
        Each variant's :class:`TimingResult` (one time per round) and a
        :class:`Ratio` for each variant but the baseline.

    Raises:
        ValueError: ``baseline`` is not a variant, or ``min_rounds`` < 2.
    """
    if baseline not in variants:
        raise ValueError(f"baseline {baseline!r} is not one of {sorted(variants)}")
    if min_rounds < 2:
        raise ValueError("compare needs min_rounds >= 2 (an interval needs two)")
    threads = one_torch_thread() if one_thread else contextlib.nullcontext()
    names = list(variants)
    times: dict[str, list[float]] = {name: [] for name in names}
    others = [n for n in names if n != baseline]
    with threads:
        for fn in variants.values():  # warm-up, once each
            fn()
        start = clock()
        while True:
            order = names if len(times[baseline]) % 2 == 0 else names[::-1]
            for name in order:
                synchronize(device)
                begin = clock()
                variants[name]()
                synchronize(device)
                times[name].append(clock() - begin)
            rounds = len(times[baseline])
            logs = {
                n: [math.log(a / b) for a, b in zip(times[n], times[baseline])]
                for n in others
            }
            widths = [_interval(v)[1] for v in logs.values()]
            narrow = all(math.exp(w) - 1 <= within for w in widths)
            if rounds >= min_rounds and (narrow or clock() - start >= seconds):
                break
    ratios = []
    for name in others:
        mean, width = _interval(logs[name])
        ratios.append(
            Ratio(
                name,
                math.exp(mean),
                math.exp(mean - width),
                math.exp(mean + width),
                rounds,
            )
        )
    where = str(device or "cpu")
    results = {
        n: TimingResult(tuple(t), device=where, label=n) for n, t in times.items()
    }
    return results, ratios
