"""The GPU cost model's constants fitted on a recorded run, and its error there.

``course model-check DIR`` reads a ``make gpu-check`` run (its ``bench--*.json``
and ``extras.json``), fits every constant of :mod:`course.gpumodel.cost` on it
(:func:`fit`: each constant with the rows it comes from), and prints, for every
row, measured, modelled and error, in sample and leave-one-experiment-out (each
experiment predicted with constants fitted without it; a constant only that
experiment measures is kept, and named: :data:`SINGLE_SOURCE`).

The run's loops on the CPU were not timed quietly (16 threads, full sizes), so
each loop's quiet host cost on the run's CPU is this project's measurement on
another CPU (``host-costs.json``, :mod:`autograder.measure.host_costs`) scaled
by the two CPUs' ratio on one tiny ``add_`` (the launch bench's CPU row).
"""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from course.gpumodel import GPUS, Event, Trace, estimate, mlp_epoch

HOST_COSTS = Path(__file__).with_name("host-costs.json")
H200 = GPUS["h200"]


@dataclass
class Row:
    """One recorded measurement, and the trace the model replays for it."""

    experiment: str
    variant: str
    measured_s: float  # one run of ``trace``
    trace: Trace
    cpu_s: float | None = None  # the trace's quiet host cost on the run's CPU


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


def bench_file(run: Path) -> Path:
    """A run's ``bench--*.json`` (top level, or in ``bench/`` as written)."""
    found = sorted(Path(run).glob("bench--*.json")) or sorted(
        Path(run).glob("bench/bench--*.json")
    )
    if not found:
        raise FileNotFoundError(f"{run} holds no bench--*.json")
    return found[-1]


