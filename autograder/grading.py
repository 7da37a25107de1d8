"""Grade notebooks with nbgrader's autograde and read the scores back.

Grading runs in a scratch course: the lesson is generated there (which stores
its tests, hidden ones included, in the gradebook), the submission is copied to
``submitted/<student>/<lesson>/``, and ``nbgrader autograde`` restores the
original test cells before it executes the notebook, so a student cannot change
what is tested.
"""

from __future__ import annotations

import shutil
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from autograder.lessons import find_lesson
from autograder.scratch import ScratchCourse


@dataclass(frozen=True)
class Grade:
    """The score of one submission, with points per graded cell."""

    student: str
    lesson: str
    score: float
    max_score: float
    per_question: dict[str, tuple[float, float]] = field(default_factory=dict)

    def __str__(self) -> str:
        return (
            f"{self.student:<16} {self.lesson:<22} {self.score:g} / {self.max_score:g}"
        )


def grade_notebooks(
    lesson: str,
    submissions: dict[str, Path],
    *,
    course: ScratchCourse | None = None,
) -> list[Grade]:
    """Autograde ``{student_id: notebook_path}`` for one lesson.

    Raises:
        RuntimeError: nbgrader could not grade a submission; the message carries
            its log.
    """
    from nbgrader.api import Gradebook
    from sqlalchemy.exc import SAWarning

    # nbgrader's own gradebook code trips SQLAlchemy's autoflush warnings.
    warnings.filterwarnings("ignore", category=SAWarning)
    name = find_lesson(lesson).stem
    owned = course is None
    course = ScratchCourse() if course is None else course
    try:
        course.generate(name)
        grades = []
        for student, notebook in submissions.items():
            target = course.root / "submitted" / student / name / f"{name}.ipynb"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(notebook, target)
            result = course.api.autograde(name, student, force=True, create=True)
            if not result.get("success"):
                raise RuntimeError(
                    f"autograde of {student}/{name} failed:\n"
                    f"{result.get('error') or ''}\n{result.get('log') or ''}"
                )
            with Gradebook(course.api.coursedir.db_url) as gradebook:
                submission = gradebook.find_submission_notebook(name, name, student)
                per_question = {
                    g.name: (float(g.score), float(g.max_score))
                    for g in submission.grades
                }
                grades.append(
                    Grade(
                        student,
                        name,
                        float(submission.score),
                        float(submission.max_score),
                        per_question,
                    )
                )
        return grades
    finally:
        if owned:
            course.close()


def validate_notebook(path: Path, *, invert: bool = False) -> dict[str, list]:
    """Run ``nbgrader validate`` on a notebook in-process and return its findings.

    An empty dict means success: with ``invert=False`` every test cell passed,
    with ``invert=True`` no test cell passed (what a blank student notebook
    should give). Otherwise the dict has ``failed``, ``passed`` or ``changed``
    entries, each a list of cells.
    """
    from nbgrader.validator import Validator

    return Validator(invert=invert).validate(str(path))
