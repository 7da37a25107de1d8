"""Grade a whole class: parallel, resumable nbgrader autograde, with reports.

``course grade SOURCE`` grades every submission in SOURCE (see
:mod:`autograder.classgrade.intake` for the layouts it reads). Each submission
is graded by plain ``nbgrader autograde`` with the course's configuration, in a
job folder of its own, by a pool of worker processes; the grading chain
(:mod:`autograder.grading.chain`) reassembles the notebook on the released edition, runs
it in a confined kernel and judges every test cell outside that kernel. Each
result is written the moment it is known, so an interrupted run loses nothing
and a rerun grades only what is missing or changed.

Grading is three steps: ``plan`` (a typed :class:`Request`; intake in
``intake``, selection, what an earlier run graded), ``run`` (one
:class:`Job` per submission in ``worker``, on any executor; results stored by
``store`` as they arrive) and ``publish`` (the course gradebook in
``gradebook``, then lateness, ``reports`` and feedback); ``batch`` holds the
last two and :func:`grade_class`, which does all three.
"""

from autograder.classgrade.batch import grade_class, publish, run, worker_pool
from autograder.classgrade.intake import IntakeError, Submission, collect_submissions
from autograder.classgrade.plan import (
    DEFAULT_MEMORY_MB,
    DEFAULT_TIMEOUT,
    Plan,
    Request,
    plan,
)
from autograder.classgrade.progress import Progress
from autograder.classgrade.reports import ClassReport, Result, write_reports
from autograder.classgrade.store import Graded
from autograder.classgrade.worker import Job, grade_job
from autograder.grading.chain.reassemble import reassemble

__all__ = [
    "DEFAULT_MEMORY_MB",
    "DEFAULT_TIMEOUT",
    "ClassReport",
    "Graded",
    "IntakeError",
    "Job",
    "Plan",
    "Progress",
    "Request",
    "Result",
    "Submission",
    "collect_submissions",
    "grade_class",
    "grade_job",
    "plan",
    "publish",
    "reassemble",
    "run",
    "worker_pool",
    "write_reports",
]
