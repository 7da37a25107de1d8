"""The compile process of :mod:`autograder.grading.cuda_compile`: what runs
apart from the grader, confined like a grading kernel, with numba-cuda's
compiler loaded and the simulator off.

``python -m autograder.grading.cuda_worker`` reads one request on stdin and
writes one JSON event a line; :mod:`autograder.grading.compile_server` runs
:func:`compile_request` in a fork of a warm process instead, after
:func:`load_compiler` and :func:`confine`.
"""

from __future__ import annotations

import inspect
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from autograder.grading.cuda_messages import explain, first_line
from autograder.grading.kernel.limits import kernel_env

#: Largest file a compile process may write (its stderr, in the warm server's
#: children, included).
OUTPUT_BYTES = 16 << 20
_ROOT = Path(__file__).resolve().parents[2]


def compile_env() -> dict[str, str]:
    """A compile process's environment (its ``TMPDIR`` is set per request)."""
    env = kernel_env(dict(os.environ))
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(_ROOT), env.get("PYTHONPATH", "")) if p
    )
    return env


def events_of(text: str | bytes) -> list[dict]:
    """The events a compile process wrote (one JSON object a line); a line
    that is not one is skipped."""
    events = []
    for line in text.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict):
            events.append(event)
    return events


def main() -> None:
    """Read a request on stdin, write one JSON event a line on stdout."""
    channel = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # what the answer prints goes to stderr
    sys.stdout = sys.stderr

    def emit(**event: Any) -> None:
        channel.write(json.dumps(event) + "\n")

    started = time.perf_counter()
    request = json.loads(sys.stdin.read())
    folder = Path.cwd()
    try:
        confine(folder)
    except Exception as exc:  # noqa: BLE001 - reported to the caller
        emit(error=f"could not confine the compile process: {exc}")
        return
    try:
        cuda = load_compiler(tuple(request["cc"]))
    except Exception as exc:  # noqa: BLE001 - the compiler's own words
        emit(unavailable=first_line(str(exc)) or type(exc).__name__)
        return
    compile_request(cuda, request, folder, emit, started)


def compile_request(
    cuda: Any, request: dict, folder: Path, emit: Any, started: float
) -> None:
    """What a compile process does once it is confined and its compiler loaded
    (here, or in a child of :mod:`autograder.grading.compile_server`)."""
    import resource

    cc = tuple(request["cc"])
    # From here on the answer runs: its memory, and the compiler's, are capped
    # (what is mapped already, the libraries, stays).
    limit = int(request["memory"])
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    # what it prints to a file, and any file it writes
    resource.setrlimit(resource.RLIMIT_FSIZE, (OUTPUT_BYTES, OUTPUT_BYTES))
    emit(ready=True, startup_s=time.perf_counter() - started)
    namespace: dict[str, Any] = {"__name__": "__answer__"}
    path = folder / "answer.py"
    try:
        exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)
    except BaseException as exc:  # noqa: BLE001 - SystemExit too: the answer's
        emit(load_error=f"{type(exc).__name__}: {first_line(str(exc))}")
        return
    for name, signatures in request["kernels"].items():
        began = time.perf_counter()
        message = _compile_kernel(cuda, namespace, name, signatures, cc, path)
        emit(kernel=name, message=message, seconds=time.perf_counter() - began)
    emit(done=True)


def confine(folder: Path) -> None:
    """Confine this process as a grading kernel is, where Landlock exists."""
    import tempfile

    from autograder.grading.kernel import sandbox, seccomp

    os.environ["TMPDIR"] = str(folder)
    tempfile.tempdir = None
    if sandbox.abi() <= 0:
        return  # no Landlock here: grading kernels run unconfined too
    sandbox.enforce(sandbox.kernel_policy(folder, None))
    if seccomp.supported():
        seccomp.install()


def _probe_kernel(x):  # pragma: no cover - compiled, never run
    x[0] = 1.0


def load_compiler(cc: tuple[int, ...]) -> Any:
    os.environ.pop("NUMBA_ENABLE_CUDASIM", None)
    from numba import config, cuda

    if config.ENABLE_CUDASIM:
        raise RuntimeError("numba's CUDA simulator is on in the compile process")
    import numba.cuda.dispatcher as dispatcher

    class Target:  # device functions compile for the current device's cc
        compute_capability = cc

    dispatcher.get_current_device = Target
    cuda.compile_ptx(_probe_kernel, "void(float64[::1])", cc=cc)
    eager = cuda.jit

    def lazy_jit(func_or_sig=None, *args, **kwargs):
        """cuda.jit without its eager signatures (compiling them needs a GPU)."""
        if func_or_sig is not None and not inspect.isfunction(func_or_sig):
            func_or_sig = None
        kwargs.pop("cache", None)
        return eager(func_or_sig, *args, **kwargs)

    cuda.jit = lazy_jit
    return cuda


def _compile_kernel(
    cuda: Any, namespace: dict, name: str, signatures: list[str], cc: tuple, path: Path
) -> str | None:
    from numba.cuda.dispatcher import CUDADispatcher

    kernel = namespace.get(name)
    if kernel is None:
        return f"{name} is not defined in your answer: keep the task's name"
    if not isinstance(kernel, CUDADispatcher):
        return (
            f"{name} is not a CUDA kernel: put @cuda.jit on the line above `def {name}`"
        )
    options = kernel.targetoptions
    if options.get("device"):
        return (
            f"{name} is a device function (@cuda.jit(device=True)): a kernel "
            "launched as name[blocks, threads](...) needs a plain @cuda.jit"
        )
    for signature in signatures:
        try:
            cuda.compile_ptx(
                kernel.py_func,
                signature,
                cc=cc,
                fastmath=bool(options.get("fastmath", False)),
            )
        except Exception as exc:  # noqa: BLE001 - every refusal becomes a message
            return explain(name, signature, exc, kernel.py_func, path)
    return None


if __name__ == "__main__":
    main()
