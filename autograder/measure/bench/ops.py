"""``ops``: matmul (GFLOP/s) and an elementwise add (GB/s) across sizes on every
library present (NumPy, torch, CuPy), and the size from which the GPU stays
ahead of the CPU."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from autograder.measure.bench.core import (
    FLOAT32,
    Experiment,
    Row,
    Section,
    Settings,
    _torch,
    cuda_device,
    cupy_module,
    register,
    row,
)
from course.timing import benchmark


@dataclass(frozen=True)
class OpRow(Row):
    """One op (matmul or add) at one size with one library on one device;
    ``gflops`` for matmul, ``gbps`` for add."""

    op: str
    library: str
    device: str
    size: int
    gflops: float | None = None
    gbps: float | None = None


def crossover(sizes: Sequence[int], cpu_s: Sequence[float], gpu_s: Sequence[float]):
    """Smallest size from which the GPU is faster at every larger size, or None."""
    found = None
    for size, cpu, gpu in sorted(zip(sizes, cpu_s, gpu_s, strict=True), reverse=True):
        if gpu >= cpu:
            break
        found = size
    return found


def _op_libraries() -> list[tuple[str, Any, Any, str]]:
    """(library, module, device, kind) for every library that can run here."""
    torch = _torch()
    out: list[tuple[str, Any, Any, str]] = [
        ("numpy", np, None, "cpu"),
        ("torch", torch, torch.device("cpu"), "cpu"),
    ]
    cupy = cupy_module()
    if cupy is not None:
        out.append(("cupy", cupy, "cupy", "gpu"))
    if cuda_device() is not None:
        out.append(("torch", torch, cuda_device(), "gpu"))
    return out


def _arrays(library: str, module: Any, device: Any, shape: tuple[int, ...], seed: int):
    host = np.random.default_rng(seed).standard_normal(shape, dtype=np.float32)
    if library == "numpy":
        return host
    if library == "cupy":
        return module.asarray(host)
    return module.from_numpy(host).to(device)


def run(s: Settings, say: Callable[[str], None] | None = None) -> Section:
    progress = (lambda m: say(f"      {m}")) if say else (lambda _: None)
    """Matmul and elementwise add across sizes and libraries, with crossovers."""
    rows = []
    for library, module, device, kind in _op_libraries():
        where = "cuda" if kind == "gpu" else "cpu"
        for n in s.matmul_sizes:
            if kind == "cpu" and n > s.matmul_cpu_max:
                continue
            progress(f"matmul {library} on {where}, n={n}")
            a = _arrays(library, module, device, (n, n), 0)
            b = _arrays(library, module, device, (n, n), 1)
            repeat = s.repeat if n <= 2048 else 3
            result = benchmark(lambda a=a, b=b: a @ b, device, warmup=1, repeat=repeat)
            rows.append(
                row(
                    OpRow,
                    result,
                    op="matmul",
                    library=library,
                    device=where,
                    size=n,
                    gflops=2 * n**3 / result.median / 1e9,
                )
            )
        for n in s.add_sizes:
            progress(f"add {library} on {where}, n={n:,}")
            a = _arrays(library, module, device, (n,), 0)
            b = _arrays(library, module, device, (n,), 1)
            result = benchmark(
                lambda a=a, b=b: a + b, device, warmup=1, repeat=s.repeat
            )
            rows.append(
                row(
                    OpRow,
                    result,
                    op="add",
                    library=library,
                    device=where,
                    size=n,
                    gbps=3 * n * FLOAT32 / result.median / 1e9,
                )
            )
    return {"status": "ok", "rows": rows, "crossover": _crossovers(rows)}


def _crossovers(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per op and GPU library: where it overtakes the faster CPU library."""
    out: dict[str, Any] = {}
    for op in ("matmul", "add"):
        cpu: dict[int, float] = {}
        for r in rows:
            if r["op"] == op and r["device"] == "cpu":
                cpu[r["size"]] = min(cpu.get(r["size"], float("inf")), r["median_s"])
        for library in ("cupy", "torch"):
            gpu = {
                r["size"]: r["median_s"]
                for r in rows
                if r["op"] == op and r["device"] == "cuda" and r["library"] == library
            }
            common = sorted(set(cpu) & set(gpu))
            if common:
                out[f"{op}_{library}"] = crossover(
                    common, [cpu[n] for n in common], [gpu[n] for n in common]
                )
    return out


def plot(section: Section, canvas: Any) -> None:
    rows = section["rows"]
    fig, axes = canvas.figure(10, 4, columns=2)
    for ax, op, unit in ((axes[0], "matmul", "gflops"), (axes[1], "add", "gbps")):
        for key in sorted({(r["library"], r["device"]) for r in rows if r["op"] == op}):
            sel = [
                r for r in rows if r["op"] == op and (r["library"], r["device"]) == key
            ]
            ax.plot(
                [r["size"] for r in sel],
                [r[unit] for r in sel],
                marker="o",
                label=f"{key[0]} ({key[1]})",
            )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("n" if op == "matmul" else "elements")
        ax.set_ylabel("GFLOP/s" if unit == "gflops" else "GB/s")
        ax.set_title("matmul n x n" if op == "matmul" else "elementwise a + b")
        ax.legend(fontsize=8)
    canvas.finish(fig, "ops")


def summary(section: Section) -> list[str]:
    lines = []
    best: dict[tuple[str, str, str], dict[str, Any]] = {}
    for r in section["rows"]:
        key = (r["op"], r["library"], r["device"])
        if key not in best or r["size"] > best[key]["size"]:
            best[key] = r
    for (op, library, device), r in sorted(best.items()):
        figure = (
            f"{r['gflops']:.1f} GFLOP/s" if op == "matmul" else f"{r['gbps']:.1f} GB/s"
        )
        lines.append(f"{op} {library} ({device}) at n={r['size']:,}: {figure}")
    for key, size in section.get("crossover", {}).items():
        lines.append(f"crossover {key}: {'never' if size is None else f'n={size:,}'}")
    return lines


EXPERIMENT = register(Experiment("ops", "Throughput and crossover", run, plot, summary))
