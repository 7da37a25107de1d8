"""A lesson's definition in the course gradebook: the rules it records.

The definition (each test cell and its points) is the one nbgrader keeps per
lesson. :func:`follow_points` makes it the release's a run grades under, and
keeps every score within its cell's maximum. It works on the gradebook that
:mod:`autograder.classgrade.gradebook` has open, and opens none itself.
"""

from __future__ import annotations

from typing import Any

Key = tuple[str, str, str]  # (student, lesson, cell)


def follow_points(
    course: Any, wanted: dict[str, dict[str, float]], rewritten: set[Key]
) -> bool:
    """Each lesson's definition in ``course`` (an open nbgrader ``Gradebook``)
    follows ``wanted`` (``{lesson: {cell: points}}``: the release this run
    grades under, after ``--rules current`` changed the points). A hand-given
    score on a cell whose maximum changed needs a look again; an auto score
    above the new maximum that this run writes again (``rewritten``) is
    cleared until it does. Nothing is committed; returns whether anything
    changed.

    Raises:
        ValueError: a maximum that would fall below a score the gradebook
            keeps and this run does not write again (graded under other rules).
    """
    changed = False
    for lesson, points in sorted(wanted.items()):
        cells = [
            cell
            for nb in course.find_assignment(lesson).notebooks
            if nb.name == lesson
            for cell in [*nb.grade_cells, *nb.task_cells]
        ]
        for cell in cells:
            new = points.get(cell.name)
            if new is None or float(cell.max_score) == new:
                continue
            for grade in getattr(cell, "grades", []):
                student = grade.notebook.assignment.student.id
                again = (student, lesson, cell.name) in rewritten
                kept = max(
                    0.0 if again else (grade.auto_score or 0.0),
                    grade.manual_score or 0.0,
                )
                if kept > new:
                    raise ValueError(
                        f"{lesson}: {cell.name} would be worth {new:g} points, "
                        f"but {student} holds {kept:g} there (graded under other "
                        "rules). Grade the whole class under one release: "
                        "--rules current without --student"
                    )
                if again and (grade.auto_score or 0.0) > new:
                    grade.auto_score = None  # until this run grades it again
                    grade.needs_manual_grade = True
                if grade.manual_score is not None:
                    grade.needs_manual_grade = True
            cell.max_score, changed = new, True
    return changed


def missing_cells(course: Any, lesson: str, cells: list[str]) -> list[str]:
    """The ``cells`` of a result that the course's definition of ``lesson``
    lacks."""
    known = {
        cell.name
        for nb in course.find_assignment(lesson).notebooks
        for cell in [*nb.grade_cells, *nb.task_cells]
    }
    return sorted(set(cells) - known)


__all__ = ["follow_points", "missing_cells"]
