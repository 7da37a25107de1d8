"""Days 09 and 10 on a GPU: what ``make gpu-check ONLY=09,10`` records.

Extras of :mod:`autograder.measure.gpu_extras`, each skipped with its reason
where there is no GPU:

``numba_launch``    one empty numba kernel: µs per launch, synchronised once per
                    batch and after each (the cost model has no recorded figure
                    for it: ``numba_us`` is assumed equal to CuPy's);
``day09_kernels``   Day 09's kernels on the device (SAXPY, the block sum, the
                    fused gradient with atomics) against the CuPy array chain;
``cupy_kernels``    CuPy's ``ElementwiseKernel``, ``RawKernel`` and ``fuse``
                    on SAXPY, with ``cupyx.profiler.benchmark``;
``day10_memory``    ``torch.cuda.max_memory_allocated`` over one training step
                    against Day 10's ``peak_training_bytes``;
``day10_launches``  CUDA kernels per training step under PyTorch's profiler,
                    against the launches ``course.gpumodel.trace`` counts.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

from autograder.measure.gpu_sync_checks import cuda_device, usable_cupy

SIZES = {True: (10**6, 10**7), False: (10**5,)}
"""Array lengths by ``full``; the fused gradient's rows and features below."""
GRADIENT = (100_000, 5)
REPEAT = 7  # timed runs per figure (the median is kept)


ALLOW_SIMULATOR = False
"""Whether numba's CUDA simulator may stand in for a GPU (the tests' dry run
only: its timings mean nothing, and full sizes take hours)."""


def _numba_cuda() -> Any:
    """numba's ``cuda`` module on a real GPU, else None."""
    try:
        from numba import config, cuda

        if config.ENABLE_CUDASIM and not ALLOW_SIMULATOR:
            return None
        return cuda if cuda.is_available() else None
    except Exception:  # noqa: BLE001 - numba-cuda missing or no driver
        return None


def _median_s(fn: Callable[[], Any], sync: Callable[[], Any], repeat: int) -> float:
    fn()
    sync()
    times = []
    for _ in range(repeat):
        sync()
        start = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def numba_launch(full: bool) -> dict[str, Any]:
    cuda = _numba_cuda()
    if cuda is None:
        return {"skipped": "no CUDA device for numba (or its simulator is on)"}

    @cuda.jit
    def empty(x):  # noqa: ARG001 - the launch is what is timed
        pass

    x = cuda.device_array(1)
    n = 1000 if full else 100

    def once() -> None:
        for _ in range(n):
            empty[1, 1](x)

    def each() -> None:
        for _ in range(n):
            empty[1, 1](x)
            cuda.synchronize()

    rows = [
        {
            "mode": mode,
            "launches": n,
            "us_per_launch": _median_s(fn, cuda.synchronize, REPEAT) / n * 1e6,
        }
        for mode, fn in (("sync_once", once), ("sync_each", each))
    ]
    return {"rows": rows}


def day09_kernels(full: bool) -> dict[str, Any]:
    cuda, cp = _numba_cuda(), usable_cupy()
    if cuda is None:
        return {"skipped": "no CUDA device for numba"}
    import numpy as np

    from autograder.lessons.code import lesson_namespace

    lesson = lesson_namespace("09_kernels")
    rng = np.random.default_rng(0)
    rows = []
    for n in SIZES[full]:
        rows += _saxpy_and_sum(cuda, lesson, rng.standard_normal((2, n), np.float32))
    n, d = GRADIENT
    X = rng.standard_normal((n, d))
    yv, w = rng.standard_normal(n), rng.standard_normal(d)
    Xd, yd, wd = cuda.to_device(X), cuda.to_device(yv), cuda.to_device(w)
    dw, db = cuda.device_array(d), cuda.device_array(1)
    blocks, threads = lesson["launch_config"](n, 256)

    def fused() -> None:
        dw[:] = 0.0
        db[:] = 0.0
        lesson["fused_gradient_kernel"][blocks, threads](Xd, yd, wd, 0.5, dw, db)

    rows.append(
        {
            "kernel": "fused_gradient_kernel (atomics)",
            "n": n,
            "d": d,
            "median_s": _median_s(fused, cuda.synchronize, REPEAT),
        }
    )
    if cp is not None:
        Xc, yc, wc = cp.asarray(X), cp.asarray(yv), cp.asarray(w)
        sync = cp.cuda.get_current_stream().synchronize
        rows.append(
            {
                "kernel": "CuPy array chain (numpy_gradient)",
                "n": n,
                "d": d,
                "median_s": _median_s(
                    lambda: lesson["numpy_gradient"](Xc, yc, wc, 0.5), sync, REPEAT
                ),
            }
        )
    return {"rows": rows}


