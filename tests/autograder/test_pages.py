"""Feedback pages drawn from the store's marks, side by side, once."""

from __future__ import annotations

import shutil
import threading

import pytest

from autograder.classgrade import store
from autograder.classgrade.pages import draw_pages
from autograder.classgrade.reports import Marks, Result
from autograder.lessons import REPO_ROOT
from autograder.lessons.releases import grade_points

LESSON = "01_devices"


@pytest.mark.parametrize("busy", [False, True], ids=["fork", "forkserver"])
def test_pages_are_drawn_side_by_side_once_and_again_when_marks_change(tmp_path, busy):
    released = REPO_ROOT / "notebooks" / LESSON / f"{LESSON}.ipynb"
    points = grade_points(LESSON)
    first = next(iter(points))
    rows, marks = [], {}
    for i in range(9):  # enough to draw them in worker processes
        student = f"s{i}"
        path = store.notebook_path(tmp_path, student, LESSON)
        path.parent.mkdir(parents=True)
        shutil.copyfile(released, path)
        rows.append(Result(student, LESSON, "graded", digest=f"d{i}"))
        scores = {cell: 0.0 for cell in points}
        scores[first] = 1.0
        marks[(student, LESSON)] = Marks(
            auto=dict(scores),
            score=scores,
            points=dict(points),
            raw=1.0,
            penalty=0.5,
        )
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)  # a thread alive: no plain fork
    if busy:
        other.start()
    try:
        drawn: set = set()
        assert draw_pages(tmp_path, rows, marks, workers=2, drawn=drawn) == []
    finally:
        stop.set()
    assert len(drawn) == 9
    page = store.page_path(tmp_path, "s3", LESSON).read_text(encoding="utf-8")
    top = round(sum(points.values()), 2)
    assert f"{LESSON} (Score: 0.5 / {top})</h4>" in page  # raw less the penalty
    # each test named by what it checks, not nbgrader's "Test cell"
    assert "Test cell</a>" not in page and "Grade cell:" not in page
    assert (
        '<a href="#01-pick-device-test">pick_device returns a torch.device on this '
        "machine, a simulated GPU and a Mac.</a>"
    ) in page
    assert "<code>01-pick-device-test</code>: pick_device returns" in page
    assert store.page_basis(tmp_path, "s3", LESSON) == marks[("s3", LESSON)].basis("d3")
    drawn.clear()  # nothing changed: nothing drawn
    assert draw_pages(tmp_path, rows, marks, workers=2, drawn=drawn) == []
    assert drawn == set()
    marks[("s3", LESSON)].penalty = 0.0  # a mark changed: that page again
    rows[4].digest = "new"  # a resubmission with the same marks: that one too
    assert draw_pages(tmp_path, rows, marks, workers=2, drawn=drawn) == []
    assert drawn == {("s3", LESSON), ("s4", LESSON)}


def test_a_test_cell_without_a_docstring_keeps_nbgrader_s_word():
    import nbformat

    from autograder.grading.feedback import named_tests, test_names

    def cell(source, gid):
        made = nbformat.v4.new_code_cell(source)
        made.metadata["nbgrader"] = {
            "grade": True,
            "solution": False,
            "locked": True,
            "grade_id": gid,
            "points": 1,
        }
        return made

    nb = nbformat.v4.new_notebook(
        cells=[cell('"""x is <b>2</b>."""\nassert x == 2', "a"), cell("pass", "b")]
    )
    assert test_names(nb) == {"a": "x is <b>2</b>."}
    html = '<a href="#a">Test cell</a><a href="#b">Test cell</a>'
    assert named_tests(html, nb) == (
        '<a href="#a">x is &lt;b&gt;2&lt;/b&gt;.</a><a href="#b">Test cell</a>'
    )
