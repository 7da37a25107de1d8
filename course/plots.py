"""Plots the lessons draw: loss curves, timing bars, CPU-vs-GPU crossover curves.

Each function returns the matplotlib ``Axes`` it drew on (pass ``ax=`` to draw
into a figure of your own) and never calls ``plt.show()``: :func:`show` does,
in a notebook, and saves the figure in a script on a headless GPU box.

Every figure has alt text: :func:`describe_figure` writes it from what is drawn
(title, axes, scales, each curve's last value, each bar's height), and
:func:`show` attaches it (the image's ``alt`` in a notebook, the PNG's
``Description`` in a file). Figures are drawn on an opaque white background, so
they read the same on light and dark notebook themes.
"""

from __future__ import annotations

import os
import sys
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np

from course.backend import as_numpy
from course.timing import TimingResult

# An opaque background: a transparent figure's black text vanishes on a dark theme.
plt.rcParams.update(
    {
        "figure.facecolor": "white",
        "savefig.facecolor": "white",
        "savefig.transparent": False,
    }
)


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
        values = as_numpy(values).astype(float).ravel()
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
    title: str = "Time per call (median; whiskers: first and third quartiles)",
    log_y: bool = False,
    unit: str = "ms",
) -> Any:
    """Draw a bar per measurement at its median, with whiskers from the first to
    the third quartile (none for a plain number). ``log_y`` for values that span
    orders of magnitude."""
    scale = {"s": 1.0, "ms": 1e3, "us": 1e6}[unit]
    ax = _axes(ax)
    labels = list(results)
    medians, low, high = [], [], []
    for value in results.values():
        if isinstance(value, TimingResult):
            q1, q3 = value.quartiles
            medians.append(value.median * scale)
            low.append(max(0.0, value.median - q1) * scale)
            high.append(max(0.0, q3 - value.median) * scale)
        else:
            medians.append(float(value) * scale)
            low.append(0.0)
            high.append(0.0)
    bars = ax.bar(labels, medians, yerr=[low, high], capsize=4, color="tab:blue")
    ax.bar_label(bars, labels=[f"{m:.3g}" for m in medians], padding=2)
    ax.set_ylabel(f"time ({'µs' if unit == 'us' else unit})")
    if log_y:
        ax.set_yscale("log")
    ax.set_title(textwrap.fill(title, 60))  # a long title wraps, never runs off
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


def _number(value: float) -> str:
    return f"{value:.3g}"


def _tick_label(axis: Any, position: float) -> str:
    """The category at ``position`` on a categorical ``axis``, else the position."""
    mapping = getattr(getattr(axis, "units", None), "_mapping", None) or {}
    for name, value in mapping.items():
        if abs(value - position) < 1e-9:
            return str(name).replace("\n", " ")
    return _number(position)


def _describe_bars(ax: Any) -> str | None:
    from matplotlib.container import BarContainer

    parts = []
    for container in ax.containers:
        if not isinstance(container, BarContainer):
            continue
        vertical = getattr(container, "orientation", "vertical") != "horizontal"
        for bar in container:
            if vertical:
                where = _tick_label(ax.xaxis, bar.get_x() + bar.get_width() / 2)
                parts.append(f"{where} {_number(bar.get_height())}")
            else:
                where = _tick_label(ax.yaxis, bar.get_y() + bar.get_height() / 2)
                parts.append(f"{where} {_number(bar.get_width())}")
    if not parts:
        return None
    label = ax.get_ylabel() if vertical else ax.get_xlabel()
    return f"bar chart of {label or 'values'}: {', '.join(parts)}"


def _describe_lines(ax: Any) -> str | None:
    from matplotlib.container import ErrorbarContainer

    whiskers = {
        id(child)
        for container in ax.containers
        if isinstance(container, ErrorbarContainer)
        for child in container.get_children()
    }
    ends = []
    for line in ax.get_lines():
        if id(line) in whiskers or len(line.get_xdata()) < 2:
            continue
        label = line.get_label()
        name = "" if label.startswith("_") else f"{label}: "
        try:
            y = np.asarray(line.get_ydata(), dtype=float)
            ends.append(f"{name}{_number(y[0])} to {_number(y[-1])}")
        except (TypeError, ValueError):
            ends.append(f"{name}non-numeric values")
    if not ends:
        return None
    return (
        f"{len(ends)} curve(s) of {ax.get_ylabel() or 'y'} against "
        f"{ax.get_xlabel() or 'x'}, " + "; ".join(ends)
    )


