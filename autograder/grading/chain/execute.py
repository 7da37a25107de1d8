"""Running a submission: nbgrader's ``Execute``, with the course's kernels and limits.

``GradingExecute`` replaces ``Execute`` in ``Autograde.autograde_preprocessors``:

* test cells do not run in the kernel: each runs in the referee, in this
  process, against the kernel's objects, when nbclient reaches it
  (:class:`~autograder.grading.chain.referee.RefereeClient`);
* kernels are forked warm from a preloaded server and confined with Landlock
  where the machine allows (:mod:`autograder.grading.kernel.warmkernel`,
  :mod:`autograder.grading.kernel.sandbox`); ``Execute.kernel_manager_class`` cannot be
  set in
  the configuration (``Execute.__init__`` overrides it), hence this subclass;
* the kernel works in a new, empty folder beside the one that holds the notebook
  being graded (removed afterwards; the sandbox keeps the kernel inside it);
* every cell's outcome as the kernel reported it (``ok``, ``error``) is kept in
  ``resources["course"]["status"]`` for the verdict step; a kernel that dies
  does not lose the notebook: the cell it died in is named, the cells before it
  keep their outcomes, and every test cell that never ran gets an error output
  (nbgrader would give full marks to a test cell without outputs);
* a kernel that dies (not one stopped for time or disk) costs only the cell it
  died in: a new kernel replays the answer and lesson cells before it, outputs
  discarded and tests skipped, then grading goes on after it (at most
  ``max_restarts`` times a notebook);
* every process the kernel starts is killed when the notebook ends, and their
  number is capped (:class:`autograder.grading.kernel.limits.ProcessCage`); the bytes
  written
  into the kernel's folder are capped too (checked twice a second);
* output that arrives long after a cell's reply is left out of that cell rather
  than failing the notebook (a hidden test then has no results, and fails);
* output is capped in bytes as it arrives
  (:mod:`autograder.grading.chain.output_caps`);
* a notebook over ``max_source_bytes`` is not run: each test cell gets an
  error saying why (the worker checks the file first, :func:`source_limit`);
* a notebook runs at most ``max_notebook_seconds`` (default: min(15 min, 30 x
  the cell timeout)); then its kernel is stopped and the cells not run get
  errors that name the limit;
* no single output message over ``max_message_bytes`` ever reaches the
  grader's memory: the client reads the kernel's IOPub through a gate that
  skips such a message as it streams past and puts a signed notice in its
  place (:mod:`autograder.grading.chain.iopub_gate`).
"""

from __future__ import annotations

import asyncio
import copy
import json
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from nbclient.exceptions import DeadKernelError
from nbclient.util import run_sync
from nbgrader.preprocessors import Execute
from traitlets import Bool, Enum, Integer

from autograder.grading.chain.iopub_gate import IOPubGate
from autograder.grading.chain.output_caps import OutputCaps, error_output
from autograder.grading.chain.referee import RefereeClient
from autograder.grading.kernel import warmkernel
from autograder.grading.kernel.limits import DiskWatch, ProcessCage
from autograder.lessons.conventions import grade_id, is_test

#: Where the chain keeps what it learnt about a run, between preprocessors.
RESOURCES_KEY = "course"


#: The default of ``GradingExecute.max_source_bytes``.
DEFAULT_SOURCE_BYTES = 20_000_000


def source_limit(config: Any) -> int:
    """``GradingExecute.max_source_bytes`` as a traitlets ``config`` sets it."""
    section = config.get("GradingExecute") if hasattr(config, "get") else None
    if section is not None and "max_source_bytes" in section:
        return int(section["max_source_bytes"] or 0)
    return DEFAULT_SOURCE_BYTES


def notebook_bytes(nb: Any, stop_at: int | None = None) -> int:
    """Bytes of a notebook's cells (sources, outputs, attachments), roughly as
    saved; counting stops once past ``stop_at``."""
    total = 0
    for cell in nb.get("cells", []):
        source = cell.get("source", "")
        if isinstance(source, str):
            total += len(source.encode("utf-8", "replace"))
        for key in ("outputs", "attachments"):
            if cell.get(key):
                total += len(json.dumps(cell[key], default=str))
        if stop_at is not None and total > stop_at:
            break
    return total


