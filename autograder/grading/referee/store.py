"""One kernel's simulated GPU: a store process the grader starts beside it.

The store (:mod:`course.simstore`) holds the device arrays of the student's
kernel and counts every op, copy and sync. It runs as PID 1 of a PID
namespace of its own, as a user of its own (:data:`STORE_USER` under a root
grader; a user namespace of its own otherwise), not dumpable, started for
each kernel of a lesson that uses the simulated GPU,
with two socket pairs: the kernel inherits one end of the *data* channel
(``COURSE_STORE_FD``) and holds nothing else of the store; the referee keeps
the *control* channel, which alone may read data without a count, place the
test's arrays, and read the counts. The kernel runs in its own user and PID
namespaces, as nobody, under Landlock and seccomp: it cannot see the store's
process, its memory or its descriptors, nor open a socket to it.

Each store is forked by a warm server (one per grading worker) and exits when
both channels have closed: the referee closes its end when it is done with
the kernel, the kernel's end closes when the kernel exits (a kernel that dies
and is replaced gets a new store, as a new process gets a new GPU context).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np

from course.simlink import STORE_FD_ENV, SocketConnection, encode

#: The store's address space limit (bytes): a kernel's arrays live there.
STORE_MEMORY = 8 << 30
#: The uid and gid a root grader's stores run as: neither root nor the
#: kernel's nobody (65534).
STORE_USER = 65533
_PR_SET_DUMPABLE = 4
_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


class StoreProcess:
    """A store and its two channels (see the module)."""

    def __init__(self, kernels: bool = False) -> None:
        """``kernels``: the lesson launches numba-cuda kernels (the server
        loads numba's simulator once, before it forks this store)."""
        kernel_end, data = socket.socketpair()
        ours, control = socket.socketpair()
        try:
            _server().start(data.fileno(), control.fileno(), kernels)
        except BaseException:
            for end in (kernel_end, ours):
                end.close()
            raise
        finally:
            data.close()
            control.close()
        self._kernel_end: socket.socket | None = kernel_end
        self.control = SocketConnection(ours)

    def kernel_fd(self) -> int:
        """The descriptor the kernel inherits (-1 once it has it)."""
        return self._kernel_end.fileno() if self._kernel_end is not None else -1

    def started(self) -> None:
        """The kernel holds its end now: only it, so its exit closes the channel."""
        if self._kernel_end is not None:
            self._kernel_end.close()
            self._kernel_end = None

    def totals(self) -> dict[str, Any]:
        """The store's counts, read through the control channel."""
        return self.control.request(["totals"])

    def close(self) -> None:
        """The referee is done: the store exits once the kernel's end closes
        too (the kernel is stopped with the notebook)."""
        self.started()
        try:
            self.control.sock.close()
        except OSError:
            pass


def copy_from(control: Any, key: Any) -> Any:
    """A device array of the kernel's, read through the control channel, as a
    copy in this process's own store."""
    from course.devicecalls import answer
    from course.fakecupy import DeviceArray  # its public home, loaded here
    from course.simlink import connection, decode

    if control is None:
        raise ValueError("a device array, but this kernel has no store")
    data = decode(control.request(["fetch", bytes(key)]), None)
    here = connection()
    copy = answer(here.request(["put", encode(data)]), here)
    if not isinstance(copy, DeviceArray):
        raise ValueError("the store answered no device array")
    return copy


def place(control: Any, value: Any) -> list[Any]:
    """A device array of the test's, placed in the kernel's store: its node."""
    from course.simlink import decode

    if control is None:
        raise ValueError("a device array, but this kernel has no store")
    ref = decode(control.request(["put", encode(value._peek())]), None)
    return ["F", ref.dtype, ref.shape, value.device_name, ref.key]


class _Server:
    """A warm, single-threaded process with the store's modules loaded, which
    forks one store for each pair of channels it is sent (a fork costs about
    a millisecond; a new Python with NumPy, about 150 ms a notebook)."""

    def __init__(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = {k: v for k, v in os.environ.items() if k != STORE_FD_ENV}
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        # One math thread a store: a BLAS with a thread per host CPU reserves
        # more address space than the store's limit allows.
        env.update(dict.fromkeys(_THREADS, "1"))
        env["NUMBA_ENABLE_CUDASIM"] = "1"  # kernels run in the simulator
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "autograder.grading.referee.store"],
                stdin=theirs,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                env=env,
            )
        finally:
            theirs.close()
        self.channel = ours
        self.lock = threading.Lock()
        self.pid = os.getpid()  # the process that started it (not a fork of it)

    def alive(self) -> bool:
        return self.process.poll() is None

    def start(self, data: int, control: int, kernels: bool = False) -> None:
        with self.lock:
            kind = b"store+kernels" if kernels else b"store"
            socket.send_fds(self.channel, [kind], [data, control])
            if not self.channel.recv(64):
                raise RuntimeError("the store server exited")


