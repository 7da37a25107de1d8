"""Shared fixtures for the test suite."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")
# Test workers run side by side: one math thread each (kernels and scripts inherit
# it) keeps them from fighting over the cores, which made timing loops crawl.
os.environ.setdefault("OMP_NUM_THREADS", "1")
# The grader's cache (template courses, reference results) lives in a folder of
# this run, shared by its xdist workers (they inherit the variable), never in
# the user's ~/.cache. A cache the caller names in COURSE_CACHE_DIR is kept.
if "COURSE_CACHE_DIR" not in os.environ:
    os.environ["COURSE_CACHE_DIR"] = tempfile.mkdtemp(prefix="gpu-course-test-cache-")
    os.environ["COURSE_TEST_CACHE_OWNER"] = str(os.getpid())


def pytest_unconfigure(config):
    """The run that made the temporary cache removes it."""
    if os.environ.get("COURSE_TEST_CACHE_OWNER") == str(os.getpid()):
        shutil.rmtree(os.environ["COURSE_CACHE_DIR"], ignore_errors=True)


def pytest_configure(config):
    """Put back the releases git's history kept, before any worker starts
    (so no test sees the course root change under it: see
    :func:`autograder.lessons.kept.restore`). Then refuse ``--dist
    loadgroup`` where it cannot keep an ``xdist_group`` together: pytest 9.2
    ignores the node-id suffix pytest-xdist 3.8 groups by, so each group's
    shared setup would run (or be waited for) on every worker.
    ``constraints.txt`` pins an earlier pytest."""
    if not hasattr(config, "workerinput"):
        from autograder.lessons.kept import restore

        restore(log=lambda line: None)
    if config.getoption("dist", "no") != "loadgroup":
        return
    from importlib.metadata import version

    def release(name: str) -> tuple[int, ...]:
        return tuple(int(p) for p in version(name).split(".")[:2] if p.isdigit())

    if release("pytest") >= (9, 2) and release("pytest-xdist") <= (3, 8):
        raise pytest.UsageError(
            f"pytest {version('pytest')} and pytest-xdist "
            f"{version('pytest-xdist')} cannot keep --dist loadgroup's groups "
            "on one worker; install with -c constraints.txt (make test does)"
        )


@pytest.fixture(autouse=True)
def _no_forced_cpu(monkeypatch):
    """Tests start without COURSE_FORCE_CPU, whatever the caller's shell has."""
    monkeypatch.delenv("COURSE_FORCE_CPU", raising=False)


class KernelStartInFastTest(AssertionError):
    """A test not marked ``slow`` started a Jupyter kernel."""


@pytest.fixture(autouse=True)
def _kernels_only_in_slow_tests(request, monkeypatch):
    """Fail a test that starts a Jupyter kernel unless it is marked ``slow``,
    so that ``make test-fast`` (``-m "not slow"``) starts none. Kernel starts
    in this process and in forked workers go through ``pre_start_kernel``; a
    test that runs nbgrader or the course CLI as a subprocess is marked
    ``slow`` by hand."""
    if request.node.get_closest_marker("slow"):
        return
    from jupyter_client.manager import KernelManager

    name = request.node.nodeid

    async def refuse(self, *args, **kwargs):
        raise KernelStartInFastTest(
            f"{name} starts a Jupyter kernel: mark it @pytest.mark.slow"
        )

    monkeypatch.setattr(KernelManager, "_async_pre_start_kernel", refuse)
