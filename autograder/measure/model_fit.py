"""The GPU cost model's constants fitted on recorded rows, and its error there.

:func:`fit` fits every constant of :mod:`course.gpumodel.cost` on the rows of
:mod:`autograder.measure.model_rows` (each constant with the rows it comes
from); :func:`check` gives every row's error in sample and, where it can,
leave-one-experiment-out (each experiment predicted with constants fitted
without it; a constant only that experiment measures cannot be, and is named:
:data:`SINGLE_SOURCE`). ``course model-check`` (:mod:`autograder.measure.
model_check`) prints and writes them.
"""

from __future__ import annotations

import statistics
from typing import Any

import torch

from autograder.measure.model_rows import H200, Row
from course.gpumodel import estimate

SINGLE_SOURCE = {
    "book_us": "launch",
    "sync_us": "launch",
    "gemm_eff_torch_float32": "precision",
    "gemm_eff_torch_float64": "precision",
    "gemm_eff_cupy_float32": "precision",
    "gemm_eff_cupy_float64": "precision",
    "bw_eff_torch": "ops",
    "bw_eff_cupy": "ops",
    "floor_us": "ops",
    "h2d_latency_us": "transfer",
    "h2d_gbps": "transfer",
    "d2h_latency_us": "transfer",
    "d2h_gbps": "transfer",
    "cupy_copy_us": "seed_copies",
    "cupy_us": "seed_copies",
}
"""Constants one experiment alone measures: leave-one-out keeps them."""


def _line(points: list[tuple[float, float]]) -> tuple[float, float]:
    """``y = a + b x`` fitted on relative error (each point weighted ``1/y²``,
    so that small copies count as much as large ones): (a, b)."""
    w = [1 / y**2 for _, y in points]
    sw = sum(w)
    mx = sum(wi * x for wi, (x, _) in zip(w, points)) / sw
    my = sum(wi * y for wi, (_, y) in zip(w, points)) / sw
    b = sum(wi * (x - mx) * (y - my) for wi, (x, y) in zip(w, points)) / sum(
        wi * (x - mx) ** 2 for wi, (x, _) in zip(w, points)
    )
    return my - b * mx, b


def _solve(row: Row, c: dict[str, float], key: str) -> float | None:
    """The value of ``c[key]`` (µs) that makes ``row``'s estimate its
    measurement; None if no value >= 0 does."""

    def off(value: float) -> float:
        trial = dict(c, **{key: value})
        return (
            estimate(row.trace, H200, cpu_s=row.cpu_s, constants=trial).seconds
            - row.measured_s
        )

    low, high = 0.0, 1000.0
    if off(low) > 0 or off(high) < 0:
        return None
    for _ in range(60):
        mid = (low + high) / 2
        low, high = (mid, high) if off(mid) < 0 else (low, mid)
    return (low + high) / 2


