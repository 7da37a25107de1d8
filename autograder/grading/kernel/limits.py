"""Limits on a grading kernel and everything it starts.

* :func:`kernel_env`: the environment is an allow-list. The grader's own
  variables (tokens, cloud keys, paths to its caches) never reach a kernel, and
  the warm-kernel server starts with the same list, since a forked child still
  shows its parent's environment block in ``/proc/self/environ``.
  :func:`worker_env` is the list for the grader's own worker processes: the
  same, and the course's ``COURSE_*`` and ``XDG_*`` settings.
* :class:`ProcessCage`: a ``pids`` cgroup per notebook where the cgroup file
  system is writable (root, or a delegated cgroup): it caps processes and
  threads (room for about 2,000, which numba's CUDA simulator needs), and when
  the notebook ends every process in it is killed, including those that left
  the kernel's session. Elsewhere the kernel's process group is killed. A
  kernel in namespaces of its own is a chain of processes (its stand-in, PID 1,
  the kernel): all of them go into the cgroup.
* :func:`folder_bytes`: what a kernel wrote into its folder, for the write cap;
  :class:`DiskWatch` stops the kernel once it wrote too much.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

#: Variables a kernel keeps (exact names), and prefixes of kept names.
ALLOWED = {
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "LANGUAGE",
    "TZ",
    "TERM",
    "SHELL",
    "TMPDIR",
    "PYTHONPATH",
    "PYTHONHASHSEED",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "MPLBACKEND",
    "MPLCONFIGDIR",
    "IPYTHONDIR",
    "LD_LIBRARY_PATH",
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "NUMEXPR_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "OPENBLAS_CORETYPE",
    "OPENBLAS_L2_SIZE",
    "CUDA_VISIBLE_DEVICES",
    "CUDA_HOME",
    "CUDA_PATH",
    "COURSE_FORCE_CPU",
    "NUMBA_ENABLE_CUDASIM",
    "CUPY_CACHE_IN_MEMORY",
    "JOBLIB_MULTIPROCESSING",
    "PYDEVD_DISABLE_FILE_VALIDATION",
}
ALLOWED_PREFIXES = ("LC_", "JPY_", "JUPYTER_", "NVIDIA_", "CUPY_")

#: Processes and threads one notebook may have at once.
MAX_PIDS = 2048
_CGROUP_ROOTS = (Path("/sys/fs/cgroup/pids"), Path("/sys/fs/cgroup"))


#: Set in every grading kernel (and the reference's): numba-cuda kernels run in
#: the CUDA simulator, which reports out-of-bounds accesses and lets
#: ``course.cudasim.race_check`` work, even on a GPU box; lessons skip what only
#: a learner needs to see and grading cannot afford (``torch.compile``'s
#: seconds-long first call). Grading sees no GPU on any machine
#: (``CUDA_VISIBLE_DEVICES`` empty, also in the referee: :func:`grade_on_the_cpu`),
#: exactly as on a machine without one, simulated hardware included: a kernel
#: confined by Landlock or by the seccomp filter cannot start CUDA (error 304 on
#: the NVIDIA H200 run of 2026-12-04, ``docs/gpu-runs``), and a reference on a
#: GPU beside an answer on the CPU would differ in device, not in substance.
#: (``COURSE_FORCE_CPU`` would not do: it also overrides ``simulate_hardware``.)
GRADING_ENV = {
    "NUMBA_ENABLE_CUDASIM": "1",
    "CUDA_VISIBLE_DEVICES": "",
    # torch.profiler's start and stop log lines on stderr (course/__init__.py
    # sets the same default in a student's own kernel)
    "KINETO_LOG_LEVEL": "99",
}


def grade_on_the_cpu() -> None:
    """In the referee's process, before CUDA starts there: no GPU, as in the
    grading kernels."""
    os.environ["CUDA_VISIBLE_DEVICES"] = ""


def kernel_env(env: dict[str, str]) -> dict[str, str]:
    """The allowed variables of ``env`` (see :data:`ALLOWED`), and
    :data:`GRADING_ENV`."""
    kept = {
        k: v for k, v in env.items() if k in ALLOWED or k.startswith(ALLOWED_PREFIXES)
    }
    kept.update(GRADING_ENV)
    return kept


#: Prefixes of the grader's own settings that its workers keep as well.
WORKER_PREFIXES = ("COURSE_", "XDG_")


def worker_env(env: dict[str, str]) -> dict[str, str]:
    """What a grading worker process keeps of ``env``: :data:`ALLOWED` and the
    course's settings, without :data:`GRADING_ENV` (which is for kernels)."""
    prefixes = ALLOWED_PREFIXES + WORKER_PREFIXES
    return {k: v for k, v in env.items() if k in ALLOWED or k.startswith(prefixes)}


