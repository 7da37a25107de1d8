"""Grades into the course's own gradebook, the one formgrader and nbgrader export read.

Workers write no gradebook (:mod:`autograder.grading.chain.run`). When the batch is
done, the main process alone writes into the course's ``gradebook.db``
(:func:`record`), as nbgrader's own autograde would:

- the lesson's definition (notebook, grade, solution, source and task cells)
  is copied from the template the workers used, unless the course already has
  it; an assignment's due date in the course gradebook is never changed;
- each student and submission is created if missing;
- each grade cell's **auto** score is set (none for a cell only a person can
  grade), and "needs manual grade" as nbgrader's ``SaveAutoGrades`` sets it;
  manual scores, comments an instructor wrote and extra credit are left alone,
  so they survive a rerun;
- the executed notebook goes to ``autograded/<student>/<lesson>/`` under the
  course root, where formgrader's Manual Grading opens it;
- each submission's time is set (none when it carries none: on time), and
  nbgrader's ``AssignLatePenalties`` gives the penalty against the lesson's due
  date with the plugin the course config names (:mod:`autograder.classgrade.late`).

``due`` sets a lesson's due date first (``course grade --due``).
``only_question`` writes one test cell's auto score and leaves the others.

A rerun that finds nothing changed writes the same scores: the rows and values
stay as they were.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from autograder.classgrade.gradebook_rules import follow_points
from autograder.classgrade.gradebook_schema import create_gradebook
from autograder.classgrade.reports import Result


def _copy_lesson(template, course, lesson: str) -> None:
    """The lesson's cells, from the template gradebook into the course's, which
    has no notebook of the lesson yet (maybe the assignment alone, with its
    due date): the rows nbgrader's ``add_assignment``,
    ``add_notebook`` and ``add_*_cell`` make, written in one commit (one each,
    as nbgrader writes them, took 0.19 s a lesson)."""
    from nbgrader.api import (
        Assignment,
        GradeCell,
        MissingEntry,
        Notebook,
        SolutionCell,
        SourceCell,
        TaskCell,
    )

    source = template.find_assignment(lesson)
    try:  # added with `nbgrader db assignment add` (a due date): keep it
        assignment = course.find_assignment(lesson)
    except MissingEntry:
        assignment = Assignment(name=lesson, course_id=course.course_id)
    rows: list[Any] = [assignment]  # each added: the assignment may be stored
    for notebook in source.notebooks:
        copy = Notebook(name=notebook.name, assignment=assignment)
        rows.append(copy)
        rows += [
            GradeCell(name=cell.name, notebook=copy, max_score=cell.max_score,
                      cell_type=cell.cell_type)
            for cell in notebook.grade_cells
        ]  # fmt: skip
        rows += [
            SolutionCell(name=c.name, notebook=copy) for c in notebook.solution_cells
        ]
        rows += [
            TaskCell(name=cell.name, notebook=copy, max_score=cell.max_score,
                     cell_type=cell.cell_type)
            for cell in notebook.task_cells
        ]  # fmt: skip
        rows += [
            SourceCell(name=cell.name, notebook=copy, cell_type=cell.cell_type,
                       locked=cell.locked, source=cell.source,
                       checksum=cell.checksum)
            for cell in notebook.source_cells
        ]  # fmt: skip
    course.db.add_all(rows)
    course.db.commit()


def record(
    results: Iterable[Result],
    db_url: str,
    templates: dict[str, str],
    course_root: Path | None = None,
    autograded_from: Path | None = None,
    *,
    due: str | None = None,
    lesson: str | None = None,
    only_question: str | None = None,
    whole: set[tuple[str, str]] | None = None,
) -> None:
    """Write every graded result into the gradebook at ``db_url``; a lesson it
    does not know yet is copied from ``templates[lesson]``, a gradebook URL.

    With ``only_question``, only that cell's auto score is written, except for
    the (student, lesson) pairs in ``whole`` (no earlier result: all cells).
    Late penalties are assigned to every submission written, and with ``due``
    to every submission of that lesson (its due date changed).

    ``autograded_from`` is the batch's output folder, where each worker left
    its executed notebook (``autograded/<student>/<lesson>/<lesson>.ipynb``);
    with ``course_root`` those notebooks are copied there for formgrader.
    """
    import warnings

    from nbgrader.api import Gradebook
    from sqlalchemy.exc import SAWarning

    from autograder.classgrade.late import assign_penalties, parse_stamp
    from autograder.config.scratch import instructor_config, put_python_on_path

    put_python_on_path()  # where nbgrader makes the gradebook, it runs `alembic`

    # nbgrader's own models warn on every new submission (as in its autograde);
    # the rows are written all the same.
    warnings.filterwarnings("ignore", category=SAWarning)

    graded = [r for r in results if r.status == "graded"]
    create_gradebook(db_url)
    with Gradebook(db_url) as course:
        # a lesson is set up when it has its notebook: an assignment added
        # with a due date alone is not
        known = {a.name for a in course.assignments if a.notebooks}
        lessons = {r.lesson for r in graded} | ({lesson} if due and lesson else set())
        for name in sorted(lessons - known):
            with Gradebook(templates[name]) as template:
                _copy_lesson(template, course, name)
        if due and lesson:
            course.update_or_create_assignment(lesson, duedate=parse_stamp(due))
        follow_points(course, templates, graded, only_question, whole)
        created: list[tuple[str, str]] = []
        try:
            _record_scores(course, graded, only_question, whole, created)
        except BaseException:
            course.db.rollback()  # a failed record leaves no partial submission
            for name, student in created:
                try:
                    course.remove_submission(name, student)
                except Exception:  # noqa: BLE001 - the first error is the one
                    course.db.rollback()
            raise
        penalise = {(r.student, r.lesson) for r in graded}
        if due and lesson:  # a new due date changes everyone's lateness
            penalise |= {
                (sub.student.id, lesson)
                for sub in course.find_assignment(lesson).submissions
            }
    assign_penalties(db_url, sorted(penalise), instructor_config(course_root))
    if course_root is not None and autograded_from is not None:
        for result in graded:
            name = Path(result.student) / result.lesson / f"{result.lesson}.ipynb"
            executed = Path(autograded_from) / "autograded" / name
            if executed.is_file():
                target = Path(course_root) / "autograded" / name
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(executed, target)


def _record_scores(
    course: Any,
    graded: list[Result],
    only_question: str | None,
    whole: set[tuple[str, str]] | None,
    created: list[tuple[str, str]],
) -> None:
    """Each result's auto scores, in one commit (see :func:`record`)."""
    from nbgrader.api import MissingEntry

    from autograder.classgrade.late import parse_stamp

    for result in graded:
        course.update_or_create_student(result.student)
        try:
            submission = course.find_submission(result.lesson, result.student)
            scored = any(
                g.auto_score is not None or g.manual_score is not None
                for nb in submission.notebooks
                for g in nb.grades
            )
        except MissingEntry:
            submission = course.add_submission(result.lesson, result.student)
            created.append((result.lesson, result.student))
            scored = False
        submission.timestamp = (
            parse_stamp(result.submitted_at) if result.submitted_at else None
        )
        # One cell only where the gradebook has this submission's other
        # scores already; otherwise every cell (the result is whole).
        one = (
            only_question is not None
            and scored
            and (result.student, result.lesson) not in (whole or set())
        )
        # the submission's grades, read at once (find_grade: a query each)
        grades = {
            (nb.name, g.name): g for nb in submission.notebooks for g in nb.grades
        }
        for cell, (score, _) in result.per_question.items():
            if one and cell != only_question:
                continue
            grade = grades.get((result.lesson, cell)) or course.find_grade(
                cell, result.lesson, result.lesson, result.student
            )
            auto = None if cell in result.manual else float(score)
            if scored and grade.auto_score == auto:
                continue  # unchanged: a person's triage stays as they left it
            grade.auto_score = auto
            # as nbgrader's SaveAutoGrades: a hand-given score is looked at
            # again when the auto score under it changed
            grade.needs_manual_grade = (
                grade.manual_score is not None or grade.auto_score is None
            )
    course.db.commit()


