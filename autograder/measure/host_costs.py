"""Quiet host costs of the loops the cost model is fitted on, timed on this CPU.

Each loop runs at a tiny size (so that arithmetic does not count) on one
thread, in short bursts; the cost is the fastest burst's, per step. Beside it:
the same loop's operations as :func:`course.gpumodel.trace` sees them, by part
of a training step, and the tiny in-place ``add_`` the launch bench times, so a
recorded run's CPU can be compared with this one
(:mod:`autograder.measure.model_rows`).

``python -m autograder.measure.host_costs OUT.json`` writes them.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from course.gpumodel import host_cost

BURSTS = 15


def _ops(run: Callable[[], Any], steps: int) -> list[Any]:
    from course import gpumodel

    found = [e for e in gpumodel.trace(run).events if e.kind == "op"]
    return found[: len(found) // steps]


def _shape(
    run: Callable[[int], Callable[[], Any]], steps: int, sizes: tuple[int, ...]
) -> dict[str, Any]:
    """The loop's operations per step, ``[name, part, flops, flops per sample,
    bytes, bytes per sample]`` each: ``run(n)`` is the loop on ``n`` samples,
    traced at each of ``sizes`` (two sizes separate what grows with the batch
    from what does not, such as an update of the weights; one size: all fixed)."""
    traced = [_ops(run(n), steps) for n in sizes]
    ops = []
    for events in zip(*traced):
        first = events[0]
        if len(sizes) == 2:
            (n1, n2), (a, b) = sizes, events
            per_flops = (b.flops - a.flops) / (n2 - n1)
            per_bytes = (b.bytes - a.bytes) / (n2 - n1)
        else:
            n1, per_flops, per_bytes = sizes[0], 0.0, 0.0
        ops.append(
            [
                first.name,
                first.part,
                first.flops - per_flops * n1,
                per_flops,
                first.bytes - per_bytes * n1,
                per_bytes,
            ]
        )
    return {"ops": ops}


def reshape(path: Path) -> None:
    """Recompute the ``ops`` of a host-costs file (deterministic), keeping its
    timings."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    data["loops"] = {
        name: {**loop, **shapes()[name]} for name, loop in data["loops"].items()
    }
    Path(path).write_text(json.dumps(data, indent=1), encoding="utf-8")


def shapes() -> dict[str, dict[str, Any]]:
    """Each loop's operations (:func:`_shape`), by loop name."""
    import torch

    from autograder.lessons.code import lesson_namespace
    from autograder.measure.bench.sync_trap import _trap_loop
    from autograder.measure.gpu_model_check import _iris_epochs, _iris_setup

    setup = _iris_setup(torch.device("cpu"))
    found = {
        "seed_iris": _shape(
            lambda n: lambda: _iris_epochs(setup, 10, None), 10, (120,)
        ),
        "sync_trap": _shape(
            lambda n: _trap_loop(torch.device("cpu"), 10, None), 10, (120,)
        ),
    }
    lesson = lesson_namespace("08_neural_network")
    for sizes in MLP_SIZES:

        def run(n: int, sizes: list[int] = sizes) -> Callable[[], Any]:
            model = lesson["torch_copy"](lesson["init_params"](sizes, seed=0))
            X, y = torch.randn(n, sizes[0]), torch.randn(n, sizes[-1])
            return lambda: lesson["torch_train"](model, X, y, lr=1e-3, num_epochs=2)

        found[f"mlp_torch {sizes}"] = _shape(run, 2, (64, 128))
    return found


MLP_SIZES = ([5, 32, 1], [20, 128, 128, 1], [20, 256, 256, 1], [20, 1024, 1024, 1])
"""The PyTorch MLPs of the bench (quick and gpu-check modes)."""


def measure(bursts: int = BURSTS) -> dict[str, Any]:
    """Every loop's quiet cost per step and its shape, and ``add_``'s cost
    (the fastest of ``bursts`` runs each)."""
    import torch

    from autograder.lessons.code import lesson_namespace
    from autograder.measure.bench.sync_trap import _trap_loop
    from autograder.measure.gpu_model_check import _iris_epochs, _iris_setup
    from course.devices import cpu_name

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # host_cost does too; the traces below as well
    try:
        x = torch.zeros(16)

        def adds() -> None:
            for _ in range(1000):
                x.add_(1.0)

        loops: dict[str, Any] = {}
        steps = 50
        setup = _iris_setup(torch.device("cpu"))
        loops["seed_iris"] = {
            "cpu_us": host_cost(lambda: _iris_epochs(setup, steps, None), bursts)
            / steps
            * 1e6,
        }
        trap = _trap_loop(torch.device("cpu"), steps, 100)
        loops["sync_trap"] = {"cpu_us": host_cost(trap, bursts) / steps * 1e6}
        lesson = lesson_namespace("08_neural_network")
        for sizes in MLP_SIZES:
            tiny = [sizes[0]] + [4] * (len(sizes) - 2) + [sizes[-1]]
            model = lesson["torch_copy"](lesson["init_params"](tiny, seed=0))
            X, y = torch.randn(8, tiny[0]), torch.randn(8, tiny[-1])
            cost = host_cost(
                lambda m=model, X=X, y=y: lesson["torch_train"](
                    m, X, y, lr=1e-3, num_epochs=10
                ),
                bursts,
            )
            loops[f"mlp_torch {sizes}"] = {"cpu_us": cost / 10 * 1e6}
        for name, shape in shapes().items():
            loops[name].update(shape)
        return {
            "cpu": cpu_name(),
            "date": time.strftime("%Y-%m-%d"),
            "python": sys.version.split()[0],
            "torch": torch.__version__,
            "method": f"fastest of {bursts} bursts, one thread, tiny sizes",
            "add_us": host_cost(adds, bursts) / 1000 * 1e6,
            "loops": loops,
        }
    finally:
        torch.set_num_threads(threads)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--reshape"]:
        reshape(Path(sys.argv[2]))
    else:
        Path(sys.argv[1]).write_text(json.dumps(measure(), indent=1), encoding="utf-8")