def _results(run: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    bench = json.loads(bench_file(run).read_text("utf-8"))
    extras = json.loads((Path(run) / "extras.json").read_text("utf-8"))
    return bench["results"], extras


def host_of(run: Path) -> tuple[dict[str, Any], bool]:
    """The host costs for a run: its own (recorded on its CPU by gpu-check), or
    this project's (``host-costs.json``, scaled to the run's CPU); and whether
    they are the run's own."""
    extras = json.loads((Path(run) / "extras.json").read_text("utf-8"))
    own = extras.get("host_costs", {})
    if "loops" in own:
        return own, True
    return json.loads(HOST_COSTS.read_text("utf-8")), False


def _launch(bench: dict[str, Any]) -> dict[tuple[str, str], float]:
    return {
        ("cpu" if r["device"] == "cpu" else "cuda", r["mode"]): r["us_per_op"] * 1e-6
        for r in bench.get("launch", {}).get("rows", [])
        if r["library"] == "torch"
    }


def _loop(shape: dict[str, Any], n: int, steps: int, every: int | None) -> Trace:
    """``steps`` steps of a loop with ``n`` samples, its loss read every
    ``every`` steps (a 4-byte copy to the host)."""
    found = Trace()
    for step in range(steps):
        for name, part, flops, flops_n, nbytes, bytes_n in shape["ops"]:
            found.events.append(
                Event("op", name, flops + flops_n * n, nbytes + bytes_n * n, part=part)
            )
        if every is not None and (step + 1) % every == 0:
            found.events.append(Event("d2h", "item", bytes=4.0))
    return found


def _one(name: str, flops: float, nbytes: float, library: str, dtype=None) -> Trace:
    found = Trace()
    found.events.append(Event(
        "op", name, flops, nbytes, dtype or torch.float32, part="bookkeeping",
        library=library,
    ))  # fmt: skip
    return found


def rows_of(run: Path, host: dict[str, Any] | None = None) -> list[Row]:
    """Every row of a recorded run the model predicts, with its trace."""
    bench, extras = _results(run)
    own = False
    if host is None:
        host, own = host_of(run)
    launch = _launch(bench)
    scale = 1.0 if own else launch["cpu", "sync_once"] / (host["add_us"] * 1e-6)
    loops = host["loops"]
    rows: list[Row] = []

    def loop_row(exp: str, variant: str, per_step: float, key: str, n: int,
                 every: int | None) -> None:  # fmt: skip
        steps = every or 1
        if key not in loops:  # a loop this host-costs file did not time
            return
        rows.append(Row(
            exp, variant, per_step * steps, _loop(loops[key], n, steps, every),
            loops[key]["cpu_us"] * 1e-6 * scale * steps,
        ))  # fmt: skip

    for r in extras.get("seed_iris", {}).get("rows", []):
        if r["device"] != "cpu":
            every = {"item_every_200": 200, "item_every_epoch": 1}.get(r["variant"])
            loop_row("seed_iris", r["variant"], r["seconds"] / r["epochs"],
                     "seed_iris", 120, every)  # fmt: skip
    for r in bench.get("sync_trap", {}).get("rows", []):
        if r["device"] != "cpu":
            every = {"item_every_100": 100, "item_every_epoch": 1}.get(r["variant"])
            loop_row("sync_trap", r["variant"], r["s_per_epoch"], "sync_trap", 120,
                     every)  # fmt: skip
    for r in bench.get("mlp", {}).get("rows", []):
        if r["device"] == "cuda" and r["implementation"] == "PyTorch":
            loop_row("mlp_torch", f"sizes={r['sizes']}, n={r['samples']}",
                     r["s_per_epoch"], f"mlp_torch {r['sizes']}", r["samples"],
                     None)  # fmt: skip
    for r in extras.get("seed_copies", {}).get("rows", []):
        if r["variant"] != "numpy":
            copies = r["variant"] == "cupy_copies_every_epoch"
            rows.append(Row(
                "seed_copies", f"{r['variant']}, n={r['n']}, hidden={r['hidden']}",
                r["per_epoch_s"], mlp_epoch(r["n"], r["features"], r["hidden"],
                                            copies),
            ))  # fmt: skip
    for r in extras.get("precision", {}).get("rows", []):
        dtype = torch.float64 if r["dtype"] == "float64" else torch.float32
        rows.append(Row(
            "precision", f"{r['library']} {r['dtype']} matmul {r['n']}",
            r["median_s"], _one("mm", 2.0 * r["n"] ** 3, 0.0, r["library"], dtype),
        ))  # fmt: skip
    for mode in (
        ("sync_once", "sync_each") if ("cuda", "sync_each") in launch else ()
    ):  # 100 of the bench's 5,000 add_
        found = Trace()
        for _ in range(100):
            found.events += _one("add_", 0.0, 0.0, "torch").events
            if mode == "sync_each":
                found.sync()
        if mode == "sync_once":
            found.sync()
        rows.append(Row("launch", f"torch add_, {mode}", launch["cuda", mode] * 100,
                        found, launch["cpu", mode] * 100))  # fmt: skip
    for r in bench.get("ops", {}).get("rows", []):
        if r["device"] != "cpu":
            matrix = r["op"] == "matmul"
            found = _one(
                "mm" if matrix else "add", 2.0 * r["size"] ** 3 if matrix else 0.0,
                0.0 if matrix else r["gbps"] * 1e9 * r["median_s"], r["library"],
            )  # fmt: skip
            found.sync()
            cpu = launch["cpu", "sync_once"] if r["library"] == "torch" else None
            rows.append(Row("ops", f"{r['library']} {r['op']} {r['size']}",
                            r["median_s"], found, cpu))  # fmt: skip
    for r in bench.get("transfer", {}).get("rows", []):
        if r["memory"] == "pageable":
            way = "h2d" if r["direction"] == "host_to_device" else "d2h"
            found = Trace()
            found.copy(way, float(r["bytes"]), library="torch")
            rows.append(Row("transfer", f"{way} pageable {r['bytes']} B",
                            r["median_s"], found, 0.0))  # fmt: skip
    return rows


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
        return estimate(row.trace, H200, cpu_s=row.cpu_s, constants=trial).seconds \
            - row.measured_s  # fmt: skip

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
        out["floor_us"] = (values["floor_us"], "µs",
                           "ops: torch add of up to 10^6 elements")  # fmt: skip
        out["sync_us"] = (values["sync_us"], "µs", "launch: synchronised after each "
                          "add_ against once, given the floor")  # fmt: skip
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
            out.append({
                "experiment": r.experiment, "variant": r.variant,
                "measured_s": r.measured_s, "modelled_s": modelled,
                "error": modelled / r.measured_s - 1,
                "left_out_s": left,
                "left_out_error": None if left is None else left / r.measured_s - 1,
            })  # fmt: skip
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


NOT_MODELLED = {
    "mlp from scratch (CuPy)": "Day 08's CuPy loop is not traced on a CPU (its "
    "kernels are CuPy's, not aten operations)",
    "transfer, pinned memory": "the lessons copy pageable memory",
}
"""GPU rows of a recorded run the model does not predict, and why."""

SEED_SECONDS, SEED_GPU = 18.55, "rtx3050-laptop"
"""Seed 004's published time for its 20,000-epoch loop, on its laptop GPU:
never fitted on; the blind test."""


def blind_seed(host: dict[str, Any], constants: dict[str, float]) -> dict[str, Any]:
    """Seed 004's loop (``.item()`` every 200 epochs, 20,000 epochs) modelled
    on the seed's GPU from ``host``'s CPU as measured (not scaled)."""
    shape = host["loops"]["seed_iris"]
    run = _loop(shape, 120, 200, 200)
    modelled = estimate(
        run,
        GPUS[SEED_GPU],
        repeat=100,
        cpu_s=shape["cpu_us"] * 1e-6 * 200,
        constants=constants,
    ).seconds
    return {
        "gpu": GPUS[SEED_GPU].name,
        "cpu": host.get("cpu", ""),
        "published_s": SEED_SECONDS,
        "modelled_s": modelled,
        "error": modelled / SEED_SECONDS - 1,
    }


def model_check(run: Path, write: bool = False, say: Any = print) -> dict[str, Any]:
    """``course model-check DIR``: print and write ``DIR/model-check.json``;
    with ``write``, also the constants table the course uses."""
    from course.gpumodel.cost import CONSTANTS_FILE

    host, own = host_of(run)
    bench, _ = _results(run)
    if ("cuda", "sync_once") not in _launch(bench):
        say("model check: no GPU rows in this run, nothing to check the model on")
        return {"status": "no GPU rows"}
    found = check(rows_of(run))
    found["not_modelled"] = NOT_MODELLED
    values = {k: v for k, (v, _, _) in found["constants"].items()}
    found["blind_seed_004"] = blind_seed(host, values)
    found["host_costs"] = {k: host.get(k) for k in ("cpu", "date", "method", "add_us")}
    found["host_costs"]["scaled_to_the_run"] = not own
    say(f"{'constant':24} {'value':>11} unit      fitted on")
    for name, (value, unit, source) in sorted(found["constants"].items()):
        single = " (single source)" if name in SINGLE_SOURCE else ""
        say(f"{name:24} {value:11.4g} {unit:9} {source}{single}")
    say("")
    say(f"{'experiment':12} {'variant':42} {'measured':>11} {'modelled':>11} "
        f"{'error':>7} {'left out':>8}")  # fmt: skip
    for r in found["rows"]:
        say(f"{r['experiment']:12} {r['variant'][:42]:42} "
            f"{_time(r['measured_s']):>11} {_time(r['modelled_s']):>11} "
            f"{r['error']:+7.0%} {_left(r['left_out_error']):>8}")  # fmt: skip
    say("")
    say(f"{len(found['rows'])} rows: median |error| {found['median_abs_error']:.1%} "
        f"in sample; {found['rows_left_out']} rows held out (each experiment "
        f"predicted from constants fitted without it): median "
        f"{found['median_abs_left_out_error']:.1%}; worst training-loop row "
        f"{found['worst_loop_error']:.1%} in sample, "
        f"{found['worst_loop_left_out_error']:.1%} held out; the other rows come "
        "from experiments that are a constant's only source (marked -)")  # fmt: skip
    for what, why in NOT_MODELLED.items():
        say(f"not modelled: {what}: {why}")
    seed = found["blind_seed_004"]
    say(f"blind test: seed 004's loop on the {seed['gpu']}, modelled from the "
        f"host costs' CPU ({seed['cpu']}): {seed['modelled_s']:.2f} s against the "
        f"published {seed['published_s']} s ({seed['error']:+.0%})")  # fmt: skip
    (Path(run) / "model-check.json").write_text(
        json.dumps(found, indent=1), encoding="utf-8"
    )
    if write:
        bench = json.loads(bench_file(run).read_text("utf-8"))
        table = {
            name: {"value": value, "unit": unit, "source": source}
            for name, (value, unit, source) in sorted(found["constants"].items())
        }
        CONSTANTS_FILE.write_text(json.dumps({
            "experiment": "gpumodel",
            "hardware": bench["hardware"] if isinstance(bench.get("hardware"), str)
            else bench["environment"]["gpu"],
            "date": bench["date"][:10],
            "results": {"constants": table, "run": Path(run).name,
                        "check": _kept(found)},
        }, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")  # fmt: skip
        say(f"wrote {CONSTANTS_FILE}")
    return found


def _kept(found: dict[str, Any]) -> dict[str, Any]:
    """What the course shows of a check: the summary, the blind test and the
    rows of the loops the lessons show."""
    shown = (*LOOPS, "seed_copies", "precision")
    return {
        "median_abs_error": round(found["median_abs_error"], 4),
        "median_abs_left_out_error": round(found["median_abs_left_out_error"], 4),
        "rows_left_out": found["rows_left_out"],
        "worst_loop_error": round(found["worst_loop_error"], 4),
        "worst_loop_left_out_error": round(found["worst_loop_left_out_error"], 4),
        "rows_checked": len(found["rows"]),
        "blind_seed_004": found["blind_seed_004"],
        "rows": [
            {k: (round(v, 9) if isinstance(v, float) else v) for k, v in r.items()}
            for r in found["rows"]
            if r["experiment"] in shown
        ],
    }


def _left(error: float | None) -> str:
    return "-" if error is None else f"{error:+.0%}"


def _time(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} µs"
