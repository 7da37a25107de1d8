"""Quiet host costs of the loops the cost model is fitted on, timed on this CPU.

Each loop runs at a tiny size (so that arithmetic does not count) on one
thread, in short bursts; the cost is the fastest burst's, per step. Beside it:
the same loop's operations as :func:`course.gpumodel.trace` sees them, by part
of a training step, and the tiny in-place ``add_`` the launch bench times, so a
recorded run's CPU can be compared with this one
(:mod:`autograder.measure.model_fit`).

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


def _shape(run: Callable[[], Any], steps: int, samples: int = 1) -> dict[str, Any]:
    """The loop's operations per step: ``[name, part, flops, bytes]`` each,
    per sample (``samples`` in the traced batch)."""
    from course import gpumodel

    found = gpumodel.trace(run)
    ops = [e for e in found.events if e.kind == "op"]
    per_step = len(ops) // steps
    return {
        "ops": [
            [e.name, e.part, e.flops / samples, e.bytes / samples]
            for e in ops[:per_step]
        ],
    }


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
            **_shape(lambda: _iris_epochs(setup, 10, None), 10, 120),
        }
        trap = _trap_loop(torch.device("cpu"), steps, 100)
        loops["sync_trap"] = {
            "cpu_us": host_cost(trap, bursts) / steps * 1e6,
            **_shape(_trap_loop(torch.device("cpu"), 10, None), 10, 120),
        }
        lesson = lesson_namespace("08_neural_network")
        for sizes in ([5, 32, 1], [20, 256, 256, 1], [20, 1024, 1024, 1]):
            tiny = [sizes[0]] + [4] * (len(sizes) - 2) + [sizes[-1]]
            model = lesson["torch_copy"](lesson["init_params"](tiny, seed=0))
            X, y = torch.randn(8, tiny[0]), torch.randn(8, tiny[-1])
            cost = host_cost(
                lambda m=model, X=X, y=y: lesson["torch_train"](
                    m, X, y, lr=1e-3, num_epochs=10
                ),
                bursts,
            )
            full = lesson["torch_copy"](lesson["init_params"](sizes, seed=0))
            Xf, yf = torch.randn(64, sizes[0]), torch.randn(64, sizes[-1])
            loops[f"mlp_torch {sizes}"] = {
                "cpu_us": cost / 10 * 1e6,
                **_shape(
                    lambda m=full, X=Xf, y=yf: lesson["torch_train"](
                        m, X, y, lr=1e-3, num_epochs=2
                    ),
                    2,
                    64,
                ),
            }
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
    Path(sys.argv[1]).write_text(json.dumps(measure(), indent=1), encoding="utf-8")
