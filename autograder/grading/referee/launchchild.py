"""A numba-cuda kernel launch in a child of the store (:mod:`.store`).

The store forks one child per launch (:func:`launch_apart`): it holds none of
the store's channels, runs in its own process group, confined as a grading
kernel is (Landlock, seccomp), with the store's memory cap, a CPU-time and a
file-size limit, and sends back the arrays and the race checker's report
(:func:`course.simkernels.run_kernel`). Its group is killed and reaped once
it has answered. :func:`load_for_launches` loads what launches need in the
warm server, before it forks a store: a store's user may not read the
course's files.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from course.simlink import encode

#: A store's scratch folder for its launches' children ('' until one launches).
_SCRATCH = ""
_LOADED = False  # the server has loaded what launches need


def launch_apart(request: dict[str, Any]) -> dict[str, Any]:
    """A numba-cuda kernel launch (:mod:`course.simkernels`) in a child of the
    store: it holds none of the store's channels, runs confined as a grading
    kernel is (Landlock, seccomp), with the store's memory cap and a time
    limit, and sends back the arrays and the race checker's report.

    What the launch wrote (``written``) is taken from a second run of the
    same kernel on the same inputs, each array it wrote given to it as zeros
    (the outputs the tasks start from): a kernel that only writes back what
    the host put there, or that writes nothing, shows as such."""
    signature = _signature(request)  # of what the store holds, before the run
    done = _run_apart(request)
    done["signature"] = signature
    written = done["written"]  # one entry an argument (None: not an array)
    wrote = [w is not None and not np.isnan(w).all() for w in written]
    if any(wrote):
        zeroed = [np.zeros_like(a) if w else a for a, w in zip(request["args"], wrote)]
        try:
            again = _run_apart({**request, "args": zeroed})
            done["written"] = again["written"]
        except Exception:  # noqa: BLE001 - ran once, failed on zeroed outputs
            done["written"] = [None] * len(done["written"])
    return done


def _run_apart(request: dict[str, Any]) -> dict[str, Any]:
    """One run of the launch in a confined child (see :func:`launch_apart`)."""
    import msgpack

    from course.simkernels import LAUNCH_SECONDS

    global _SCRATCH
    if not _SCRATCH:
        import tempfile

        _SCRATCH = tempfile.mkdtemp(prefix="course-launch-")
    read, write = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read)
        os.close(write)
        raise
    if pid == 0:  # pragma: no cover - the child's half, seen through its reply
        os.close(read)
        reply: list[Any]
        try:
            os.setpgid(0, 0)  # its group: whatever it starts ends with it
            os.closerange(3, write)
            os.closerange(write + 1, 1 << 16)
            _confine_launch()
            report = _run_kernel()(request)
            report["written"] = [
                None if w is None else encode(w) for w in report.get("written") or []
            ]
            reply = ["ok", report, [encode(a) for a in request["args"]]]
        except BaseException as exc:  # noqa: BLE001 - the kernel's, for the student
            reply = ["err", type(exc).__name__, str(exc)[:2000]]
        try:
            with os.fdopen(write, "wb") as out:
                out.write(msgpack.packb(reply, use_bin_type=True))
        finally:
            os._exit(0)
    os.close(write)
    try:
        body = _read_until(read, pid, LAUNCH_SECONDS)
    finally:
        os.close(read)
        _end_group(pid)
    if body is None:
        raise TimeoutError(
            f"the kernel ran past {LAUNCH_SECONDS:.0f} s in the simulator: check "
            "its loops end, and launch it on a few blocks of at most 64 threads"
        )
    try:
        reply = msgpack.unpackb(body, raw=False, strict_map_key=False)
    except ValueError:
        raise RuntimeError("the kernel's process ended without an answer") from None
    if reply[0] != "ok":
        raise _kernel_error(str(reply[1]), str(reply[2]))
    from course.simlink import decode

    written = [None if w is None else decode(w, None) for w in reply[1]["written"]]
    return {
        **reply[1],
        "written": written,
        "args": [decode(a, None) for a in reply[2]],
    }


def _signature(request: dict[str, Any]) -> str:
    """The numba signature of the launch, from the store's own arrays (its
    held ones with any layout, as CuPy's and numba's device arrays)."""
    from autograder.grading.cuda_signature import HeldArray, signature_of

    kinds = request.get("kinds") or []
    args = [
        HeldArray(a) if kind == "store" else a
        for a, kind in zip(request["args"], kinds)
    ]
    try:
        return signature_of(args)
    except Exception as exc:  # noqa: BLE001 - the compile step reports it
        return f"unsupported: {exc}"


def load_for_launches() -> None:
    """What a launch needs, loaded in the server before it forks a store: a
    store's user may not read the course's files. Once a server."""
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    import msgpack  # noqa: F401

    import autograder.grading.cuda_compile  # noqa: F401
    import autograder.grading.kernel.sandbox  # noqa: F401
    import autograder.grading.kernel.seccomp  # noqa: F401
    import course.racecheck  # noqa: F401

    run = _run_kernel()  # numba's simulator
    for source in _WARM_UP:  # what a launch and its errors import on the way
        try:
            run(
                {
                    "name": "k",
                    "source": source,
                    "grid": [1],
                    "block": [2],
                    "shared": 0,
                    "args": [np.zeros(1)],
                }
            )
        except Exception:  # noqa: BLE001 - the errors are the point
            import traceback

            traceback.format_exc()


_WARM_UP = (
    "from numba import cuda\n@cuda.jit\ndef k(x):\n"
    "    s = cuda.shared.array(2, x.dtype)\n    s[cuda.threadIdx.x] = 1\n"
    "    cuda.syncthreads()\n    x[0] = s[1]\n",
    "from numba import cuda\n@cuda.jit\ndef k(x):\n    x[0] = cuda.threadIdx.x\n",
    "from numba import cuda\n@cuda.jit\ndef k(x):\n    x[5] = 1\n",
)


def _run_kernel() -> Any:
    from course.simkernels import run_kernel

    return run_kernel


def _kernel_error(kind: str, text: str) -> Exception:
    error = type(kind, (Exception,), {})  # the name is what the student sees
    return error(text)


def _read_until(read: int, pid: int, seconds: float) -> bytes | None:
    """The child's whole reply, or None if it ran past ``seconds``."""
    import select
    import time

    chunks, deadline = [], time.monotonic() + seconds
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([read], [], [], left)[0]:
            return None
        chunk = os.read(read, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _end_group(pid: int) -> None:
    """Kill the launch's child and all it started (its process group), then
    reap it: nothing it left can hold the store up."""
    import signal

    for kill in (os.killpg, os.kill):
        try:
            kill(pid, signal.SIGKILL)
        except OSError:
            pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
    while True:  # grandchildren it left, reparented to the store (PID 1)
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                break
        except ChildProcessError:
            break


def _confine_launch() -> None:
    """The launch's child: a scratch folder of its own, then confined."""
    import resource

    from autograder.grading.cuda_worker import confine
    from course.simkernels import LAUNCH_SECONDS

    seconds = int(LAUNCH_SECONDS) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds))
    resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))
    confine(Path(_SCRATCH))


def clear_scratch() -> None:
    """Remove the store's scratch folder (as the store ends)."""
    if _SCRATCH:
        import shutil

        shutil.rmtree(_SCRATCH, ignore_errors=True)


__all__ = ["clear_scratch", "launch_apart", "load_for_launches"]
