"""Grade a whole class: parallel, resumable, into the course gradebook, with reports.

``course grade SOURCE`` grades every submission in SOURCE (see
:mod:`autograder.classgrade.intake` for the layouts it reads) with the course's
grading chain (:mod:`autograder.grading.chain`: the submission reassembled on
the released edition, run in confined kernels, every test cell judged outside
them), one job per submission, on a pool of worker processes or any executor.
Each result is stored the moment it is known, so an interrupted run loses
nothing and a rerun grades only what is missing or changed.

Grading is three steps: ``plan`` (in ``request``, with the typed
:class:`Request`; intake in ``intake``, its conflicts in ``claims``; each
lesson's release made ready in ``prepare``;
selection, what an earlier run graded), ``run`` (one :class:`Job` per
submission in ``worker``, on any executor; each result stored the moment
it arrives by ``arrival``: into the gradebook, and its files by ``store``)
and ``publish`` (every output read from the store of scores:
the course gradebook, which ``gradebook`` alone opens and records each
result into as it arrives, a new one made by ``gradebook_schema``, each
lesson's definition in ``gradebook_rules``; then ``reports``, the class's
figures (``class_figures``) and the feedback pages, drawn by ``pages``);
``batch`` holds the last two and :func:`grade_class`, which does all three.
Before any job, ``due`` prints each due date and who is late (and stops a run
whose penalties look like a wrong date); ``runlock`` lets one run at a time
write an output folder and a gradebook. ``regrade`` is ``course grade --diff``:
what grading under the current rules would change, written nowhere.
``extensions`` keeps one student's extension as nbgrader does (on the
submission), or until the submission is recorded.
``similarity`` is ``course similarity``: pairs of answers alike, ranked, with
``similarity_page`` drawing them side by side.
``pool`` is the local worker pool; with ``--cluster`` the jobs run on Dask
workers instead: ``cluster`` (the executor, on the main machine; how it
reaches the cluster: ``cluster_reach``), ``remote``
(a worker's side: lesson bundles, one task) and ``wire`` (a result as JSON,
and the schema it is checked against).
"""

from autograder.classgrade.batch import grade_class, publish, run, worker_pool
from autograder.classgrade.intake import IntakeError, Submission, collect_submissions
from autograder.classgrade.progress import Progress
from autograder.classgrade.reports import ClassReport, Result, write_reports
from autograder.classgrade.request import Plan, Request, plan
from autograder.classgrade.store import Graded
from autograder.classgrade.worker import Job, grade_job
from autograder.config import DEFAULT_MEMORY_MB
from autograder.grading.chain.reassemble import reassemble

__all__ = [
    "DEFAULT_MEMORY_MB",
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
