"""The delegation probe: the student library must not answer a graded task.

:data:`HELPERS` names, for each task that has one, the ``course`` helper that
comes closest to doing the task's job (kept here, beside the grader, since a
lesson's cell headers must stay within 88 characters). The probe grades a
submission made of the reference answers with each declared helper imported
over the task's function, exactly as a student who delegated would, and fails
if any such task's hidden test still gives points. ``course release`` runs it
for every lesson that declares helpers.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from autograder.conventions import grade_id
from autograder.lessons import find_lesson, source_to_notebook, write_notebook


class DelegationError(RuntimeError):
    """A course helper earns points on a hidden test: the library gives it away."""


#: Per lesson: ``{answer grade_id: import line}`` of the closest course helper.
HELPERS: dict[str, dict[str, str]] = {
    "01_devices": {
        "01-pick-device": "from course.devices import pick_device",
        "01-describe-device": "from course.devices import describe_device",
    },
    "02_migration": {
        "02-to-device": "from course.fakecupy import to_device",
    },
    "05_numpy_to_cupy": {
        "05-to-numpy": "from course.backend import host_copy as to_numpy",
    },
}


def helpers(lesson: str) -> dict[str, str]:
    """``{answer grade_id: import line}`` declared for a lesson."""
    return dict(HELPERS.get(find_lesson(lesson).stem, {}))


def probe_notebook(lesson: str) -> object:
    """The reference notebook with every declared helper imported over its task."""
    declared = helpers(lesson)
    nb = source_to_notebook(find_lesson(lesson))
    for cell in nb.cells:
        gid = grade_id(cell)
        if gid in declared:
            cell.source = cell.source.rstrip() + "\n\n" + declared[gid] + "\n"
    return nb


def run_probe(lesson: str) -> dict[str, float]:
    """Grade the probe; return the points each delegated task's hidden test gave.

    Raises:
        DelegationError: a hidden test gave points to a course helper.
    """
    from autograder.grading import grade_notebooks

    declared = helpers(lesson)
    if not declared:
        return {}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "probe.ipynb"
        write_notebook(probe_notebook(lesson), path)
        (grade,) = grade_notebooks(lesson, {"probe": path})
    points = {
        gid: grade.per_question[f"{gid}-hidden-test"][0]
        for gid in declared
        if f"{gid}-hidden-test" in grade.per_question
    }
    given = {gid: p for gid, p in points.items() if p > 0}
    if given:
        raise DelegationError(
            f"{lesson}: course helpers earn hidden-test points: "
            + ", ".join(
                f"{gid} via {declared[gid]!r} ({p:g})" for gid, p in given.items()
            )
        )
    return points
