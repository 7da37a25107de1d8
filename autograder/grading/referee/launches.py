"""Where a test's numba-cuda kernel launches run: on the grader's store.

While the agent (:mod:`autograder.grading.referee.agent`) serves a test, each
simulated CUDA kernel launch, and ``cuda.to_device``, ``device_array`` and
``device_array_like``, become requests to the kernel's simulated GPU, the
grader's store (:func:`course.simkernels.run_on_store`). The store runs each
launch in a confined child, keeps each kernel's source with the types it was
launched with (what the CUDA compiler is given:
:mod:`autograder.grading.chain.kernels`) and what it wrote: nothing about a
launch is read from this process.
"""

from __future__ import annotations

import os
from typing import Any


def _store_link() -> Any:
    """The grader's store this kernel was given, if any."""
    from course.simlink import STORE_FD_ENV, SocketConnection, connection

    if not os.environ.get(STORE_FD_ENV):
        return None
    link = connection()
    return link if isinstance(link, SocketConnection) else None


def watch_launches() -> Any:
    """Send this kernel's launches to its store, if it has one; return a
    function that stops it (None: no store, or numba not loaded)."""
    import sys

    if "numba.cuda.simulator.kernel" not in sys.modules:
        return None
    store = _store_link()
    if store is None:
        return None
    from course.kernellaunch import run_on_store

    return run_on_store(store)


__all__ = ["watch_launches"]
