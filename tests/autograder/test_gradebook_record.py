"""record(): grades into the course gradebook on the paths an instructor takes
(a due date set before the first grading, reruns after manual grading, a
points change)."""

from __future__ import annotations

import shutil

import pytest

from autograder.classgrade.gradebook import (
    create_gradebook,
    held_definitions,
    record,
)
from autograder.classgrade.reports import Result
from tests.lesson_helpers import two_cell_template

LESSON = "L"


@pytest.fixture()
def books(tmp_path):
    """A template gradebook with the lesson's cells (a: 1 point, b: 2 points)
    and an empty course gradebook."""
    template = two_cell_template(tmp_path / "template.db", LESSON)
    course = tmp_path / "gradebook.db"
    return f"sqlite:///{course}", {LESSON: template}, course


def _result(student: str, a: float, b: float, b_max: float = 2.0) -> Result:
    return Result(
        student=student,
        lesson=LESSON,
        status="graded",
        score=a + b,
        max_score=1.0 + b_max,
        per_question={"a": [a, 1.0], "b": [b, b_max]},
    )


def _grade(db_url: str, student: str, cell: str):
    from nbgrader.api import Gradebook

    with Gradebook(db_url) as book:
        grade = book.find_grade(cell, LESSON, LESSON, student)
        return (
            grade.auto_score,
            grade.manual_score,
            grade.needs_manual_grade,
            float(grade.max_score),
        )


def test_a_lesson_added_with_its_due_date_before_grading_is_set_up(books):
    """`nbgrader db assignment add L --duedate=...` first: the lesson has no
    notebook yet; grading copies its cells in and keeps the due date."""
    from nbgrader.api import Gradebook

    db_url, templates, _ = books
    create_gradebook(db_url)
    with Gradebook(db_url) as book:
        book.add_assignment(LESSON, duedate="2026-12-02 08:00:00")
    record([_result("José", 1.0, 2.0)], db_url, templates)
    with Gradebook(db_url) as book:
        assert str(book.find_assignment(LESSON).duedate).startswith("2026-12-02 08:00")
        assert book.find_submission(LESSON, "José").score == 3.0


def test_a_failed_record_leaves_no_partial_submission(books):
    """Every result's cells are checked before anything is written."""
    from nbgrader.api import Gradebook, MissingEntry

    db_url, templates, _ = books
    cells = {"a": [1.0, 1.0], "no-such-cell": [1.0, 1.0]}
    wrong = Result(
        student="o'brien", lesson=LESSON, status="graded", per_question=cells
    )
    with pytest.raises(ValueError, match="no cell no-such-cell"):
        record([_result("ada", 1.0, 2.0), wrong], db_url, templates)
    for student in ("ada", "o'brien"):
        with Gradebook(db_url) as book, pytest.raises(MissingEntry):
            book.find_submission(LESSON, student)


def _graded_by_hand(db_url: str, templates: dict) -> None:
    """ada graded (a: 0 of 1), then her a given 0.5 by hand in formgrader."""
    from nbgrader.api import Gradebook

    record([_result("ada", 0.0, 2.0)], db_url, templates)
    with Gradebook(db_url) as book:
        grade = book.find_grade("a", LESSON, LESSON, "ada")
        grade.manual_score, grade.needs_manual_grade = 0.5, False
        book.db.commit()


def test_a_rerun_that_changes_no_auto_score_keeps_the_manual_triage(books):
    """nbgrader's SaveAutoGrades: a hand-given score needs a look again only
    when the auto score under it changed."""
    db_url, templates, _ = books
    _graded_by_hand(db_url, templates)
    record([_result("ada", 0.0, 2.0)], db_url, templates)
    assert _grade(db_url, "ada", "a") == (0.0, 0.5, False, 1.0)
    record([_result("ada", 1.0, 2.0)], db_url, templates)
    assert _grade(db_url, "ada", "a") == (1.0, 0.5, True, 1.0)


