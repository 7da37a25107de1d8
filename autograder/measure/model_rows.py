"""A recorded GPU run as rows the cost model predicts, each with its trace.

:func:`rows_of` reads a ``make gpu-check`` run (its ``bench--*.json``, at the
top or in ``bench/``, and ``extras.json``) and turns each row it covers into a
:class:`Row`: the measurement and the trace :func:`course.gpumodel.estimate`
replays for it. The run's loops on the CPU were not timed quietly (16 threads,
full sizes), so each loop's quiet host cost on the run's CPU is the run's own
(``host_costs`` in its extras) or this project's measurement on another CPU
(``host-costs.json``, :mod:`autograder.measure.host_costs`) scaled by the two
CPUs' ratio on one tiny ``add_`` (the launch bench's CPU row).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from course.gpumodel import GPUS, Event, Trace, mlp_epoch

HOST_COSTS = Path(__file__).with_name("host-costs.json")
H200 = GPUS["h200"]
H200 = GPUS["h200"]


@dataclass
class Row:
    """One recorded measurement, and the trace the model replays for it."""

    experiment: str
    variant: str
    measured_s: float  # one run of ``trace``
    trace: Trace
    cpu_s: float | None = None  # the trace's quiet host cost on the run's CPU


def bench_file(run: Path) -> Path:
    """A run's ``bench--*.json`` (top level, or in ``bench/`` as written)."""
    found = sorted(Path(run).glob("bench--*.json")) or sorted(
        Path(run).glob("bench/bench--*.json")
    )
    if not found:
        raise FileNotFoundError(f"{run} holds no bench--*.json")
    return found[-1]


def run_results(run: Path) -> tuple[dict[str, Any], dict[str, Any]]:
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


def launch_costs(bench: dict[str, Any]) -> dict[tuple[str, str], float]:
    return {
        ("cpu" if r["device"] == "cpu" else "cuda", r["mode"]): r["us_per_op"] * 1e-6
        for r in bench.get("launch", {}).get("rows", [])
        if r["library"] == "torch"
    }


def loop_trace(shape: dict[str, Any], n: int, steps: int, every: int | None) -> Trace:
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
    found.events.append(
        Event(
            "op",
            name,
            flops,
            nbytes,
            dtype or torch.float32,
            part="bookkeeping",
            library=library,
        )
    )
    return found


def rows_of(run: Path, host: dict[str, Any] | None = None) -> list[Row]:
    """Every row of a recorded run the model predicts, with its trace."""
    bench, extras = run_results(run)
    own = False
    if host is None:
        host, own = host_of(run)
    launch = launch_costs(bench)
    scale = 1.0 if own else launch["cpu", "sync_once"] / (host["add_us"] * 1e-6)
    loops = host["loops"]
    rows: list[Row] = []

    def loop_row(
        exp: str, variant: str, per_step: float, key: str, n: int, every: int | None
    ) -> None:
        steps = every or 1
        if key not in loops:  # a loop this host-costs file did not time
            return
        rows.append(
            Row(
                exp,
                variant,
                per_step * steps,
                loop_trace(loops[key], n, steps, every),
                loops[key]["cpu_us"] * 1e-6 * scale * steps,
            )
        )

    for r in extras.get("seed_iris", {}).get("rows", []):
        if r["device"] != "cpu":
            every = {"item_every_200": 200, "item_every_epoch": 1}.get(r["variant"])
            loop_row(
                "seed_iris",
                r["variant"],
                r["seconds"] / r["epochs"],
                "seed_iris",
                120,
                every,
            )
    for r in bench.get("sync_trap", {}).get("rows", []):
        if r["device"] != "cpu":
            every = {"item_every_100": 100, "item_every_epoch": 1}.get(r["variant"])
            loop_row(
                "sync_trap", r["variant"], r["s_per_epoch"], "sync_trap", 120, every
            )
    for r in bench.get("mlp", {}).get("rows", []):
        if r["device"] == "cuda" and r["implementation"] == "PyTorch":
            loop_row(
                "mlp_torch",
                f"sizes={r['sizes']}, n={r['samples']}",
                r["s_per_epoch"],
                f"mlp_torch {r['sizes']}",
                r["samples"],
                None,
            )
    for r in extras.get("seed_copies", {}).get("rows", []):
        if r["variant"] != "numpy":
            copies = r["variant"] == "cupy_copies_every_epoch"
            rows.append(
                Row(
                    "seed_copies",
                    f"{r['variant']}, n={r['n']}, hidden={r['hidden']}",
                    r["per_epoch_s"],
                    mlp_epoch(r["n"], r["features"], r["hidden"], copies),
                )
            )
    for r in extras.get("precision", {}).get("rows", []):
        dtype = torch.float64 if r["dtype"] == "float64" else torch.float32
        rows.append(
            Row(
                "precision",
                f"{r['library']} {r['dtype']} matmul {r['n']}",
                r["median_s"],
                _one("mm", 2.0 * r["n"] ** 3, 0.0, r["library"], dtype),
            )
        )
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
        rows.append(
            Row(
                "launch",
                f"torch add_, {mode}",
                launch["cuda", mode] * 100,
                found,
                launch["cpu", mode] * 100,
            )
        )
    for r in bench.get("ops", {}).get("rows", []):
        if r["device"] != "cpu":
            matrix = r["op"] == "matmul"
            found = _one(
                "mm" if matrix else "add",
                2.0 * r["size"] ** 3 if matrix else 0.0,
                0.0 if matrix else r["gbps"] * 1e9 * r["median_s"],
                r["library"],
            )
            found.sync()
            cpu = launch["cpu", "sync_once"] if r["library"] == "torch" else None
            rows.append(
                Row(
                    "ops",
                    f"{r['library']} {r['op']} {r['size']}",
                    r["median_s"],
                    found,
                    cpu,
                )
            )
    for r in bench.get("transfer", {}).get("rows", []):
        if r["memory"] == "pageable":
            way = "h2d" if r["direction"] == "host_to_device" else "d2h"
            found = Trace()
            found.copy(way, float(r["bytes"]), library="torch")
            rows.append(
                Row(
                    "transfer",
                    f"{way} pageable {r['bytes']} B",
                    r["median_s"],
                    found,
                    0.0,
                )
            )
    return rows
