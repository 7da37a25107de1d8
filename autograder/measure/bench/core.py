"""What every experiment shares: sizes per mode, the machine, rows, the registry.

An experiment is a module of this package that builds an :class:`Experiment`
(its name, its ``run``, ``plot`` and ``summary``) and passes it to
:func:`register`. Adding one means writing one module and importing it in
``autograder/measure/bench/__init__.py``; nothing else changes.
"""

from __future__ import annotations

import datetime as dt
import os
import platform
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from course.env import force_cpu
from course.timing import TimingResult

SCHEMA = "course-bench/1"
FLOAT32 = 4  # bytes


@dataclass(frozen=True)
class Settings:
    """Sizes and repeats of one mode."""

    timer_size: int
    transfer_mib: tuple[int, ...]
    launch_ops: int
    trap_epochs: int
    trap_every: int
    matmul_sizes: tuple[int, ...]
    matmul_cpu_max: int
    add_sizes: tuple[int, ...]
    mlp_cases: tuple[tuple[tuple[int, ...], int], ...]
    mlp_epochs: int
    repeat: int


QUICK = Settings(
    timer_size=256,
    transfer_mib=(1, 16),
    launch_ops=500,
    trap_epochs=100,
    trap_every=10,
    matmul_sizes=(64, 128, 256, 512),
    matmul_cpu_max=512,
    add_sizes=(10_000, 100_000, 1_000_000),
    mlp_cases=(((20, 128, 128, 1), 1024),),
    mlp_epochs=3,
    repeat=3,
)
FULL = Settings(
    timer_size=4096,
    transfer_mib=(1, 4, 16, 64, 256, 1024),
    launch_ops=5000,
    trap_epochs=2000,
    trap_every=100,
    matmul_sizes=(64, 128, 256, 512, 1024, 2048, 4096, 8192),
    matmul_cpu_max=4096,
    add_sizes=(10_000, 100_000, 1_000_000, 10_000_000, 100_000_000),
    mlp_cases=(
        ((5, 32, 1), 800),
        ((20, 256, 256, 1), 4096),
        ((20, 1024, 1024, 1), 65536),
    ),
    mlp_epochs=10,
    repeat=7,
)


#: ``make gpu-check``: FULL on the GPU, with the CPU side of the largest MLP
#: smaller, so that a whole check fits a short lease of a GPU machine.
GPU_CHECK = replace(
    FULL,
    mlp_cases=FULL.mlp_cases[:2] + (((20, 1024, 1024, 1), 16384),),
    repeat=5,
)
MODES = {"quick": QUICK, "full": FULL, "gpu-check": GPU_CHECK}

Say = Callable[[str], None]
Section = dict[str, Any]
"""One experiment's JSON-ready result: ``status`` ("ok", "skipped", "error"),
``reason`` unless ok, and its figures (most have ``rows``)."""


@dataclass(frozen=True)
class Experiment:
    """One experiment: how to run it, draw it and summarise it."""

    name: str
    title: str
    run: Callable[[Settings, Say], Section]
    plot: Callable[[Section, Any], None]
    """Draws on the canvas (:class:`autograder.measure.bench.plotting.Canvas`)."""
    summary: Callable[[Section], list[str]]


REGISTRY: dict[str, Experiment] = {}


def register(experiment: Experiment) -> Experiment:
    """Add an experiment; the order of registration is the order of a run."""
    if experiment.name in REGISTRY:
        raise ValueError(f"experiment {experiment.name!r} is registered twice")
    REGISTRY[experiment.name] = experiment
    return experiment


# What is here.


def _version(module: str) -> str | None:
    try:
        from importlib.metadata import version

        return version(module)
    except Exception:  # noqa: BLE001 - not installed
        return None


def _torch() -> Any:
    import torch

    return torch


def cuda_device() -> Any:
    """torch's first CUDA device, or None (also with ``COURSE_FORCE_CPU``)."""
    torch = _torch()
    if force_cpu() or not torch.cuda.is_available():
        return None
    return torch.device("cuda:0")


def cupy_module() -> Any:
    """CuPy when it can run a kernel here, else None."""
    from course.devices import cupy_usable

    if force_cpu() or not cupy_usable():
        return None
    import cupy

    return cupy


def no_gpu_reason() -> str:
    """Why the GPU parts are skipped on this machine."""
    if force_cpu():
        return "COURSE_FORCE_CPU is set"
    torch = _torch()
    if torch.version.cuda is None:
        return f"torch {torch.__version__} is a CPU-only build and CuPy cannot run"
    return "no CUDA GPU is visible (torch.cuda.is_available() is False)"


def environment(mode: str) -> dict[str, Any]:
    """Device names, library versions, date: what every figure is measured with."""
    from course.devices import cpu_name

    torch = _torch()
    gpu = cuda_device()
    cupy = cupy_module()
    env = {
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "mode": mode,
        "cpu": cpu_name(),
        "cpu_cores": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "gpu": torch.cuda.get_device_name(gpu) if gpu is not None else None,
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "torch": torch.__version__,
        "torch_cuda": torch.version.cuda,
        "cupy": cupy.__version__ if cupy is not None else None,
    }
    if cupy is not None:
        env["cupy_cuda_runtime"] = str(cupy.cuda.runtime.runtimeGetVersion())
    return env


@dataclass(frozen=True)
class Row:
    """What every measured row holds: median and spread (IQR) in seconds, and
    the number of timed runs. Each experiment subclasses it with its fields."""

    median_s: float
    spread_s: float
    runs: int


def row(kind: type[Row], result: TimingResult, **fields: Any) -> dict[str, Any]:
    """A typed row of ``kind`` (unknown or missing fields raise), as JSON data."""
    typed = kind(
        median_s=result.median,
        spread_s=result.spread,
        runs=len(result.times),
        **fields,
    )
    return asdict(typed)


def skipped(reason: str) -> Section:
    return {"status": "skipped", "reason": reason}


def targets() -> list[tuple[str, Any]]:
    """(library, device) pairs to run tensor work on: torch CPU, torch CUDA."""
    torch = _torch()
    out = [("torch", torch.device("cpu"))]
    if cuda_device() is not None:
        out.append(("torch", cuda_device()))
    return out


def free_device_memory() -> None:
    """Give cached GPU memory back (torch's cache, CuPy's pools) between runs.

    A 4-8 GB card runs out otherwise: each experiment's buffers stay cached.
    """
    import gc

    gc.collect()
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available():
        torch.cuda.empty_cache()
    cupy = sys.modules.get("cupy")
    if cupy is not None:
        try:
            cupy.get_default_memory_pool().free_all_blocks()
            cupy.get_default_pinned_memory_pool().free_all_blocks()
        except Exception:  # noqa: BLE001 - CuPy present but no usable device
            pass


def caption(data: dict[str, Any]) -> str:
    """Where and when: the line every plot and table of these results carries."""
    env = data["environment"]
    where = env["gpu"] or env["cpu"]
    return (
        f"{where}; torch {env['torch']}, numpy {env['numpy']}"
        + (f", cupy {env['cupy']}" if env.get("cupy") else "")
        + f"; {env['date'][:10]} ({env['mode']})"
    )