def test_a_points_change_moves_the_definition_and_no_score_exceeds_its_maximum(
    books,
):
    from nbgrader.api import Gradebook

    db_url, templates, path = books
    old = dict(templates)
    record([_result("ada", 1.0, 2.0), _result("bob", 1.0, 1.0)], db_url, old)
    with Gradebook(db_url) as book:  # a hand-given score on bob's b
        grade = book.find_grade("b", LESSON, LESSON, "bob")
        grade.manual_score, grade.needs_manual_grade = 1.5, False
        book.db.commit()
    # a new release gives b 4 points (its template); --rules current regrades
    new_db = path.parent / "new.db"
    shutil.copyfile(path.parent / "template.db", new_db)
    new = {LESSON: f"sqlite:///{new_db}"}
    with Gradebook(new[LESSON]) as book:
        book.find_grade_cell("b", LESSON, LESSON).max_score = 4.0
        book.db.commit()
    record([_result("ada", 1.0, 4.0, 4.0), _result("bob", 1.0, 1.0, 4.0)], db_url, new)
    assert _grade(db_url, "ada", "b") == (4.0, None, False, 4.0)
    assert _grade(db_url, "bob", "b") == (1.0, 1.5, True, 4.0)  # looked at again
    assert held_definitions(path)[LESSON][0] == {"a": 1.0, "b": 4.0}
    # one student under the old release would put ada above b's maximum
    with pytest.raises(ValueError, match="--rules current"):
        record([_result("bob", 1.0, 2.0)], db_url, old)
    assert _grade(db_url, "ada", "b") == (4.0, None, False, 4.0)
    assert _grade(db_url, "bob", "b") == (1.0, 1.5, True, 4.0)


def test_a_new_file_with_the_same_auto_score_asks_for_the_hand_grading_again(books):
    """nbgrader's SaveAutoGrades on a resubmission: a cell graded by hand needs
    a look again, whatever its auto score (the answer under it is new)."""
    from autograder.classgrade.gradebook import CourseBook

    db_url, templates, _ = books
    _graded_by_hand(db_url, templates)
    with CourseBook(db_url) as book:
        book.record(_result("ada", 0.0, 2.0), new_file=False)
    assert _grade(db_url, "ada", "a") == (0.0, 0.5, False, 1.0)
    with CourseBook(db_url) as book:
        book.record(_result("ada", 0.0, 2.0), new_file=True)
    assert _grade(db_url, "ada", "a") == (0.0, 0.5, True, 1.0)


def test_a_release_the_definition_cannot_follow_writes_nothing(books):
    """A release with a test cell the gradebook's definition lacks stops the
    run before any job, with the points and scores as they were."""
    from nbgrader.api import Gradebook

    from autograder.classgrade.gradebook import CourseBook

    db_url, templates, path = books
    record([_result("ada", 1.0, 2.0)], db_url, templates)
    other = path.parent / "other.db"
    shutil.copyfile(path.parent / "template.db", other)
    with Gradebook(f"sqlite:///{other}") as book:
        book.find_grade_cell("b", LESSON, LESSON).max_score = 1.0
        book.add_grade_cell("c", LESSON, LESSON, max_score=1.0, cell_type="code")
    with CourseBook(db_url) as book, pytest.raises(ValueError, match="new: c"):
        book.set_up({LESSON: f"sqlite:///{other}"}, {("ada", LESSON, "b")})
    assert _grade(db_url, "ada", "b") == (2.0, None, False, 2.0)