def read_lateness(
    db_url: str, keys: Iterable[tuple[str, str]]
) -> dict[tuple[str, str], tuple[float, float, float, bool]]:
    """``(seconds late, penalty, score, by hand)`` of each (student, lesson) the
    gradebook has; the score has formgrader's manual scores in (nbgrader's raw
    score), and ``by hand`` says whether an instructor gave a score or wrote
    a comment there."""
    from nbgrader.api import Gradebook, MissingEntry

    found = {}
    with Gradebook(db_url) as gradebook:
        for student, lesson in keys:
            try:
                sub = gradebook.find_submission(lesson, student)
            except MissingEntry:
                continue
            penalty = float(sub.late_submission_penalty or 0.0)
            by_hand = any(
                g.manual_score is not None or g.extra_credit
                for nb in sub.notebooks
                for g in nb.grades
            ) or any(c.manual_comment for nb in sub.notebooks for c in nb.comments)
            found[(student, lesson)] = (
                float(sub.total_seconds_late),
                penalty,
                float(sub.score),
                by_hand,
            )
    return found


def refresh_feedback(
    results: Iterable[Result],
    db_url: str,
    out_dir: Path,
    bases: dict[tuple[str, str], list] | None = None,
) -> list[str]:
    """Render each graded result's feedback page again from the course
    gradebook at ``db_url``: its scores, formgrader's manual scores and
    comments, and the late penalty, as nbgrader's ``generate_feedback`` shows
    them; each result's ``page_basis`` becomes its entry in ``bases`` (what
    the gradebook held). Returns a problem line per page that could not be
    rendered."""
    import nbformat

    from autograder.classgrade.store import notebook_path, page_path, write_text
    from autograder.grading.feedback import render_page

    problems = []
    for r in results:
        if r.status != "graded":
            continue
        executed = notebook_path(out_dir, r.student, r.lesson)
        if not executed.is_file():  # graded before notebooks were kept
            continue
        try:
            html = render_page(
                nbformat.read(executed, as_version=4), r.student, r.lesson, db_url
            )
        except Exception as exc:  # noqa: BLE001 - the autograde page stays
            problems.append(f"{r.student}/{r.lesson}: feedback not refreshed ({exc})")
            continue
        page = page_path(out_dir, r.student, r.lesson)
        write_text(page, html)
        r.feedback = str(page)
        r.page_basis = list((bases or {}).get((r.student, r.lesson), []))
    return problems


