"""``course bench``: the course's own performance measurements, done honestly.

Every experiment warms up, synchronises before each clock read, repeats, and
keeps the median and the spread (interquartile range). Results go to one JSON
file, with the device names, library versions and date they were measured with,
and to one plot per experiment. On a machine without a GPU the GPU parts are
skipped, each with its reason.

Experiments (``results`` keys of the JSON file):

``timer``      one large matmul timed three ways: without synchronising, with,
               and with the copies in and out (Day 03's first lesson);
``transfer``   host-to-device and device-to-host bandwidth, pageable and pinned
               memory, over a range of sizes, next to the link's theoretical
               figure where the driver reports it;
``launch``     many tiny operations with a synchronisation after each vs one at
               the end (the cost of a launch and of a wait);
``sync_trap``  a real training loop reading the loss with ``.item()`` every
               epoch, every N epochs, or keeping it on the device;
``ops``        matmul (GFLOP/s) and an elementwise add (GB/s) across sizes on
               every library present (NumPy, torch, CuPy) and the size from
               which the GPU stays ahead of the CPU;
``mlp``        Day 08's from-scratch MLP (NumPy / CuPy) against the same PyTorch
               MLP, time per epoch.

The file doubles as a recorded result (:mod:`course.recorded`, experiment
``bench``): ``course bench --record`` copies a GPU run into
``course/recorded/`` for lessons to show on machines without a GPU.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from course.timing import TimingResult, benchmark, synchronize

SCHEMA = "course-bench/1"
EXPERIMENTS = ("timer", "transfer", "launch", "sync_trap", "ops", "mlp")
FLOAT32 = 4  # bytes


@dataclass(frozen=True)
class Settings:
    """Sizes and repeats of one mode."""

    timer_size: int
    transfer_mib: tuple[int, ...]
    launch_ops: int
    trap_epochs: int
    trap_every: int
    matmul_sizes: tuple[int, ...]
    matmul_cpu_max: int
    add_sizes: tuple[int, ...]
    mlp_cases: tuple[tuple[tuple[int, ...], int], ...]
    mlp_epochs: int
    repeat: int


QUICK = Settings(
    timer_size=256,
    transfer_mib=(1, 16),
    launch_ops=500,
    trap_epochs=100,
    trap_every=10,
    matmul_sizes=(64, 128, 256, 512),
    matmul_cpu_max=512,
    add_sizes=(10_000, 100_000, 1_000_000),
    mlp_cases=(((20, 128, 128, 1), 1024),),
    mlp_epochs=3,
    repeat=3,
)
FULL = Settings(
    timer_size=4096,
    transfer_mib=(1, 4, 16, 64, 256, 1024),
    launch_ops=5000,
    trap_epochs=2000,
    trap_every=100,
    matmul_sizes=(64, 128, 256, 512, 1024, 2048, 4096, 8192),
    matmul_cpu_max=4096,
    add_sizes=(10_000, 100_000, 1_000_000, 10_000_000, 100_000_000),
    mlp_cases=(
        ((5, 32, 1), 800),
        ((20, 256, 256, 1), 4096),
        ((20, 1024, 1024, 1), 65536),
    ),
    mlp_epochs=10,
    repeat=7,
)


# What is here.


def _version(module: str) -> str | None:
    try:
        from importlib.metadata import version

        return version(module)
    except Exception:  # noqa: BLE001 - not installed
        return None


def _torch() -> Any:
    import torch

    return torch


def cuda_device() -> Any:
    """torch's first CUDA device, or None."""
    torch = _torch()
    if os.environ.get("COURSE_FORCE_CPU") == "1" or not torch.cuda.is_available():
        return None
    return torch.device("cuda:0")


def cupy_module() -> Any:
    """CuPy when it can run a kernel here, else None."""
    from course.devices import cupy_usable

    if os.environ.get("COURSE_FORCE_CPU") == "1" or not cupy_usable():
        return None
    import cupy

    return cupy


