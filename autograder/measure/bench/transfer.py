"""``transfer``: host-to-device and device-to-host bandwidth, pageable and pinned
memory, over a range of sizes, next to the link's theoretical figure where the
driver reports it."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from typing import Any

from autograder.measure.bench.core import (
    FLOAT32,
    Experiment,
    Row,
    Section,
    Settings,
    _torch,
    cuda_device,
    no_gpu_reason,
    register,
    row,
    skipped,
)
from course.timing import benchmark


@dataclass(frozen=True)
class CopyRow(Row):
    """One copy: a direction, a kind of host memory, a size."""

    direction: str
    memory: str
    bytes: int
    gbps: float


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


def run(s: Settings, say: Any = None) -> Section:
    """Copy bandwidth both ways, pageable and pinned host memory."""
    device = cuda_device()
    if device is None:
        return skipped(no_gpu_reason())
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
            row(
                CopyRow,
                result,
                direction=direction,
                memory=memory,
                bytes=n * FLOAT32,
                gbps=n * FLOAT32 / result.median / 1e9,
            )
        )
    return rows


def plot(section: Section, canvas: Any) -> None:
    rows = section["rows"]
    fig, ax = canvas.figure(6.5, 4)
    for direction in ("host_to_device", "device_to_host"):
        for memory in ("pageable", "pinned"):
            sel = [
                r for r in rows if (r["direction"], r["memory"]) == (direction, memory)
            ]
            ax.plot(
                [r["bytes"] / 2**20 for r in sel],
                [r["gbps"] for r in sel],
                marker="o",
                label=f"{direction.replace('_', ' ')}, {memory}",
            )
    link = section.get("link")
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
    canvas.finish(fig, "transfer")


def summary(section: Section) -> list[str]:
    big = max(r["bytes"] for r in section["rows"])
    return [
        f"copy {r['direction']} {r['memory']} {big / 2**20:.0f} MiB: "
        f"{r['gbps']:.1f} GB/s"
        for r in section["rows"]
        if r["bytes"] == big
    ]


EXPERIMENT = register(Experiment("transfer", "Copy bandwidth", run, plot, summary))