#: The resource limits a kernel gets from the worker that asks for it.
PASSED_LIMITS = ("AS", "FSIZE")


def limits_now() -> dict[str, list[int]]:
    """This process's :data:`PASSED_LIMITS`, (soft, hard) by name."""
    import resource

    return {
        name: list(resource.getrlimit(getattr(resource, f"RLIMIT_{name}")))
        for name in PASSED_LIMITS
    }


def apply_limits(limits: dict[str, list[int]]) -> None:
    """Set limits as :func:`limits_now` gives them (in a new kernel)."""
    import resource

    for name, (soft, hard) in limits.items():
        resource.setrlimit(getattr(resource, f"RLIMIT_{name}"), (soft, hard))


def set_environment(env: dict[str, str]) -> None:
    """Replace this process's environment by ``env`` (a pool's initializer)."""
    os.environ.clear()
    os.environ.update(env)


def descendants(pid: int) -> list[int]:
    """The processes started by ``pid`` (and by them), that are alive now."""
    found: list[int] = []
    todo = [pid]
    while todo:
        parent = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                path = f"/proc/{parent}/task/{task}/children"
                with open(path, encoding="ascii") as f:
                    children = [int(c) for c in f.read().split()]
            except (OSError, ValueError):
                continue
            found += children
            todo += children
    return found


def folder_bytes(folder: Path, stop_at: int | None = None) -> int:
    """Bytes in the files under ``folder`` (stops counting past ``stop_at``)."""
    total = 0
    stack = [str(folder)]
    while stack:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                elif entry.is_file(follow_symlinks=False):
                    total += entry.stat(follow_symlinks=False).st_blocks * 512
            except OSError:
                continue
            if stop_at is not None and total > stop_at:
                return total
    return total


def _cgroup_root() -> Path | None:
    for root in _CGROUP_ROOTS:
        controllers = root / "cgroup.controllers"
        if controllers.is_file() and "pids" not in controllers.read_text():
            continue  # a cgroup v2 root without the pids controller
        if (root / "cgroup.procs").is_file() and os.access(root, os.W_OK):
            return root
    return None


class ProcessCage:
    """A pids cgroup for one kernel, or a process group where there is none."""

    def __init__(self, name: str, max_pids: int = MAX_PIDS) -> None:
        self.path: Path | None = None
        self.pgids: set[int] = set()
        root = _cgroup_root()
        if root is None:
            return
        path = root / f"gpu-course-{name}-{os.getpid()}-{time.monotonic_ns()}"
        try:
            path.mkdir()
            (path / "pids.max").write_text(str(max_pids))
            self.path = path
        except OSError:
            self.remove()

    @property
    def kind(self) -> str:
        """How this cage holds processes: 'cgroup' or 'process group'."""
        return "cgroup" if self.path is not None else "process group"

    def add(self, pid: int) -> None:
        """Put a kernel, the processes it has started, and so everything they
        start from now on, in the cage."""
        try:
            self.pgids.add(os.getpgid(pid))
        except OSError:
            pass
        if self.path is not None:
            for each in [pid, *descendants(pid)]:
                try:
                    (self.path / "cgroup.procs").write_text(str(each))
                except OSError:
                    pass

    def pids(self) -> list[int]:
        """Processes in the cgroup now (empty without one)."""
        if self.path is None:
            return []
        try:
            text = (self.path / "cgroup.procs").read_text()
        except OSError:
            return []
        return [int(p) for p in text.split()]

    def kill_all(self) -> None:
        """Kill every process in the cage, and the kernel's process group."""
        for pgid in self.pgids:
            if pgid not in (os.getpgid(0),):
                try:
                    os.killpg(pgid, signal.SIGKILL)
                except OSError:
                    pass
        for _ in range(50):
            alive = self.pids()
            if not alive:
                break
            for pid in alive:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.02)

    def remove(self) -> None:
        """Kill what is left and remove the cgroup."""
        self.kill_all()
        if self.path is not None:
            for _ in range(50):
                try:
                    self.path.rmdir()
                    break
                except OSError:
                    time.sleep(0.02)
            self.path = None


class DiskWatch:
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
