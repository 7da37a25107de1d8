"""Write CUDA kernels with numba-cuda anywhere, and check them for races.

Two things live here:

* :func:`choose_target` picks where ``@cuda.jit`` kernels run *before*
  ``numba.cuda`` is imported: a real GPU when a usable CUDA device exists, else
  numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``), which runs the same
  kernel source on the CPU, one Python thread per CUDA thread. The grader always
  sets the simulator: it reports out-of-bounds indexing with the thread and
  block, where a GPU reports nothing or breaks its context.
* :func:`race_check` (from :mod:`course.racecheck`) makes the simulator
  deterministic about races.

What the simulator cannot show is speed: it runs every CUDA thread as a Python
thread (Day 09 times it against NumPy) and says nothing about a GPU. Nor does
it compile anything: it runs the kernel as Python, so it also accepts what the
CUDA compiler refuses (a NumPy function such as ``np.dot`` inside a kernel, a
shared array sized at run time). Keep checked launches small (a few blocks of
at most 64 threads): one OS thread per CUDA thread, and every access recorded.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any

from course.env import force_cpu

SIMULATOR_ENV = "NUMBA_ENABLE_CUDASIM"


def simulator_requested() -> bool:
    """Whether ``NUMBA_ENABLE_CUDASIM`` asks for the simulator."""
    return os.environ.get(SIMULATOR_ENV, "0").strip() not in ("", "0")


def _cuda_usable() -> bool:
    if force_cpu():
        return False
    try:
        import torch

        return bool(torch.cuda.is_available())
    except Exception:  # noqa: BLE001 - any failure means no usable device
        return False


_PROBE = """
import numpy as np
from numba import cuda

@cuda.jit
def one(out):
    out[0] = 1.0

out = np.zeros(1)
one[1, 1](out)
assert out[0] == 1.0
"""


def _numba_gpu_works() -> tuple[bool, str]:
    """Compile and run a one-thread kernel in a fresh process (a GPU box may
    lack the CUDA toolkit parts numba-cuda compiles with)."""
    import subprocess

    env = {k: v for k, v in os.environ.items() if k != SIMULATOR_ENV}
    try:
        ran = subprocess.run(
            [sys.executable, "-c", _PROBE],
            capture_output=True,
            text=True,
            env=env,
            timeout=180,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, str(exc)
    lines = (ran.stderr or "").strip().splitlines()
    return ran.returncode == 0, lines[-1] if lines else ""


#: Why the last :func:`choose_target` fell back to the simulator on a GPU box.
FALLBACK_REASON = ""


def _fix_hint(why: str) -> str:
    """What to install, given why numba-cuda failed."""
    if "module 'numpy' has no attribute" in why:
        import numpy

        return (
            f"this numba-cuda uses a NumPy function that NumPy {numpy.__version__} "
            "no longer has: install the NumPy your numba supports "
            "(pip install 'numpy<2.5') or a newer numba-cuda"
        )
    return "install numba-cuda[cu12] or numba-cuda[cu13] to match the driver"


def choose_target() -> str:
    """Decide where kernels run: ``"gpu"`` or ``"simulator"``; say it once.

    Call it before ``from numba import cuda``. Without a usable CUDA device (or
    with ``COURSE_FORCE_CPU``) it sets ``NUMBA_ENABLE_CUDASIM=1``; with one, it
    first compiles and runs a one-thread kernel in a fresh process, and falls
    back to the simulator (saying why) if numba-cuda cannot. Once
    ``numba.cuda`` is imported the choice is fixed for the process, so then it
    only reports what was chosen.
    """
    if "numba.cuda" in sys.modules:
        from numba import config

        target = "simulator" if config.ENABLE_CUDASIM else "gpu"
    elif simulator_requested() or not _cuda_usable():
        os.environ[SIMULATOR_ENV] = "1"
        target = "simulator"
    else:
        works, why = _numba_gpu_works()
        target = "gpu" if works else "simulator"
        if not works:
            global FALLBACK_REASON
            FALLBACK_REASON = (
                f"numba-cuda could not compile a kernel for this GPU ({why}); "
                + _fix_hint(why)
            )
            os.environ[SIMULATOR_ENV] = "1"
    return target


def describe_target(target: str) -> str:
    """One sentence for the lesson's setup cell."""
    if target == "gpu":
        return (
            "Kernels compile to PTX and run on this machine's GPU, unchecked: "
            "a GPU reports neither races nor out-of-bounds accesses. Grading runs "
            "them in the simulator with the race checker; run `course check` on "
            "your notebook before you hand it in."
        )
    if FALLBACK_REASON:
        return (
            f"A GPU is here, but {FALLBACK_REASON}. Until then kernels run in "
            "numba's CUDA simulator, on the CPU: it checks indices and races, "
            "not speed."
        )
    return (
        "No usable CUDA device here (or the simulator was asked for): kernels "
        "run in numba's CUDA simulator, on the CPU, one thread per CUDA thread. "
        "It checks indices and (with race_check) races, as grading does; it says "
        "nothing about speed."
    )


# --- the race checker -------------------------------------------------------

from course.racecheck import (  # noqa: E402 - one import for the lessons
    CheckReport,
    DivergentBarrierError,
    KernelRaceError,
    race_check,
)


def checked() -> Any:
    """:func:`race_check` where kernels run in numba's simulator; on a GPU the
    launches run unchecked and the block's report is None
    (``with checked() as report:``)."""
    from numba import config

    if config.ENABLE_CUDASIM:
        return race_check()
    return contextlib.nullcontext()


@contextlib.contextmanager
def simulated_gpu() -> Any:
    """Inside, kernels run on the course's simulated GPU, as a test's do in
    grading: each launch is counted with its barriers, race-checked, and each
    NumPy argument costs the copy up and the copy back numba makes on a GPU;
    ``cuda.to_device`` (``device_array``, ``device_array_like``: not zeroed
    on a GPU, filled with NaN here for floats) makes an array that stays
    there, read back with ``copy_to_host()``. A
    :class:`course.transfers.TransferCounter` counts the copies."""
    from numba import config

    if not config.ENABLE_CUDASIM:
        raise RuntimeError(
            "simulated_gpu() runs kernels on the course's simulated GPU, so it "
            "needs numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1 before numba is "
            "imported). On a GPU, profile the real copies instead: "
            "torch.profiler or Nsight Systems (nsys) list each memcpy."
        )
    from course.kernellaunch import run_on_store
    from course.simlink import connection

    stop = run_on_store(connection())
    try:
        yield
    finally:
        stop()


__all__ = [
    "CheckReport",
    "checked",
    "simulated_gpu",
    "DivergentBarrierError",
    "KernelRaceError",
    "choose_target",
    "describe_target",
    "race_check",
    "simulator_requested",
]
