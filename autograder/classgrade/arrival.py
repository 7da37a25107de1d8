"""Each result stored the moment it arrives, into the run's store of scores.

With a course gradebook, :func:`course_book` holds it open for the run, set
up before any job (:meth:`~autograder.classgrade.gradebook.CourseBook.
set_up`) and settled at the end, finished or stopped (no score above its
cell's maximum); :func:`store_result` records each result there in one
transaction, puts its graded notebook where formgrader opens it, and writes
its JSON (no score). Without a gradebook, the results are the store: the
lateness and penalty go into the result, the due dates beside it.
:func:`in_store` says whether a row's scores are in this run's store.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from autograder.classgrade import store
from autograder.classgrade.due import late_into
from autograder.classgrade.gradebook import CourseBook
from autograder.classgrade.reports import Result
from autograder.classgrade.request import Plan


def store_result(
    planned: Plan,
    result: Result,
    book: CourseBook | None,
    graded: Result,
    one_cell: str | None,
) -> None:
    """Store one result as it arrives: its scores into ``book`` (``graded``:
    the scores graded now; ``one_cell``: that cell alone), its graded
    notebook beside the gradebook for formgrader; without a gradebook, its
    lateness into the result. Then the result's JSON."""
    out = planned.out_dir
    result.submitted_at = planned.when.get((result.student, result.lesson), "")
    graded.submitted_at = result.submitted_at
    if result.status == "graded" and book is not None:
        result.scores = "gradebook"
        before = store.stored(out, result.student, result.lesson, graded_only=False)
        try:
            # the same file graded again: an unchanged auto score is not
            # written (a person's triage stays)
            new_file = before is None or before.digest != result.digest
            book.record(graded, one_cell, new_file)
        except ValueError as exc:
            result.status, result.message = "error", str(exc)[:500]
        else:
            _to_formgrader(planned, result)
    elif result.status == "graded" and planned.lateness is not None:
        late_into(result, planned.lateness, planned.plugin)
    if result.status == "graded":
        result.feedback = str(store.page_path(out, result.student, result.lesson))
    store.save(out, result)


def _to_formgrader(planned: Plan, result: Result) -> None:
    """The graded notebook, where formgrader's Manual Grading opens it."""
    name = Path(result.student) / result.lesson / f"{result.lesson}.ipynb"
    executed = planned.out_dir / "autograded" / name
    if executed.is_file() and planned.request.gradebook is not None:
        target = Path(planned.request.gradebook).resolve().parent / "autograded" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(executed, target)


def in_store(
    result: Result, book: CourseBook | None, marks: dict, planned: Plan
) -> bool:
    """Whether this run's store of scores holds a graded row's scores (the
    gradebook, or without one the results); a row whose scores are in the
    other store is left out of the outputs, and named."""
    if result.status != "graded":
        return True
    if book is not None:
        held = (result.student, result.lesson) in marks
        where = "the course gradebook lacks it"
    else:
        held = result.scores == "results"
        where = "its scores are in a gradebook this run does not read"
    if not held:
        planned.problems.append(
            f"{result.student}/{result.lesson}: left out of the reports: {where} "
            "(grade it again into this store, or grade with the other one)"
        )
    return held


@contextmanager
def course_book(planned: Plan) -> Iterator[CourseBook | None]:
    """The course gradebook, open for the run and set up for its jobs (each
    lesson's definition, a new due date); None without one."""
    request = planned.request
    if request.gradebook is None:
        if planned.lateness is not None and planned.lateness.due:
            from autograder.classgrade.due import keep_due_dates, kept_due_dates

            due = {k: v[0] for k, v in planned.lateness.due.items()}
            keep_due_dates(planned.out_dir, {**kept_due_dates(planned.out_dir), **due})
        yield None
        return
    from autograder.classgrade.late import parse_stamp

    with CourseBook(Path(request.gradebook), planned.config) as book:
        lessons = {s.lesson for s in planned.todo}
        book.lessons = {s.lesson for s in planned.submissions} | lessons
        templates = {n: f"sqlite:///{planned.gradebooks[n]}" for n in lessons}
        book.set_up(
            templates,
            planned.rewritten(),
            parse_stamp(planned.due) if planned.due else None,
            planned.lesson,
        )
        try:
            yield book
        finally:  # finished or stopped: no score above its cell's maximum
            planned.problems += book.settle()


def read_marks(result: Result, book: CourseBook | None) -> None:
    """A graded result as it arrives with its store's marks read in (a hand
    grade, a late penalty): the progress line shows the final score."""
    key = (result.student, result.lesson)
    if book is not None and result.status == "graded":
        found = book.marks([key])
        if key in found:
            result.take(found[key])
