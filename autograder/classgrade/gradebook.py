"""The course gradebook: the one store of scores, late penalties and manual grades.

This module alone opens nbgrader's ``Gradebook`` for a course (and the
lesson templates a run copies a definition from). Workers write no gradebook
(:mod:`autograder.grading.chain.run`); the batch's main process holds a
:class:`CourseBook` open for the run and records each result the moment it
arrives, in one transaction, so Ctrl-C keeps what was recorded:

- before any job, :meth:`CourseBook.set_up` copies each lesson's definition
  (notebook, grade, solution, source and task cells) from the template the
  workers use, unless the course has it (an assignment added with
  ``nbgrader db assignment add`` and a due date alone is not set up); makes
  each definition the release's the run grades under
  (:mod:`autograder.classgrade.gradebook_rules`); with ``--due``, sets the
  lesson's due date and every submission's penalty again;
- :meth:`CourseBook.record` writes one result: the student and submission if
  missing (the rows nbgrader's ``add_submission`` makes), its time, each grade
  cell's **auto** score (none for a cell only a person can grade) and "needs
  manual grade" as nbgrader's ``SaveAutoGrades`` sets it, then the late
  penalty as nbgrader's ``AssignLatePenalties`` works it out, with the plugin
  the course config names (:mod:`autograder.classgrade.late`). Manual scores,
  comments and extra credit are left alone, so they survive a rerun; an auto
  score that did not change is not written;
- :meth:`CourseBook.marks` reads what the gradebook holds: the
  :class:`~autograder.classgrade.reports.Marks` every output is made from.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from autograder.classgrade.extensions import pending, strays, take_pending
from autograder.classgrade.gradebook_rules import (
    above_maximum,
    check_points,
    follow_points,
    missing_cells,
)
from autograder.classgrade.gradebook_schema import (
    cell_score,
    copy_lesson,
    create_gradebook,
    marks_of,
    new_submission,
)
from autograder.classgrade.reports import Marks, Result

Key = tuple[str, str]  # (student, lesson)


def _url(path: Path | str) -> str:
    text = str(path)
    return text if text.startswith("sqlite:") else f"sqlite:///{Path(text).resolve()}"


def _open(url: str) -> Any:
    from nbgrader.api import Gradebook

    from autograder.config.settings import put_python_on_path

    put_python_on_path()  # where nbgrader makes a gradebook, it runs `alembic`
    return Gradebook(url)


def held_definitions(gradebook: Path | str | None) -> dict[str, tuple]:
    """``{lesson: (grade cells, task cells)}`` the course gradebook at path
    ``gradebook`` holds (a lesson with its notebook), as a release's cells
    are compared (:mod:`autograder.classgrade.prepare`)."""
    if gradebook is None or not Path(str(gradebook)).is_file():
        return {}
    found = {}
    with _open(_url(gradebook)) as course:
        for assignment in course.assignments:
            for notebook in assignment.notebooks:
                if notebook.name == assignment.name:
                    found[assignment.name] = (
                        {c.name: float(c.max_score) for c in notebook.grade_cells},
                        {c.name: float(c.max_score) for c in notebook.task_cells},
                    )
    return found


def due_state(gradebook: Path | None, lessons: set[str]) -> tuple[dict, dict]:
    """The course gradebook's due dates by lesson and extensions by (student,
    lesson); nothing when there is no gradebook yet."""
    if gradebook is None or not Path(gradebook).is_file():
        return {}, {}
    due, extensions = {}, {}
    with _open(_url(gradebook)) as book:
        for assignment in book.assignments:
            if assignment.name not in lessons:
                continue
            if assignment.duedate is not None:
                due[assignment.name] = assignment.duedate
            for sub in assignment.submissions:
                if sub.extension is not None:
                    extensions[(sub.student.id, assignment.name)] = sub.extension
        extensions.update(pending(book.db, lessons))  # not recorded yet
    return due, extensions


def read_marks(gradebook: Path | str, keys: Iterable[Key]) -> dict[Key, Marks]:
    """The marks of each (student, lesson) the gradebook holds, read only."""
    if not Path(str(gradebook)).is_file():
        return {}
    course = CourseBook(gradebook)
    with _open(course.url) as course.book:
        return course.marks(keys)


def recorded(gradebook: Path | str, keys: Iterable[Key]) -> set[Key]:
    """The (student, lesson) of ``keys`` the gradebook holds a submission of."""
    if not Path(str(gradebook)).is_file():
        return set()
    wanted = set(keys)
    with _open(_url(gradebook)) as book:
        found = {
            (sub.student.id, assignment.name)
            for assignment in book.assignments
            if assignment.name in {lesson for _, lesson in wanted}
            for sub in assignment.submissions
        }
    return found & wanted


def template_points(template: str, lesson: str) -> dict[str, float]:
    """Each test and task cell's points in a lesson's template gradebook."""
    with _open(template) as book:
        return {
            c.name: float(c.max_score)
            for nb in book.find_assignment(lesson).notebooks
            for c in [*nb.grade_cells, *nb.task_cells]
        }


class CourseBook:
    """The course gradebook at ``path``, open for one run (made if missing);
    ``config`` is the course config naming the late-penalty plugin."""

    def __init__(self, path: Path | str, config: Any = None) -> None:
        from autograder.classgrade.late import penalty_plugin

        self.url = _url(path)
        self.plugin = penalty_plugin(config)
        self.book: Any = None
        self.wanted: dict[str, dict[str, float]] = {}  # each lesson's points
        self.followed: set[str] = set()  # lessons whose definition follows
        self.lessons: set[str] = set()  # the run's lessons, graded now or not
        self._settled = False  # settle runs once a run (publish, or a stop)

    def __enter__(self) -> CourseBook:
        Path(self.url.removeprefix("sqlite:///")).parent.mkdir(
            parents=True, exist_ok=True
        )
        create_gradebook(self.url)
        self.book = _open(self.url).__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.book.db.rollback()  # what no commit kept
        self.book.__exit__(*exc)

    # -- before the jobs --------------------------------------------------

    def set_up(
        self,
        templates: dict[str, str],
        rewritten: set[tuple[str, str, str]],
        due: Any = None,
        lesson: str | None = None,
    ) -> None:
        """Make each lesson of ``templates`` (gradebook URLs) ready: its
        definition copied in where missing, and checked against the
        template's (``rewritten``: the (student, lesson, cell) this run writes
        again; the points follow with the lesson's first result recorded);
        ``due`` (naive UTC) becomes ``lesson``'s due date, and every
        submission's penalty follows it. One commit.

        Raises:
            ValueError: the definition cannot follow the template (see
                :func:`~autograder.classgrade.gradebook_rules.check_points`);
                nothing is written.
        """
        course = self.book
        known = {a.name for a in course.assignments if a.notebooks}
        for name in sorted(set(templates) - known):
            with _open(templates[name]) as template:
                copy_lesson(template, course, name)
        try:
            self.wanted = {n: template_points(u, n) for n, u in templates.items()}
            check_points(course, self.wanted, rewritten)
            if due is not None and lesson is not None:
                from nbgrader.api import Assignment, MissingEntry

                try:
                    assignment = course.find_assignment(lesson)
                except MissingEntry:
                    assignment = Assignment(name=lesson, course_id=course.course_id)
                    course.db.add(assignment)
                assignment.duedate = due
                for submission in assignment.submissions:
                    self.penalise(submission)
            course.db.commit()
        except BaseException:
            course.db.rollback()
            raise

    # -- one result -------------------------------------------------------

    def check(self, result: Result) -> None:
        """Raise ValueError if the gradebook's lesson lacks a cell of
        ``result``."""
        missing = missing_cells(self.book, result.lesson, list(result.per_question))
        if missing:
            raise ValueError(
                f"{result.student}/{result.lesson}: the gradebook's {result.lesson} "
                f"has no cell {', '.join(missing)}"
            )

    def record(
        self, result: Result, one_cell: str | None = None, new_file: bool = True
    ) -> None:
        """Write one graded result, in one transaction (see the module); with
        ``one_cell``, only that cell's auto score, where the gradebook has the
        submission's other scores already. An auto score equal to the one
        kept is not written again for the same file (not ``new_file``)."""
        from sqlalchemy.exc import SAWarning

        from autograder.classgrade.late import parse_stamp

        course = self.book
        try:
            if result.lesson in self.wanted and result.lesson not in self.followed:
                follow_points(course, result.lesson, self.wanted[result.lesson])
            self.check(result)
            with warnings.catch_warnings():
                # nbgrader's models warn on a new submission's rows (as in
                # its own autograde); every row is added all the same
                warnings.simplefilter("ignore", SAWarning)
                submission, scored = self._submission(result.student, result.lesson)
            submission.timestamp = (
                parse_stamp(result.submitted_at) if result.submitted_at else None
            )
            one = one_cell if scored else None
            grades = {
                (nb.name, g.name): g for nb in submission.notebooks for g in nb.grades
            }
            for cell, (score, _) in result.per_question.items():
                if one is not None and cell != one:
                    continue
                grade = grades[(result.lesson, cell)]
                auto = None if cell in result.manual else float(score)
                if scored and not new_file and grade.auto_score == auto:
                    continue  # unchanged: a person's triage stays as they left it
                grade.auto_score = auto
                # as SaveAutoGrades: a hand-given score is looked at again when
                # the auto score under it changed
                grade.needs_manual_grade = (
                    grade.manual_score is not None or grade.auto_score is None
                )
            self.penalise(submission)
            course.db.commit()
        except BaseException:
            course.db.rollback()  # a failed record leaves no partial submission
            raise
        self.followed.add(result.lesson)

    def settle(self) -> list[str]:
        """At the end of a run, finished or not: an auto score above its
        cell's new maximum (its submission not graded again under the new
        points: its job failed, or the run stopped first) is cleared and
        needs a manual grade, so none exceeds it; and an extension kept for a
        student the gradebook does not have (a mistyped id), of the run's
        :attr:`lessons`. Returns a line for each, once a run."""
        if self._settled:
            return []
        self._settled = True
        lines = []
        for lesson in sorted(self.followed):
            for grade in above_maximum(self.book, lesson):
                submission = grade.notebook.assignment
                lines.append(
                    f"{submission.student.id}/{lesson}: {grade.name} held "
                    f"{grade.auto_score:g}, above its new maximum "
                    f"{float(grade.max_score):g}; cleared until graded again"
                )
                grade.auto_score, grade.needs_manual_grade = None, True
                self.penalise(submission)
        self.book.db.commit()
        return lines + strays(self.book, self.lessons | self.followed)

    def _submission(self, student: str, lesson: str) -> tuple[Any, bool]:
        """The submission's row, made (unsaved) with everything nbgrader's
        ``add_submission`` makes if missing; and whether it holds scores."""
        from nbgrader.api import MissingEntry

        course = self.book
        try:
            submission = course.find_submission(lesson, student)
        except MissingEntry:
            pass
        else:
            scored = any(
                g.auto_score is not None or g.manual_score is not None
                for nb in submission.notebooks
                for g in nb.grades
            )
            return submission, scored
        submission = new_submission(course, student, lesson)
        take_pending(course.db, submission)  # an extension granted before
        return submission, False

    def penalise(self, submission: Any) -> None:
        """nbgrader's ``AssignLatePenalties`` on one submission's notebooks,
        in this transaction: the plugin's penalty on the notebook's score,
        capped to [0, score]; none when on time."""
        late = float(submission.total_seconds_late)
        for notebook in submission.notebooks:
            notebook.late_submission_penalty = None
            if late <= 0:
                continue
            score = sum(cell_score(g) for g in notebook.grades)
            student = submission.student.id
            penalty = self.plugin.late_submission_penalty(student, score, late)
            if penalty is not None:
                notebook.late_submission_penalty = min(max(penalty, 0.0), score)

    # -- reading ----------------------------------------------------------

    def marks(self, keys: Iterable[Key]) -> dict[Key, Marks]:
        """The gradebook's marks of each (student, lesson) it has."""
        from nbgrader.api import MissingEntry

        wanted = set(keys)
        found = {}
        if len(wanted) == 1:  # one result as it arrives: no walk of the class
            ((student, lesson),) = wanted
            try:
                sub = self.book.find_submission(lesson, student)
            except MissingEntry:
                return found
            return {(student, lesson): marks_of(sub)}
        for lesson in sorted({lesson for _, lesson in wanted}):
            try:
                subs = self.book.find_assignment(lesson).submissions
            except MissingEntry:  # a lesson it never had
                continue
            for sub in subs:
                key = (sub.student.id, lesson)
                if key in wanted:
                    found[key] = marks_of(sub)
        return found


def record(
    results: Iterable[Result],
    db_url: str,
    templates: dict[str, str],
    config: Any = None,
    only_question: str | None = None,
) -> list[str]:
    """Every graded result into the gradebook at ``db_url``, as a run does:
    its lessons set up from ``templates``, every result's cells checked, then
    each result recorded (with ``only_question``, that cell alone where the
    submission has scores). Returns the run's closing lines (:meth:`CourseBook.
    settle`)."""
    graded = [r for r in results if r.status == "graded"]
    rewritten = {
        (r.student, r.lesson, cell)
        for r in graded
        for cell in r.per_question
        if only_question in (None, cell)
    }
    lessons = {r.lesson for r in graded}
    with CourseBook(db_url, config) as book:
        book.set_up({n: templates[n] for n in lessons}, rewritten)
        for result in graded:
            book.check(result)
        for result in graded:
            book.record(result, only_question, new_file=False)
        return book.settle()


__all__ = [
    "CourseBook",
    "create_gradebook",
    "due_state",
    "held_definitions",
    "read_marks",
    "record",
    "recorded",
    "template_points",
]
