"""The GPU from inside a confined grading kernel (``course gpu-check``'s
``confined_gpu`` extra).

A grading kernel runs in its own user, PID and mount namespaces (as root: as
nobody), under Landlock and a seccomp filter (:mod:`autograder.grading.kernel`).
None of that can be tried on the CPU machines the tests run on, so this extra
starts a child that confines itself exactly as a grading kernel does
(:func:`~autograder.grading.kernel.sandbox.enter_namespaces`, then
:func:`~autograder.grading.kernel.sandbox.confine_kernel`) and then does what the
lessons do on a GPU: a torch matmul, ``torch.profiler`` with CUDA activity, a
CuPy reduction and a compiled ``ElementwiseKernel``, a numba-cuda kernel. Each
step records whether it worked and, if not, the error, so a refusal shows which
part of the confinement a GPU lesson would trip over.

``python -m autograder.measure.gpu_confined``: the child (prints one JSON line).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

MARK = "CONFINED-RESULT "


#: The device files CUDA opens. Named, not listed: once confined, ``/dev``
#: itself cannot be read, only these files.
NVIDIA_FILES = (
    "/dev/nvidiactl",
    "/dev/nvidia0",
    "/dev/nvidia-uvm",
    "/dev/nvidia-uvm-tools",
)


def _devices() -> dict[str, Any]:
    """Each NVIDIA device file: its mode and owner, and whether it opens."""
    import stat

    found: dict[str, Any] = {}
    for path in NVIDIA_FILES:
        try:
            st = os.stat(path)
            row = f"{stat.filemode(st.st_mode)} {st.st_uid}:{st.st_gid}"
            os.close(os.open(path, os.O_RDWR))
            found[path] = row + " opens"
        except FileNotFoundError:
            continue
        except OSError as exc:
            found[path] = f"{exc.strerror} ({exc.errno})"
    return {"ok": True, "files": found} if found else {"skipped": "no NVIDIA device"}


def _torch_matmul() -> dict[str, Any]:
    import torch

    if not torch.cuda.is_available():
        try:
            torch.cuda.init()
            why = "torch.cuda.init() raised nothing"
        except Exception as exc:  # noqa: BLE001 - the reason is the result
            why = f"{type(exc).__name__}: {exc}"[:600]
        return {"skipped": "torch sees no CUDA device", "why": why}
    a = torch.ones(512, 512, device="cuda")
    value = float((a @ a)[0, 0])
    return {
        "ok": value == 512.0,
        "value": value,
        "device": torch.cuda.get_device_name(),
    }


def _torch_profiler() -> dict[str, Any]:
    import torch
    from torch.profiler import ProfilerActivity, profile

    cuda = torch.cuda.is_available()
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    x = torch.ones(256, 256, device="cuda" if cuda else "cpu")
    with profile(activities=activities) as prof:
        (x @ x).sum()
        if cuda:
            torch.cuda.synchronize()
    events = prof.key_averages()
    device_us = sum(getattr(e, "device_time_total", 0.0) for e in events)
    return {
        "ok": len(events) > 0 and (device_us > 0 or not cuda),
        "events": len(events),
        "device_time_us": device_us,
        "cuda_activity": cuda,
    }


def _cupy() -> dict[str, Any]:
    from course.devices import cupy_usable

    if not cupy_usable():
        return {"skipped": "CuPy is not usable here"}
    import cupy as cp

    total = float(cp.arange(1000, dtype=cp.float64).sum())
    square = cp.ElementwiseKernel("float32 x", "float32 y", "y = x * x", "sq_conf")
    got = square(cp.full(8, 3, dtype=cp.float32))
    return {"ok": total == 499500.0 and float(got[0]) == 9.0, "sum": total}


def _numba() -> dict[str, Any]:
    try:
        from numba import config, cuda
    except ImportError as exc:
        return {"skipped": f"numba is not installed ({exc})"}
    if config.ENABLE_CUDASIM or not cuda.is_available():
        return {"skipped": "numba sees no CUDA device"}
    import numpy as np

    @cuda.jit
    def add_one(x):
        i = cuda.grid(1)
        if i < x.size:
            x[i] += 1.0

    data = cuda.to_device(np.zeros(1000))
    add_one[4, 256](data)
    host = data.copy_to_host()
    return {"ok": bool((host == 1.0).all())}


STEPS: dict[str, Callable[[], dict[str, Any]]] = {
    "devices": _devices,
    "torch_matmul": _torch_matmul,
    "torch_profiler": _torch_profiler,
    "cupy": _cupy,
    "numba_cuda": _numba,
}


#: The layers of a grading kernel's confinement, in the order it takes them.
LAYERS = ("namespaces", "landlock", "seccomp")


def _confine(layers: list[str], connection: Path) -> None:
    """Take ``layers`` of a grading kernel's confinement, as it takes them."""
    from autograder.grading.kernel import sandbox, seccomp
    from autograder.grading.kernel.landlock import enforce

    if "namespaces" in layers:
        sandbox.enter_namespaces(str(connection))
    if layers == list(LAYERS):
        sandbox.confine_kernel(["-f", str(connection)])  # exactly as a kernel
        return
    if "landlock" in layers:
        enforce(sandbox.kernel_policy(Path.cwd(), connection))
    if "seccomp" in layers and seccomp.supported():
        seccomp.install()