def publish_to_gradebook(
    planned: Any, ordered: list[Result], mine: list[Result], kept: list[Result] = ()
) -> list[str]:
    """The gradebook step of ``publish``: record ``mine`` (the results graded
    now, or every result), then give every row of ``ordered`` the gradebook's
    lateness and raw score. A page whose scores the gradebook changed (a
    penalty, a manual score or comment) is rendered again from it; the others
    already show what it holds. ``kept`` (rows of earlier runs this one does
    not grade) get the gradebook's lateness and raw score too. Returns problem
    lines."""
    request, out = planned.request, planned.out_dir
    course_db = Path(request.gradebook).resolve()
    course_db.parent.mkdir(parents=True, exist_ok=True)
    db_url = f"sqlite:///{course_db}"
    templates = {name: f"sqlite:///{db}" for name, db in planned.gradebooks.items()}
    record(
        mine,
        db_url,
        templates,
        course_root=course_db.parent,
        autograded_from=out,
        due=planned.due,
        lesson=planned.lesson,
        only_question=request.question,
        whole=planned.whole,
    )
    # Every row's lateness as the gradebook has it now, regraded or not; the
    # rows ``kept`` from earlier runs too, where the gradebook has them.
    rows = list(ordered) + list(kept)
    lateness = read_lateness(db_url, [(r.student, r.lesson) for r in rows])
    for result in kept:
        if (result.student, result.lesson) in lateness:
            seconds, penalty, raw, _ = lateness[(result.student, result.lesson)]
            result.seconds_late, result.late_penalty = seconds, penalty
            result.gradebook_score = raw
    stale, bases = [], {}
    fresh = {(r.student, r.lesson) for r in mine}
    for result in ordered:
        seconds, penalty, raw, by_hand = lateness.get(
            (result.student, result.lesson), (0.0, 0.0, None, False)
        )
        result.seconds_late, result.late_penalty = seconds, penalty
        result.gradebook_score = raw
        # What the page shows: the gradebook's view when it was last drawn
        # from it, else the notebook's own (no penalty, nothing by hand).
        shown = result.page_basis or [0.0, False, result.score]
        now = [penalty, by_hand, result.score if raw is None else raw]
        bases[(result.student, result.lesson)] = now
        if (result.student, result.lesson) in fresh and (
            now != shown or request.question is not None  # new run's scores
        ):
            stale.append(result)
    # (A precise regrade leaves everyone else's page as it was.)
    return refresh_feedback(stale, db_url, out, bases)
