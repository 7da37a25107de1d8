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
import sys
import threading
from typing import Any

from autograder.grading import forkserver
from autograder.grading.referee.launchchild import (
    clear_scratch,
    launch_apart,
    load_for_launches,
)
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
    from course.devicearray import answer
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


class _Server(forkserver.ForkServer):
    """A warm, single-threaded process with the store's modules loaded, which
    forks one store for each pair of channels it is sent (a fork costs about
    a millisecond; a new Python with NumPy, about 150 ms a notebook)."""

    def __init__(self) -> None:
        env = {k: v for k, v in os.environ.items() if k != STORE_FD_ENV}
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        # One math thread a store: a BLAS with a thread per host CPU reserves
        # more address space than the store's limit allows.
        env.update(dict.fromkeys(_THREADS, "1"))
        env["NUMBA_ENABLE_CUDASIM"] = "1"  # kernels run in the simulator
        super().__init__("autograder.grading.referee.store", env=env, quiet=True)
        self.lock = threading.Lock()
        self.pid = os.getpid()  # the process that started it (not a fork of it)

    def start(self, data: int, control: int, kernels: bool = False) -> None:
        with self.lock:
            if self.first is None:
                self.first = forkserver.receive(self.channel)  # its "ready"
            self.fork({"kernels": kernels}, [data, control])


_SERVER: _Server | None = None
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

    from autograder.grading.forkserver import in_own_namespace

    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the stand-in waits for it
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a launch's child may send it
    libc = ctypes.CDLL(None, use_errno=True)
    in_own_namespace(libc)
    if os.geteuid() == 0:
        os.setgroups([])
        os.setresgid(STORE_USER, STORE_USER, STORE_USER)
        os.setresuid(STORE_USER, STORE_USER, STORE_USER)
    libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)


def _accept(request: dict, fds: list[int]) -> str | None:
    """A store needs its two channels; one that runs kernels, numba's
    simulator, loaded here once, before the fork."""
    if len(fds) != 2:
        return "a store needs two channels"
    if request.get("kernels"):
        load_for_launches()
    return None


def _store(request: dict, fds: list[int]) -> None:
    """In the forked child: one store, until its kernel is gone."""
    import resource

    from course.simstore import serve

    code = 0
    try:
        os.setsid()
        _limit(resource)
        _apart()
        serve(socket.socket(fileno=fds[0]), socket.socket(fileno=fds[1]), launch_apart)
    except BaseException:  # noqa: BLE001 - a store that fails just ends
        code = 1
    clear_scratch()
    os._exit(code)


__all__ = ["STORE_MEMORY", "STORE_USER", "StoreProcess", "copy_from", "place"]


if __name__ == "__main__":
    forkserver.serve(_store, accept=_accept)
