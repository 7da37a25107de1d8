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

import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


def synchronize(device: Any = None) -> None:
    """Wait until every queued operation on ``device`` has finished.

    ``device`` may be a torch device or its name (``"cuda:0"``, ``"mps"``,
    ``"cpu"``), the string ``"cupy"`` (CuPy's current device), or any object
    with a ``synchronize()`` method (a ``cupy.cuda.Device`` or a stream).
    ``None`` and the CPU need no waiting.
    """
    if device is None:
        return
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
