"""Running a submission: nbgrader's ``Execute``, with the course's kernels and limits.

``GradingExecute`` replaces ``Execute`` in ``Autograde.autograde_preprocessors``:

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
* every process the kernel starts is killed when the notebook ends, and their
  number is capped (:class:`autograder.grading.kernel.limits.ProcessCage`); the bytes
  written
  into the kernel's folder are capped too (checked twice a second);
* output that arrives long after a cell's reply is left out of that cell rather
  than failing the notebook (a hidden test then has no results, and fails);
* output is capped in bytes as it arrives: every IOPub message but ``status``
  and ``execute_input`` counts (comms, display updates once per output they
  replace, unknown types); past ``max_output_bytes`` the rest is dropped (an
  update replaces nothing, a comm never reaches the notebook) and a note says
  so; a test cell's results (up to ``max_results_bytes``) and its error, kept
  short, are never dropped for output that came before them;
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
import json
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Any

from nbclient.exceptions import DeadKernelError
from nbclient.util import run_sync
from nbformat import NotebookNode
from nbgrader.preprocessors import Execute
from traitlets import Bool, Enum, Integer

from autograder.grading.chain.iopub_gate import IOPubGate
from autograder.grading.kernel import warmkernel
from autograder.grading.kernel.limits import DiskWatch, ProcessCage
from autograder.lessons.conventions import grade_id, is_test
from course.results import MIME

#: Where the chain keeps what it learnt about a run, between preprocessors.
RESOURCES_KEY = "course"


#: IOPub messages that are kernel bookkeeping, not output: never counted.
BOOKKEEPING = ("status", "execute_input")
_DISPLAYS = ("display_data", "execute_result", "update_display_data")
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


def _message_bytes(msg: dict) -> int:
    size = len(json.dumps(msg.get("content", {}), default=str))
    for buffer in msg.get("buffers") or []:
        try:
            size += memoryview(buffer).nbytes
        except TypeError:
            size += len(str(buffer))
    return size


def _error(ename: str, evalue: str) -> NotebookNode:
    return NotebookNode(
        output_type="error",
        ename=ename,
        evalue=evalue,
        traceback=[f"{ename}: {evalue}"],
    )


class GradingExecute(Execute):
    """nbgrader's Execute with warm, confined kernels and the limits above."""

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
        return km

    # -- one notebook -------------------------------------------------------------
    def preprocess(self, nb: Any, resources: Any = None, km: Any = None):
        resources = resources if resources is not None else {}
        size = notebook_bytes(nb, stop_at=self.max_source_bytes or None)
        if self.max_source_bytes and size > self.max_source_bytes:
            return self._too_large(nb, resources, size)
        # A new, empty folder for the kernel, inside the folder nbgrader works in
        # (so nothing lands outside the job), but not the one with the notebook.
        where = Path(str((resources.get("metadata") or {}).get("path") or "."))
        base = where.parent if where.is_dir() else None
        folder = Path(tempfile.mkdtemp(prefix=".kernel-", dir=base))
        run = dict(resources)
        run["metadata"] = dict(resources.get("metadata") or {}, path=str(folder))
        self._status: dict[str, str] = {}
        self._current: str | None = None
        self.reset_counts()
        self._out_of_time = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._cage = ProcessCage("kernel")
        self._gate: IOPubGate | None = None
        watchdog = DiskWatch(folder, self.max_disk_bytes, self._cage)
        seconds = self.notebook_seconds()
        timer = threading.Timer(seconds or 0, self._time_up)
        timer.daemon = True
        died = None
        try:
            watchdog.start()
            if seconds:
                timer.start()
            nb, _ = super().preprocess(nb, run, km)
        except DeadKernelError:
            died = self._current
            if died is not None:
                self._status[died] = "died"
        finally:
            timer.cancel()
            if self._gate is not None:
                self._gate.close()
                self._gate = None
            watchdog.stop()
            self._cage.remove()  # everything the kernel started, too
            shutil.rmtree(folder, ignore_errors=True)
        timed_out = self._out_of_time and not watchdog.exceeded
        self._mark_unrun(nb, died, watchdog.exceeded, timed_out)
        info = resources.setdefault(RESOURCES_KEY, {})
        info["status"] = dict(self._status)
        info["died_in"] = died
        if timed_out:
            info["timed_out"] = seconds
        return nb, resources

    def reset_counts(self) -> None:
        """Start counting a notebook's output afresh."""
        self._bytes = 0
        self._truncated = False
        self._results: dict[int, int] = {}  # results bytes per test cell
        self._errors: set[int] = set()  # test cells given a short error past the cap

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
                cell.outputs = [_error("NotebookTooLarge", message)]
        info = resources.setdefault(RESOURCES_KEY, {})
        info.update(status={}, died_in=None, too_large=size)
        return nb, resources

    def _mark_unrun(
        self, nb: Any, died: str | None, disk: bool = False, timed_out: bool = False
    ) -> None:
        names = {c.get("id"): grade_id(c) or c.get("id") for c in nb.cells}
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
                cell.outputs.insert(0, _error(ename, text))
            elif is_test(cell) and cell.get("id") not in self._status:
                cell.outputs.append(_error("NotRun", f"this test did not run{where}"))

    # -- hooks nbclient calls ------------------------------------------------------
    async def async_start_new_kernel(self, **kwargs: Any) -> None:
        await super().async_start_new_kernel(**kwargs)
        pid = getattr(getattr(self.km, "provisioner", None), "pid", None)
        if pid:
            self._cage.add(int(pid))
        if self.km.transport == "tcp" and self.max_message_bytes > 0:
            # The client connects to the gate, never to the kernel's IOPub.
            self._gate = IOPubGate(
                self.km.iopub_port, self.km.session, self.max_message_bytes, self.km.ip
            )
            self.km.iopub_port = self._gate.port

    # nbclient's synchronous names are bound to its own coroutines: rebind them.
    start_new_kernel = run_sync(async_start_new_kernel)

    def on_cell_start(self, **kwargs: Any) -> None:
        self._current = kwargs["cell"].get("id")
        self._loop = asyncio.get_running_loop()
        if self._out_of_time:  # the limit came before the kernel was caged
            self._cage.kill_all()

    def on_cell_executed(self, **kwargs: Any) -> None:
        super().on_cell_executed(**kwargs)
        status = kwargs["execute_reply"]["content"].get("status", "error")
        self._status[kwargs["cell"].get("id")] = str(status)

    def process_message(self, msg: dict, cell: NotebookNode, cell_index: int):
        kind = msg.get("msg_type")
        if kind in BOOKKEEPING:
            return super().process_message(msg, cell, cell_index)
        content = msg.get("content")
        if not isinstance(content, dict):
            return None
        size = _message_bytes(msg)
        display_id = self._display_id(content)
        data = content.get("data")
        results = kind == "display_data" and isinstance(data, dict) and MIME in data
        if results and is_test(cell) and display_id is None:
            # A test's results never lose their place to earlier output, but a
            # test cell's results past max_results_bytes are refused (it fails).
            sent = self._results.get(cell_index, 0) + size
            self._results[cell_index] = sent
            if sent > self.max_results_bytes:
                cell.outputs.append(
                    NotebookNode(
                        output_type="stream",
                        name="stdout",
                        text=f"[results of {size:,} bytes refused: the limit is "
                        f"{self.max_results_bytes:,} per test cell]\n",
                    )
                )
                return None
            return super().process_message(msg, cell, cell_index)
        self._bytes += size * self._copies(kind, display_id)
        if self._bytes <= self.max_output_bytes:
            return super().process_message(msg, cell, cell_index)
        if not self._truncated:
            self._truncated = True
            cell.outputs.append(
                NotebookNode(
                    output_type="stream",
                    name="stdout",
                    text=f"[output beyond {self.max_output_bytes:,} bytes per "
                    "notebook dropped, widgets and display updates included]\n",
                )
            )
        if kind == "error" and is_test(cell) and cell_index not in self._errors:
            # The verdict quotes a test's error: keep it, short, once per cell.
            self._errors.add(cell_index)
            ename = str(content.get("ename", "Error"))[:80]
            cell.outputs.append(_error(ename, str(content.get("evalue", ""))[:1000]))
        return None

    @staticmethod
    def _display_id(content: dict) -> str | None:
        transient = content.get("transient")
        found = transient.get("display_id") if isinstance(transient, dict) else None
        if transient is not None and not isinstance(found, str):
            content["transient"] = {}  # nbclient fails on an id it cannot hash
            return None
        return found or None

    def _copies(self, kind: str | None, display_id: str | None) -> int:
        """How many outputs a message writes: a display with an id also replaces
        every earlier output with that id (nbclient updates them in place)."""
        if display_id is None or kind not in _DISPLAYS:
            return 1
        targets = sum(len(v) for v in self._display_id_map.get(display_id, {}).values())
        return max(1, targets + (kind != "update_display_data"))
