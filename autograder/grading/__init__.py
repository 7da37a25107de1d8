"""Grading one notebook: the chain (``chain``, on nbgrader), its kernels
(``kernel``), the referee that runs the tests outside the student's kernel
(``referee``: ``session``, ``source``, ``link``, ``proxy``, ``wire``,
``solution`` in the grader; ``agent``, ``ops`` and ``launches`` in the
kernel), the review scan (``scan``), the verdict's comparison with the
reference (``reference``, ``compare``, ``compare_values``, ``result_nodes``),
CUDA kernels compiled for a GPU (``cuda_compile``; the compile process
``cuda_worker``, forked from a warm ``compile_server``; ``cuda_signature``,
``cuda_messages``), the one fork server all warm processes run
(``forkserver``) and feedback (``feedback``; its words in the notebook's
language: ``page_words``). This package's own functions grade a few notebooks
from Python and validate one; it imports nothing at its start, since grading
kernels import its kernel-side modules.

:func:`grade_notebooks` is ``course grade`` for a handful of submissions of one
lesson: the same intake, worker, nbgrader chain and verdict
(:func:`autograder.classgrade.grade_class`), in a temporary folder, with the
results returned instead of written. nbgrader's autograde restores the original
test cells before anything runs, so a student cannot change what is tested.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from autograder.classgrade.reports import Result


def grade_notebooks(
    lesson: str, submissions: dict[str, Path], *, jobs: int = 1
) -> list[Result]:
    """Autograde ``{student_id: notebook_path}`` for one lesson; one
    :class:`~autograder.classgrade.reports.Result` per student, in that order.

    Raises:
        RuntimeError: a submission could not be graded; the message says why.
    """
    from autograder.classgrade import grade_class
    from autograder.lessons import find_lesson

    name = find_lesson(lesson).stem
    with tempfile.TemporaryDirectory(prefix="course-grade-") as tmp:
        folder = Path(tmp) / "submissions"
        folder.mkdir()
        for student, path in submissions.items():
            shutil.copyfile(path, folder / f"{student}_{name}.ipynb")
        report = grade_class(
            folder, name, out_dir=Path(tmp) / "out", jobs=jobs, progress=False
        )
    found = {r.student: r for r in report.results}
    missing = [s for s in submissions if s not in found]
    bad = [r for r in report.results if r.status != "graded"]
    if missing or bad:
        raise RuntimeError(
            "; ".join(
                [f"{s}: not graded" for s in missing]
                + [f"{r.student}: {r.status}: {r.message}" for r in bad]
            )
        )
    return [found[s] for s in submissions]


def validate_notebook(
    path: Path, *, invert: bool = False, warm: bool = False
) -> dict[str, list]:
    """Run ``nbgrader validate`` on a notebook in-process and return its findings.

    An empty dict means success: with ``invert=False`` every test cell passed,
    with ``invert=True`` no test cell passed (what a blank student notebook
    should give). Otherwise the dict has ``failed``, ``passed`` or ``changed``
    entries, each a list of cells. ``warm``: nbgrader's ``Execute`` gets a warm
    kernel (:mod:`autograder.grading.kernel.warmkernel`), by configuration,
    instead of paying for the imports again.
    """
    from nbgrader.validator import Validator
    from traitlets.config import Config

    config = Config()
    if warm:
        from autograder.grading.kernel import warmkernel

        config.Execute.kernel_manager_class = warmkernel.manager_class()
    return Validator(invert=invert, config=config).validate(str(path))
