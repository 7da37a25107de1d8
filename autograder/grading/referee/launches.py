"""What a simulated CUDA kernel launch needs to be compiled later, for a real GPU,
and to run on the grader's store.

Grading kernels run numba-cuda's simulator, which runs a kernel as Python and so
accepts what CUDA never would. The agent (:mod:`autograder.grading.referee.agent`)
records each launch a test makes with :func:`launch_record`: the kernel's own
source (a kernel defined inside a function too), the values its source reads
from outside (its closure cells and the notebook's globals, numbers and dtypes
only), the device functions it calls, and the numba signature of the launch.
:mod:`course.kernelsource` writes that as a module that numba-cuda's compiler
can load (:mod:`autograder.grading.cuda_compile`). The same module is what the
store runs (:mod:`course.simkernels`): a test's launch never runs in the
student's process.
"""

from __future__ import annotations

import sys
from typing import Any

from course.kernelsource import kernel_module


def launch_record(kernel: Any, args: tuple, source: str | None = None) -> list[Any]:
    """``[name, signature, module source]`` of one launch (see the module)."""
    from autograder.grading.cuda_signature import signature_of

    name = getattr(kernel.fn, "__name__", "?")
    try:
        signature = signature_of(args)
    except Exception as exc:  # noqa: BLE001 - the compile step reports it
        signature = f"unsupported: {exc}"
    return [name, signature, kernel_module(kernel) if source is None else source]


def _store_link() -> Any:
    """The grader's store this kernel was given, if any."""
    import os

    from course.simlink import STORE_FD_ENV, SocketConnection, connection

    if not os.environ.get(STORE_FD_ENV):
        return None
    link = connection()
    return link if isinstance(link, SocketConnection) else None


def watch_launches(found: list[list[Any]]) -> Any:
    """Record each simulated CUDA kernel launch (to compile it after the test)
    and, where the kernel has the grader's store, have the store run it
    (:func:`course.simkernels.run_on_store`: ``cuda.to_device`` arrays live
    there too); return a function that stops both."""
    simulated = sys.modules.get("numba.cuda.simulator.kernel")
    if simulated is None:
        return None

    def record(kernel: Any, args: tuple, source: str | None = None) -> None:
        found_now = launch_record(kernel, args, source)
        if found_now not in found:
            found.append(found_now)

    store = _store_link()
    if store is not None:
        from course.simkernels import run_on_store

        return run_on_store(store, record)
    launch = simulated.FakeCUDAKernel.__call__

    def recorded(self: Any, *args: Any) -> Any:
        if not (self._device or simulated._kernel_context):
            record(self, args)
        return launch(self, *args)

    simulated.FakeCUDAKernel.__call__ = recorded

    def stop() -> None:
        simulated.FakeCUDAKernel.__call__ = launch

    return stop


__all__ = ["launch_record", "watch_launches"]
