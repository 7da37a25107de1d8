"""``course doctor``: what this machine offers the course, as a table.

Every row is read live and nothing here raises: a missing library, a GPU without
a driver or a half-installed nbgrader each become a row that says so.
"""

from __future__ import annotations

import importlib.metadata
import json
import platform
import sys
from pathlib import Path
from typing import Any

from course.env import force_cpu


def _version(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def nbgrader_extensions() -> str:
    """Say whether nbgrader's JupyterLab and server extensions are installed and on."""
    if _version("nbgrader") is None:
        return "nbgrader not installed"
    try:
        from jupyter_core.paths import jupyter_config_path, jupyter_path
    except ImportError:
        return "jupyter_core missing"
    lab = any(
        (Path(p) / "labextensions" / "@jupyter" / "nbgrader").is_dir()
        for p in jupyter_path()
    )
    server = False
    for folder in jupyter_config_path():
        config = Path(folder) / "jupyter_server_config.d" / "nbgrader.json"
        if config.is_file():
            try:
                enabled = json.loads(config.read_text())["ServerApp"][
                    "jpserver_extensions"
                ]
                server = server or any(enabled.values())
            except (ValueError, KeyError, AttributeError):
                pass
    parts = [
        "lab extension " + ("installed" if lab else "MISSING"),
        "server extension " + ("enabled" if server else "NOT enabled"),
    ]
    return ", ".join(parts)


def environment_rows() -> list[tuple[str, Any]]:
    """Return ``(name, value)`` rows describing the course environment."""
    import torch

    from course.backend import backend_name, get_xp
    from course.devices import choose_device, cupy_status, describe_device

    choice = choose_device()
    rows: list[tuple[str, Any]] = [
        ("python", f"{platform.python_version()} ({sys.executable})"),
        ("platform", platform.platform()),
        ("numpy", _version("numpy")),
        ("torch", torch.__version__),
        ("torch CUDA build", torch.version.cuda or "none (CPU build)"),
        ("torch.cuda.is_available()", torch.cuda.is_available()),
    ]
    if torch.cuda.is_available():
        for index in range(torch.cuda.device_count()):
            info = describe_device(f"cuda:{index}")
            rows.append(
                (
                    f"GPU {index}",
                    f"{info['name']}, {info['total_memory_gb']} GiB "
                    f"({info['free_memory_gb']} GiB free), compute capability "
                    f"{info['compute_capability']}",
                )
            )
    status = cupy_status()
    rows += [
        ("cupy", status.version or "not installed"),
        ("cupy usable", f"{status.usable} ({status.reason})"),
        (
            "CUDA driver / runtime (cupy)",
            f"{status.driver_version} / {status.runtime_version}"
            if status.usable
            else None,
        ),
        ("COURSE_FORCE_CPU", "set" if force_cpu() else "not set"),
        ("torch device for lessons", f"{choice.device} ({choice.reason})"),
        ("array backend (xp) for lessons", backend_name(get_xp())),
        ("nbgrader", _version("nbgrader") or "not installed"),
        ("nbgrader extensions", nbgrader_extensions()),
        ("jupyterlab", _version("jupyterlab") or "not installed"),
        ("course", _version("gpu-course") or "not installed (run pip install -e .)"),
    ]
    return rows


def doctor_text() -> str:
    """The full ``course doctor`` report as text."""
    from course.devices import format_table

    return format_table(environment_rows(), title="course doctor")
