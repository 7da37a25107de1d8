"""numba-cuda kernel launches in the simulated GPU's store (the student's side
of a launch is :mod:`course.kernellaunch`).

In grading, a kernel a test launches does not run in the student's process:
the launch is a request to the store (:mod:`course.simstore`), which runs the
kernel's source in numba's CUDA simulator, under :func:`course.racecheck.
race_check`, in a confined child of its own (the grader supplies it), and
counts what a GPU's driver would see:

* one **launch** per kernel, with its barriers, as a ``kernel`` event;
* for each **host** array argument (in a tuple too), the copies numba makes
  on a real GPU: the array goes up before the kernel and comes back after it
  (numba cannot know which arguments the kernel wrote), so an **upload** and
  a **download** with their bytes, and the copy back is a **sync**.

An argument is device data only if it is a handle to an array the store
holds (a ``course.fakecupy`` array, or what ``cuda.to_device`` returns inside
:func:`course.cudasim.simulated_gpu` and in grading): the kernel reads and
writes it in the store, with no copy. Any other array is a host array, whatever
the sender calls it, and costs its copies. The store keeps what it ran
(:func:`launched`): each kernel's source and argument types (what the CUDA
compiler is given in grading) and, for the last launches, what each wrote
into its array arguments (in grading, from a second run on the same inputs
with the arrays it wrote zeroed). The kernel's source
(:mod:`course.kernelsource`) is what the store runs, and so what must
compile.
"""

from __future__ import annotations

import bisect
from typing import Any

import numpy as np

from course.simwire import encode

#: Launches whose outputs a store keeps (a test's block launches a few).
KEEP_OUTPUTS = 64
#: Launches a store notes at most (as many as its events).
_MAX_LAUNCHES = 200_000
#: Seconds one launch may run in the store's child (the simulator runs a
#: thread per CUDA thread; graded launches take well under a second).
LAUNCH_SECONDS = 60.0


# --- in the store ------------------------------------------------------------

#: Kernels being launched from this process, by a random token: a store in
#: the same process (a lesson's) runs the kernel itself, whose source may not
#: be readable (code run with exec); a store in another process never has
#: them and runs the source.
HERE: dict[str, Any] = {}
#: Launches the store is running in this process (a lesson's store shares its
#: process with numba's simulator: those launches are the store's own).
_RUNNING = 0


def running() -> bool:
    """Whether the store is running a launch in this process."""
    return _RUNNING > 0


def run_kernel(request: dict[str, Any]) -> dict[str, Any]:
    """Run one launch in numba's CUDA simulator, race-checked: the arrays of
    ``request["args"]`` are written in place. Returns the launch's report."""
    from numba import config

    if not config.ENABLE_CUDASIM:
        raise RuntimeError("kernels run in numba's CUDA simulator here")
    from course.racecheck import race_check

    name = request["name"]
    kernel = HERE.get(str(request.get("here") or ""))
    if not hasattr(kernel, "__getitem__"):  # another process's kernel: its source
        from course.kernelsource import refuse_unsafe

        refuse_unsafe(request["source"])
        namespace: dict[str, Any] = {"__name__": "__kernel__"}
        exec(compile(request["source"], f"<kernel {name}>", "exec"), namespace)
        kernel = namespace.get(name)
    if not hasattr(kernel, "__getitem__") or not hasattr(kernel, "fn"):
        raise TypeError(
            f"{name} is not a @cuda.jit kernel defined at the top level of a "
            "cell: define it with @cuda.jit where numba can read its source"
        )
    grid, block, shared = request["grid"], request["block"], request["shared"]
    configuration = (
        (tuple(grid), tuple(block), 0, shared)
        if shared
        else (tuple(grid), tuple(block))
    )
    global _RUNNING
    _RUNNING += 1
    try:
        with race_check() as report:
            kernel[configuration](*request["args"])
    finally:
        _RUNNING -= 1
    return {
        "launches": report.launches,
        "barriers": report.barriers,
        "blocks": report.blocks,
        "written": report.outputs[-1] if report.outputs else [],
    }