def describe_figure(fig: Any = None) -> str:
    """Alt text for a figure: what a reader who cannot see it needs to know."""
    fig = fig if fig is not None else plt.gcf()
    parts = []
    for ax in fig.get_axes():
        what = [ax.get_title() or "a plot"]
        what += [d for d in (_describe_bars(ax), _describe_lines(ax)) if d]
        scales = [
            n for n, s in (("x", ax.get_xscale()), ("y", ax.get_yscale())) if s == "log"
        ]
        if scales:
            what.append(f"log scale on {' and '.join(scales)}")
        parts.append(". ".join(what))
    return ". ".join(parts) + "." if parts else "An empty figure."


def _tick_labels(axis: Any) -> tuple[list[Any], list[Any]]:
    """``axis``'s tick labels with text: those it draws (ticks inside its
    view), and those it does not."""
    low, high = sorted(axis.get_view_interval())
    slack = 1e-9 * max(abs(high - low), 1e-300)
    drawn, hidden = [], []
    for tick in axis.get_major_ticks() + axis.get_minor_ticks():
        where = tick.get_loc()
        inside = where is not None and low - slack <= where <= high + slack
        for label in (tick.label1, tick.label2):
            if label.get_visible() and label.get_text().strip():
                (drawn if inside else hidden).append(label)
    return drawn, hidden


def layout_problems(fig: Any = None) -> list[str]:
    """What a reader of ``fig`` could not read: text cut off by the figure's
    edge, and tick labels of one axis that overlap (empty: none)."""
    from matplotlib.text import Text

    fig = fig or plt.gcf()
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    edge = fig.bbox
    labels = [_tick_labels(a) for ax in fig.axes for a in (ax.xaxis, ax.yaxis)]
    hidden = {id(t) for _, off_view in labels for t in off_view}
    problems = []
    for text in fig.findobj(Text):
        if not text.get_visible() or not text.get_text().strip() or id(text) in hidden:
            continue
        box = text.get_window_extent(renderer)
        if (
            box.x0 < edge.x0 - 1
            or box.y0 < edge.y0 - 1
            or box.x1 > edge.x1 + 1
            or box.y1 > edge.y1 + 1
        ):
            words = " ".join(text.get_text().split())
            problems.append(f"{words!r} is cut off by the figure's edge")
    for drawn, _ in labels:
        shown = sorted(
            (
                (" ".join(t.get_text().split()), t.get_window_extent(renderer))
                for t in drawn
            ),
            key=lambda item: (item[1].x0, item[1].y0),
        )
        for (a, box_a), (b, box_b) in zip(shown, shown[1:]):
            if box_a.overlaps(box_b):
                problems.append(f"tick labels {a!r} and {b!r} overlap")
    return problems


def show(name: str, alt: str | None = None) -> Path | None:
    """Show the current figure in a notebook; in a script, save it and close it.

    ``alt`` is the figure's alt text (default: :func:`describe_figure`). In a
    notebook the figure is displayed as a PNG with that ``alt``; scripts (a GPU
    box runs lessons as plain ``.py`` files) save ``<name>.png`` under
    ``$COURSE_FIGURES`` when that variable is set, with the alt text as the
    PNG's ``Description``, and return the path; otherwise the figure is closed.
    Each saved figure's :func:`layout_problems` are appended to
    ``layout.jsonl`` in that folder (the test suite reads them).
    """
    fig = plt.gcf()
    alt = alt or describe_figure(fig)
    if in_notebook():
        import io

        from IPython.display import Image, display

        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=100)
        plt.close(fig)
        display(Image(data=buffer.getvalue(), format="png", metadata={"alt": alt}))
        return None
    folder = os.environ.get("COURSE_FIGURES")
    path = None
    if folder:
        import json

        path = Path(folder) / f"{name}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        plt.savefig(path, dpi=100, metadata={"Description": alt})
        problems = layout_problems(fig)
        with open(path.parent / "layout.jsonl", "a", encoding="utf-8") as log:
            log.write(json.dumps({"figure": name, "problems": problems}) + "\n")
    plt.close("all")
    return path