def test_a_run_never_leaves_a_score_above_its_maximum(books):
    """Points lowered, and bob's regrade under them failed (or the run stopped
    first): his score above the new maximum is cleared and flagged."""
    from nbgrader.api import Gradebook

    from autograder.classgrade.gradebook import CourseBook

    db_url, templates, path = books
    record([_result("ada", 1.0, 2.0), _result("bob", 1.0, 2.0)], db_url, templates)
    lower = path.parent / "lower.db"
    shutil.copyfile(path.parent / "template.db", lower)
    with Gradebook(f"sqlite:///{lower}") as book:
        book.find_grade_cell("b", LESSON, LESSON).max_score = 1.0
        book.db.commit()
    both = {(s, LESSON, c) for s in ("ada", "bob") for c in "ab"}
    with CourseBook(db_url) as book:
        book.set_up({LESSON: f"sqlite:///{lower}"}, both)
        assert _grade(db_url, "ada", "b")[3] == 2.0  # nothing moved before a result
        book.record(_result("ada", 1.0, 1.0, 1.0))  # bob's job fails
        lines = book.settle()
    assert lines == [
        f"bob/{LESSON}: b held 2, above its new maximum 1; cleared until graded again"
    ]
    assert _grade(db_url, "ada", "b") == (1.0, None, False, 1.0)
    assert _grade(db_url, "bob", "b") == (None, None, True, 1.0)


def test_a_hand_grade_over_a_changed_answer_is_named_everywhere(books, tmp_path):
    """ada's a given 0.5 by hand over 0 of 1; her resubmission passes a. The
    hand grade still counts (as nbgrader has it) but is never stale in
    silence: the summary, the review column and her page name both scores,
    and ``manual`` holds the hand-given points, never a difference."""
    import csv
    import io

    from autograder.classgrade.gradebook import CourseBook
    from autograder.classgrade.progress import Progress
    from autograder.classgrade.reports import ClassReport, write_reports
    from autograder.grading.feedback import with_stale

    db_url, templates, _ = books
    _graded_by_hand(db_url, templates)
    bob = _result("bob", 1.0, 2.0)
    record([_result("ada", 1.0, 2.0), bob], db_url, templates)
    with CourseBook(db_url) as book:
        marks = book.marks([("ada", LESSON), ("bob", LESSON)])
        one = book.marks([("ada", LESSON)])  # as the progress line reads it
    assert one[("ada", LESSON)].stale == {"a": [0.5, 1.0]}
    ada = _result("ada", 1.0, 2.0)
    for result in (ada, bob):
        result.take(marks[(result.student, LESSON)])
    assert (ada.hand_stale, ada.hand, ada.final) == ({"a": [0.5, 1.0]}, 0.5, 2.5)
    assert (bob.hand_stale, bob.hand) == ({}, None)
    line = io.StringIO()  # the progress line (no terminal): the final score
    Progress(2, stream=line).update(ada)
    assert line.getvalue().endswith(
        "ada/L graded 2.5/3 (a hand grade to look at again)\n"
    )
    summary = ClassReport([ada, bob], [], 2, 0, tmp_path, 1.0).summary()
    assert (
        "ada/L: hand grade 0.5/1 on a stands over its new auto score 1: look "
        "again in formgrader (Manual Grading), until then the final score is 2.5"
    ) in summary
    assert "bob/L: hand grade" not in summary
    write_reports([ada, bob], tmp_path)
    with open(tmp_path / "grades.csv", newline="", encoding="utf-8") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    assert (
        "hand grade 0.5/1 on a stands over its new auto score 1"
        in (rows["ada"]["review"])
    )
    assert (rows["ada"]["manual"], rows["bob"]["manual"]) == ("0.5", "")
    page = '<div id="toc"><ol><li>a</li></ol></div>'
    shown = with_stale(page, ada.hand_stale, {"points": {"a": 1.0}})
    assert "your instructor's grade 0.5 / 1 was given before the tests last" in shown
    assert "they now give 1 / 1" in shown and shown.index("hand-stale") < (
        shown.index("</ol>")
    )
    # looked at again in formgrader (saved: needs_manual_grade off): not stale
    from nbgrader.api import Gradebook

    with Gradebook(db_url) as book:
        book.find_grade("a", LESSON, LESSON, "ada").needs_manual_grade = False
        book.db.commit()
    with CourseBook(db_url) as book:
        assert book.marks([("ada", LESSON)])[("ada", LESSON)].stale == {}
