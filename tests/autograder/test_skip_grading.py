"""A lesson cell tagged ``skip-grading`` is skipped while grading, and only such
a cell: the tag on a test or an answer is ignored."""

from __future__ import annotations

import nbformat

from autograder.grading.chain.referee import SKIP_TAG, Referee, skip_slow_cells
from autograder.grading.chain.verdict import SKIPPED_NOTE, Verdict
from autograder.lessons.conventions import SKIP_AT_GRADING, skipped_at_grading


def _code(source, tags=(), **nbgrader):
    cell = nbformat.v4.new_code_cell(source)
    if tags:
        cell.metadata["tags"] = list(tags)
    if nbgrader:
        cell.metadata["nbgrader"] = {"schema_version": 3, "locked": True, **nbgrader}
    return cell


def _notebook():
    return nbformat.v4.new_notebook(
        cells=[
            _code("slow_demo()", [SKIP_AT_GRADING]),
            _code("fast_demo()"),
            _code(
                "def f(): ...",
                [SKIP_AT_GRADING],
                grade_id="01-f",
                solution=True,
                grade=False,
                locked=False,
            ),
            _code(
                "assert f() is None",
                [SKIP_AT_GRADING],
                grade_id="01-f-test",
                grade=True,
                solution=False,
                points=1,
            ),
        ]
    )


def test_only_the_tagged_lesson_cell_counts_as_skipped():
    slow, fast, answer, test = _notebook().cells
    assert skipped_at_grading(slow)
    assert not any(skipped_at_grading(c) for c in (fast, answer, test))


def test_the_referee_tags_it_for_nbclient_and_the_reference_run_too():
    nb = _notebook()
    Referee().preprocess(nb, {"nbgrader": {"assignment": "01_devices"}})
    slow, fast, answer, test = nb.cells
    assert SKIP_TAG in slow.metadata["tags"]
    assert SKIP_TAG in test.metadata["tags"]  # every test runs in the referee
    assert SKIP_TAG not in fast.metadata.get("tags", [])
    assert SKIP_TAG not in answer.metadata["tags"]  # an answer always runs
    assert skip_slow_cells(_notebook()) == 1


def test_the_feedback_says_why_the_cell_has_no_output():
    nb = _notebook()
    skip_slow_cells(nb)
    Verdict().preprocess(nb, {"nbgrader": {"assignment": "01_devices"}})
    slow = nb.cells[0]
    assert slow.metadata["tags"] == [SKIP_AT_GRADING]
    assert slow.outputs == [SKIPPED_NOTE]