def _child(layers: list[str]) -> None:
    from autograder.grading.kernel import sandbox

    connection = Path.cwd() / "kernel.json"
    confinement: dict[str, Any] = {
        "layers": layers,
        "uid_before": os.geteuid(),
        "status": sandbox.status(),
    }
    try:
        _confine(layers, connection)
        confinement.update(confined=True)
    except Exception as exc:  # noqa: BLE001 - reported, then the steps run anyway
        confinement.update(confined=False, error=f"{type(exc).__name__}: {exc}")
    confinement.update(uid=os.geteuid(), pid=os.getpid())
    steps: dict[str, Any] = {}
    quick = layers != list(LAYERS)  # a partial confinement: which layer refuses
    for name, step in STEPS.items():
        if quick and name not in ("devices", "torch_matmul"):
            continue
        start = time.perf_counter()
        try:
            steps[name] = step()
        except Exception:  # noqa: BLE001 - the refusal is the result
            steps[name] = {"ok": False, "error": traceback.format_exc()[-1500:]}
        steps[name]["seconds"] = round(time.perf_counter() - start, 2)
    print(MARK + json.dumps({"confinement": confinement, "steps": steps}), flush=True)


def _run_child(layers: list[str]) -> dict[str, Any]:
    root = Path(__file__).resolve().parents[2]
    with tempfile.TemporaryDirectory(prefix="confined-gpu-") as folder:
        Path(folder, "kernel.json").write_text("{}", encoding="utf-8")
        os.chmod(folder, 0o755)
        env = {**os.environ, "PYTHONPATH": str(root)}
        done = subprocess.run(
            [sys.executable, "-m", "autograder.measure.gpu_confined", *layers],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
    for line in done.stdout.splitlines():
        if line.startswith(MARK):
            return json.loads(line[len(MARK) :])
    return {
        "error": f"the confined child printed no result (exit {done.returncode})",
        "output_tail": (done.stdout + done.stderr)[-3000:],
    }


def confined_gpu(full: bool = True) -> dict[str, Any]:
    """Run :data:`STEPS` in a child confined as a grading kernel. Where torch
    finds no GPU there but does here, each layer alone and each pair of layers
    is tried too (``by_layers``), to name the one that hides the GPU."""
    del full  # one size: the point is whether each step runs at all
    result = _run_child(list(LAYERS))
    import torch

    hidden = "skipped" in result.get("steps", {}).get("torch_matmul", {})
    if hidden and torch.cuda.is_available():
        subsets = [[x] for x in LAYERS] + [
            [a, b] for i, a in enumerate(LAYERS) for b in LAYERS[i + 1 :]
        ]
        result["by_layers"] = {"+".join(s): _run_child(s) for s in subsets}
    return result


if __name__ == "__main__":
    _child([a for a in sys.argv[1:] if a in LAYERS] or list(LAYERS))