def fit(rows: list[Row]) -> dict[str, tuple[float, str, str]]:
    """Every constant from ``rows``: ``{name: (value, unit, source)}``."""
    out: dict[str, tuple[float, str, str]] = {}
    by = {r.variant: r for r in rows if r.experiment == "launch"}
    once, each = by.get("torch add_, sync_once"), by.get("torch add_, sync_each")
    if once and each:
        out["book_us"] = (
            (once.measured_s - once.cpu_s) * 1e6 / 100,  # per add_
            "µs",
            "launch: CUDA add_ minus the CPU's, synchronised once",
        )
        out["sync_us"] = (
            (each.measured_s - once.measured_s - (each.cpu_s - once.cpu_s)) * 1e6 / 100,
            "µs",
            "launch: synchronised after each add_ minus once",
        )
    for r in rows:
        if r.experiment == "precision":
            e = r.trace.events[0]
            dtype = "float64" if e.dtype == torch.float64 else "float32"
            peak = H200.peak_flops(e.dtype, matrix=True)
            out[f"gemm_eff_{e.library}_{dtype}"] = (
                e.flops / r.measured_s / peak,
                "of peak",
                f"precision: {r.variant}",
            )
    for way in ("h2d", "d2h"):
        points = [
            (r.trace.events[0].bytes, r.measured_s)
            for r in rows
            if r.experiment == "transfer" and r.trace.events[0].kind == way
        ]
        if len(points) > 1:
            a, b = _line(points)
            out[f"{way}_latency_us"] = (
                a * 1e6,
                "µs",
                f"transfer: {way} pageable, intercept",
            )
            out[f"{way}_gbps"] = (
                1 / b / 1e9,
                "GB/s",
                f"transfer: {way} pageable, slope",
            )
    adds = [r for r in rows if r.experiment == "ops" and " add " in f" {r.variant} "]
    for library in ("torch", "cupy"):
        mine = [r for r in adds if r.variant.startswith(library)]
        if mine:
            big = max(mine, key=lambda r: r.trace.events[0].bytes)
            out[f"bw_eff_{library}"] = (
                big.trace.events[0].bytes / big.measured_s / (H200.memory_gbps * 1e9),
                "of peak",
                f"ops: {big.variant}",
            )
    values = {k: v for k, (v, _, _) in out.items()}
    small = [
        r
        for r in adds
        if r.variant.startswith("torch") and r.trace.events[0].bytes < 2e7
    ]
    if small and "book_us" in values:
        # the floor and the sync's cost explain each other's rows: solve each
        # in turn, given the other, until both settle
        for _ in range(4):
            values.setdefault("floor_us", 0.0)
            found = [v for r in small if (v := _solve(r, values, "floor_us"))]
            values["floor_us"] = statistics.median(found) if found else 0.0
            if each is not None:
                again = _solve(each, values, "sync_us")
                values["sync_us"] = values["sync_us"] if again is None else again
        out["floor_us"] = (
            values["floor_us"],
            "µs",
            "ops: torch add of up to 10^6 elements",
        )
        out["sync_us"] = (
            values["sync_us"],
            "µs",
            "launch: synchronised after each add_ against once, given the floor",
        )
    fixed = [
        r
        for r in rows
        if r.experiment == "seed_copies"
        and r.trace.syncs == 0
        and not any(e.kind != "op" for e in r.trace.events)
    ]
    found = [v for r in fixed if (v := _solve(r, values, "cupy_us")) is not None]
    if found:
        out["cupy_us"] = (
            statistics.median(found),
            "µs",
            "seed_copies without copies: per CuPy kernel",
        )
        values["cupy_us"] = out["cupy_us"][0]
        out["numba_us"] = (
            out["cupy_us"][0],
            "µs",
            "not recorded: assumed equal "
            "to cupy_us (make gpu-check records a numba launch)",
        )
        copied = [r for r in rows if r.experiment == "seed_copies" and r not in fixed]
        found = [v for r in copied if (v := _solve(r, values, "cupy_copy_us"))]
        if found:
            out["cupy_copy_us"] = (
                statistics.median(found),
                "µs",
                "seed_copies with copies: per CuPy copy",
            )
            values["cupy_copy_us"] = out["cupy_copy_us"][0]
    loops = [r for r in rows if r.experiment in LOOPS]
    if loops:
        per_op = [r.cpu_s / r.trace.launches for r in loops]
        out["cpu_op_us"] = (
            statistics.median(per_op) * 1e6,
            "µs",
            "the loops' quiet host cost per op, on the run's CPU",
        )
        found = [v for r in loops if (v := _solve(r, values, "grad_us")) is not None]
        if found:
            out["grad_us"] = (
                statistics.median(found),
                "µs",
                "median over " + ", ".join(sorted({r.experiment for r in loops})),
            )
    return {k: (round(v, 6), unit, source) for k, (v, unit, source) in out.items()}


LOOPS = ("seed_iris", "sync_trap", "mlp_torch")
"""The training loops the lessons show (the accuracy target's rows)."""


def check(rows: list[Row]) -> dict[str, Any]:
    """In-sample and leave-one-experiment-out errors of every row.

    An experiment that is the only source of a constant cannot be predicted
    without it: its rows have no left-out figure (None), and the left-out
    median is over the rows that were truly held out."""
    table = fit(rows)
    values = {k: v for k, (v, _, _) in table.items()}
    sources = set(SINGLE_SOURCE.values())
    out = []
    for experiment in sorted({r.experiment for r in rows}):
        held_out = experiment not in sources
        blind = {
            k: v
            for k, (v, _, _) in fit(
                [r for r in rows if r.experiment != experiment]
            ).items()
        }
        for key in (*SINGLE_SOURCE, "numba_us"):  # fitted on other experiments
            if key not in blind and key in values:
                blind[key] = values[key]
        for r in (r for r in rows if r.experiment == experiment):
            modelled = estimate(r.trace, H200, cpu_s=r.cpu_s, constants=values).seconds
            left = (
                estimate(r.trace, H200, cpu_s=r.cpu_s, constants=blind).seconds
                if held_out
                else None
            )
            out.append(
                {
                    "experiment": r.experiment,
                    "variant": r.variant,
                    "measured_s": r.measured_s,
                    "modelled_s": modelled,
                    "error": modelled / r.measured_s - 1,
                    "left_out_s": left,
                    "left_out_error": None if left is None else left / r.measured_s - 1,
                }
            )
    return {"constants": table, "rows": out, **_summary(out)}


def _summary(rows: list[dict[str, Any]]) -> dict[str, float]:
    loops = [r for r in rows if r["experiment"] in LOOPS]
    held = [r for r in rows if r["left_out_error"] is not None]
    return {
        "median_abs_error": statistics.median(abs(r["error"]) for r in rows),
        "median_abs_left_out_error": statistics.median(
            abs(r["left_out_error"]) for r in held
        )
        if held
        else 0.0,
        "rows_left_out": len(held),
        "worst_loop_error": max(abs(r["error"]) for r in loops) if loops else 0.0,
        "worst_loop_left_out_error": max(
            (
                abs(r["left_out_error"])
                for r in loops
                if r["left_out_error"] is not None
            ),
            default=0.0,
        ),
    }
