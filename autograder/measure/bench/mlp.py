"""``mlp``: Day 08's from-scratch MLP (NumPy / CuPy) against the same PyTorch MLP,
time per epoch; ``make bench-mlp`` runs it alone.

Both networks get the same architecture, initial weights, data and learning
rate. The summary gives, per network on the CPU, the ratio from scratch /
PyTorch against its target (:data:`TARGET_RATIO`): a benchmark, not a test,
so nothing fails on a slow machine.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from autograder.measure.bench.core import (
    Experiment,
    Row,
    Section,
    Settings,
    _torch,
    cuda_device,
    cupy_module,
    register,
    row,
    skipped,
)
from course.timing import benchmark

#: From scratch should stay within this factor of PyTorch on the CPU.
TARGET_RATIO = 1.5


@dataclass(frozen=True)
class MlpRow(Row):
    """One implementation training one network."""

    implementation: str
    device: str
    sizes: list[int]
    samples: int
    epochs: int
    s_per_epoch: float


def run(s: Settings, say: Any = None) -> Section:
    """Day 08's from-scratch MLP vs the same PyTorch MLP, per epoch."""
    try:
        from autograder.lessons.code import lesson_namespace

        lesson = lesson_namespace("08_neural_network")
    except Exception as exc:  # noqa: BLE001 - e.g. installed without the lessons
        return skipped(f"Day 08's code could not be loaded: {exc}")
    torch = _torch()
    cupy = cupy_module()
    gpu = cuda_device()
    rows = []
    for sizes, samples in s.mlp_cases:
        rng = np.random.default_rng(0)
        X = rng.standard_normal((samples, sizes[0]), dtype=np.float32)
        y = rng.standard_normal((samples, sizes[-1]), dtype=np.float32)
        params = lesson["init_params"](list(sizes), seed=0)
        runs: list[tuple[str, str, Callable[[], Any], Any]] = []
        runs.append(
            (
                "from scratch (NumPy)",
                "cpu",
                lambda p=params, X=X, y=y: lesson["train"](
                    p, X, y, lr=1e-3, num_epochs=s.mlp_epochs
                ),
                None,
            )
        )
        if cupy is not None:
            dp = lesson["init_params"](list(sizes), seed=0, xp=cupy)
            Xc, yc = cupy.asarray(X), cupy.asarray(y)
            runs.append(
                (
                    "from scratch (CuPy)",
                    "cuda",
                    lambda p=dp, X=Xc, y=yc: lesson["train"](
                        p, X, y, lr=1e-3, num_epochs=s.mlp_epochs
                    ),
                    "cupy",
                )
            )
        for device in [torch.device("cpu")] + ([gpu] if gpu is not None else []):
            model = lesson["torch_copy"](params).to(device)
            Xt = torch.from_numpy(X).to(device)
            yt = torch.from_numpy(y).to(device)
            runs.append(
                (
                    "PyTorch",
                    "cuda" if device.type == "cuda" else "cpu",
                    lambda m=model, X=Xt, y=yt: lesson["torch_train"](
                        m, X, y, lr=1e-3, num_epochs=s.mlp_epochs
                    ),
                    device,
                )
            )
        for name, where, fn, sync_on in runs:
            result = benchmark(fn, sync_on, warmup=1, repeat=s.repeat)
            rows.append(
                row(
                    MlpRow,
                    result,
                    implementation=name,
                    device=where,
                    sizes=list(sizes),
                    samples=samples,
                    epochs=s.mlp_epochs,
                    s_per_epoch=result.median / s.mlp_epochs,
                )
            )
    return {"status": "ok", "rows": rows}


def plot(section: Section, canvas: Any) -> None:
    rows = section["rows"]
    canvas.bars(
        "mlp",
        [f"{r['implementation']}\n{r['device']} {r['sizes']}" for r in rows],
        [r["s_per_epoch"] * 1e3 for r in rows],
        "ms per epoch (median)",
        "From-scratch MLP vs PyTorch",
        horizontal=True,
    )


def cpu_ratios(section: Section) -> dict[str, float]:
    """Per network: from scratch (NumPy) / PyTorch on the CPU, time per epoch."""
    by: dict[str, dict[str, float]] = {}
    for r in section["rows"]:
        if r["device"] == "cpu":
            key = f"{r['sizes']} x{r['samples']}"
            by.setdefault(key, {})[r["implementation"]] = r["s_per_epoch"]
    return {
        key: times["from scratch (NumPy)"] / times["PyTorch"]
        for key, times in by.items()
        if {"from scratch (NumPy)", "PyTorch"} <= set(times)
    }


def summary(section: Section) -> list[str]:
    lines = [
        f"mlp {r['sizes']} x{r['samples']} {r['implementation']} "
        f"({r['device']}): {r['s_per_epoch'] * 1e3:.3f} ms/epoch"
        for r in section["rows"]
    ]
    for key, ratio in cpu_ratios(section).items():
        verdict = "ok" if ratio <= TARGET_RATIO else f"over {TARGET_RATIO}x"
        lines.append(
            f"mlp {key} from scratch / PyTorch on the CPU: {ratio:.2f}x ({verdict})"
        )
    return lines


EXPERIMENT = register(
    Experiment("mlp", "From-scratch MLP vs PyTorch", run, plot, summary)
)
