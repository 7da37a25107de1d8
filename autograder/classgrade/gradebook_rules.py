"""A lesson's definition in the course gradebook: the rules it records.

The definition (each test cell and its points) is the one nbgrader keeps per
lesson. :func:`check_points` says, before any job, whether it can follow
the release a run grades under; :func:`follow_points` makes it that
release's, in the transaction of the run's first result of the lesson; and
:func:`above_maximum` finds what a run must not leave behind. They work on
the gradebook that :mod:`autograder.classgrade.gradebook` has open, and open
none themselves.
"""

from __future__ import annotations

from typing import Any

Key = tuple[str, str, str]  # (student, lesson, cell)


def _cells(course: Any, lesson: str) -> list[Any]:
    return [
        cell
        for nb in course.find_assignment(lesson).notebooks
        if nb.name == lesson
        for cell in [*nb.grade_cells, *nb.task_cells]
    ]


def check_points(
    course: Any, wanted: dict[str, dict[str, float]], rewritten: set[Key]
) -> None:
    """Before any job: can each lesson's definition in ``course`` (an open
    nbgrader ``Gradebook``) follow ``wanted`` (``{lesson: {cell: points}}``,
    the release this run grades under)? Writes nothing.

    Raises:
        ValueError: the release has other test cells than the definition
            (the gradebook holds one per lesson), or a maximum would fall
            below a score the gradebook keeps that this run does not write
            again (``rewritten``: (student, lesson, cell); graded under other
            rules).
    """
    for lesson, points in sorted(wanted.items()):
        cells = _cells(course, lesson)
        have = {cell.name for cell in cells}
        if have != set(points):
            added, gone = sorted(set(points) - have), sorted(have - set(points))
            raise ValueError(
                f"{lesson}: the release graded under has other test cells than "
                f"the course gradebook's definition (new: {', '.join(added) or '-'}; "
                f"gone: {', '.join(gone) or '-'}), and a gradebook holds one "
                "definition per lesson. Grade under the gradebook's release, or "
                "into a new gradebook"
            )
        for cell in cells:
            new = points[cell.name]
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


def follow_points(course: Any, lesson: str, points: dict[str, float]) -> bool:
    """Make ``lesson``'s definition in ``course`` give each cell ``points``
    (checked by :func:`check_points`); a hand-given score on a cell whose
    maximum changed needs a look again. Nothing is committed; returns whether
    anything changed."""
    changed = False
    for cell in _cells(course, lesson):
        new = points.get(cell.name)
        if new is None or float(cell.max_score) == new:
            continue
        for grade in getattr(cell, "grades", []):
            if grade.manual_score is not None:
                grade.needs_manual_grade = True
        cell.max_score, changed = new, True
    return changed


def above_maximum(course: Any, lesson: str) -> list[Any]:
    """The grades of ``lesson`` whose auto score exceeds their cell's maximum
    (graded under a release that gave the cell more points, and not graded
    again since)."""
    return [
        grade
        for cell in _cells(course, lesson)
        for grade in getattr(cell, "grades", [])
        if (grade.auto_score or 0.0) > float(cell.max_score)
    ]


def missing_cells(course: Any, lesson: str, cells: list[str]) -> list[str]:
    """The ``cells`` of a result that the course's definition of ``lesson``
    lacks."""
    known = {
        cell.name
        for nb in course.find_assignment(lesson).notebooks
        for cell in [*nb.grade_cells, *nb.task_cells]
    }
    return sorted(set(cells) - known)


__all__ = ["above_maximum", "check_points", "follow_points", "missing_cells"]
