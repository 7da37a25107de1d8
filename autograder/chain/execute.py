"""Running a submission: nbgrader's ``Execute``, with the course's kernels and limits.

``GradingExecute`` replaces ``Execute`` in ``Autograde.autograde_preprocessors``:

* kernels are forked warm from a preloaded server and confined with Landlock
  where the machine allows (:mod:`autograder.warmkernel`,
  :mod:`autograder.sandbox`); ``Execute.kernel_manager_class`` cannot be set in
  the configuration (``Execute.__init__`` overrides it), hence this subclass;
* the kernel works in a new, empty folder beside the one that holds the notebook
  being graded (removed afterwards; the sandbox keeps the kernel inside it);
* every cell's outcome as the kernel reported it (``ok``, ``error``) is kept in
  ``resources["course"]["status"]`` for the verdict step; a kernel that dies
  does not lose the notebook: the cell it died in is named, the cells before it
  keep their outcomes, and every test cell that never ran gets an error output
  (nbgrader would give full marks to a test cell without outputs);
* every process the kernel starts is killed when the notebook ends, and their
  number is capped (:class:`autograder.limits.ProcessCage`); the bytes written
  into the kernel's folder are capped too (checked twice a second);
* output that arrives long after a cell's reply is left out of that cell rather
  than failing the notebook (a hidden test then has no results, and fails);
* output is capped in bytes as it arrives: once a notebook's outputs add up to
  ``max_output_bytes``, further output is dropped and a note says so; a test
  cell's results are never dropped for output that came before them;
* no single output message over ``max_message_bytes`` ever reaches the
  grader's memory: the client reads the kernel's IOPub through a gate that
  skips such a message as it streams past and puts a signed notice in its
  place (:mod:`autograder.chain.iopub_gate`).
"""

from __future__ import annotations

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
from traitlets import Bool, Integer

from autograder import warmkernel
from autograder.chain.iopub_gate import IOPubGate
from autograder.conventions import grade_id, is_test
from autograder.limits import ProcessCage, folder_bytes
from course.results import MIME

#: Where the chain keeps what it learnt about a run, between preprocessors.
RESOURCES_KEY = "course"


class _DiskWatch:
    """Kills the kernel's processes once its folder holds more than ``limit``."""

    def __init__(self, folder: Path, limit: int, cage: ProcessCage) -> None:
        self.folder, self.limit, self.cage = folder, limit, cage
        self.exceeded = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.wait(0.5):
            if folder_bytes(self.folder, stop_at=self.limit) > self.limit:
                self.exceeded = True
                self.cage.kill_all()
                return


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
    max_output_bytes = Integer(
        2_000_000, help="Output kept per notebook, in bytes; the rest is dropped."
    ).tag(config=True)
    raise_on_iopub_timeout = Bool(
        False,
        help="Output still arriving iopub_timeout seconds after a cell's reply is "
        "left out (the cell then lacks it) instead of failing the whole notebook.",
    ).tag(config=True)
    iopub_timeout = Integer(10, help="See nbclient.").tag(config=True)
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

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        from autograder import sandbox

        warmkernel.install(self.warm, confine=self.confine and sandbox.abi() > 0)
        self.kernel_manager_class = warmkernel.manager_class()

    # -- one notebook -------------------------------------------------------------
    def preprocess(self, nb: Any, resources: Any = None, km: Any = None):
        resources = resources if resources is not None else {}
        # A new, empty folder for the kernel, inside the folder nbgrader works in
        # (so nothing lands outside the job), but not the one with the notebook.
        where = Path(str((resources.get("metadata") or {}).get("path") or "."))
        base = where.parent if where.is_dir() else None
        folder = Path(tempfile.mkdtemp(prefix=".kernel-", dir=base))
        run = dict(resources)
        run["metadata"] = dict(resources.get("metadata") or {}, path=str(folder))
        self._status: dict[str, str] = {}
        self._current: str | None = None
        self._bytes = 0
        self._truncated = False
        self._cage = ProcessCage("kernel")
        self._gate: IOPubGate | None = None
        watchdog = _DiskWatch(folder, self.max_disk_bytes, self._cage)
        died = None
        try:
            watchdog.start()
            nb, _ = super().preprocess(nb, run, km)
        except DeadKernelError:
            died = self._current
            if died is not None:
                self._status[died] = "died"
        finally:
            if self._gate is not None:
                self._gate.close()
                self._gate = None
            watchdog.stop()
            self._cage.remove()  # everything the kernel started, too
            shutil.rmtree(folder, ignore_errors=True)
        self._mark_unrun(nb, died, watchdog.exceeded)
        info = resources.setdefault(RESOURCES_KEY, {})
        info["status"] = dict(self._status)
        info["died_in"] = died
        return nb, resources

    def _mark_unrun(self, nb: Any, died: str | None, disk: bool = False) -> None:
        names = {c.get("id"): grade_id(c) or c.get("id") for c in nb.cells}
        where = f" (the kernel died in cell {names.get(died, died)})" if died else ""
        why = (
            f"it wrote more than {self.max_disk_bytes:,} bytes into its folder"
            if disk
            else "it crashed, was killed, or ran out of memory"
        )
        for cell in nb.cells:
            if cell.get("id") == died:
                cell.outputs.append(
                    _error("KernelDied", f"the kernel died while this cell ran: {why}")
                )
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

    def on_cell_executed(self, **kwargs: Any) -> None:
        super().on_cell_executed(**kwargs)
        status = kwargs["execute_reply"]["content"].get("status", "error")
        self._status[kwargs["cell"].get("id")] = str(status)

    def process_message(self, msg: dict, cell: NotebookNode, cell_index: int):
        kind = msg.get("msg_type")
        results = kind == "display_data" and MIME in msg.get("content", {}).get(
            "data", {}
        )
        if results and is_test(cell):
            # A test's results never lose their place to earlier output, but one
            # larger than max_results_bytes is refused (the test then fails).
            size = len(json.dumps(msg.get("content", {}), default=str))
            if size > self.max_results_bytes:
                cell.outputs.append(
                    NotebookNode(
                        output_type="stream",
                        name="stdout",
                        text=f"[results of {size:,} bytes refused: the limit is "
                        f"{self.max_results_bytes:,}]\n",
                    )
                )
                return None
        elif kind in ("stream", "display_data", "execute_result", "error"):
            size = len(json.dumps(msg.get("content", {}), default=str))
            self._bytes += size
            if self._bytes > self.max_output_bytes:
                if not self._truncated:
                    self._truncated = True
                    cell.outputs.append(
                        NotebookNode(
                            output_type="stream",
                            name="stdout",
                            text=f"[output beyond {self.max_output_bytes:,} bytes "
                            "per notebook dropped]\n",
                        )
                    )
                return None
        return super().process_message(msg, cell, cell_index)
