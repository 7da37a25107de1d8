"""A lesson's definition in the course gradebook: the rules it records.

The definition (each test cell and its points) is the one nbgrader keeps per
lesson. :func:`held_definitions` reads it, for the check that a batch's
releases agree with it (:mod:`autograder.classgrade.prepare`);
:func:`follow_points` makes it the release's a run grades under, and keeps
every score within its cell's maximum.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from autograder.classgrade.reports import Result


def held_definitions(gradebook: Any) -> dict[str, tuple]:
    """``{lesson: (grade cells, task cells)}`` the course gradebook at path
    ``gradebook`` holds (a lesson with its notebook), as a release's cells
    are compared (:mod:`autograder.classgrade.prepare`)."""
    if gradebook is None or not Path(gradebook).is_file():
        return {}
    from nbgrader.api import Gradebook

    found = {}
    with Gradebook(f"sqlite:///{Path(gradebook).resolve()}") as course:
        for assignment in course.assignments:
            for notebook in assignment.notebooks:
                if notebook.name == assignment.name:
                    found[assignment.name] = (
                        {c.name: float(c.max_score) for c in notebook.grade_cells},
                        {c.name: float(c.max_score) for c in notebook.task_cells},
                    )
    return found


def follow_points(
    course: Any,
    templates: dict[str, str],
    graded: list[Result],
    only_question: str | None,
    whole: set[tuple[str, str]] | None,
) -> None:
    """Each lesson's definition follows the release this run grades under (its
    template: ``--rules current`` after a release changed the points), and no
    score the gradebook keeps may exceed its cell's maximum. A hand-given
    score on a cell whose maximum changed needs a look again. Every result's
    cells are checked against the definition before anything is written.

    Raises:
        ValueError: a cell the definition lacks, or a maximum that would fall
            below a score the gradebook keeps (graded under other rules).
    """
    from nbgrader.api import Gradebook

    rewritten = {
        (r.student, r.lesson, cell)
        for r in graded
        for cell in r.per_question
        if only_question is None
        or cell == only_question
        or (r.student, r.lesson) in (whole or set())
    }
    changed = False
    for lesson in sorted({r.lesson for r in graded}):
        with Gradebook(templates[lesson]) as template:
            wanted = {
                (nb.name, c.name): float(c.max_score)
                for nb in template.find_assignment(lesson).notebooks
                for c in [*nb.grade_cells, *nb.task_cells]
            }
        cells = {
            (nb.name, c.name): c
            for nb in course.find_assignment(lesson).notebooks
            for c in [*nb.grade_cells, *nb.task_cells]
        }
        for result in (r for r in graded if r.lesson == lesson):
            missing = [c for c in result.per_question if (lesson, c) not in cells]
            if missing:
                raise ValueError(
                    f"{result.student}/{lesson}: the gradebook's {lesson} has no "
                    f"cell {', '.join(sorted(missing))}"
                )
        for key, cell in cells.items():
            new = wanted.get(key)
            if new is None or float(cell.max_score) == new:
                continue
            for grade in getattr(cell, "grades", []):
                student = grade.notebook.assignment.student.id
                auto = (
                    None
                    if (student, lesson, cell.name) in rewritten
                    else grade.auto_score
                )
                kept = max(auto or 0.0, grade.manual_score or 0.0)
                if kept > new:
                    course.db.rollback()
                    raise ValueError(
                        f"{lesson}: {cell.name} would be worth {new:g} points, "
                        f"but {student} holds {kept:g} there (graded under other "
                        "rules). Grade the whole class under one release: "
                        "--rules current without --student"
                    )
                if grade.manual_score is not None:
                    grade.needs_manual_grade = True
            cell.max_score, changed = new, True
    if changed:
        course.db.commit()


__all__ = ["follow_points", "held_definitions"]
