"""``course model-check DIR``: the cost model fitted on a recorded run,
every row's error printed and written to ``DIR/model-check.json``, the blind
test against seed 004's published 18.55 s, and (``--write``) the constants
table the course uses (``course/recorded/gpumodel--*.json``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from autograder.measure.model_fit import LOOPS, SINGLE_SOURCE, check
from autograder.measure.model_rows import (
    bench_file,
    host_of,
    launch_costs,
    loop_trace,
    rows_of,
    run_results,
)
from course.gpumodel import GPUS, estimate

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
    run = loop_trace(shape, 120, 200, 200)
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
    bench, _ = run_results(run)
    if ("cuda", "sync_once") not in launch_costs(bench):
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
    say(
        f"{'experiment':12} {'variant':42} {'measured':>11} {'modelled':>11} "
        f"{'error':>7} {'left out':>8}"
    )
    for r in found["rows"]:
        say(
            f"{r['experiment']:12} {r['variant'][:42]:42} "
            f"{_time(r['measured_s']):>11} {_time(r['modelled_s']):>11} "
            f"{r['error']:+7.0%} {_left(r['left_out_error']):>8}"
        )
    say("")
    say(
        f"{len(found['rows'])} rows: median |error| {found['median_abs_error']:.1%} "
        f"in sample; {found['rows_left_out']} rows held out (each experiment "
        f"predicted from constants fitted without it): median "
        f"{found['median_abs_left_out_error']:.1%}; worst training-loop row "
        f"{found['worst_loop_error']:.1%} in sample, "
        f"{found['worst_loop_left_out_error']:.1%} held out; the other rows come "
        "from experiments that are a constant's only source (marked -)"
    )
    for what, why in NOT_MODELLED.items():
        say(f"not modelled: {what}: {why}")
    seed = found["blind_seed_004"]
    say(
        f"blind test: seed 004's loop on the {seed['gpu']}, modelled from the "
        f"host costs' CPU ({seed['cpu']}): {seed['modelled_s']:.2f} s against the "
        f"published {seed['published_s']} s ({seed['error']:+.0%})"
    )
    (Path(run) / "model-check.json").write_text(
        json.dumps(found, indent=1), encoding="utf-8"
    )
    if write:
        bench = json.loads(bench_file(run).read_text("utf-8"))
        table = {
            name: {"value": value, "unit": unit, "source": source}
            for name, (value, unit, source) in sorted(found["constants"].items())
        }
        CONSTANTS_FILE.write_text(
            json.dumps(
                {
                    "experiment": "gpumodel",
                    "hardware": bench["hardware"]
                    if isinstance(bench.get("hardware"), str)
                    else bench["environment"]["gpu"],
                    "date": bench["date"][:10],
                    "results": {
                        "constants": table,
                        "run": Path(run).name,
                        "check": _kept(found),
                    },
                },
                indent=1,
                ensure_ascii=False,
            )
            + "\n",
            encoding="utf-8",
        )
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