def _saxpy_and_sum(cuda: Any, lesson: dict[str, Any], data: Any) -> list[dict]:
    """Day 09's SAXPY kernel and block sum on ``data``'s two rows."""
    import numpy as np

    n = data.shape[1]
    x, y = cuda.to_device(data[0]), cuda.to_device(data[1])
    out = cuda.device_array_like(x)
    blocks, threads = lesson["launch_config"](n)
    kernel = lesson["saxpy_kernel"][blocks, threads]
    seconds = _median_s(
        lambda: kernel(np.float32(2), x, y, out), cuda.synchronize, REPEAT
    )
    total = _median_s(lambda: lesson["reduce_sum"](x), cuda.synchronize, REPEAT)
    return [
        {
            "kernel": "saxpy_kernel",
            "n": n,
            "median_s": seconds,
            "gbps": 3 * 4 * n / seconds / 1e9,
        },
        {"kernel": "reduce_sum", "n": n, "median_s": total},
    ]


def _cupy_ways(cp: Any, kernels: tuple[Any, Any, Any], n: int) -> dict[str, Any]:
    """SAXPY four ways on ``n`` numbers: each a function of no arguments."""
    saxpy_ew, saxpy_raw, saxpy_fused = kernels
    x = cp.random.standard_normal(n, dtype=cp.float32)
    y = cp.random.standard_normal(n, dtype=cp.float32)
    out = cp.empty_like(x)
    a = cp.float32(2)
    grid = ((n + 255) // 256,)
    return {
        "ElementwiseKernel": lambda: saxpy_ew(a, x, y, out),
        "RawKernel": lambda: saxpy_raw(grid, (256,), (a, x, y, out, cp.int64(n))),
        "fuse": lambda: saxpy_fused(a, x, y),
        "array expression": lambda: a * x + y,
    }


def cupy_kernels(full: bool) -> dict[str, Any]:
    cp = usable_cupy()
    if cp is None:
        return {"skipped": "CuPy cannot use a GPU here"}
    from cupyx.profiler import benchmark

    saxpy_ew = cp.ElementwiseKernel(
        "T a, T x, T y", "T out", "out = a * x + y", "saxpy_ew"
    )
    saxpy_raw = cp.RawKernel(
        r"""
extern "C" __global__ void saxpy_raw(float a, const float* x, const float* y,
                                     float* out, long long n) {
    for (long long i = blockDim.x * blockIdx.x + threadIdx.x; i < n;
         i += (long long)blockDim.x * gridDim.x) out[i] = a * x[i] + y[i];
}""",
        "saxpy_raw",
    )

    # a named function: fuse names its kernel after it, and "<lambda>" does not
    # compile (NVRTC: "expected an identifier")
    def saxpy_fused(a, x, y):
        return a * x + y

    saxpy_fused = cp.fuse(saxpy_fused)
    rows = []
    for n in SIZES[full]:
        ways = _cupy_ways(cp, (saxpy_ew, saxpy_raw, saxpy_fused), n)
        for name, fn in ways.items():
            timing = benchmark(fn, n_repeat=50 if full else 10, n_warmup=3)
            rows.append(
                {
                    "way": name,
                    "n": n,
                    "gpu_median_s": float(statistics.median(timing.gpu_times[0])),
                    "cpu_median_s": float(statistics.median(timing.cpu_times)),
                }
            )
    return {"rows": rows}


def day10_memory(full: bool) -> dict[str, Any]:
    gpu = cuda_device()
    if gpu is None:
        return {"skipped": "no CUDA device for torch"}
    import torch

    from autograder.lessons.code import lesson_namespace

    lesson = lesson_namespace("10_launches")
    rows = []
    for name, make in (
        ("SGD", lambda p: torch.optim.SGD(p, lr=0.01, momentum=0.9)),
        ("Adam", lambda p: torch.optim.Adam(p, lr=0.001)),
    ):
        for batch in (256, 4096) if full else (256,):
            model = lesson["make_mlp"]((5, 64, 64, 1))
            X = torch.randn(batch, 5)
            counted = lesson["peak_training_bytes"](model, X, torch.float32, make)
            torch.cuda.synchronize(gpu)
            torch.cuda.empty_cache()
            before = torch.cuda.memory_allocated(gpu)
            torch.cuda.reset_peak_memory_stats(gpu)
            on_gpu = model.to(gpu)
            optimizer = make(on_gpu.parameters())
            on_gpu(X.to(gpu)).sum().backward()
            optimizer.step()
            torch.cuda.synchronize(gpu)
            peak = torch.cuda.max_memory_allocated(gpu) - before
            rows.append(
                {
                    "optimizer": name,
                    "batch": batch,
                    "dtype": "float32",
                    "peak_training_bytes": int(counted),
                    "max_memory_allocated": int(peak),
                    "ratio": peak / counted if counted else None,
                }
            )
            del on_gpu, optimizer
    return {"rows": rows}


def day10_launches(full: bool) -> dict[str, Any]:
    gpu = cuda_device()
    if gpu is None:
        return {"skipped": "no CUDA device for torch"}
    import torch
    from torch.profiler import ProfilerActivity, profile

    from autograder.lessons.code import lesson_namespace
    from course import gpumodel

    lesson = lesson_namespace("10_launches")
    rows = []
    for step_name in ("naive_step", "train_step"):
        model = lesson["make_mlp"]()
        optimizer = lesson["make_optimizer"](model)
        X, y = torch.randn(256, 5), torch.randn(256, 1)

        def step(m=model, o=optimizer, X=X, y=y, name=step_name) -> Any:
            if name == "naive_step":
                return lesson["naive_step"](m, X, y)
            return lesson["train_step"](m, o, X, y)

        counted = gpumodel.trace(step).launches
        model.to(gpu)
        optimizer = lesson["make_optimizer"](model)
        X, y = X.to(gpu), y.to(gpu)
        for _ in range(3):  # warm up: kernels loaded, optimizer state made
            step(model, optimizer, X, y)
        torch.cuda.synchronize(gpu)
        steps = 10
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            for _ in range(steps):
                step(model, optimizer, X, y)
            torch.cuda.synchronize(gpu)
        kernels = sum(
            1
            for e in prof.events()
            if str(e.device_type).endswith("CUDA")
            and "memcpy" not in e.name.lower()
            and "memset" not in e.name.lower()
        )
        rows.append(
            {
                "step": step_name,
                "traced_launches": counted,
                "cuda_kernels_per_step": kernels / steps,
            }
        )
    return {"rows": rows}


EXTRAS: dict[str, Callable[[bool], dict[str, Any]]] = {
    "numba_launch": numba_launch,
    "day09_kernels": day09_kernels,
    "cupy_kernels": cupy_kernels,
    "day10_memory": day10_memory,
    "day10_launches": day10_launches,
}
"""The extras of Days 09 and 10, in the order they run."""
