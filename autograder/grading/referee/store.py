"""One kernel's simulated GPU: a store process the grader starts beside it.

The store (:mod:`course.simstore`) holds the device arrays of the student's
kernel and counts every op, copy and sync. It runs in a process of the
grader's, started for each kernel of a lesson that uses the simulated GPU,
with two socket pairs: the kernel inherits one end of the *data* channel
(``COURSE_STORE_FD``) and holds nothing else of the store; the referee keeps
the *control* channel, which alone may read data without a count, place the
test's arrays, and read the counts. The kernel runs in its own user and PID
namespaces, as nobody, under Landlock and seccomp: it cannot see the store's
process, its memory or its descriptors, nor open a socket to it.

The store exits when both channels have closed, and is stopped when the
referee is done with the kernel (a kernel that dies and is replaced gets a
new store, as a new process gets a new GPU context).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from typing import Any

from course.simlink import STORE_FD_ENV, SocketConnection

#: The store's address space limit (bytes): a kernel's arrays live there.
STORE_MEMORY = 8 << 30


class StoreProcess:
    """A store and its two channels (see the module)."""

    def __init__(self) -> None:
        kernel_end, data = socket.socketpair()
        ours, control = socket.socketpair()
        env = {k: v for k, v in os.environ.items() if k != STORE_FD_ENV}
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        try:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "course.simstore",
                    str(data.fileno()),
                    str(control.fileno()),
                ],
                pass_fds=(data.fileno(), control.fileno()),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                env=env,
            )
        except BaseException:
            for end in (kernel_end, ours):
                end.close()
            raise
        finally:
            data.close()
            control.close()
        _limit_memory(self.process.pid)
        self._kernel_end: socket.socket | None = kernel_end
        self.control = SocketConnection(ours, control=True)

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
        self.started()
        try:
            self.control.sock.close()
        except OSError:
            pass
        self.process.kill()  # the referee is done with this kernel's device
        self.process.wait()


def _limit_memory(pid: int) -> None:
    try:
        import resource

        resource.prlimit(pid, resource.RLIMIT_AS, (STORE_MEMORY, STORE_MEMORY))
    except (ImportError, AttributeError, OSError, ValueError):
        pass


__all__ = ["STORE_MEMORY", "StoreProcess"]
