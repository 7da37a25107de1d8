"""On a GPU: what each sync pattern and timer really does (``make gpu-check``)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

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


def _patterns(torch: Any, device: Any) -> dict[str, Callable[[], Any]]:
    """One call per rule of :data:`course.syncrules.RULES`, by its pattern
    name. On a CPU (the simulated GPU replays them) the patterns that need
    CUDA (pinned memory, ``.cuda()``, ``torch.cuda.synchronize``) are left out."""
    t = torch.arange(1000, device=device, dtype=torch.float32)
    ints = torch.arange(10, device=device) % 3
    into = torch.empty(1000, device=device)
    found = {
        "item": lambda: t.sum().item(),
        "float": lambda: float(t.sum()),
        "int": lambda: int(t.sum()),
        "cpu": lambda: t.cpu(),
        "to_cpu": lambda: t.to("cpu"),
        "copy_home": lambda: torch.ones(1000).copy_(t),
        "tolist": lambda: t[:3].tolist(),
        "print_repr": lambda: repr(t[:3]),
        "format": lambda: f"{t.sum():.2f}",
        "contains": lambda: 3.0 in t,
        "equal": lambda: torch.equal(t, t),
        "allclose": lambda: torch.allclose(t, t),
        "is_nonzero": lambda: torch.is_nonzero(t.sum()),
        "if_tensor": lambda: bool(t.sum() > 0),
        "bool_mask_index": lambda: t[t > 500],
        "bool_mask_write": lambda: t.clone().__setitem__(t > 500, 0.0),
        "nonzero": lambda: torch.nonzero(t > 500),
        "argwhere": lambda: torch.argwhere(t > 500),
        "where_one_arg": lambda: torch.where(t > 500),
        "masked_select": lambda: torch.masked_select(t, t > 500),
        "unique": lambda: torch.unique(ints),
        "unique_consecutive": lambda: torch.unique_consecutive(ints),
        "repeat_interleave": lambda: torch.repeat_interleave(ints, ints),
        "bincount": lambda: torch.bincount(ints),
        "to_cpu_nonblocking": lambda: t.to("cpu", non_blocking=True),
        "device_only_math": lambda: (t * 2).sum(),
        "where_three_args": lambda: torch.where(t > 500, t, 0.0),
        "masked_fill": lambda: t.masked_fill(t > 500, 0.0),
        "pageable_h2d": lambda: torch.ones(1000).to(device),
        "nonblocking_h2d": lambda: torch.ones(1000).to(device, non_blocking=True),
        "copy_upload": lambda: into.copy_(torch.ones(1000)),
        "tensor_on_device": lambda: torch.tensor([1.0, 2.0], device=device),
        "as_tensor_on_device": lambda: torch.as_tensor([1.0, 2.0], device=device),
    }
    if device.type == "cuda":
        found["pinned_h2d"] = lambda: torch.ones(1000).pin_memory().to(device)
        found["cuda_method"] = lambda: torch.ones(1000).cuda()
        found["synchronize"] = torch.cuda.synchronize
    return found


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
