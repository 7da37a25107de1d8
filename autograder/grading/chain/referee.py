"""The referee in the grading chain: tests run beside the student's kernel, not in it.

:class:`Referee` (in ``Autograde.autograde_preprocessors``, before
:class:`~autograder.grading.chain.execute.GradingExecute`) tags every test cell
so that the kernel skips it, and writes down each test's full source (hidden
tests included, as nbgrader's ``OverwriteCells`` put them back) and the
lesson's imports. The kernel then runs the notebook as it is: the lesson's
cells and the student's answers, as Python runs them, with no test among them.

:class:`RefereeClient` is the part of ``GradingExecute`` that runs the tests.
Each kernel gets one end of a socket pair when it starts
(:mod:`autograder.grading.kernel.warmkernel` passes it on); when nbclient
reaches a test cell (its public ``on_cell_start`` hook, which fires for skipped
cells too), the client asks the kernel to serve
(:func:`autograder.grading.referee.agent.serve`) and runs the test in this
process (:class:`autograder.grading.referee.session.Referee`), against the
kernel's objects. Each test's record stays here, out of the kernel's reach;
the kernel never holds a test's source, and the feedback comes from the same
run, so no hidden test can reach a feedback page through the kernel.

:func:`collect` hands the records to the verdict
(:mod:`autograder.grading.chain.verdict`).
"""

from __future__ import annotations

import asyncio
import contextvars
import os
import signal
import socket
from pathlib import Path
from typing import Any

from nbclient.exceptions import DeadKernelError
from nbgrader.preprocessors import NbGraderPreprocessor

from autograder.lessons.conventions import (
    grade_id,
    is_answer,
    is_test,
    skipped_at_grading,
)

#: The tag nbclient skips: test cells do not run in the kernel.
SKIP_TAG = "skip-execution"
#: Under ``resources["course"]``: what the client needs (``PLAN``) and each
#: test's record (``RECORDS``).
PLAN, RECORDS = "referee", "records"
#: Lessons that import these get a simulated GPU whose store is the grader's.
STORE_MODULES = ("course.fakecupy", "course.transfers", "course.devicearray")
#: Lessons that import these launch numba-cuda kernels, which the store runs.
KERNEL_MODULES = ("course.cudasim", "numba.cuda", "numba")
_SERVE = "__import__('autograder.grading.referee.agent', fromlist=['serve']).serve({})"


def skip(cell: Any) -> None:
    """Tag ``cell`` for nbclient to skip."""
    tags = cell.setdefault("metadata", {}).setdefault("tags", [])
    if SKIP_TAG not in tags:
        tags.append(SKIP_TAG)


def skip_slow_cells(nb: Any) -> int:
    """Tag the lesson cells marked too slow for grading
    (:data:`~autograder.lessons.conventions.SKIP_AT_GRADING`) for nbclient to
    skip; return how many."""
    slow = [c for c in nb.cells if skipped_at_grading(c)]
    for cell in slow:
        skip(cell)
    return len(slow)


class Referee(NbGraderPreprocessor):
    """Tag the test cells and the slow lesson cells to be skipped; note what
    the referee needs."""

    def preprocess(self, nb: Any, resources: Any):
        from autograder.grading.referee.source import lesson_imports

        tests: dict[str, str] = {}
        lesson: list[str] = []
        for cell in nb.cells:
            if cell.get("cell_type") != "code":
                continue
            if is_test(cell):
                tests[grade_id(cell)] = cell.source
                skip(cell)
            elif skipped_at_grading(cell):
                skip(cell)
            elif not is_answer(cell):
                lesson.append(cell.source)
        found = resources.setdefault("course", {})
        found.pop(RECORDS, None)
        info = resources.get("nbgrader", {})
        names = lesson_imports(lesson)
        modules = list(names.values())
        found[PLAN] = {
            "tests": tests,
            "names": names,
            "lesson": info.get("assignment"),
            # the kept release whose solution is the reference ("": the
            # repository's own), a value the job carries
            "release": str(getattr(resources.get("course_release"), "root", "") or ""),
            # the simulated GPU's store, for a lesson that uses its arrays
            # or launches kernels (which run there)
            "store": any(m in STORE_MODULES + KERNEL_MODULES for m, _ in modules),
            "kernels": any(m in KERNEL_MODULES for m, _ in modules),
        }
        return nb, resources


def untag(cell: Any) -> None:
    """Take the skip tag :class:`Referee` put on a cell off again."""
    tags = cell.get("metadata", {}).get("tags")
    if tags and SKIP_TAG in tags:
        tags.remove(SKIP_TAG)
        if not tags:
            del cell.metadata["tags"]


