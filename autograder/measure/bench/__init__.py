"""``course bench``: the course's own performance measurements, done honestly.

Every experiment warms up, synchronises before each clock read, repeats, and
keeps the median and the spread (interquartile range). Results go to one JSON
file, with the device names, library versions and date they were measured with,
and to one plot per experiment. On a machine without a GPU the GPU parts are
skipped, each with its reason.

Experiments (``results`` keys of the JSON file):

``timer``      one large matmul timed three ways: without synchronising, with,
               and with the copies in and out (Day 03's first lesson);
``transfer``   host-to-device and device-to-host bandwidth, pageable and pinned
               memory, over a range of sizes, next to the link's theoretical
               figure where the driver reports it;
``launch``     many tiny operations with a synchronisation after each vs one at
               the end (the cost of a launch and of a wait);
``sync_trap``  a real training loop reading the loss with ``.item()`` every
               epoch, every N epochs, or keeping it on the device;
``ops``        matmul (GFLOP/s) and an elementwise add (GB/s) across sizes on
               every library present (NumPy, torch, CuPy) and the size from
               which the GPU stays ahead of the CPU;
``mlp``        Day 08's from-scratch MLP (NumPy / CuPy) against the same PyTorch
               MLP, time per epoch.

One module per experiment (``autograder/measure/bench/<name>.py``) holds its run, plot
and summary and registers itself (:func:`autograder.measure.bench.core.register`).

The file doubles as a recorded result (:mod:`course.recorded`, experiment
``bench``): ``course bench --record`` copies a GPU run into
``course/recorded/`` for lessons to show on machines without a GPU.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from autograder.measure.bench.core import (
    FULL,
    GPU_CHECK,
    MODES,
    QUICK,
    REGISTRY,
    SCHEMA,
    Experiment,
    Settings,
    caption,
    cuda_device,
    cupy_module,
    environment,
    free_device_memory,
    no_gpu_reason,
    register,
)
from autograder.measure.bench.files import record, save, slug, validate
from autograder.measure.bench.plotting import Canvas

# Importing an experiment's module registers it; this order is the order of a run.
for _module in ("timer", "transfer", "launch", "sync_trap", "ops", "mlp"):
    importlib.import_module(f"autograder.measure.bench.{_module}")
EXPERIMENTS = tuple(REGISTRY)

from autograder.measure.bench.ops import crossover  # noqa: E402 - after the registrations


def run_all(
    mode: str = "full",
    only: Iterable[str] | None = None,
    log: Callable[[str], None] | None = None,
    checkpoint: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Run the experiments; return the JSON-ready result (also a recorded run).

    ``checkpoint``, if given, is called with the partial result after each
    experiment, so that an interrupted run keeps what it measured.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {sorted(MODES)}, not {mode!r}")
    chosen = list(only or EXPERIMENTS)
    unknown = sorted(set(chosen) - set(EXPERIMENTS))
    if unknown:
        raise ValueError(f"unknown experiments {unknown}; choose from {EXPERIMENTS}")
    settings = MODES[mode]
    say = log or (lambda _: None)
    env = environment(mode)
    results: dict[str, Any] = {}
    for i, name in enumerate(chosen, 1):
        say(f"[{i}/{len(chosen)}] {name} ...")
        start = time.perf_counter()
        try:
            results[name] = REGISTRY[name].run(settings, say)
        except Exception as exc:  # noqa: BLE001 - report it, run the others
            results[name] = {
                "status": "error",
                "reason": f"{type(exc).__name__}: {exc}",
            }
        results[name]["seconds"] = round(time.perf_counter() - start, 2)
        state = results[name]["status"]
        extra = f": {results[name]['reason']}" if state != "ok" else ""
        say(
            f"[{i}/{len(chosen)}] {name} {state} in {results[name]['seconds']} s{extra}"
        )
        free_device_memory()
        if checkpoint is not None:
            checkpoint(_package(env, results))
    return _package(env, results)


def _package(env: dict[str, Any], results: dict[str, Any]) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "experiment": "bench",
        "hardware": env["gpu"] or env["cpu"],
        "date": env["date"][:10],
        "software": {
            k: env[k]
            for k in ("python", "numpy", "torch", "torch_cuda", "cupy")
            if env[k]
        },
        "environment": env,
        "results": results,
    }


def plot(data: dict[str, Any], out_dir: Path) -> list[Path]:
    """One PNG per experiment that ran; returns their paths."""
    canvas = Canvas(out_dir, caption(data))
    for name, section in data["results"].items():
        if section.get("status") == "ok" and name in REGISTRY:
            REGISTRY[name].plot(section, canvas)
    return canvas.paths


def summary(data: dict[str, Any]) -> str:
    """The headline figures, as lines of text."""
    lines = [f"Measured on {caption(data)}"]
    for name, section in data["results"].items():
        if section.get("status") in ("skipped", "error"):
            lines.append(f"{name}: {section['status']} ({section['reason']})")
        elif name in REGISTRY:
            lines += REGISTRY[name].summary(section)
    return "\n".join(lines)


__all__ = [
    "EXPERIMENTS",
    "FULL",
    "GPU_CHECK",
    "MODES",
    "QUICK",
    "SCHEMA",
    "Experiment",
    "Settings",
    "caption",
    "crossover",
    "cuda_device",
    "cupy_module",
    "free_device_memory",
    "no_gpu_reason",
    "plot",
    "record",
    "register",
    "run_all",
    "save",
    "slug",
    "summary",
    "validate",
]
