"""``timer``: one large matmul timed without synchronising, with, and with the
copies in and out (Day 03's first lesson)."""

from __future__ import annotations

import time
from typing import Any

from autograder.measure.bench.core import (
    Experiment,
    Section,
    Settings,
    _torch,
    cuda_device,
    register,
)
from course.timing import TimingResult, synchronize

NAMES = ("naive", "synchronised", "with_copies")


def run(s: Settings, say: Any = None) -> Section:
    """One matmul: naive clock, synchronised clock, and with the copies."""
    torch = _torch()
    device = cuda_device() or torch.device("cpu")
    n = s.timer_size
    a_host = torch.randn(n, n)
    b_host = torch.randn(n, n)
    a, b = a_host.to(device), b_host.to(device)

    def naive() -> float:
        start = time.perf_counter()
        a @ b
        return time.perf_counter() - start

    def synchronised() -> float:
        synchronize(device)
        start = time.perf_counter()
        a @ b
        synchronize(device)
        return time.perf_counter() - start

    def with_copies() -> float:
        synchronize(device)
        start = time.perf_counter()
        (a_host.to(device) @ b_host.to(device)).cpu()
        return time.perf_counter() - start

    out: dict[str, Any] = {"status": "ok", "device": str(device), "size": n}
    for name, fn in (
        ("naive", naive),
        ("synchronised", synchronised),
        ("with_copies", with_copies),
    ):
        fn()
        synchronize(device)
        times = []
        for _ in range(max(s.repeat, 3)):
            times.append(fn())
            synchronize(device)  # the naive run's queued work must not leak on
        result = TimingResult(tuple(times), device=str(device))
        out[f"{name}_s"] = result.median
        out[f"{name}_spread_s"] = result.spread
    return out


def plot(section: Section, canvas: Any) -> None:
    fig, ax = canvas.figure(6, 3.5)
    ax.bar(NAMES, [section[f"{n}_s"] * 1e3 for n in NAMES], color="tab:blue")
    ax.set_ylabel("ms (median)")
    size = section["size"]
    ax.set_title(f"One {size}x{size} matmul on {section['device']}")
    canvas.finish(fig, "timer")


def summary(section: Section) -> list[str]:
    return [
        f"timer ({section['size']}^2 matmul, {section['device']}): naive "
        f"{section['naive_s'] * 1e3:.3f} ms, synchronised "
        f"{section['synchronised_s'] * 1e3:.3f} ms, with copies "
        f"{section['with_copies_s'] * 1e3:.3f} ms"
    ]


EXPERIMENT = register(
    Experiment("timer", "One matmul, three clocks", run, plot, summary)
)
