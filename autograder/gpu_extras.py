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

After them, :func:`model_check` compares the cost model (``course.gpumodel``)
with the two seed loops as measured, and writes the error per experiment.
"""

from __future__ import annotations

import time
import traceback
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from course.timing import benchmark


def _cupy() -> Any:
    from course.devices import cupy_usable

    if not cupy_usable():
        return None
    import cupy

    return cupy


def _cuda() -> Any:
    import torch

    return torch.device("cuda:0") if torch.cuda.is_available() else None


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
    cp = _cupy()
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


IRIS_VARIANTS = (("item_every_200", 200), ("item_every_epoch", 1), ("never_read", None))
"""Seed 004's loop as published (``.item()`` every 200 epochs), and two others."""


def _iris_setup(device: Any) -> tuple[Any, ...]:
    """Seed 004's data, model, loss and optimiser on ``device``."""
    import torch
    from sklearn.datasets import load_iris
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import MinMaxScaler
    from torch import nn

    iris = load_iris()
    X_train, _, y_train, _ = train_test_split(
        iris.data, iris.target, test_size=0.2, random_state=42
    )
    X_train = MinMaxScaler().fit_transform(X_train)
    X = torch.FloatTensor(X_train).to(device)
    y = torch.LongTensor(y_train).to(device)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 10), nn.ReLU(), nn.Linear(10, 3)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    return X, y, model, nn.CrossEntropyLoss(), optimizer


