"""The class at a glance: pass rate per test cell, hardest first, and the
totals per lesson, as figures whose labels read."""

from __future__ import annotations

import random

from PIL import Image

from autograder.classgrade.class_figures import draw_class_figures, pass_rates
from autograder.classgrade.reports import Result


def _class(students: int = 30, seed: int = 0) -> list[Result]:
    rng = random.Random(seed)
    tasks = ("pick-device", "usable-memory", "training-memory", "largest-matrix")
    tests = {
        "01_devices": [f"01-{n}-{k}test" for n in tasks for k in ("", "hidden-")],
        "03_sync_trap": [f"03-{n}-test" for n in ("train", "history", "timed")],
    }
    results = []
    for lesson, cells in tests.items():
        for i in range(students):
            per = {}
            for j, cell in enumerate(cells):
                points = 2.0 if "hidden" in cell else 1.0
                passed = rng.random() < 0.3 + 0.6 * j / len(cells)
                per[cell] = [points if passed else 0.0, points]
            score = sum(s for s, _ in per.values())
            top = sum(p for _, p in per.values())
            results.append(Result(f"s{i}", lesson, "graded", score, top, per))
    results.append(Result("broken", "01_devices", "unreadable"))
    return results


def test_the_hardest_test_cell_comes_first_with_its_counts():
    rows = pass_rates(
        [
            Result("a", "x", "graded", per_question={"t1": [1, 1], "t2": [0, 1]}),
            Result("b", "x", "graded", per_question={"t1": [1, 1], "t2": [1, 1]}),
            Result("c", "x", "error"),
        ]
    )
    assert rows == [("t2", 1, 2), ("t1", 2, 2)]


def test_both_figures_are_drawn_readable_with_alt_text(tmp_path):
    paths = draw_class_figures(_class(), tmp_path)
    assert [p.name for p in paths] == ["pass_rates.png", "totals.png"]
    rates = Image.open(paths[0])
    assert "Pass rate per test cell" in rates.info["Description"]
    assert "01-pick-device-test" in rates.info["Description"]
    assert "03_sync_trap" in Image.open(paths[1]).info["Description"]


def test_no_graded_submission_draws_nothing_and_leaves_no_old_figure(tmp_path):
    draw_class_figures(_class(), tmp_path)
    assert draw_class_figures([Result("a", "x", "error")], tmp_path) == []
    assert not (tmp_path / "pass_rates.png").exists()