def no_gpu_reason() -> str:
    """Why the GPU parts are skipped on this machine."""
    if os.environ.get("COURSE_FORCE_CPU") == "1":
        return "COURSE_FORCE_CPU=1 is set"
    torch = _torch()
    if torch.version.cuda is None:
        return f"torch {torch.__version__} is a CPU-only build and CuPy cannot run"
    return "no CUDA GPU is visible (torch.cuda.is_available() is False)"


def environment(mode: str) -> dict[str, Any]:
    """Device names, library versions, date: what every figure is measured with."""
    from course.devices import cpu_name

    torch = _torch()
    gpu = cuda_device()
    cupy = cupy_module()
    env = {
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "mode": mode,
        "cpu": cpu_name(),
        "cpu_cores": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "gpu": torch.cuda.get_device_name(gpu) if gpu is not None else None,
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "torch": torch.__version__,
        "torch_cuda": torch.version.cuda,
        "cupy": cupy.__version__ if cupy is not None else None,
    }
    if cupy is not None:
        env["cupy_cuda_runtime"] = str(cupy.cuda.runtime.runtimeGetVersion())
    return env


def _row(result: TimingResult, **fields: Any) -> dict[str, Any]:
    return {
        **fields,
        "median_s": result.median,
        "spread_s": result.spread,
        "runs": len(result.times),
    }


def _skipped(reason: str) -> dict[str, Any]:
    return {"status": "skipped", "reason": reason}


# The experiments. Each returns a JSON-ready dict with a "status".


def run_timer(s: Settings) -> dict[str, Any]:
    """One matmul: naive clock, synchronised clock, and with the copies."""
    torch = _torch()
    device = cuda_device() or torch.device("cpu")
    n = s.timer_size
    a_host = torch.randn(n, n)
    b_host = torch.randn(n, n)
    a, b = a_host.to(device), b_host.to(device)

    def naive() -> float:
        start = time.perf_counter()
        a @ b
        return time.perf_counter() - start

    def synchronised() -> float:
        synchronize(device)
        start = time.perf_counter()
        a @ b
        synchronize(device)
        return time.perf_counter() - start

    def with_copies() -> float:
        synchronize(device)
        start = time.perf_counter()
        (a_host.to(device) @ b_host.to(device)).cpu()
        return time.perf_counter() - start

    out: dict[str, Any] = {"status": "ok", "device": str(device), "size": n}
    for name, fn in (
        ("naive", naive),
        ("synchronised", synchronised),
        ("with_copies", with_copies),
    ):
        fn()
        synchronize(device)
        times = []
        for _ in range(max(s.repeat, 3)):
            times.append(fn())
            synchronize(device)  # the naive run's queued work must not leak on
        result = TimingResult(tuple(times), device=str(device))
        out[f"{name}_s"] = result.median
        out[f"{name}_spread_s"] = result.spread
    return out


def link_bandwidth() -> dict[str, Any] | None:
    """The PCIe link the driver reports, with its theoretical bandwidth per way."""
    tool = shutil.which("nvidia-smi")
    if tool is None:
        return None
    query = "pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,"
    query += "pcie.link.width.max"
    try:
        text = subprocess.run(
            [tool, f"--query-gpu={query}", "--format=csv,noheader,nounits"],
            capture_output=True,
            text=True,
            timeout=20,
            check=True,
        ).stdout.splitlines()[0]
        gen_now, gen_max, width_now, width_max = (
            int(v) for v in re.findall(r"\d+", text)[:4]
        )
    except Exception:  # noqa: BLE001 - unknown link: no theoretical figure
        return None
    gts = {1: 2.5, 2: 5.0, 3: 8.0, 4: 16.0, 5: 32.0, 6: 64.0}.get(gen_max)
    if gts is None:
        return None
    encoding = 0.8 if gen_max <= 2 else 128 / 130
    return {
        "pcie_gen_max": gen_max,
        "pcie_width_max": width_max,
        "pcie_gen_current": gen_now,
        "pcie_width_current": width_now,
        "theoretical_gbps": round(gts * width_max * encoding / 8, 1),
        "note": "PCIe payload limit per direction; real copies reach less",
    }


