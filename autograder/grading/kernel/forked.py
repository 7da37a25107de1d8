"""A grading kernel as the grading worker sees it.

A warm kernel (:mod:`autograder.grading.kernel.warmkernel`) is the warm
server's child, not the worker's, so jupyter_client gets :class:`ForkedKernel`,
a stand-in for :class:`subprocess.Popen`: a pid it can poll and signal. Every
grading kernel, warm or cold, is talked to through :func:`ready_client`.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from queue import Empty
from typing import Any

#: jupyter_client's words for a kernel that died before its first reply; the
#: grading worker retries such a start (:mod:`autograder.classgrade.worker`).
KERNEL_START_FAILED = "Kernel died before replying to kernel_info"
#: Seconds of silence on IOPub that end the wait for a new kernel.
#: jupyter_client waits 0.2 s; the start-up messages it drains are ignored by
#: nbclient anyway (their parent is not a cell's request), so a short wait only
#: stops paying 0.2 s per kernel.
DRAIN_S = 0.01
#: Milliseconds between the client's attempts to reach a kernel not yet listening.
RECONNECT_MS = 5


def ready_client() -> type:
    """jupyter_client's async kernel client, with a shorter drain once ready."""
    from jupyter_client.asynchronous import AsyncKernelClient

    class ReadyClient(AsyncKernelClient):
        def _context_default(self) -> Any:
            # The client connects before a new kernel listens: ZeroMQ then
            # retries every 100 ms, the half of which a kernel start waited.
            import zmq
            import zmq.asyncio

            self._created_context = True
            context = zmq.asyncio.Context()
            context.setsockopt(zmq.RECONNECT_IVL, RECONNECT_MS)
            return context

        async def wait_for_ready(self, timeout: float | None = None) -> None:
            """Wait for a kernel_info reply and a connected IOPub, as
            jupyter_client does; then drain only what has already arrived."""
            deadline = time.monotonic() + (float("inf") if timeout is None else timeout)
            while True:
                self.kernel_info()
                try:
                    msg: Any = await self.shell_channel.get_msg(timeout=1)
                except Empty:
                    pass
                else:
                    if msg["msg_type"] == "kernel_info_reply":
                        try:  # IOPub is connected once it carries a message
                            await self.iopub_channel.get_msg(timeout=0.2)
                        except Empty:
                            pass
                        else:
                            self._handle_kernel_info_reply(msg)
                            break
                if not await self._async_is_alive():
                    raise RuntimeError(KERNEL_START_FAILED)
                if time.monotonic() > deadline:
                    raise RuntimeError(f"Kernel didn't respond in {timeout:.0f} s")
            while True:
                try:
                    await self.iopub_channel.get_msg(timeout=DRAIN_S)
                except Empty:
                    return

    return ReadyClient


class ForkedKernel:
    """The parts of :class:`subprocess.Popen` that jupyter_client uses.

    The kernel is the server's child, not ours: its exit is seen by probing
    the pid (the server reaps its children at once, so a dead kernel leaves no
    zombie behind). With namespaces the pid is the kernel's stand-in, in the
    same process group, which lives and dies with it
    (:mod:`autograder.grading.kernel.namespaces`).
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