class GradingExecute(OutputCaps, RefereeClient, Execute):
    """nbgrader's Execute with warm, confined kernels, the referee and the limits
    above."""

    warm = Bool(True, help="Fork kernels from a preloaded server (Linux).").tag(
        config=True
    )
    confine = Bool(True, help="Confine kernels with Landlock where possible.").tag(
        config=True
    )
    require_namespaces = Bool(
        True,
        help="Refuse to grade, on Linux, where confined kernels cannot get their "
        "own user, PID and mount namespaces (False: grade with the weaker "
        "confinement; see autograder.grading.kernel.namespaces).",
    ).tag(config=True)
    max_output_bytes = Integer(
        2_000_000, help="Output kept per notebook, in bytes; the rest is dropped."
    ).tag(config=True)
    raise_on_iopub_timeout = Bool(
        False,
        help="Output still arriving iopub_timeout seconds after a cell's reply is "
        "left out (the cell then lacks it) instead of failing the whole notebook.",
    ).tag(config=True)
    iopub_timeout = Integer(10, help="See nbclient.").tag(config=True)
    shutdown_kernel = Enum(
        ["graceful", "immediate"],
        default_value="immediate",
        help="A grading kernel is killed once its last cell is done (every "
        "output is in by then): a graceful stop costs 0.06 s a kernel and runs "
        "nothing that counts.",
    ).tag(config=True)
    max_results_bytes = Integer(
        8_000_000, help="Largest results output a test cell may send."
    ).tag(config=True)
    max_message_bytes = Integer(
        10_000_000,
        help="Largest single output message read from a kernel; a larger one is "
        "skipped as it arrives and replaced by a notice (0: no gate).",
    ).tag(config=True)
    max_disk_bytes = Integer(
        1_000_000_000, help="Bytes a kernel may write into its folder."
    ).tag(config=True)
    max_source_bytes = Integer(
        DEFAULT_SOURCE_BYTES,
        help="A notebook larger than this (bytes, as saved) is not run: each test "
        "cell gets an error saying so (0: no limit).",
    ).tag(config=True)
    max_notebook_seconds = Integer(
        None,
        allow_none=True,
        help="Wall-clock seconds a whole notebook may run; then its kernel is "
        "stopped and what ran is graded. None: min(900, 30 x timeout); 0: no limit.",
    ).tag(config=True)

    max_restarts = Integer(
        3,
        help="New kernels a notebook may get after its kernel dies (each replays "
        "the cells before the one it died in; 0: the rest of the notebook is lost).",
    ).tag(config=True)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("kernel_manager_class", warmkernel.manager_class())
        super().__init__(*args, **kwargs)
        from autograder.grading.kernel import namespaces, sandbox

        confine = self.confine and sandbox.abi() > 0
        self._kernel_settings = {
            "warm": self.warm and warmkernel.supported(),
            "confine": confine,
            "namespaces": confine and namespaces.use(self.require_namespaces),
        }

    def create_kernel_manager(self) -> Any:
        """nbclient's kernel manager, given this executor's kernel settings."""
        km = super().create_kernel_manager()
        if isinstance(km, warmkernel.manager_class()):
            for name, value in self._kernel_settings.items():
                setattr(km, name, value)
            km.referee_fd = self.referee_fd()
            km.store_fd = self.store_fd()
        return km

    # -- one notebook -------------------------------------------------------------
    def preprocess(self, nb: Any, resources: Any = None, km: Any = None):
        resources = resources if resources is not None else {}
        info = resources.setdefault(RESOURCES_KEY, {})
        size = notebook_bytes(nb, stop_at=self.max_source_bytes or None)
        if self.max_source_bytes and size > self.max_source_bytes:
            return self._too_large(nb, resources, size)
        died, disk, timed_out = self._run(nb, resources, km)
        self._mark_unrun(nb, died, disk, timed_out)
        info["status"] = dict(self._status)
        info["died_in"] = died
        info["restarts"] = len(self._deaths)
        if timed_out:
            info["timed_out"] = self.notebook_seconds()
        return nb, resources

    def _run(self, nb: Any, resources: Any, km: Any) -> tuple[str | None, bool, bool]:
        """Run ``nb`` in a new kernel; return (the cell it died in, whether it
        wrote too much, whether it ran out of time)."""
        # A new, empty folder for each kernel, inside the folder nbgrader works in
        # (so nothing lands outside the job), but not the one with the notebook:
        # a kernel that replaces a dead one finds nothing the dead one left.
        where = Path(str((resources.get("metadata") or {}).get("path") or "."))
        base = where.parent if where.is_dir() else None
        folder = Path(tempfile.mkdtemp(prefix=".kernel-", dir=base))
        run = dict(resources)
        self._status: dict[str, str] = {}
        self._current: str | None = None
        self.reset_counts()
        self._out_of_time = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._cage = ProcessCage("kernel")
        self._gate: IOPubGate | None = None
        watchdog = DiskWatch(folder, self.max_disk_bytes, self._cage)
        self._timer: threading.Timer | None = None
        died = None
        self._deaths: list[str] = []  # the cells kernels died in, then were replaced
        self._replay_to, self._replaying = 0, False
        try:
            watchdog.start()
            self._arm_timer()
            while True:
                run["metadata"] = dict(
                    resources.get("metadata") or {}, path=str(_fresh(folder))
                )
                self.referee_open(resources)
                try:
                    super().preprocess(nb, run, km)
                    break
                except DeadKernelError:
                    died = self._current
                    if died is not None:
                        self._status[died] = "died"
                if not self._restart_after(nb, died, watchdog.exceeded, km):
                    break
                died = None
        finally:
            self.referee_close()
            if self._timer is not None:
                self._timer.cancel()
            if self._gate is not None:
                self._gate.close()
                self._gate = None
            watchdog.stop()
            self._cage.remove()  # everything the kernel started, too
            shutil.rmtree(folder, ignore_errors=True)
        return died, watchdog.exceeded, self._out_of_time and not watchdog.exceeded

    def _restart_after(self, nb: Any, died: str | None, disk: bool, km: Any) -> bool:
        """Whether a new kernel takes over after one died in cell ``died`` (and
        if so, note where it replays to)."""
        if died is None or km is not None or disk or self._out_of_time:
            return False
        if len(self._deaths) >= self.max_restarts:
            return False
        ids = [cell.get("id") for cell in nb.cells]
        if died not in ids:
            return False
        self._deaths.append(died)
        self._replay_to = ids.index(died) + 1
        self._cage.kill_all()  # whatever the dead kernel left running
        return True

    def preprocess_cell(self, cell: Any, resources: Any, index: int) -> Any:
        """Run a cell; before the replay point (after a kernel died), run a copy
        of each answer or lesson cell for its effect and leave the cell as it is
        (tests and the cells kernels died in are skipped)."""
        if index >= self._replay_to:
            return super().preprocess_cell(cell, resources, index)
        if is_test(cell) or cell.get("id") in self._deaths:
            return cell, self.resources
        self._replaying = True
        try:
            super().preprocess_cell(copy.deepcopy(cell), resources, index)
        finally:
            self._replaying = False
        return cell, self.resources

    def _arm_timer(self) -> None:
        """(Re)start the notebook's time limit."""
        if self._timer is not None:
            self._timer.cancel()
        seconds = self.notebook_seconds()
        if seconds:
            self._timer = threading.Timer(seconds, self._time_up)
            self._timer.daemon = True
            self._timer.start()

    def notebook_seconds(self) -> int:
        """The whole notebook's time limit in seconds (0: none)."""
        if self.max_notebook_seconds is not None:
            return max(0, int(self.max_notebook_seconds))
        per_cell = self.timeout if self.timeout and self.timeout > 0 else 30
        return min(900, 30 * int(per_cell))

    def _time_up(self) -> None:
        self._out_of_time = True
        self._cage.kill_all()
        # nbclient may be waiting for output (iopub_timeout) without watching
        # the kernel: end the wait as its own check for a dead kernel does.
        loop, task = self._loop, getattr(self, "task_poll_for_reply", None)
        if loop is not None and task is not None:
            try:
                loop.call_soon_threadsafe(task.cancel)
            except RuntimeError:  # the loop has closed: the notebook is over
                pass

    def _too_large(self, nb: Any, resources: Any, size: int) -> tuple[Any, Any]:
        message = (
            f"the notebook was not run: it is over {self.max_source_bytes:,} bytes "
            "(large outputs or data pasted into cells?). Clear its outputs "
            "(Kernel > Restart Kernel and Clear All Outputs), remove the pasted "
            "data, save and submit again"
        )
        for cell in nb.cells:
            if is_test(cell):
                cell.outputs = [error_output("NotebookTooLarge", message)]
        info = resources.setdefault(RESOURCES_KEY, {})
        info.update(status={}, died_in=None, too_large=size)
        return nb, resources

    def _mark_unrun(
        self, nb: Any, died: str | None, disk: bool = False, timed_out: bool = False
    ) -> None:
        names = {c.get("id"): grade_id(c) or c.get("id") for c in nb.cells}
        for cell in nb.cells:
            if cell.get("id") in self._deaths:
                text = (
                    "the kernel died while this cell ran (it crashed, was killed, "
                    "or ran out of memory); a new kernel ran the cells before it "
                    "again and grading went on after it"
                )
                cell.outputs.insert(0, error_output("KernelDied", text))
        cap = f"the notebook ran past its limit of {self.notebook_seconds():,} s in all"
        where = f" (the kernel died in cell {names.get(died, died)})" if died else ""
        why = "it crashed, was killed, or ran out of memory"
        if disk:
            why = f"it wrote more than {self.max_disk_bytes:,} bytes into its folder"
        elif timed_out:
            where = f" ({cap}, so its kernel was stopped)"
            why = f"{cap} (a loop that never ends, or that ignores interrupts?)"
        for cell in nb.cells:
            if cell.get("id") == died:
                ename = "TimeLimit" if timed_out else "KernelDied"
                verb = "was stopped" if timed_out else "died"
                text = f"the kernel {verb} while this cell ran: {why}"
                cell.outputs.insert(0, error_output(ename, text))
            elif is_test(cell) and cell.get("id") not in self._status:
                text = f"this test did not run{where}"
                cell.outputs.append(error_output("NotRun", text))

    # -- hooks nbclient calls ------------------------------------------------------
    async def async_start_new_kernel(self, **kwargs: Any) -> None:
        await super().async_start_new_kernel(**kwargs)
        pid = getattr(getattr(self.km, "provisioner", None), "pid", None)
        if pid:
            self._cage.add(int(pid))
        self.referee_started(self.km)
        if self._gate is not None:  # a dead kernel's
            self._gate.close()
            self._gate = None
        if self.km.transport == "tcp" and self.max_message_bytes > 0:
            # The client connects to the gate, never to the kernel's IOPub.
            self._gate = IOPubGate(
                self.km.iopub_port, self.km.session, self.max_message_bytes, self.km.ip
            )
            self.km.iopub_port = self._gate.port

    # nbclient's synchronous names are bound to its own coroutines: rebind them.
    start_new_kernel = run_sync(async_start_new_kernel)

    async def on_cell_start(self, **kwargs: Any) -> None:
        self._current = kwargs["cell"].get("id")
        self._loop = asyncio.get_running_loop()
        if self._out_of_time:  # the limit came before the kernel was caged
            self._cage.kill_all()
            return
        await self.referee_test(kwargs["cell"])

    def on_cell_executed(self, **kwargs: Any) -> None:
        if self._replaying:
            return
        super().on_cell_executed(**kwargs)
        status = kwargs["execute_reply"]["content"].get("status", "error")
        self._status[kwargs["cell"].get("id")] = str(status)


def _fresh(folder: Path) -> Path:
    """An empty folder for the next kernel in ``folder``, the kernels'
    parent (watched for its size as a whole), once the last one's is gone."""
    for old in folder.iterdir():
        if old.is_dir() and not old.is_symlink():
            shutil.rmtree(old, ignore_errors=True)
        else:
            old.unlink(missing_ok=True)
    made = folder / f"k{time.monotonic_ns()}"
    made.mkdir()
    return made