def _iris_epochs(setup: tuple[Any, ...], epochs: int, every: int | None) -> Any:
    """``epochs`` of seed 004's loop, reading the loss every ``every`` epochs."""
    X, y, model, criterion, optimizer = setup
    losses = []
    loss = None
    for epoch in range(epochs):
        outputs = model(X)
        loss = criterion(outputs, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if every is not None and (epoch + 1) % every == 0:
            losses.append(loss.item())
    return loss


def seed_iris(full: bool = True) -> dict[str, Any]:
    import torch

    from course.timing import synchronize

    epochs = 20_000 if full else 200
    rows = []
    devices = [torch.device("cpu")]
    if _cuda() is not None:
        devices.append(_cuda())
    for device in devices:
        for variant, every in IRIS_VARIANTS:
            setup = _iris_setup(device)
            _iris_epochs(setup, 50, None)  # warm-up: kernels loaded, allocator primed
            synchronize(device)
            start = time.perf_counter()
            loss = _iris_epochs(setup, epochs, every)
            unsynced = time.perf_counter() - start
            synchronize(device)
            synced = time.perf_counter() - start
            rows.append(
                {
                    "device": str(device),
                    "variant": variant,
                    "epochs": epochs,
                    "seconds_without_sync": unsynced,
                    "seconds": synced,
                    "final_loss": float(loss.item()),
                }
            )
    return {
        "rows": rows,
        "published": {
            "seconds": 18.5502,
            "gpu": "RTX 3050 Laptop",
            "variant": "item_every_200",
            "synced": False,
        },
    }


# The cost model against what was measured.


def _spec_for(gpu_name: str | None) -> tuple[str, Any] | tuple[None, None]:
    from course.gpumodel import GPUS

    name = (gpu_name or "").lower()
    for key, words in (
        ("h200", ("h200",)),
        ("h100", ("h100",)),
        ("a100", ("a100",)),
        ("t4", (" t4", "tesla t4")),
        ("rtx3050-laptop", ("3050",)),
    ):
        if any(word in f" {name}" for word in words):
            return key, GPUS[key]
    return None, None


def model_check(extras: dict[str, Any], gpu_name: str | None) -> dict[str, Any]:
    """The cost model (:mod:`course.gpumodel`) against this run's measurements.

    For each GPU loop of ``seed_copies`` and ``seed_iris``, the model's estimate
    on the lent GPU's spec, from a trace made on the CPU, and its error
    (modelled / measured - 1). Needs no GPU: it also checks a recorded run.
    """
    import torch

    from course import gpumodel

    key, spec = _spec_for(gpu_name)
    if spec is None:
        return {"status": f"no spec for {gpu_name!r} in course.gpumodel.GPUS"}
    rows = []
    for r in extras.get("seed_copies", {}).get("rows", []):
        if r["variant"] == "numpy":
            continue
        copies = r["variant"] == "cupy_copies_every_epoch"
        trace = gpumodel.mlp_epoch(r["n"], r["features"], r["hidden"], copies)
        modelled = gpumodel.estimate(trace, spec).seconds
        rows.append(
            {
                "experiment": "seed_copies",
                "variant": f"{r['variant']}, n={r['n']}, hidden={r['hidden']}",
                "measured_s": r["per_epoch_s"],
                "modelled_s": modelled,
                "error": modelled / r["per_epoch_s"] - 1,
            }
        )
    stretch = 200
    for r in extras.get("seed_iris", {}).get("rows", []):
        if r["device"] == "cpu":
            continue
        every = dict(IRIS_VARIANTS)[r["variant"]]
        setup = _iris_setup(torch.device("cpu"))
        trace = gpumodel.trace(lambda s=setup, e=every: _iris_epochs(s, stretch, e))
        modelled = gpumodel.estimate(trace, spec, repeat=r["epochs"] // stretch)
        rows.append(
            {
                "experiment": "seed_iris",
                "variant": r["variant"],
                "measured_s": r["seconds"],
                "modelled_s": modelled.seconds,
                "error": modelled.seconds / r["seconds"] - 1,
            }
        )
    return {"status": "ok", "gpu": gpu_name, "spec": key, "rows": rows}


# Precision: float64 against float32.


def precision(full: bool = True) -> dict[str, Any]:
    import torch

    n = 8192 if full else 256
    rows = []
    libraries = []
    cp = _cupy()
    if cp is not None:
        libraries.append(("cupy", cp, "cupy"))
    if _cuda() is not None:
        libraries.append(("torch", torch, _cuda()))
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


def _patterns(torch: Any, device: Any) -> dict[str, Callable[[], Any]]:
    t = torch.arange(1000, device=device, dtype=torch.float32)
    return {
        "item": lambda: t.sum().item(),
        "float": lambda: float(t.sum()),
        "cpu": lambda: t.cpu(),
        "tolist": lambda: t[:3].tolist(),
        "print_repr": lambda: repr(t[:3]),
        "if_tensor": lambda: bool(t.sum() > 0),
        "bool_mask_index": lambda: t[t > 500],
        "nonzero": lambda: torch.nonzero(t > 500),
        "to_cpu_nonblocking": lambda: t.to("cpu", non_blocking=True),
        "device_only_math": lambda: (t * 2).sum(),
        "pageable_h2d": lambda: torch.ones(1000).to(device),
    }


def sync_check(full: bool = True) -> dict[str, Any]:
    import torch

    from course.sync import SyncCounter

    device = _cuda()
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

    device = _cuda()
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
    cp = _cupy()
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


EXTRAS: dict[str, Callable[[bool], dict[str, Any]]] = {
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
    cp = _cupy()
    if cp is not None:
        cp.get_default_memory_pool().free_all_blocks()
        cp.get_default_pinned_memory_pool().free_all_blocks()


def run_extras(full: bool = True, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Run every extra; a failing one records its traceback instead."""
    out: dict[str, Any] = {}
    for name, fn in EXTRAS.items():
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
    try:
        gpu = _cuda()
        import torch

        name = torch.cuda.get_device_name(gpu) if gpu is not None else None
        out["model_check"] = (
            model_check(out, name)
            if name
            else {"status": "no GPU: nothing measured to compare the model with"}
        )
    except Exception:  # noqa: BLE001 - the measurements above are kept
        out["model_check"] = {"error": traceback.format_exc()[-3000:]}
    return out