def store_launch(
    store: Any,
    name: Any,
    source: Any,
    grid: Any,
    block: Any,
    shared: Any,
    nodes: Any,
    here: Any = None,
) -> list[Any]:
    """The store's ``launch`` op (see the module): ``["done", arrays]`` with
    a node for each host or device array, or ``["raised", type, text]``."""
    where = f"kernel {str(name)[:80]}"
    if len(store.launches) >= _MAX_LAUNCHES:
        raise RuntimeError("more kernel launches than one notebook may make")
    kinds, args, carried = [], [], []
    for node in nodes:  # the sender's label is not read: the node says what it is
        value = store._value(node[1])
        kind = _held_kind(node[1], value)
        # a host array costs its copies, in a tuple too (numba copies each)
        inside = [value] if kind == "host" else _tuple_arrays(value)
        for array in inside:
            store._event("upload", f"kernel.{name}", array.nbytes, "implicit copy")
        carried += inside
        kinds.append(kind)
        args.append(value)
    request = {
        "name": str(name),
        "source": str(source),
        "args": args,
        "kinds": kinds,
        "grid": [int(g) for g in grid],
        "block": [int(b) for b in block],
        "shared": int(shared),
        "here": str(here or ""),
    }
    try:
        done = store.launcher(request)
    except Exception as exc:  # noqa: BLE001 - the kernel's error, for the student
        store._event("sync", f"kernel.{name}", 0, where)
        return ["raised", type(exc).__name__, str(exc)[:2000]]
    # one request, one launch; the barriers the child saw (never negative)
    barriers = max(0, int(done.get("barriers", 0)))
    store.counts["launch"] += 1
    store.by_op[f"launch:kernel.{name}"] += 1
    ran(store, request, done)
    store._event("kernel", str(name), barriers, where)
    back: list[Any] = []
    for kind, node, held, value in zip(kinds, nodes, args, done["args"]):
        if kind == "store":  # written where it lives
            if value is not held:
                np.copyto(held, value, casting="unsafe")
            store._wrote(node[1][1])
        if kind in ("value", "store"):
            back.append(None)
            continue
        back.append(encode(value))
    for array in carried:
        store._event("download", f"kernel.{name}", array.nbytes, "implicit copy")
    if carried:  # numba's copy back waits for the kernel
        store._event("sync", f"kernel.{name}", 0, "implicit copy")
    return ["done", back]


def _tuple_arrays(value: Any) -> list[np.ndarray]:
    """The host arrays in a tuple argument (nested tuples too)."""
    if not isinstance(value, tuple):
        return []
    found: list[np.ndarray] = []
    for item in value:
        found += [item] if isinstance(item, np.ndarray) else _tuple_arrays(item)
    return found


def _held_kind(node: Any, value: Any) -> str:
    """What an argument is to the store: ``"store"``, a handle to an array it
    holds; ``"host"``, any other array (numba copies it up and back);
    ``"value"``, a number or a tuple."""
    if isinstance(node, list) and node and node[0] == "h":
        if not isinstance(value, np.ndarray):
            raise TypeError("a kernel argument that is not a device array")
        return "store"
    if isinstance(value, np.ndarray):
        return "host"
    return "value"


def ran(store: Any, request: dict[str, Any], done: dict[str, Any]) -> None:
    """Note one launch (:mod:`course.simkernels`): the kernel, and what it
    wrote into its arrays (kept for the last :data:`KEEP_OUTPUTS`; a store
    refuses launches past :data:`_MAX_LAUNCHES`)."""
    key = (str(request["name"]), str(done.get("signature", "")), request["source"])
    kid = store._kernel_ids.get(key)
    if kid is None:
        kid = store._kernel_ids[key] = len(store.kernels)
        store.kernels.append(list(key))
    outputs = []
    for arg, found in zip(request["args"], done.get("written") or []):
        if found is None or not isinstance(arg, np.ndarray):
            outputs.append(None)
            continue
        value = np.asarray(found, dtype=np.float64)
        outputs.append(value if value.shape == arg.shape else None)
    store.launches.append([store.mark(), kid, outputs])
    if len(store.launches) > KEEP_OUTPUTS:
        store.launches[-KEEP_OUTPUTS - 1][2] = None


def launched(store: Any, mark: int, outputs: bool = False) -> list[Any]:
    """``[name, signature, source]`` of each kernel launched since ``mark``
    (each once), or, if ``outputs``, of each launch in order with what it
    wrote (per argument: an array, NaN where it wrote nothing, or None; None
    for a launch older than the last :data:`KEEP_OUTPUTS`). The grader's:
    what it compiles and judges."""
    start = bisect.bisect_left(store.launches, int(mark), key=lambda x: x[0])
    found, seen = [], set()
    for _, kid, written in store.launches[start:]:
        if not outputs and kid in seen:
            continue
        seen.add(kid)
        entry: list[Any] = list(store.kernels[kid])
        if outputs:
            entry.append(
                None
                if written is None
                else [None if w is None else encode(w) for w in written]
            )
        found.append(entry)
    return found


def run_here(request: dict[str, Any]) -> dict[str, Any]:
    """A launch in the store's own process (a student's store: nothing there
    is a grader's secret)."""
    report = run_kernel(request)
    return {**report, "args": request["args"]}


__all__ = [
    "HERE",
    "KEEP_OUTPUTS",
    "LAUNCH_SECONDS",
    "launched",
    "ran",
    "run_here",
    "run_kernel",
    "running",
    "store_launch",
]
