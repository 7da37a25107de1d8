"""The rows of a course gradebook, made as nbgrader makes them.

:func:`create_gradebook` makes a new gradebook in milliseconds;
:func:`copy_lesson` writes a lesson's definition and :func:`new_submission`
a submission's rows (nbgrader's ``add_assignment``, ``add_notebook``,
``add_*_cell`` and ``add_submission``), into a gradebook that
:mod:`autograder.classgrade.gradebook` has open, without the commits nbgrader
makes after each; :func:`marks_of` reads a submission's rows as nbgrader
scores them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def create_gradebook(db_url: str) -> None:
    """An empty gradebook at ``db_url`` unless one is there, made as nbgrader's
    ``Gradebook`` makes one: its tables, stamped with its alembic head. nbgrader
    runs the ``alembic heads`` command for the stamp (2.6 s on 2 cores); its
    migration scripts name the same head, read here in milliseconds. Where they
    do not name exactly one, nbgrader makes the gradebook itself."""
    from nbgrader.api import Base
    from sqlalchemy import create_engine, inspect, text

    engine = create_engine(db_url, future=True)
    try:
        head = None if inspect(engine).get_table_names() else _alembic_head()
        if head is None:
            return
        Base.metadata.create_all(bind=engine)
        with engine.begin() as connection:
            connection.execute(
                text("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL)")
            )
            connection.execute(
                text("INSERT INTO alembic_version (version_num) VALUES (:head)"),
                {"head": head},
            )
    finally:
        engine.dispose()


def _alembic_head() -> str | None:
    """The one revision of nbgrader's migrations that no other revises."""
    import ast

    from nbgrader.dbutil import ALEMBIC_DIR

    revisions, revised = set(), set()
    for script in (Path(ALEMBIC_DIR) / "versions").glob("*.py"):
        for node in ast.parse(script.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
                names = {t.id for t in node.targets if isinstance(t, ast.Name)}
                if "revision" in names:
                    revisions.add(node.value.value)
                if "down_revision" in names and node.value.value is not None:
                    revised.add(node.value.value)
    heads = revisions - revised
    return heads.pop() if len(heads) == 1 else None


def new_submission(course: Any, student: str, lesson: str) -> Any:
    """A submission of ``lesson`` by ``student`` (made if missing) with every
    row nbgrader's ``add_submission`` makes, added to the session of
    ``course`` (an open ``Gradebook``), not committed."""
    from nbgrader.api import (
        Comment,
        Grade,
        MissingEntry,
        Student,
        SubmittedAssignment,
        SubmittedNotebook,
    )

    try:
        person = course.find_student(student)
    except MissingEntry:
        person = Student(id=student)
        course.db.add(person)
    submission = SubmittedAssignment(
        assignment=course.find_assignment(lesson), student=person
    )
    for notebook in submission.assignment.notebooks:
        nb = SubmittedNotebook(notebook=notebook, assignment=submission)
        for cell in notebook.grade_cells:
            Grade(cell=cell, notebook=nb)
        for cell in notebook.solution_cells:
            Comment(cell=cell, notebook=nb)
        for cell in notebook.task_cells:
            Comment(cell=cell, notebook=nb)
            Grade(cell=cell, notebook=nb)
    course.db.add(submission)
    return submission


def copy_lesson(template: Any, course: Any, lesson: str) -> None:
    """The lesson's cells, from the template gradebook into the course's, which
    has no notebook of the lesson yet (maybe the assignment alone, with its
    due date): the rows nbgrader's ``add_assignment``, ``add_notebook`` and
    ``add_*_cell`` make, written in one commit (one each, as nbgrader writes
    them, took 0.19 s a lesson)."""
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
            GradeCell(
                name=cell.name,
                notebook=copy,
                max_score=cell.max_score,
                cell_type=cell.cell_type,
            )
            for cell in notebook.grade_cells
        ]
        rows += [
            SolutionCell(name=c.name, notebook=copy) for c in notebook.solution_cells
        ]
        rows += [
            TaskCell(
                name=cell.name,
                notebook=copy,
                max_score=cell.max_score,
                cell_type=cell.cell_type,
            )
            for cell in notebook.task_cells
        ]
        rows += [
            SourceCell(
                name=cell.name,
                notebook=copy,
                cell_type=cell.cell_type,
                locked=cell.locked,
                source=cell.source,
                checksum=cell.checksum,
            )
            for cell in notebook.source_cells
        ]
    course.db.add_all(rows)
    course.db.commit()


def cell_score(grade: Any) -> float:
    """nbgrader's ``Grade.score``: the manual score over the auto one, with
    the extra credit; zero when neither is set."""
    base = grade.manual_score if grade.manual_score is not None else grade.auto_score
    return 0.0 if base is None else float(base) + float(grade.extra_credit or 0.0)


def marks_of(sub: Any) -> Any:
    """A submission's rows read as :class:`~autograder.classgrade.reports.Marks`."""
    from autograder.classgrade.reports import Marks

    grades = [g for nb in sub.notebooks for g in nb.grades]
    comments = {
        c.name: c.manual_comment
        for nb in sub.notebooks
        for c in nb.comments
        if c.manual_comment
    }
    penalty = sum(float(nb.late_submission_penalty or 0.0) for nb in sub.notebooks)
    given = [g for g in grades if g.manual_score is not None]  # by hand
    return Marks(
        auto={g.name: g.auto_score for g in grades},
        score={g.name: cell_score(g) for g in grades},
        points={g.name: float(g.max_score) for g in grades},
        comments=comments,
        raw=float(sum(cell_score(g) for g in grades)),
        penalty=penalty,
        seconds_late=float(sub.total_seconds_late),
        extended_until=(
            (sub.assignment.duedate + sub.extension).isoformat(timespec="seconds")
            if sub.extension is not None and sub.assignment.duedate is not None
            else ""
        ),
        by_hand=bool(comments or given) or any(g.extra_credit for g in grades),
        # as SaveAutoGrades leaves it: a hand score given before the latest
        # autograde, which nobody has looked at again
        stale={
            g.name: [float(g.manual_score), float(g.auto_score)]
            for g in given
            if g.needs_manual_grade
            and g.auto_score is not None
            and float(g.manual_score) != float(g.auto_score)
        },
        hand=float(sum(g.manual_score for g in given)) if given else None,
    )


__all__ = [
    "cell_score",
    "copy_lesson",
    "create_gradebook",
    "marks_of",
    "new_submission",
]