def run_transfer(s: Settings) -> dict[str, Any]:
    """Copy bandwidth both ways, pageable and pinned host memory."""
    device = cuda_device()
    if device is None:
        return _skipped(no_gpu_reason())
    torch = _torch()
    rows = []
    for mib in s.transfer_mib:
        rows += _copy_rows(torch, device, mib * 2**20 // FLOAT32, s.repeat)
    return {
        "status": "ok",
        "device": str(device),
        "link": link_bandwidth(),
        "rows": rows,
    }


def _copy_rows(torch: Any, device: Any, n: int, repeat: int) -> list[dict[str, Any]]:
    """Time the four copies of ``n`` float32 numbers between host and device."""
    pageable = torch.ones(n)
    pinned = pageable.pin_memory()
    on_device = pageable.to(device)
    back_pageable = torch.empty(n)
    back_pinned = torch.empty(n, pin_memory=True)
    cases = {
        ("host_to_device", "pageable"): lambda: pageable.to(device),
        ("host_to_device", "pinned"): lambda: pinned.to(device, non_blocking=True),
        ("device_to_host", "pageable"): lambda: back_pageable.copy_(on_device),
        ("device_to_host", "pinned"): lambda: back_pinned.copy_(
            on_device, non_blocking=True
        ),
    }
    rows = []
    for (direction, memory), fn in cases.items():
        result = benchmark(fn, device, warmup=2, repeat=repeat)
        rows.append(
            _row(
                result,
                direction=direction,
                memory=memory,
                bytes=n * FLOAT32,
                gbps=n * FLOAT32 / result.median / 1e9,
            )
        )
    return rows


def _targets() -> list[tuple[str, Any]]:
    """(library, device) pairs to run tensor work on: torch CPU, torch CUDA."""
    torch = _torch()
    targets = [("torch", torch.device("cpu"))]
    if cuda_device() is not None:
        targets.append(("torch", cuda_device()))
    return targets


def run_launch(s: Settings) -> dict[str, Any]:
    """Tiny operations: a synchronisation after each one vs one at the end."""
    torch = _torch()
    rows = []
    for library, device in _targets():
        x = torch.zeros(1, device=device)

        def each(x: Any = x, device: Any = device) -> None:
            for _ in range(s.launch_ops):
                x.add_(1)
                synchronize(device)

        def once(x: Any = x, device: Any = device) -> None:
            for _ in range(s.launch_ops):
                x.add_(1)
            synchronize(device)

        for mode, fn, syncs in (
            ("sync_each", each, s.launch_ops),
            ("sync_once", once, 1),
        ):
            result = benchmark(fn, device, warmup=1, repeat=s.repeat)
            rows.append(
                _row(
                    result,
                    library=library,
                    device=str(device),
                    mode=mode,
                    ops=s.launch_ops,
                    syncs=syncs if device.type != "cpu" else 0,
                    us_per_op=result.median / s.launch_ops * 1e6,
                )
            )
    return {"status": "ok", "rows": rows}


def _iris_tensors(device: Any) -> tuple[Any, Any]:
    from course.data import iris

    torch = _torch()
    data = iris()
    X = torch.as_tensor(data.X_train, dtype=torch.float32, device=device)
    y = torch.as_tensor(data.y_train, dtype=torch.int64, device=device)
    return X, y


def _trap_loop(device: Any, epochs: int, read_every: int | None) -> Callable[[], Any]:
    """A training loop that reads the loss every ``read_every`` epochs (None: never,
    the history stays on the device and comes back once at the end)."""
    torch = _torch()
    from torch import nn

    X, y = _iris_tensors(device)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3)).to(device)
    optimiser = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()

    def run() -> Any:
        history = []
        for epoch in range(epochs):
            optimiser.zero_grad()
            loss = loss_fn(model(X), y)
            loss.backward()
            optimiser.step()
            if read_every is None:
                history.append(loss.detach())
            elif (epoch + 1) % read_every == 0:
                history.append(loss.item())
        if read_every is None:
            return torch.stack(history).cpu()
        return history

    return run


