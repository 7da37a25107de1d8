"""The student library gives no graded answer away (the delegation probe)."""

from __future__ import annotations

import pytest

from autograder.conventions import grade_id
from autograder.probe import HELPERS, helpers, probe_notebook, run_probe


def test_every_declared_helper_names_a_real_answer_cell():
    for lesson, declared in HELPERS.items():
        ids = {grade_id(c) for c in probe_notebook(lesson).cells}
        assert set(declared) <= ids, lesson
        for line in declared.values():
            assert line.startswith("from course.")


def test_the_probe_imports_the_helper_over_the_task():
    nb = probe_notebook("05_numpy_to_cupy")
    cell = next(c for c in nb.cells if grade_id(c) == "05-to-numpy")
    assert cell.source.rstrip().endswith(helpers("05")["05-to-numpy"])


@pytest.mark.slow
@pytest.mark.parametrize("lesson", sorted(HELPERS))
def test_no_course_helper_earns_a_hidden_tests_points(lesson):
    points = run_probe(lesson)
    assert points and set(points.values()) == {0.0}
