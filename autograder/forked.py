"""A forked kernel as the grading worker sees it: a pid it can poll and signal.

A warm kernel (:mod:`autograder.warmkernel`) is the warm server's child, not
the worker's, so jupyter_client gets this stand-in for :class:`subprocess.Popen`.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time


class ForkedKernel:
    """The parts of :class:`subprocess.Popen` that jupyter_client uses.

    The kernel is the server's child, not ours: its exit is seen by probing
    the pid (the server reaps its children at once, so a dead kernel leaves no
    zombie behind). With namespaces the pid is the kernel's stand-in, in the
    same process group, which lives and dies with it (:mod:`autograder.namespaces`).
    """

    stdin = stdout = stderr = None

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        """None while the kernel runs, else an exit code (0: unknown)."""
        if self.returncode is None:
            try:
                os.kill(self.pid, 0)
            except ProcessLookupError:
                self.returncode = 0
            except PermissionError:
                pass
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """Block until the kernel is gone."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(str(self.pid), timeout or 0)
            time.sleep(0.02)
        return self.returncode or 0

    def send_signal(self, signum: int) -> None:
        """Signal the kernel if it still runs."""
        if self.poll() is None:
            try:
                os.kill(self.pid, signum)
            except ProcessLookupError:
                self.returncode = 0

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)