def run_sync_trap(s: Settings) -> dict[str, Any]:
    """Time per epoch and syncs of one loop, three ways of reading the loss."""
    from course.sync import SyncCounter

    rows = []
    variants = (
        ("item_every_epoch", 1),
        (f"item_every_{s.trap_every}", s.trap_every),
        ("history_on_device", None),
    )
    for _, device in _targets():
        for name, every in variants:
            run = _trap_loop(device, s.trap_epochs, every)
            with SyncCounter() as syncs:
                run()
            result = benchmark(run, device, warmup=1, repeat=s.repeat)
            rows.append(
                _row(
                    result,
                    device=str(device),
                    variant=name,
                    epochs=s.trap_epochs,
                    syncs=syncs.count,
                    s_per_epoch=result.median / s.trap_epochs,
                )
            )
    return {"status": "ok", "rows": rows}


def crossover(sizes: Sequence[int], cpu_s: Sequence[float], gpu_s: Sequence[float]):
    """Smallest size from which the GPU is faster at every larger size, or None."""
    found = None
    for size, cpu, gpu in sorted(zip(sizes, cpu_s, gpu_s, strict=True), reverse=True):
        if gpu >= cpu:
            break
        found = size
    return found


def _op_libraries() -> list[tuple[str, Any, Any, str]]:
    """(library, module, device, kind) for every library that can run here."""
    torch = _torch()
    out: list[tuple[str, Any, Any, str]] = [
        ("numpy", np, None, "cpu"),
        ("torch", torch, torch.device("cpu"), "cpu"),
    ]
    cupy = cupy_module()
    if cupy is not None:
        out.append(("cupy", cupy, "cupy", "gpu"))
    if cuda_device() is not None:
        out.append(("torch", torch, cuda_device(), "gpu"))
    return out


def _arrays(library: str, module: Any, device: Any, shape: tuple[int, ...], seed: int):
    host = np.random.default_rng(seed).standard_normal(shape, dtype=np.float32)
    if library == "numpy":
        return host
    if library == "cupy":
        return module.asarray(host)
    return module.from_numpy(host).to(device)


def run_ops(s: Settings, progress: Callable[[str], None] = lambda _: None):
    """Matmul and elementwise add across sizes and libraries, with crossovers."""
    rows = []
    for library, module, device, kind in _op_libraries():
        where = "cuda" if kind == "gpu" else "cpu"
        for n in s.matmul_sizes:
            if kind == "cpu" and n > s.matmul_cpu_max:
                continue
            progress(f"matmul {library} on {where}, n={n}")
            a = _arrays(library, module, device, (n, n), 0)
            b = _arrays(library, module, device, (n, n), 1)
            repeat = s.repeat if n <= 2048 else 3
            result = benchmark(lambda a=a, b=b: a @ b, device, warmup=1, repeat=repeat)
            rows.append(
                _row(
                    result,
                    op="matmul",
                    library=library,
                    device=where,
                    size=n,
                    gflops=2 * n**3 / result.median / 1e9,
                )
            )
        for n in s.add_sizes:
            progress(f"add {library} on {where}, n={n:,}")
            a = _arrays(library, module, device, (n,), 0)
            b = _arrays(library, module, device, (n,), 1)
            result = benchmark(
                lambda a=a, b=b: a + b, device, warmup=1, repeat=s.repeat
            )
            rows.append(
                _row(
                    result,
                    op="add",
                    library=library,
                    device=where,
                    size=n,
                    gbps=3 * n * FLOAT32 / result.median / 1e9,
                )
            )
    return {"status": "ok", "rows": rows, "crossover": _crossovers(rows)}


