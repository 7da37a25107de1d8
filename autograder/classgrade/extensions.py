"""Extensions: one student's later due date for one lesson.

nbgrader keeps an extension on the student's submission
(``SubmittedAssignment.extension``: a length of time past the lesson's due
date, which its ``total_seconds_late`` counts from), so its own
``grant_extension`` fails with ``MissingEntry`` until the student has
submitted. :func:`grant` records it there when the gradebook has the
submission, and otherwise in a table of its own in the same gradebook
(:data:`TABLE`); :meth:`~autograder.classgrade.gradebook.CourseBook.record`
moves it onto the submission when it records one, so no empty submission is
ever made. The late penalty follows: the record works it out from
``total_seconds_late``, and :func:`grant` works it out again at once for a
submission already recorded.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

#: Extensions granted before the student's submission was recorded.
TABLE = "course_pending_extension"

_CREATE = (
    f"CREATE TABLE IF NOT EXISTS {TABLE} (student_id VARCHAR(128) NOT NULL, "
    "assignment VARCHAR(128) NOT NULL, seconds FLOAT NOT NULL, "
    "PRIMARY KEY (student_id, assignment))"
)


def _held(session: Any) -> bool:
    from sqlalchemy import inspect

    return inspect(session.connection()).has_table(TABLE)


def pending(session: Any, lessons: set[str]) -> dict[tuple[str, str], timedelta]:
    """The extensions kept for submissions not recorded yet, by (student,
    lesson), for ``lessons``."""
    from sqlalchemy import text

    if not _held(session):
        return {}
    rows = session.execute(text(f"SELECT student_id, assignment, seconds FROM {TABLE}"))
    return {
        (student, lesson): timedelta(seconds=float(seconds))
        for student, lesson, seconds in rows
        if lesson in lessons
    }


def strays(book: Any, lessons: set[str]) -> list[str]:
    """A line for each extension of ``lessons`` kept for a student the
    gradebook ``book`` does not have (a mistyped id, kept with ``--new``)."""
    known = {student.id for student in book.students}
    return [
        f"{student}/{lesson}: an extension (course extend) is kept for a student "
        "the gradebook does not have: a typo? `course extend "
        f"{student} {lesson} --remove` takes it back"
        for student, lesson in sorted(pending(book.db, lessons))
        if student not in known
    ]


def take_pending(session: Any, submission: Any) -> None:
    """Move the extension kept for ``submission``'s student and lesson onto
    it (in the caller's transaction)."""
    from sqlalchemy import text

    key = (submission.student.id, submission.assignment.name)
    found = pending(session, {key[1]}).get(key)
    if found is None:
        return
    submission.extension = found
    session.execute(
        text(f"DELETE FROM {TABLE} WHERE student_id = :s AND assignment = :a"),
        {"s": key[0], "a": key[1]},
    )


def _keep(session: Any, student: str, lesson: str, extension: timedelta | None) -> None:
    from sqlalchemy import text

    session.execute(text(_CREATE))
    session.execute(
        text(f"DELETE FROM {TABLE} WHERE student_id = :s AND assignment = :a"),
        {"s": student, "a": lesson},
    )
    if extension is not None:
        session.execute(
            text(f"INSERT INTO {TABLE} VALUES (:s, :a, :t)"),
            {"s": student, "a": lesson, "t": extension.total_seconds()},
        )


@dataclass
class Granted:
    """What :func:`grant` did, for the terminal."""

    student: str
    lesson: str
    due: datetime  # the lesson's due date (naive UTC)
    until: datetime | None  # the student's (None: the extension withdrawn)
    recorded: bool  # the gradebook has the submission
    before: tuple[float, float] = (0.0, 0.0)  # (seconds late, penalty)
    after: tuple[float, float] = (0.0, 0.0)
    known: bool = True  # the gradebook knows the student
    near: tuple[str, ...] = ()  # known students with a close name

    def lines(self, zone: str = "") -> list[str]:
        from autograder.classgrade.late import shown_time

        who = f"{self.student}/{self.lesson}"
        due = shown_time(self.due, zone)
        if self.until is None:
            said = [f"{who}: no extension; due {due} as for the class"]
        else:
            said = [f"{who}: due {shown_time(self.until, zone)} (the class: {due})"]
        if self.recorded:
            (late0, pen0), (late1, pen1) = self.before, self.after
            said.append(
                f"  on the recorded submission: {_late(late0)} -> {_late(late1)}; "
                f"late penalty {pen0:g} -> {pen1:g} point(s)"
            )
            said.append(
                "  run `course grade` again (nothing is regraded) to bring "
                "grades.csv and the feedback page up to date"
            )
        elif self.until is not None:
            said.append(
                "  no submission recorded yet: kept in the gradebook, and applied "
                "when `course grade` records it"
            )
        if not self.known:
            hint = f" (did you mean {', '.join(self.near)}?)" if self.near else ""
            said.append(
                f"  note: the gradebook has no student {self.student!r} yet{hint}"
            )
        return said


def _late(seconds: float) -> str:
    return "on time" if seconds <= 0 else f"{seconds / 3600:.2f} h late"


def grant(
    book: Any, student: str, lesson: str, until: datetime | None, new: bool = False
) -> Granted:
    """Give ``student`` until ``until`` (naive UTC; None: withdraw it) for
    ``lesson`` in ``book`` (an open
    :class:`~autograder.classgrade.gradebook.CourseBook`), in one commit. A
    student the gradebook does not have is refused unless ``new`` says they
    are new (a withdrawal is always taken: it may undo a typo).

    Raises:
        ValueError: the gradebook lacks the lesson or its due date, or the
            student (without ``new``), or ``until`` is not after the due
            date; nothing is written.
    """
    import difflib

    from nbgrader.api import MissingEntry

    from autograder.classgrade.gradebook_schema import marks_of

    course = book.book
    try:
        assignment = course.find_assignment(lesson)
    except MissingEntry:
        raise ValueError(
            f"the gradebook has no lesson {lesson}: give it a due date first, with "
            f"`nbgrader db assignment add {lesson} --duedate=...` or "
            f"`course grade submitted/ --lesson {lesson} --due DATE`"
        ) from None
    if assignment.duedate is None:
        raise ValueError(
            f"{lesson} has no due date in the gradebook, so there is nothing to "
            f"extend: set one with `course grade submitted/ --lesson {lesson} "
            "--due DATE`"
        )
    due = assignment.duedate
    if until is not None and until <= due:
        raise ValueError(
            f"{until:%Y-%m-%d %H:%M} UTC is not after {lesson}'s due date "
            f"({due:%Y-%m-%d %H:%M} UTC): an extension gives a later date; "
            "to take one back, use --remove"
        )
    extension = None if until is None else until - due
    students = {s.id for s in course.students}
    done = Granted(student, lesson, due, until, recorded=False)
    if student not in students:
        done.known = False
        done.near = tuple(difflib.get_close_matches(student, sorted(students), n=3))
        if until is not None and not new:
            hint = f" (did you mean {', '.join(done.near)}?)" if done.near else ""
            raise ValueError(
                f"the gradebook has no student {student!r}{hint}: check the id "
                "(`nbgrader db student list` lists them), or give --new for a "
                "student not in it yet (the extension is kept until their "
                "submission is recorded)"
            )
    try:
        try:
            submission = course.find_submission(lesson, student)
        except MissingEntry:
            _keep(course.db, student, lesson, extension)
        else:
            done.recorded = True
            done.before = (
                float(submission.total_seconds_late),
                marks_of(submission).penalty,
            )
            submission.extension = extension
            book.penalise(submission)
            done.after = (
                float(submission.total_seconds_late),
                marks_of(submission).penalty,
            )
            if _held(course.db):  # one place for it: the submission's
                _keep(course.db, student, lesson, None)
        course.db.commit()
    except BaseException:
        course.db.rollback()
        raise
    return done


__all__ = ["TABLE", "Granted", "grant", "pending", "strays", "take_pending"]