_SERVER: _Server | None = None
#: A store's scratch folder for its launches' children ('' until one launches).
_SCRATCH = ""
_LOADED = False  # the server has loaded what launches need
_SERVER_LOCK = threading.Lock()


def _server() -> _Server:
    global _SERVER
    with _SERVER_LOCK:
        if _SERVER is None or not _SERVER.alive() or _SERVER.pid != os.getpid():
            _SERVER = _Server()
        return _SERVER


def _limit(resource: Any) -> None:
    """The store's address space: at most :data:`STORE_MEMORY`, never more
    than the grader already allows."""
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = STORE_MEMORY if hard == resource.RLIM_INFINITY else min(hard, STORE_MEMORY)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _apart() -> None:
    """In a store's process: the store runs as PID 1 of a PID namespace of
    its own, as :data:`STORE_USER` when the grader is root (in a user
    namespace of its own otherwise), and cannot be traced or dumped. Where
    namespaces are refused it runs as it is, still apart from the kernel,
    which is in namespaces of its own."""
    import ctypes
    import signal

    from autograder.grading.compile_server import in_own_namespace

    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the stand-in waits for it
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a launch's child may send it
    libc = ctypes.CDLL(None, use_errno=True)
    in_own_namespace(libc)
    if os.geteuid() == 0:
        os.setgroups([])
        os.setresgid(STORE_USER, STORE_USER, STORE_USER)
        os.setresuid(STORE_USER, STORE_USER, STORE_USER)
    libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)


def _launch_apart(request: dict[str, Any]) -> dict[str, Any]:
    """A numba-cuda kernel launch (:mod:`course.simkernels`) in a child of the
    store: it holds none of the store's channels, runs confined as a grading
    kernel is (Landlock, seccomp), with the store's memory cap and a time
    limit, and sends back the arrays and the race checker's report."""
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

    return {**reply[1], "args": [decode(a, None) for a in reply[2]]}


def _load_for_launches() -> None:
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
            run({"name": "k", "source": source, "grid": [1], "block": [2],
                 "shared": 0, "args": [np.zeros(1)]})  # fmt: skip
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

    from autograder.grading.cuda_compile import _confine
    from course.simkernels import LAUNCH_SECONDS

    seconds = int(LAUNCH_SECONDS) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds))
    resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))
    _confine(Path(_SCRATCH))


def _serve_forks(channel: socket.socket) -> None:
    """The server's loop: one store forked for each request."""
    import resource
    import signal

    from course.simstore import serve

    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped
    while True:
        message, fds, _, _ = socket.recv_fds(channel, 64, 2)
        if not message:
            return
        if len(fds) != 2:
            for fd in fds:
                os.close(fd)
            channel.send(b"")
            continue
        if message == b"store+kernels":
            _load_for_launches()
        pid = os.fork()
        if pid == 0:
            channel.close()
            code = 0
            try:
                os.setsid()
                _limit(resource)
                _apart()
                serve(
                    socket.socket(fileno=fds[0]),
                    socket.socket(fileno=fds[1]),
                    _launch_apart,
                )
            except BaseException:  # noqa: BLE001 - a store that fails just ends
                code = 1
            if _SCRATCH:
                import shutil

                shutil.rmtree(_SCRATCH, ignore_errors=True)
            os._exit(code)
        for fd in fds:
            os.close(fd)
        channel.send(b"ok")


__all__ = ["STORE_MEMORY", "STORE_USER", "StoreProcess", "copy_from", "place"]


if __name__ == "__main__":
    _serve_forks(socket.socket(fileno=0))