def _crossovers(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per op and GPU library: where it overtakes the faster CPU library."""
    out: dict[str, Any] = {}
    for op in ("matmul", "add"):
        cpu: dict[int, float] = {}
        for r in rows:
            if r["op"] == op and r["device"] == "cpu":
                cpu[r["size"]] = min(cpu.get(r["size"], float("inf")), r["median_s"])
        for library in ("cupy", "torch"):
            gpu = {
                r["size"]: r["median_s"]
                for r in rows
                if r["op"] == op and r["device"] == "cuda" and r["library"] == library
            }
            common = sorted(set(cpu) & set(gpu))
            if common:
                out[f"{op}_{library}"] = crossover(
                    common, [cpu[n] for n in common], [gpu[n] for n in common]
                )
    return out


def run_mlp(s: Settings) -> dict[str, Any]:
    """Day 08's from-scratch MLP vs the same PyTorch MLP, per epoch."""
    try:
        from autograder.lesson_code import lesson_namespace

        lesson = lesson_namespace("08_neural_network")
    except Exception as exc:  # noqa: BLE001 - e.g. installed without the lessons
        return _skipped(f"Day 08's code could not be loaded: {exc}")
    torch = _torch()
    cupy = cupy_module()
    gpu = cuda_device()
    rows = []
    for sizes, samples in s.mlp_cases:
        rng = np.random.default_rng(0)
        X = rng.standard_normal((samples, sizes[0]), dtype=np.float32)
        y = rng.standard_normal((samples, sizes[-1]), dtype=np.float32)
        params = lesson["init_params"](list(sizes), seed=0)
        runs: list[tuple[str, str, Callable[[], Any], Any]] = []
        runs.append(
            (
                "from scratch (NumPy)",
                "cpu",
                lambda p=params, X=X, y=y: lesson["train"](
                    p, X, y, lr=1e-3, num_epochs=s.mlp_epochs
                ),
                None,
            )
        )
        if cupy is not None:
            dp = lesson["init_params"](list(sizes), seed=0, xp=cupy)
            Xc, yc = cupy.asarray(X), cupy.asarray(y)
            runs.append(
                (
                    "from scratch (CuPy)",
                    "cuda",
                    lambda p=dp, X=Xc, y=yc: lesson["train"](
                        p, X, y, lr=1e-3, num_epochs=s.mlp_epochs
                    ),
                    "cupy",
                )
            )
        for device in [torch.device("cpu")] + ([gpu] if gpu is not None else []):
            model = lesson["torch_copy"](params).to(device)
            Xt = torch.from_numpy(X).to(device)
            yt = torch.from_numpy(y).to(device)
            runs.append(
                (
                    "PyTorch",
                    "cuda" if device.type == "cuda" else "cpu",
                    lambda m=model, X=Xt, y=yt: lesson["torch_train"](
                        m, X, y, lr=1e-3, num_epochs=s.mlp_epochs
                    ),
                    device,
                )
            )
        for name, where, fn, sync_on in runs:
            result = benchmark(fn, sync_on, warmup=1, repeat=s.repeat)
            rows.append(
                _row(
                    result,
                    implementation=name,
                    device=where,
                    sizes=list(sizes),
                    samples=samples,
                    epochs=s.mlp_epochs,
                    s_per_epoch=result.median / s.mlp_epochs,
                )
            )
    return {"status": "ok", "rows": rows}


# Running, saving, plotting.


#: ``make gpu-check``: FULL on the GPU, with the CPU side of the largest MLP
#: smaller, so that a whole check fits a short lease of a GPU machine.
GPU_CHECK = replace(
    FULL,
    mlp_cases=FULL.mlp_cases[:2] + (((20, 1024, 1024, 1), 16384),),
    repeat=5,
)
MODES = {"quick": QUICK, "full": FULL, "gpu-check": GPU_CHECK}


def free_device_memory() -> None:
    """Give cached GPU memory back (torch's cache, CuPy's pools) between runs.

    A 4-8 GB card runs out otherwise: each experiment's buffers stay cached.
    """
    import gc

    gc.collect()
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available():
        torch.cuda.empty_cache()
    cupy = sys.modules.get("cupy")
    if cupy is not None:
        try:
            cupy.get_default_memory_pool().free_all_blocks()
            cupy.get_default_pinned_memory_pool().free_all_blocks()
        except Exception:  # noqa: BLE001 - CuPy present but no usable device
            pass


def run_all(
    mode: str = "full",
    only: Iterable[str] | None = None,
    log: Callable[[str], None] | None = None,
    checkpoint: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Run the experiments; return the JSON-ready result (also a recorded run).

    ``checkpoint``, if given, is called with the partial result after each
    experiment, so that an interrupted run keeps what it measured.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {sorted(MODES)}, not {mode!r}")
    chosen = list(only or EXPERIMENTS)
    unknown = sorted(set(chosen) - set(EXPERIMENTS))
    if unknown:
        raise ValueError(f"unknown experiments {unknown}; choose from {EXPERIMENTS}")
    settings = MODES[mode]
    say = log or (lambda _: None)
    env = environment(mode)
    results: dict[str, Any] = {}
    runners = {
        "timer": run_timer,
        "transfer": run_transfer,
        "launch": run_launch,
        "sync_trap": run_sync_trap,
        "ops": lambda s: run_ops(s, lambda m: say(f"      {m}")),
        "mlp": run_mlp,
    }
    for i, name in enumerate(chosen, 1):
        say(f"[{i}/{len(chosen)}] {name} ...")
        start = time.perf_counter()
        try:
            results[name] = runners[name](settings)
        except Exception as exc:  # noqa: BLE001 - report it, run the others
            results[name] = {
                "status": "error",
                "reason": f"{type(exc).__name__}: {exc}",
            }
        results[name]["seconds"] = round(time.perf_counter() - start, 2)
        state = results[name]["status"]
        extra = f": {results[name]['reason']}" if state != "ok" else ""
        say(
            f"[{i}/{len(chosen)}] {name} {state} in {results[name]['seconds']} s{extra}"
        )
        free_device_memory()
        if checkpoint is not None:
            checkpoint(_package(env, results))
    return _package(env, results)


def _package(env: dict[str, Any], results: dict[str, Any]) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "experiment": "bench",
        "hardware": env["gpu"] or env["cpu"],
        "date": env["date"][:10],
        "software": {
            k: env[k]
            for k in ("python", "numpy", "torch", "torch_cuda", "cupy")
            if env[k]
        },
        "environment": env,
        "results": results,
    }


def slug(text: str) -> str:
    """A file-name-safe version of a hardware name."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40] or "unknown"


def validate(data: dict[str, Any]) -> list[str]:
    """Problems with a result file's structure (empty when it is well formed)."""
    problems = []
    for key in ("schema", "experiment", "hardware", "date", "environment", "results"):
        if key not in data:
            problems.append(f"missing key {key!r}")
    if problems:
        return problems
    if data["schema"] != SCHEMA:
        problems.append(f"schema {data['schema']!r}, expected {SCHEMA!r}")
    for key in ("cpu", "date", "mode", "numpy", "torch", "python"):
        if key not in data["environment"]:
            problems.append(f"environment lacks {key!r}")
    for name, section in data["results"].items():
        status = section.get("status")
        if status not in ("ok", "skipped", "error"):
            problems.append(f"{name}: status {status!r}")
        elif status != "ok" and not section.get("reason"):
            problems.append(f"{name}: {status} without a reason")
        for row in section.get("rows", []) if status == "ok" else []:
            if not (row.get("median_s", -1) >= 0 and row.get("spread_s", -1) >= 0):
                problems.append(f"{name}: a row lacks median_s/spread_s: {row}")
                break
    return problems


def save(data: dict[str, Any], out_dir: Path, name: str | None = None) -> Path:
    """Write the JSON file (named from hardware and time, or ``name``); return it."""
    out_dir.mkdir(parents=True, exist_ok=True)
    stamp = data["environment"]["date"].replace(":", "").replace("+0000", "Z")
    stem = name or f"bench--{slug(data['hardware'])}--{stamp[:17]}"
    path = out_dir / f"{stem}.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def record(path: Path, folder: Path | None = None) -> Path:
    """Copy a GPU result file into the recorded results that lessons load.

    Raises:
        ValueError: the file is malformed or holds no GPU measurement.
    """
    from course.recorded import RECORDED_DIR

    data = json.loads(Path(path).read_text(encoding="utf-8"))
    problems = validate(data)
    if problems:
        raise ValueError(f"{path} is not a bench result: {'; '.join(problems)}")
    if not data["environment"].get("gpu"):
        raise ValueError(
            f"{path} was measured without a GPU; recorded results are GPU figures "
            "for readers who have none. Run `course bench` on a GPU machine."
        )
    target = Path(folder or RECORDED_DIR)
    target.mkdir(parents=True, exist_ok=True)
    out = target / f"bench--{slug(data['hardware'])}--{data['date']}.json"
    shutil.copyfile(path, out)
    return out


def caption(data: dict[str, Any]) -> str:
    """Where and when: the line every plot and table of these results carries."""
    env = data["environment"]
    where = env["gpu"] or env["cpu"]
    return (
        f"{where}; torch {env['torch']}, numpy {env['numpy']}"
        + (f", cupy {env['cupy']}" if env.get("cupy") else "")
        + f"; {env['date'][:10]} ({env['mode']})"
    )


def plot(data: dict[str, Any], out_dir: Path) -> list[Path]:
    """One PNG per experiment that ran; returns their paths."""
    import matplotlib

    if "matplotlib.pyplot" not in sys.modules:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out_dir.mkdir(parents=True, exist_ok=True)
    results = data["results"]
    paths = []
    note = caption(data)

    def finish(fig: Any, name: str) -> None:
        fig.suptitle(note, fontsize=8, y=0.995)
        fig.tight_layout()
        path = out_dir / f"{name}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        paths.append(path)

    def bars(name, labels, values, unit, title, horizontal=False) -> None:
        fig, ax = plt.subplots(figsize=(7, 4) if horizontal else (6.5, 3.8))
        if horizontal:
            ax.barh(labels, values, color="tab:purple")
            ax.set_xlabel(unit)
            ax.set_xscale("log")
            ax.tick_params(axis="y", labelsize=7)
        else:
            ax.bar(labels, values, color="tab:green")
            ax.set_ylabel(unit)
            ax.tick_params(axis="x", labelsize=7)
        ax.set_title(title)
        finish(fig, name)

    def ok(name: str) -> list[dict[str, Any]] | None:
        section = results.get(name, {})
        return section.get("rows") if section.get("status") == "ok" else None

    timer = results.get("timer", {})
    if timer.get("status") == "ok":
        fig, ax = plt.subplots(figsize=(6, 3.5))
        names = ["naive", "synchronised", "with_copies"]
        ax.bar(names, [timer[f"{n}_s"] * 1e3 for n in names], color="tab:blue")
        ax.set_ylabel("ms (median)")
        ax.set_title(f"One {timer['size']}x{timer['size']} matmul on {timer['device']}")
        finish(fig, "timer")
    rows = ok("transfer")
    if rows:
        fig, ax = plt.subplots(figsize=(6.5, 4))
        for direction in ("host_to_device", "device_to_host"):
            for memory in ("pageable", "pinned"):
                sel = [
                    r
                    for r in rows
                    if (r["direction"], r["memory"]) == (direction, memory)
                ]
                ax.plot(
                    [r["bytes"] / 2**20 for r in sel],
                    [r["gbps"] for r in sel],
                    marker="o",
                    label=f"{direction.replace('_', ' ')}, {memory}",
                )
        link = results["transfer"].get("link")
        if link:
            ax.axhline(link["theoretical_gbps"], color="grey", linestyle="--")
            ax.annotate(
                f"PCIe Gen{link['pcie_gen_max']} x{link['pcie_width_max']} "
                f"theoretical {link['theoretical_gbps']} GB/s",
                (0.02, 0.95),
                xycoords="axes fraction",
                fontsize=8,
                va="top",
            )
        ax.set_xscale("log")
        ax.set_xlabel("copy size (MiB)")
        ax.set_ylabel("GB/s")
        ax.set_title("Copy bandwidth")
        ax.legend(fontsize=8)
        finish(fig, "transfer")
    rows = ok("launch")
    if rows:
        bars(
            "launch",
            [f"{r['device']}\n{r['mode']}" for r in rows],
            [r["us_per_op"] for r in rows],
            "µs per tiny op (median)",
            "A sync after every op vs one at the end",
        )
    rows = ok("sync_trap")
    if rows:
        bars(
            "sync_trap",
            [f"{r['device']}\n{r['variant']}\n{r['syncs']} syncs" for r in rows],
            [r["s_per_epoch"] * 1e6 for r in rows],
            "µs per epoch (median)",
            "Reading the loss: every epoch, every N, or once",
        )
    rows = ok("ops")
    if rows:
        fig, axes = plt.subplots(1, 2, figsize=(10, 4))
        for ax, op, unit in ((axes[0], "matmul", "gflops"), (axes[1], "add", "gbps")):
            for key in sorted(
                {(r["library"], r["device"]) for r in rows if r["op"] == op}
            ):
                sel = [
                    r
                    for r in rows
                    if r["op"] == op and (r["library"], r["device"]) == key
                ]
                ax.plot(
                    [r["size"] for r in sel],
                    [r[unit] for r in sel],
                    marker="o",
                    label=f"{key[0]} ({key[1]})",
                )
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("n" if op == "matmul" else "elements")
            ax.set_ylabel("GFLOP/s" if unit == "gflops" else "GB/s")
            ax.set_title("matmul n x n" if op == "matmul" else "elementwise a + b")
            ax.legend(fontsize=8)
        finish(fig, "ops")
    rows = ok("mlp")
    if rows:
        bars(
            "mlp",
            [f"{r['implementation']}\n{r['device']} {r['sizes']}" for r in rows],
            [r["s_per_epoch"] * 1e3 for r in rows],
            "ms per epoch (median)",
            "From-scratch MLP vs PyTorch",
            horizontal=True,
        )
    return paths


def summary(data: dict[str, Any]) -> str:
    """The headline figures, as lines of text."""
    r = data["results"]
    lines = [f"Measured on {caption(data)}"]
    timer = r.get("timer", {})
    if timer.get("status") == "ok":
        lines.append(
            f"timer ({timer['size']}^2 matmul, {timer['device']}): naive "
            f"{timer['naive_s'] * 1e3:.3f} ms, synchronised "
            f"{timer['synchronised_s'] * 1e3:.3f} ms, with copies "
            f"{timer['with_copies_s'] * 1e3:.3f} ms"
        )
    for name in EXPERIMENTS:
        section = r.get(name, {})
        if section.get("status") in ("skipped", "error"):
            lines.append(f"{name}: {section['status']} ({section['reason']})")
    if r.get("transfer", {}).get("status") == "ok":
        big = max(row["bytes"] for row in r["transfer"]["rows"])
        for row in r["transfer"]["rows"]:
            if row["bytes"] == big:
                lines.append(
                    f"copy {row['direction']} {row['memory']} "
                    f"{big / 2**20:.0f} MiB: {row['gbps']:.1f} GB/s"
                )
    for row in r.get("launch", {}).get("rows", []):
        lines.append(
            f"launch {row['device']} {row['mode']}: {row['us_per_op']:.2f} µs per op"
        )
    for row in r.get("sync_trap", {}).get("rows", []):
        lines.append(
            f"sync trap {row['device']} {row['variant']}: "
            f"{row['s_per_epoch'] * 1e6:.1f} µs/epoch, {row['syncs']} syncs"
        )
    ops = r.get("ops", {})
    if ops.get("status") == "ok":
        best: dict[tuple[str, str, str], dict[str, Any]] = {}
        for row in ops["rows"]:
            key = (row["op"], row["library"], row["device"])
            if key not in best or row["size"] > best[key]["size"]:
                best[key] = row
        for (op, library, device), row in sorted(best.items()):
            figure = (
                f"{row['gflops']:.1f} GFLOP/s"
                if op == "matmul"
                else f"{row['gbps']:.1f} GB/s"
            )
            lines.append(f"{op} {library} ({device}) at n={row['size']:,}: {figure}")
        for key, size in ops.get("crossover", {}).items():
            lines.append(
                f"crossover {key}: {'never' if size is None else f'n={size:,}'}"
            )
    for row in r.get("mlp", {}).get("rows", []):
        lines.append(
            f"mlp {row['sizes']} x{row['samples']} {row['implementation']} "
            f"({row['device']}): {row['s_per_epoch'] * 1e3:.3f} ms/epoch"
        )
    return "\n".join(lines)
