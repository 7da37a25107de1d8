"""Compile a submission's numba-cuda kernels for a real GPU, on a machine without one.

Grading runs kernels in numba's CUDA simulator, which runs them as plain Python:
it would also run a kernel that CUDA refuses (``np.dot`` inside it, a Python list
or dict shared by its threads, a ``cuda.shared.array`` sized at run time). This
module asks numba-cuda's compiler instead:

* :func:`signature_of` (from :mod:`autograder.grading.cuda_signature`), in a grading
  kernel (simulator on), turns the arguments of a launch into a numba signature
  string, e.g. ``"void(float32, float32[::1])"``;
* :func:`compile_kernels` compiles the answer's kernels for those signatures with
  ``numba.cuda.compile_ptx`` (libNVVM and NVRTC, from pip wheels; no GPU and no
  driver needed) in a separate process without the simulator, confined like a
  grading kernel (:mod:`autograder.grading.kernel.sandbox`), with a time and a memory
  limit;
  it returns ``None`` per kernel that compiles, or a message for the student.

Compiling checks typing and code generation to PTX for one compute capability.
It does not run anything on a GPU: results, races and speed stay the
simulator's (and a GPU's) business.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from autograder.grading import compile_server
from autograder.grading.cuda_signature import UnsupportedArgument, signature_of
from autograder.grading.cuda_worker import compile_env, events_of
from autograder.grading.kernel.limits import ProcessCage

#: Compute capability compiled for: 7.5 (Turing, Colab's T4), the oldest CUDA 13
#: supports.
DEFAULT_CC = (7, 5)
#: Seconds one compile process may take, start-up included.
TIMEOUT_S = 120.0
#: Address space of the compile process (libNVVM and LLVM reserve a lot of it).
MEMORY_BYTES = 4 << 30
#: The wheels that hold libNVVM and NVRTC for numba-cuda with cuda-bindings 13.
WHEELS = ("nvidia-nvvm", "nvidia-cuda-nvrtc")
_AVAILABLE: bool | None = None
#: What the compiler said of a source and request, in this process: a class's
#: answers often launch the same kernels with the same types.
_COMPILED: dict[str, dict[str, str | None]] = {}
__all__ = [
    "CompilerUnavailable",
    "UnsupportedArgument",
    "available",
    "compile_kernels",
    "install_hint",
    "signature_of",
]


class CompilerUnavailable(RuntimeError):
    """libNVVM or NVRTC is missing: kernels cannot be compiled on this machine."""


# --- the caller's side -------------------------------------------------------


def install_hint() -> str:
    """What to install so that kernels compile here."""
    try:
        major = importlib.metadata.version("cuda-bindings").split(".")[0]
    except importlib.metadata.PackageNotFoundError:
        major = "13"
    if major == "12":
        pair = "nvidia-cuda-nvcc-cu12 nvidia-cuda-nvrtc-cu12"
    else:
        pair = " ".join(f'"{w}=={major}.*"' for w in WHEELS)
    return f'pip install {pair} (or, in the course folder, pip install -e ".[grading]")'


def available() -> bool:
    """Whether kernels compile on this machine (checked once per process)."""
    global _AVAILABLE
    if _AVAILABLE is None:
        if importlib.util.find_spec("numba_cuda") is None:
            _AVAILABLE = False
        else:
            try:
                compile_kernels("", {})
                _AVAILABLE = True
            except (CompilerUnavailable, RuntimeError):
                _AVAILABLE = False
    return _AVAILABLE


def compile_kernels(
    source: str,
    kernels: dict[str, list[str]],
    cc: tuple[int, int] = DEFAULT_CC,
    timeout: float = TIMEOUT_S,
    memory: int = MEMORY_BYTES,
    timings: dict[str, float] | None = None,
    remember: bool = False,
) -> dict[str, str | None]:
    """Compile each kernel of ``source`` for each of its signatures.

    ``source`` holds the answer's definitions (validated by the caller: it runs
    at import, in the confined compile process); ``kernels`` maps a kernel's
    name to signatures from :func:`signature_of`. ``timings``, if given,
    receives ``startup_s`` (process start, imports, a first compile) and the
    seconds each kernel took. ``remember``: answer from what this process's
    compiler said of the same source and request, if it said it in full (a
    grading worker meets the same kernels, launched the same way, again).

    Returns:
        Per kernel: ``None`` when every signature compiles, else a message.

    Raises:
        CompilerUnavailable: libNVVM or NVRTC is missing (see :func:`install_hint`).
        RuntimeError: the compile process could not start or be confined.
    """
    global _AVAILABLE
    request = {"cc": list(cc), "kernels": kernels, "memory": int(memory)}
    key = json.dumps([source, request], sort_keys=True)
    if remember and timings is None and key in _COMPILED:
        return dict(_COMPILED[key])
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="cuda-compile-") as folder:
        Path(folder, "answer.py").write_text(source, encoding="utf-8")
        events, rc, timed_out, err = _run_worker(Path(folder), request, timeout)
    byname = {e["kernel"]: e for e in events if "kernel" in e}
    first = events[0] if events else {}
    if "unavailable" in first:
        _AVAILABLE = False
        raise CompilerUnavailable(
            f"CUDA kernels cannot be compiled here: {first['unavailable']}. "
            f"Install libNVVM and NVRTC: {install_hint()}"
        )
    if "error" in first:
        raise RuntimeError(f"the compile process stopped: {first['error']}")
    if "ready" not in first:
        why = (
            f"did not start within {timeout:.0f} s (raise timeout)"
            if timed_out
            else f"exited with code {rc} before compiling ({_tail(err)}); a "
            f"memory limit of {memory >> 20} MiB may be too low"
        )
        raise RuntimeError(f"the compile process {why}")
    _AVAILABLE = True
    if timings is not None:
        timings["startup_s"] = first.get("startup_s", 0.0)
        timings.update({n: e.get("seconds", 0.0) for n, e in byname.items()})
        timings["total_s"] = time.perf_counter() - started
    load = next((e["load_error"] for e in events if "load_error" in e), None)
    results: dict[str, str | None] = {}
    for name in kernels:
        if load is not None:
            results[name] = f"your code could not be loaded for compiling: {load}"
        elif name in byname:
            results[name] = byname[name]["message"]
        elif timed_out:
            results[name] = (
                f"compiling {name} took longer than {timeout:.0f} s: a loop the "
                "compiler unrolls, or a very long kernel? Simplify it."
            )
        else:
            results[name] = (
                f"the compiler stopped while compiling {name} (exit code {rc}; "
                f"memory limit {memory >> 20} MiB): {_tail(err)}"
            )
    if load is not None or all(name in byname for name in kernels):
        # what the compiler said, not how the run went: the same next time
        if len(_COMPILED) > 512:
            _COMPILED.clear()
        _COMPILED[key] = dict(results)
    return results


def _tail(text: str, limit: int = 300) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return (lines[-1] if lines else "no output")[-limit:]


def _run_worker(
    folder: Path, request: dict, timeout: float
) -> tuple[list[dict], int, bool, str]:
    """Events, exit code, whether it timed out, and its stderr: from this
    process's warm compile server where it runs
    (:mod:`autograder.grading.compile_server`), else from a process of its own."""
    done = compile_server.run(folder, request, timeout)
    if done is not None:
        return done
    env = compile_env()
    env["TMPDIR"] = str(folder)
    command = [sys.executable, "-m", "autograder.grading.cuda_worker"]
    cage = ProcessCage("cuda-compile")
    timed_out = False
    try:
        proc = subprocess.Popen(
            command,
            cwd=folder,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        cage.add(proc.pid)
        try:
            out, err = proc.communicate(json.dumps(request), timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            cage.kill_all()
            try:  # a process it left behind may hold the pipes open
                out, err = proc.communicate(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                out, err = "", ""
    finally:
        cage.remove()
    return events_of(out), proc.returncode, timed_out, err
