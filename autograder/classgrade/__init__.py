"""Grade a whole class: parallel, resumable nbgrader autograde, with reports.

``course grade SOURCE`` grades every submission in SOURCE (see
:mod:`autograder.classgrade.intake` for the layouts it reads). Each submission
is graded by plain ``nbgrader autograde`` with the course's configuration, in a
job folder of its own, by a pool of worker processes; the grading chain
(:mod:`autograder.chain`) reassembles the notebook on the released edition, runs
it in a confined kernel and judges every test cell outside that kernel. Each
result is written the moment it is known, so an interrupted run loses nothing
and a rerun grades only what is missing or changed.

One module per job: ``intake`` (find submissions), ``worker`` (grade one, a
typed :class:`Job`), ``reports`` (results, CSV files, summary), ``progress``
and ``batch`` (the pool).
"""

from autograder.chain.reassemble import reassemble
from autograder.classgrade.batch import (
    DEFAULT_MEMORY_MB,
    DEFAULT_TIMEOUT,
    grade_class,
)
from autograder.classgrade.intake import IntakeError, Submission, collect_submissions
from autograder.classgrade.progress import Progress
from autograder.classgrade.reports import ClassReport, Result, write_reports
from autograder.classgrade.worker import Job, grade_job

__all__ = [
    "DEFAULT_MEMORY_MB",
    "DEFAULT_TIMEOUT",
    "ClassReport",
    "IntakeError",
    "Job",
    "Progress",
    "Result",
    "Submission",
    "collect_submissions",
    "grade_class",
    "grade_job",
    "reassemble",
    "write_reports",
]
