"""`course extend`: one student's extension, kept as nbgrader keeps it, before
or after the student submits; late penalties, grades.csv and the feedback page
follow it."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from autograder.classgrade.extensions import TABLE, grant
from autograder.classgrade.gradebook import (
    CourseBook,
    create_gradebook,
    due_state,
    read_marks,
    record,
)
from autograder.classgrade.reports import Result
from autograder.config.settings import instructor_config
from autograder.grading.feedback import with_extension
from tests.lesson_helpers import two_cell_template

LESSON = "L"
DUE = datetime(2026, 12, 2, 8, 0)


@pytest.fixture()
def course(tmp_path):
    """A template gradebook with the lesson's cells (a: 1 point, b: 2), a
    course gradebook with the lesson due at DUE, and a per-hour penalty of
    one point an hour."""
    from nbgrader.api import Gradebook

    template = two_cell_template(tmp_path / "template.db", LESSON)
    path = tmp_path / "gradebook.db"
    create_gradebook(f"sqlite:///{path}")
    with Gradebook(f"sqlite:///{path}") as book:
        book.add_assignment(LESSON, duedate=DUE)
    config = instructor_config(None)
    config.AssignLatePenalties.plugin_class = (
        "autograder.classgrade.late.PerHourPenalty"
    )
    config.PerHourPenalty.points_per_hour = 1.0
    return path, {LESSON: template}, config


def _result(student: str, hours_late: float) -> Result:
    when = DUE + timedelta(hours=hours_late)
    return Result(
        student=student,
        lesson=LESSON,
        status="graded",
        score=3.0,
        max_score=3.0,
        per_question={"a": [1.0, 1.0], "b": [2.0, 2.0]},
        submitted_at=when.isoformat(),
    )


def _grant(path, config, student, until):
    with CourseBook(path, config) as book:
        return grant(book, student, LESSON, until)


def test_an_extension_on_a_recorded_submission_takes_its_penalty_off(course):
    path, templates, config = course
    record([_result("ada", 2.5)], f"sqlite:///{path}", templates, config)
    (before,) = read_marks(path, [("ada", LESSON)]).values()
    assert (before.seconds_late, before.penalty) == (2.5 * 3600, 3.0)  # 3 h begun

    done = _grant(path, config, "ada", DUE + timedelta(hours=3))
    assert done.recorded and done.before == (9000.0, 3.0)
    assert done.after == (0.0, 0.0)
    assert "2.50 h late -> on time; late penalty 3 -> 0" in "\n".join(done.lines())
    (after,) = read_marks(path, [("ada", LESSON)]).values()
    assert (after.seconds_late, after.penalty, after.final) == (0.0, 0.0, 3.0)
    assert after.extended_until == "2026-12-02T11:00:00"
    assert after.basis() != before.basis()  # the feedback page is drawn again
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{path}") as book:  # where nbgrader keeps it
        sub = book.find_submission(LESSON, "ada")
        assert sub.extension == timedelta(hours=3)
        assert sub.total_seconds_late == 0

    # a shorter one: late again, by what is past it
    done = _grant(path, config, "ada", DUE + timedelta(hours=2))
    assert done.after == (1800.0, 1.0)
    done = _grant(path, config, "ada", None)  # --remove
    assert done.after == (9000.0, 3.0)
    assert "no extension" in done.lines()[0]
    (back,) = read_marks(path, [("ada", LESSON)]).values()
    assert back.extended_until == ""


def test_an_extension_before_the_submission_is_kept_and_applied_when_recorded(
    course,
):
    from nbgrader.api import Gradebook, MissingEntry

    path, templates, config = course
    with Gradebook(f"sqlite:///{path}") as book, pytest.raises(MissingEntry):
        book.add_student("bob")
        book.grant_extension(LESSON, "bob", days=1)  # nbgrader's own cannot

    done = _grant(path, config, "bob", DUE + timedelta(days=1))
    assert not done.recorded and done.known
    assert "applied when `course grade` records it" in "\n".join(done.lines())
    with Gradebook(f"sqlite:///{path}") as book:
        assert book.find_assignment(LESSON).submissions == []  # none made
    assert due_state(path, {LESSON})[1] == {("bob", LESSON): timedelta(days=1)}

    record([_result("bob", 20.0)], f"sqlite:///{path}", templates, config)
    (marks,) = read_marks(path, [("bob", LESSON)]).values()
    assert (marks.seconds_late, marks.penalty, marks.final) == (0.0, 0.0, 3.0)
    assert marks.extended_until == "2026-12-03T08:00:00"
    with Gradebook(f"sqlite:///{path}") as book:
        sub = book.find_submission(LESSON, "bob")
        assert sub.extension == timedelta(days=1)  # moved onto the submission
        held = book.db.execute(
            __import__("sqlalchemy").text(f"SELECT COUNT(*) FROM {TABLE}")
        ).scalar()
    assert held == 0  # one place for it
    assert due_state(path, {LESSON})[1] == {("bob", LESSON): timedelta(days=1)}


def test_an_unknown_student_is_refused_unless_new_and_a_stray_one_is_named(course):
    """``course extend margret`` (a typo): refused, with the names it may
    mean; with --new it is kept, and every run that records the lesson names
    it while no such student exists."""
    path, templates, config = course
    record([_result("margaret", 0.0)], f"sqlite:///{path}", templates, config)
    with pytest.raises(ValueError, match="did you mean margaret.*--new"):
        _grant(path, config, "margret", DUE + timedelta(days=1))
    assert due_state(path, {LESSON})[1] == {}  # nothing kept
    with CourseBook(path, config) as book:
        done = grant(book, "margret", LESSON, DUE + timedelta(days=1), new=True)
    assert not done.known and done.near == ("margaret",)
    assert "did you mean margaret?" in "\n".join(done.lines())
    lines = record([_result("margaret", 0.0)], f"sqlite:///{path}", templates, config)
    assert lines == [
        f"margret/{LESSON}: an extension (course extend) is kept for a student "
        "the gradebook does not have: a typo? `course extend margret "
        f"{LESSON} --remove` takes it back"
    ]
    with CourseBook(path, config) as book:  # taken back, typo or not
        grant(book, "margret", LESSON, None)
    assert (
        record([_result("margaret", 0.0)], f"sqlite:///{path}", templates, config) == []
    )


@pytest.mark.parametrize(
    ("until", "message"),
    [(DUE, "is not after L's due date"), (DUE - timedelta(hours=1), "--remove")],
)
def test_an_until_not_after_the_due_date_is_refused(course, until, message):
    path, _, config = course
    with pytest.raises(ValueError, match=message):
        _grant(path, config, "ada", until)


def test_a_lesson_without_a_due_date_has_nothing_to_extend(tmp_path):
    from nbgrader.api import Gradebook

    path = tmp_path / "gradebook.db"
    create_gradebook(f"sqlite:///{path}")
    with Gradebook(f"sqlite:///{path}") as book:
        book.add_assignment(LESSON)
    with pytest.raises(ValueError, match="no due date in the gradebook"):
        _grant(path, None, "ada", DUE)
    with pytest.raises(ValueError, match="has no lesson M"):
        with CourseBook(path) as book:
            grant(book, "ada", "M", DUE)


def test_the_command_reads_the_date_in_the_course_zone_and_says_what_it_did(
    tmp_path, capsys
):
    from nbgrader.api import Gradebook

    from autograder.cli import main

    path = tmp_path / "gradebook.db"
    create_gradebook(f"sqlite:///{path}")
    with Gradebook(f"sqlite:///{path}") as book:
        book.add_assignment("01_devices", duedate=DUE)
    (tmp_path / "nbgrader_config.py").write_text(
        'c.DueDates.time_zone = "Europe/Paris"\n'
    )
    until = ["--until", "2026-12-05 18:00 Europe/Paris", "--gradebook", str(path)]
    assert main(["extend", "ada", "01", *until]) == 2  # no such student yet
    assert "no student 'ada'" in capsys.readouterr().err
    assert main(["extend", "ada", "01", *until, "--new"]) == 0
    said = capsys.readouterr().out
    assert (
        "ada/01_devices: due 2026-12-05 18:00 Europe/Paris (2026-12-05 17:00 UTC)"
        in (said)
    )
    assert "(the class: 2026-12-02 09:00 Europe/Paris (2026-12-02 08:00 UTC))" in said
    assert due_state(path, {"01_devices"})[1] == {
        ("ada", "01_devices"): timedelta(days=3, hours=9)
    }
    assert main(["extend", "ada", "02", *until, "--new"]) != 0
    assert "has no lesson 02_" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # --until or --remove, one of them
        main(["extend", "ada", "01", "--gradebook", str(path)])


def test_the_feedback_page_says_the_student_s_own_due_date():
    page = '<div id="toc">\n<ol>\n<li>Test</li>\n</ol>\n</div>'
    shown = with_extension(page, "2026-12-03T08:00:00")
    assert "Extension: your due date for this lesson is 2026-12-03 08:00:00 UTC" in (
        shown
    )
    assert shown.index("Extension") < shown.index("</ol>")
    assert with_extension(page, "") == page
