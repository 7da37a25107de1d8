"""``launch``: many tiny operations with a synchronisation after each vs one at
the end (the cost of a launch and of a wait)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from autograder.measure.bench.core import (
    Experiment,
    Row,
    Section,
    Settings,
    _torch,
    register,
    row,
    targets,
)
from course.timing import benchmark, synchronize


@dataclass(frozen=True)
class LaunchRow(Row):
    """One way of running ``ops`` tiny ops on a device."""

    library: str
    device: str
    mode: str
    ops: int
    syncs: int
    us_per_op: float


def run(s: Settings, say: Any = None) -> Section:
    """Tiny operations: a synchronisation after each one vs one at the end."""
    torch = _torch()
    rows = []
    for library, device in targets():
        x = torch.zeros(1, device=device)

        def each(x: Any = x, device: Any = device) -> None:
            for _ in range(s.launch_ops):
                x.add_(1)
                synchronize(device)

        def once(x: Any = x, device: Any = device) -> None:
            for _ in range(s.launch_ops):
                x.add_(1)
            synchronize(device)

        for mode, fn, syncs in (
            ("sync_each", each, s.launch_ops),
            ("sync_once", once, 1),
        ):
            result = benchmark(fn, device, warmup=1, repeat=s.repeat)
            rows.append(
                row(
                    LaunchRow,
                    result,
                    library=library,
                    device=str(device),
                    mode=mode,
                    ops=s.launch_ops,
                    syncs=syncs if device.type != "cpu" else 0,
                    us_per_op=result.median / s.launch_ops * 1e6,
                )
            )
    return {"status": "ok", "rows": rows}


def plot(section: Section, canvas: Any) -> None:
    rows = section["rows"]
    canvas.bars(
        "launch",
        [f"{r['device']}\n{r['mode']}" for r in rows],
        [r["us_per_op"] for r in rows],
        "µs per tiny op (median)",
        "A sync after every op vs one at the end",
    )


def summary(section: Section) -> list[str]:
    return [
        f"launch {r['device']} {r['mode']}: {r['us_per_op']:.2f} µs per op"
        for r in section["rows"]
    ]


EXPERIMENT = register(Experiment("launch", "Launch and wait", run, plot, summary))
