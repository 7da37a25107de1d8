"""Plots the lessons draw: loss curves, timing bars, CPU-vs-GPU crossover curves.

Each function returns the matplotlib ``Axes`` it drew on (pass ``ax=`` to draw
into a figure of your own) and never calls ``plt.show()``: notebooks show
figures by themselves, and scripts on a headless GPU box just save them.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np

from course.backend import _as_numpy
from course.timing import TimingResult


def _axes(ax: Any, figsize: tuple[float, float] = (6.4, 4.0)) -> Any:
    if ax is None:
        _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def plot_loss(
    history: Sequence[float] | Mapping[str, Sequence[float]],
    *,
    every: int = 1,
    ax: Any = None,
    log_y: bool = False,
    title: str = "Training loss",
) -> Any:
    """Draw one loss curve, or several (a mapping label -> history) on one plot.

    Args:
        every: epochs between two recorded losses (the x axis is in epochs).
        log_y: use a log scale, useful when losses span orders of magnitude.
    """
    ax = _axes(ax)
    curves = history if isinstance(history, Mapping) else {"loss": history}
    for label, values in curves.items():
        values = _as_numpy(values).astype(float).ravel()
        epochs = np.arange(1, len(values) + 1) * every
        ax.plot(epochs, values, label=str(label))
    ax.set_xlabel("epoch")
    ax.set_ylabel("loss")
    if log_y:
        ax.set_yscale("log")
    ax.set_title(title)
    if len(curves) > 1:
        ax.legend()
    ax.grid(alpha=0.3)
    return ax


def plot_timings(
    results: Mapping[str, TimingResult | float],
    *,
    ax: Any = None,
    title: str = "Time per call (median, bars show the IQR)",
) -> Any:
    """Draw a bar per measurement, in milliseconds, with its spread as an error bar."""
    ax = _axes(ax)
    labels = list(results)
    medians, spreads = [], []
    for value in results.values():
        if isinstance(value, TimingResult):
            medians.append(value.median * 1e3)
            spreads.append(value.spread * 1e3)
        else:
            medians.append(float(value) * 1e3)
            spreads.append(0.0)
    bars = ax.bar(labels, medians, yerr=spreads, capsize=4, color="tab:blue")
    ax.bar_label(bars, labels=[f"{m:.3g}" for m in medians], padding=2)
    ax.set_ylabel("time (ms)")
    ax.set_title(title)
    ax.grid(axis="y", alpha=0.3)
    return ax


def plot_crossover(
    sizes: Sequence[float],
    cpu_times: Sequence[float],
    gpu_times: Sequence[float] | None = None,
    *,
    size_label: str = "problem size (elements)",
    cpu_label: str = "CPU",
    gpu_label: str = "GPU",
    ax: Any = None,
    title: str = "Where does the GPU overtake the CPU?",
) -> Any:
    """Draw time against problem size on log-log axes, marking the first crossover.

    Times are in seconds and drawn in milliseconds. Without ``gpu_times`` only the
    CPU curve is drawn (a machine without a GPU).
    """
    ax = _axes(ax)
    sizes_arr = np.asarray(sizes, dtype=float)
    cpu = np.asarray(cpu_times, dtype=float) * 1e3
    ax.loglog(sizes_arr, cpu, "o-", label=cpu_label)
    if gpu_times is not None:
        gpu = np.asarray(gpu_times, dtype=float) * 1e3
        ax.loglog(sizes_arr, gpu, "s-", label=gpu_label)
        faster = np.nonzero(gpu < cpu)[0]
        if faster.size:
            x = sizes_arr[faster[0]]
            ax.axvline(x, color="grey", linestyle="--")
            ax.annotate(
                f"GPU faster from {x:.3g}",
                (x, np.min(cpu)),
                textcoords="offset points",
                xytext=(5, 5),
            )
    ax.set_xlabel(size_label)
    ax.set_ylabel("time (ms)")
    ax.set_title(title)
    ax.legend()
    ax.grid(alpha=0.3, which="both")
    return ax


def in_notebook() -> bool:
    """Return True inside a Jupyter kernel (where figures display themselves)."""
    shell = sys.modules.get("IPython")
    if shell is None:
        return False
    ip = shell.get_ipython()
    return ip is not None and ip.__class__.__name__ == "ZMQInteractiveShell"


def show(name: str) -> Path | None:
    """Show the current figure in a notebook; in a script, save it and close it.

    Scripts (a GPU box runs lessons as plain ``.py`` files) save the figure as
    ``<name>.png`` under ``$COURSE_FIGURES`` when that variable is set, and
    return the path; otherwise the figure is just closed.
    """
    if in_notebook():
        plt.show()
        return None
    folder = os.environ.get("COURSE_FIGURES")
    path = None
    if folder:
        path = Path(folder) / f"{name}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        plt.savefig(path, dpi=100)
    plt.close("all")
    return path
