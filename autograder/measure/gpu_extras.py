"""Measurements beyond ``course bench`` that only mean something on a GPU.

``course gpu-check`` runs these after the bench and writes them to
``extras.json``. Each experiment is independent: one that fails records its
error and the others still run. On a machine without a GPU each says why it
was skipped (the seed loops still time their NumPy side).

``seed_copies``   seed 000's story: a NumPy MLP ported to CuPy by changing the
                  import, with the data copied host-to-device and the error
                  vector copied device-to-host and back every epoch, against the
                  fixed port (data uploaded once, no per-epoch error, one
                  synchronise at the end), against NumPy; time per epoch.
``seed_iris``     seed 004's Iris loop exactly as published (4-10-3 MLP, SGD
                  lr 0.01, 20,000 epochs, ``.item()`` every 200 epochs), plus
                  the same loop reading every epoch and never; whole-run time
                  with a synchronise (the seed timed without one: 18.55 s on an
                  RTX 3050 Laptop).
``precision``     matmul throughput in float32 and float64 (CuPy and torch).
``sync_check``    ``SyncCounter`` against ``torch.cuda.set_sync_debug_mode``:
                  for each pattern, what each of them counts.
``timer_check``   ``course.timing.benchmark`` against CUDA events and
                  ``cupyx.profiler.benchmark`` on the same work.

Days 09 and 10 (:mod:`autograder.measure.gpu_kernels`): ``numba_launch``,
``day09_kernels``, ``cupy_kernels``, ``day10_memory``, ``day10_launches``.

``confined_gpu``  torch, its profiler, CuPy and numba-cuda on the GPU from a
                  child confined exactly as a grading kernel is
                  (:mod:`autograder.measure.gpu_confined`).

``host_costs``    the cost model's host inputs on this box's CPU: each loop
                  timed quietly at a tiny size (``autograder.measure.host_costs``).

``course gpu-check`` then checks the cost model against the whole run
(``course model-check``, :mod:`autograder.measure.model_check`).
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable
from typing import Any

import numpy as np

from autograder.measure.gpu_confined import confined_gpu
from autograder.measure.gpu_kernels import EXTRAS as KERNEL_EXTRAS
from autograder.measure.gpu_model_check import seed_iris
from autograder.measure.gpu_sync_checks import (
    cuda_device,
    sync_check,
    timer_check,
    usable_cupy,
)
from course.timing import benchmark


def _timing(result: Any) -> dict[str, float]:
    times = sorted(result.times)
    return {
        "median_s": result.median,
        "q1_s": times[len(times) // 4],
        "q3_s": times[(3 * len(times)) // 4],
        "repeat": len(times),
    }


# seed 000: the copies in the loop.


def _mlp_data(n: int, features: int, hidden: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, features))
    y = (X[:, :1] * 2 + np.sin(X[:, 1:2]) + rng.normal(0, 0.1, (n, 1))).astype(float)
    w1 = rng.normal(0, 0.1, (features, hidden))
    w2 = rng.normal(0, 0.1, (hidden, 1))
    return X, y, w1, w2


def _mlp_loop(xp: Any, epochs: int, X, y, w1, w2, *, copies: bool) -> Callable[[], Any]:
    """``epochs`` of full-batch gradient descent on a one-hidden-layer MLP.

    ``copies``: the naive port. Every epoch uploads X and y again, brings the
    error vector back to compute and print-style log the error on the host, and
    sends it back for the backward pass; the host waits every epoch.
    """
    to_dev = xp.asarray
    to_host = getattr(xp, "asnumpy", np.asarray)

    def run() -> Any:
        a, b = to_dev(w1.copy()), to_dev(w2.copy())
        Xd, yd = to_dev(X), to_dev(y)
        errors = []
        for _ in range(epochs):
            if copies:
                Xd, yd = to_dev(X), to_dev(y)
            h = xp.tanh(Xd @ a)
            err = h @ b - yd
            if copies:
                err_host = to_host(err)
                errors.append(float(np.mean(err_host**2)))
                err = to_dev(err_host)
            gb = h.T @ err / len(X)
            gh = (err @ b.T) * (1 - h**2)
            ga = Xd.T @ gh / len(X)
            a = a - 0.05 * ga
            b = b - 0.05 * gb
        return to_host(b)

    return run


def seed_copies(full: bool = True) -> dict[str, Any]:
    cp = usable_cupy()
    cases = [(1_000, 57, 32), (10_000, 57, 256)] if full else [(1_000, 57, 32)]
    epochs = 200 if full else 20
    rows = []
    for n, features, hidden in cases:
        data = _mlp_data(n, features, hidden)
        variants = [("numpy", np, False, None)]
        if cp is not None:
            variants += [
                ("cupy_copies_every_epoch", cp, True, "cupy"),
                ("cupy_fixed", cp, False, "cupy"),
            ]
        for name, xp, copies, device in variants:
            run = _mlp_loop(xp, epochs, *data, copies=copies)
            result = benchmark(run, device, warmup=1, repeat=5)
            rows.append(
                {
                    "variant": name,
                    "n": n,
                    "features": features,
                    "hidden": hidden,
                    "epochs": epochs,
                    "per_epoch_s": result.median / epochs,
                    "per_run": _timing(result),
                }
            )
    return {"rows": rows, "cupy": cp is not None}


# seed 004: the Iris loop as published.


def precision(full: bool = True) -> dict[str, Any]:
    import torch

    n = 8192 if full else 256
    rows = []
    libraries = []
    cp = usable_cupy()
    if cp is not None:
        libraries.append(("cupy", cp, "cupy"))
    if cuda_device() is not None:
        libraries.append(("torch", torch, cuda_device()))
    if not libraries:
        return {"skipped": "no GPU"}
    for name, lib, device in libraries:
        for dtype in ("float32", "float64"):
            if name == "cupy":
                a = lib.ones((n, n), dtype=dtype)
            else:
                a = lib.ones((n, n), dtype=getattr(torch, dtype), device=device)
            result = benchmark(lambda a=a: a @ a, device, warmup=2, repeat=5)
            rows.append(
                {
                    "library": name,
                    "dtype": dtype,
                    "n": n,
                    "gflops": 2 * n**3 / result.median / 1e9,
                    **_timing(result),
                }
            )
            del a
    return {
        "rows": rows,
        "torch_tf32_matmul": bool(torch.backends.cuda.matmul.allow_tf32),
    }


# SyncCounter against torch's own sync debug mode.


def host_costs(full: bool) -> dict[str, Any]:
    """The cost model's host inputs, timed on this box's CPU
    (:mod:`autograder.measure.host_costs`)."""
    from autograder.measure.host_costs import measure

    return measure() if full else measure(bursts=3)


EXTRAS: dict[str, Callable[[bool], dict[str, Any]]] = {
    **KERNEL_EXTRAS,  # Days 09 and 10
    "confined_gpu": confined_gpu,
    "host_costs": host_costs,
    "seed_copies": seed_copies,
    "seed_iris": seed_iris,
    "precision": precision,
    "sync_check": sync_check,
    "timer_check": timer_check,
}


def _free_gpu_memory() -> None:
    import gc

    gc.collect()
    try:
        import torch

        if torch.cuda.is_available():
            torch.cuda.empty_cache()
    except Exception:  # noqa: BLE001 - freeing is best effort
        pass
    cp = usable_cupy()
    if cp is not None:
        cp.get_default_memory_pool().free_all_blocks()
        cp.get_default_pinned_memory_pool().free_all_blocks()


def run_extras(
    full: bool = True,
    log: Callable[[str], None] = print,
    names: list[str] | None = None,
) -> dict[str, Any]:
    """Run every extra (or those ``names``); a failing one records its
    traceback instead."""
    out: dict[str, Any] = {}
    for name, fn in EXTRAS.items():
        if names is not None and name not in names:
            continue
        log(f"extra {name} ...")
        start = time.perf_counter()
        try:
            out[name] = fn(full)
        except Exception:  # noqa: BLE001 - one failure must not lose the rest
            out[name] = {"error": traceback.format_exc()[-3000:]}
        out[name]["seconds"] = round(time.perf_counter() - start, 2)
        log(
            f"extra {name}: {out[name]['seconds']} s"
            + (" (ERROR)" if "error" in out[name] else "")
        )
        _free_gpu_memory()
    return out
