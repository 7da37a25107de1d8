"""One simulated thread block, run without polling.

numba's CUDA simulator runs each CUDA thread of a block as a Python thread,
and its ``BlockManager.run`` waits for them in a busy loop: it asks every
thread, over and over, whether it is blocked in ``cuda.syncthreads()`` or has
ended. That loop takes the interpreter's lock from the threads doing the work;
under :func:`course.cudasim.race_check` it was most of the time spent: Day
09's hidden reduction test took 4.3 s of its measured run's 5.5 s (the
course's 2-core test machine, 2026-12-01), and grading one Day 09 notebook
went from 10.6 s to 5.4 s with this module.

:func:`run` does the same job on events: a thread says when it reaches a
barrier or ends, and the block waits until then. The rules are numba's:

- a barrier opens when every thread still running has reached it (threads
  that returned early do not hold it, as in the simulator);
- a thread that raises stops the others at their next barrier, and its
  exception, with the thread and block in its message, leaves the launch.

Used by :func:`course.racecheck.race_check` for the launches it checks;
plain simulated launches keep numba's own loop.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

_WAIT_S = 0.5  # the block's wait wakes this often, so Ctrl-C and timeouts land


class _Block:
    """What one block's threads tell its manager."""

    def __init__(self) -> None:
        self.changed = threading.Condition()
        self.ended: list[Any] = []  # threads whose kernel function returned
        self.waiting = 0  # threads at the barrier now


def syncthreads(thread: Any) -> None:
    """``cuda.syncthreads()`` in one simulated thread: wait for the others."""
    if thread.abort:
        raise RuntimeError("abort flag set on syncthreads call")
    block = thread._manager._course_block
    with block.changed:
        thread.syncthreads_blocked = True
        block.waiting += 1
        block.changed.notify()
    thread.syncthreads_event.wait()
    thread.syncthreads_event.clear()
    if thread.abort:
        raise RuntimeError("abort flag set on syncthreads clear")


def run(manager: Any, grid_point: Any, *args: Any) -> None:
    """Run one block of a simulated launch (``BlockManager.run``'s job)."""
    from numba.cuda.simulator.kernel import BlockThread

    block = _Block()
    manager._course_block = block

    def target() -> None:
        try:
            manager._f(*args)
        finally:  # this thread is a BlockThread: tell the block it is done
            with block.changed:
                block.ended.append(threading.current_thread())
                block.changed.notify()

    threads = [
        BlockThread(target, manager, grid_point, point, manager._debug)
        for point in np.ndindex(*manager._block_dim)
    ]
    for thread in threads:
        thread.start()
    live = set(threads)
    while live:
        with block.changed:
            while not block.ended and block.waiting < len(live):
                block.changed.wait(_WAIT_S)
            ended, block.ended = block.ended, []
        for thread in ended:
            thread.join()  # its exception, if any, is set once it is gone
            live.discard(thread)
        failed = next((t for t in threads if t.exception), None)
        if failed is not None:
            for other in threads:
                other.abort = True
                other.syncthreads_blocked = False
                other.syncthreads_event.set()
            raise failed.exception[0].with_traceback(failed.exception[1])
        with block.changed:
            if live and block.waiting == len(live):  # every running thread
                block.waiting = 0
                for thread in live:
                    thread.syncthreads_blocked = False
                    thread.syncthreads_event.set()


__all__ = ["run", "syncthreads"]