def collect(resources: dict) -> dict[str, Any] | None:
    """Each test's record (None: no referee in this chain)."""
    found = resources.get("course", {})
    if PLAN not in found:
        return None
    return found.setdefault(RECORDS, {})


class RefereeClient:
    """The referee's side of ``GradingExecute`` (see the module)."""

    _plan: dict[str, Any] | None = None
    _pair: tuple[socket.socket, socket.socket] | None = None
    _session: Any = None
    _store: Any = None

    def referee_open(self, resources: dict) -> None:
        """Before a kernel starts: its channel, if this notebook has tests, and
        its simulated GPU, if the lesson uses one."""
        self.referee_close()
        self._plan = resources.get("course", {}).get(PLAN)
        if self._plan is not None:
            self._records = resources["course"].setdefault(RECORDS, {})
            self._pair = socket.socketpair()
            if self._plan.get("store"):
                from autograder.grading.referee.store import StoreProcess

                self._store = StoreProcess(bool(self._plan.get("kernels")))

    def referee_fd(self) -> int:
        """The kernel's end of the channel (-1: none)."""
        return self._pair[1].fileno() if self._pair is not None else -1

    def store_fd(self) -> int:
        """The kernel's end of its store's channel (-1: none)."""
        return self._store.kernel_fd() if self._store is not None else -1

    def referee_started(self, km: Any) -> None:
        """The kernel has its end: only it holds it now (so its death is seen)."""
        if self._pair is None:
            return
        ours, theirs = self._pair
        theirs.close()
        store = None
        if self._store is not None:
            self._store.started()
            store = self._store.control
        from autograder.grading.referee.link import Link
        from autograder.grading.referee.session import Referee as Session
        from autograder.grading.referee.wire import Channel

        provisioner = getattr(km, "provisioner", None)
        link = Link(
            Channel(ours),
            interrupt=lambda: _interrupt(provisioner),
            kill=self._cage.kill_all,  # type: ignore[attr-defined]
            store=store,
        )
        self._session = Session(
            link,
            self._plan["names"],
            _reference_lookup(self._plan.get("lesson"), self._plan.get("release")),
        )

    def referee_close(self) -> None:
        if self._pair is not None:
            for end in self._pair:
                end.close()
        if self._store is not None:
            self._store.close()
        self._pair = self._session = self._store = None

    async def referee_test(self, cell: Any) -> bool:
        """Run a test cell in the referee; whether it was one."""
        if self._session is None or not is_test(cell):
            return False
        gid = grade_id(cell)
        source = self._plan["tests"].get(gid) if self._plan else None
        if source is None:
            return False
        session = self._session
        code = _SERVE.format(session.session + 1)
        self.kc.execute(
            code,
            silent=True,
            store_history=False,  # type: ignore[attr-defined]
            allow_stdin=False,
            stop_on_error=False,
        )
        # nbclient's own per-cell limit, from its public traits
        func = self.timeout_func  # type: ignore[attr-defined]
        limit = func(cell) if func is not None else self.timeout  # type: ignore[attr-defined]
        timeout = float(limit) if limit and limit > 0 else 120.0
        loop = asyncio.get_running_loop()
        # In this notebook's language (course.i18n.use_language): the
        # executor's thread runs in a copy of this task's context.
        run = contextvars.copy_context().run
        record = await loop.run_in_executor(
            None, run, session.run, gid, source, timeout
        )
        self._records[gid] = record
        self._status[cell.get("id")] = "referee"  # type: ignore[attr-defined]
        if session.link.broken:  # the kernel died in this test, or broke its channel
            raise DeadKernelError(f"in test {gid}: {session.link.broken}")
        return True


def _interrupt(provisioner: Any) -> None:
    """SIGINT to the kernel's process group (the kernel's stand-in ignores it)."""
    pgid = getattr(provisioner, "pgid", None)
    try:
        if pgid:
            os.killpg(int(pgid), signal.SIGINT)
        elif getattr(provisioner, "pid", None):
            os.kill(int(provisioner.pid), signal.SIGINT)
    except (ProcessLookupError, PermissionError):
        pass


def _reference_lookup(lesson: str | None, root: str | None = None) -> Any:
    """``course.results.reference(name)`` in the referee: the reference
    solution's function (of the kept release at ``root``, if one), loaded on
    first use."""
    if not lesson:
        return None

    def lookup(name: str) -> Any:
        from autograder.grading.referee.solution import reference_namespace
        from autograder.lessons.releases import Release

        namespace = reference_namespace(Release(lesson, Path(root) if root else None))
        if name not in namespace:
            raise NameError(f"the reference solution defines no {name!r}")
        return namespace[name]

    return lookup


__all__ = [
    "PLAN",
    "RECORDS",
    "SKIP_TAG",
    "Referee",
    "RefereeClient",
    "collect",
    "skip_slow_cells",
    "untag",
]
