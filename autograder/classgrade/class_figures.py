"""The class at a glance: two figures beside ``grades.csv``.

- ``pass_rates.png``: the share of the class that passed each test cell,
  hardest first, each bar labelled with the test's ``grade_id`` and its
  counts (``pass_rates.csv`` as a picture);
- ``totals.png``: each lesson's final scores, one row of dots per lesson
  over a box from the first to the third quartile, against its full marks.

Drawn with :mod:`course.plots`' conventions: alt text written from the
numbers drawn (the PNG's ``Description``), a white background, and no label
cut off or overlapping (:func:`course.plots.layout_problems`).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

#: The figures' file names in the output folder.
FIGURES = ("pass_rates.png", "totals.png")


def _graded(results: list[Any]) -> list[Any]:
    return [r for r in results if r.status == "graded" and r.per_question]


def pass_rates(results: list[Any]) -> list[tuple[str, int, int]]:
    """``(test, passed, graded)`` for every test cell, hardest first."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for result in _graded(results):
        for test, (score, points) in result.per_question.items():
            counts[test][0] += score >= points
            counts[test][1] += 1
    rows = [(test, passed, graded) for test, (passed, graded) in counts.items()]
    return sorted(rows, key=lambda row: (row[1] / row[2], row[0]))


def draw_class_figures(results: list[Any], out_dir: Path) -> list[Path]:
    """Draw both figures into ``out_dir``; the paths written (none without a
    graded submission).

    Raises:
        RuntimeError: a figure's labels do not read (cut off or overlapping).
    """
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    from course.plots import layout_problems

    for name in FIGURES:  # an earlier run's figures never stand for this one's
        (Path(out_dir) / name).unlink(missing_ok=True)
    rows = pass_rates(results)
    if not rows:
        return []
    written = []
    drawn = (_pass_rates_figure(plt, rows), _totals_figure(plt, _graded(results)))
    for name, (fig, alt) in zip(FIGURES, drawn, strict=True):
        fig.tight_layout()
        problems = layout_problems(fig)
        if problems:
            plt.close(fig)
            raise RuntimeError(f"{name}: {'; '.join(problems)}")
        path = Path(out_dir) / name
        fig.savefig(
            path,
            dpi=120,
            facecolor="white",
            metadata={"Description": alt},
        )
        plt.close(fig)
        written.append(path)
    return written


def _pass_rates_figure(plt: Any, rows: list) -> tuple[Any, str]:
    height = max(2.6, 0.32 * len(rows) + 1.4)
    fig, ax = plt.subplots(figsize=(8.0, height))
    labels = [test for test, _, _ in rows]
    rates = [100 * passed / count for _, passed, count in rows]
    positions = list(range(len(rows)))[::-1]  # the hardest at the top
    ax.barh(positions, rates, color="#c0504d", height=0.7)
    ax.set_yticks(positions, labels)
    for y, (_, passed, count), rate in zip(positions, rows, rates, strict=True):
        ax.text(min(rate, 100) + 1, y, f"{passed}/{count}", va="center", fontsize=8)
    ax.set_xlim(0, 112)
    ax.set_xlabel("students who passed the test cell (%)")
    ax.set_title("Pass rate per test cell, hardest first")
    alt = "Pass rate per test cell, hardest first: " + "; ".join(
        f"{test} {100 * passed / count:.0f}% ({passed} of {count})"
        for test, passed, count in rows
    )
    return fig, alt + "."


def _totals_figure(plt: Any, graded: list) -> tuple[Any, str]:
    by_lesson: dict[str, list[Any]] = defaultdict(list)
    for result in graded:
        by_lesson[result.lesson].append(result)
    lessons = sorted(by_lesson)
    fig, ax = plt.subplots(figsize=(8.0, max(2.4, 0.7 * len(lessons) + 1.4)))
    shares = []
    for lesson in lessons:
        full = max(r.max_score for r in by_lesson[lesson]) or 1.0
        shares.append([100 * r.final / full for r in by_lesson[lesson]])
    positions = list(range(len(lessons)))[::-1]
    ax.boxplot(
        shares,
        positions=positions,
        orientation="horizontal",
        widths=0.5,
        showfliers=False,
    )
    for y, values in zip(positions, shares, strict=True):
        spread = [y + 0.12 * ((i % 5) - 2) / 2 for i in range(len(values))]
        ax.scatter(values, spread, s=14, color="#1f4e79", alpha=0.7, zorder=3)
    ax.set_yticks(positions, [f"{n} ({len(by_lesson[n])})" for n in lessons])
    ax.set_xlim(-2, 102)
    ax.set_xlabel("final score, % of the lesson's full marks")
    ax.set_title("Totals per lesson (students graded in brackets)")
    alt = "Final scores per lesson, as a share of its full marks: " + "; ".join(
        f"{n}, {len(v)} students, median {sorted(v)[len(v) // 2]:.0f}%, "
        f"lowest {min(v):.0f}%, highest {max(v):.0f}%"
        for n, v in zip(lessons, shares, strict=True)
    )
    return fig, alt + "."
