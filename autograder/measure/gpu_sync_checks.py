"""On a GPU: what each sync pattern and timer really does (``make gpu-check``)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from course.syncrules import patterns as _patterns
from course.timing import benchmark


def usable_cupy() -> Any:
    from course.devices import cupy_usable

    if not cupy_usable():
        return None
    import cupy

    return cupy


def cuda_device() -> Any:
    import torch

    return torch.device("cuda:0") if torch.cuda.is_available() else None


def sync_check(full: bool = True) -> dict[str, Any]:
    import torch

    from course.sync import SyncCounter

    device = cuda_device()
    if device is None:
        return {"skipped": "no CUDA device for torch"}
    rows = []
    for name, fn in _patterns(torch, device).items():
        fn()
        torch.cuda.synchronize()
        with SyncCounter() as counter:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                torch.cuda.set_sync_debug_mode("warn")
                try:
                    fn()
                finally:
                    torch.cuda.set_sync_debug_mode("default")
        rows.append(
            {
                "pattern": name,
                "sync_counter": counter.count,
                "torch_sync_warnings": sum(
                    "synchroniz" in str(w.message).lower() for w in caught
                ),
            }
        )
    return {"rows": rows}


# The course's timer against CUDA events and cupyx.profiler.benchmark.


def timer_check(full: bool = True) -> dict[str, Any]:
    import torch

    device = cuda_device()
    rows = []
    if device is not None:
        for n in (64, 1024, 4096):
            a = torch.randn(n, n, device=device)
            ours = benchmark(lambda a=a: a @ a, device, warmup=3, repeat=15)
            times = []
            for _ in range(3):
                a @ a
            for _ in range(15):
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
                a @ a
                end.record()
                end.synchronize()
                times.append(start.elapsed_time(end) / 1000)
            rows.append(
                {
                    "work": f"torch matmul {n}",
                    "course_median_s": ours.median,
                    "cuda_events_median_s": float(np.median(times)),
                }
            )
    cp = usable_cupy()
    if cp is not None:
        from cupyx.profiler import benchmark as cupy_benchmark

        for n in (64, 1024, 4096):
            a = cp.ones((n, n), dtype=cp.float32)
            ours = benchmark(lambda a=a: a @ a, "cupy", warmup=3, repeat=15)
            theirs = cupy_benchmark(lambda a=a: a @ a, n_repeat=15, n_warmup=3)
            rows.append(
                {
                    "work": f"cupy matmul {n}",
                    "course_median_s": ours.median,
                    "cupyx_gpu_median_s": float(np.median(theirs.gpu_times)),
                    "cupyx_cpu_median_s": float(np.median(theirs.cpu_times)),
                }
            )
    if not rows:
        return {"skipped": "no GPU"}
    return {"rows": rows}
