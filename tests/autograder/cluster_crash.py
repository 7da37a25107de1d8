"""A Dask worker preload for tests/autograder/test_cluster.py: the worker dies
(SIGKILL, as the kernel's OOM killer would do it) whenever it is given the
submission of the student named in ``COURSE_TEST_CRASH_STUDENT``.

Fault injection lives here, in the tests, not in the grader: the task is
looked up by name when a worker unpickles it, so replacing the name in the
worker's module is enough.
"""

import os
import signal

from autograder.classgrade import remote

_grade_task = remote.grade_task


def _crashing(job, *args):
    if job["student"] == os.environ.get("COURSE_TEST_CRASH_STUDENT"):
        os.kill(os.getpid(), signal.SIGKILL)
    return _grade_task(job, *args)


def dask_setup(worker):  # noqa: ARG001 - Dask's preload hook
    remote.grade_task = _crashing
