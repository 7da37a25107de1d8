"""GPU measurements recorded on real hardware, for readers without a GPU.

Lessons that teach performance show the reader's own measurements first. Where
the reader has no GPU, they also show results measured earlier on a real one,
always labelled with the hardware and the date, never as the reader's own.

Each file ``course/recorded/<experiment>--<slug>.json`` holds one run::

    {"experiment": "bench", "hardware": "NVIDIA H200", "date": "2026-11-30",
     "software": {"torch": "2.9.0", "torch_cuda": "12.8"}, "results": {...}}

The files the lessons use are ``course bench`` results (experiment ``bench``,
from the instructor tools), added with ``course bench --record FILE`` after a run
on a GPU. :func:`recorded_rows` and :func:`recorded_sweep` read their sections.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

RECORDED_DIR = Path(__file__).resolve().parent / "recorded"
REQUIRED_KEYS = ("experiment", "hardware", "date", "results")


@dataclass(frozen=True)
class RecordedRun:
    """One recorded set of measurements and where it was measured."""

    experiment: str
    hardware: str
    date: str
    results: dict[str, Any]
    software: dict[str, str] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """The caption every display of these numbers must carry."""
        return f"recorded on {self.hardware}, {self.date}"


def load_recorded(experiment: str, folder: Path = RECORDED_DIR) -> list[RecordedRun]:
    """Return every recorded run of ``experiment``, newest first.

    Raises:
        ValueError: a file for this experiment lacks a required key; the message
            names the file.
    """
    runs = []
    for path in sorted(Path(folder).glob(f"{experiment}--*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        missing = [key for key in REQUIRED_KEYS if key not in data]
        if missing:
            raise ValueError(f"{path.name} lacks {missing}")
        runs.append(
            RecordedRun(
                data["experiment"],
                data["hardware"],
                data["date"],
                data["results"],
                data.get("software", {}),
            )
        )
    return sorted(runs, key=lambda run: run.date, reverse=True)


def describe_recorded(experiment: str, folder: Path = RECORDED_DIR) -> str:
    """A one-paragraph statement of what is recorded, or that nothing is yet."""
    runs = load_recorded(experiment, folder)
    if not runs:
        return (
            f"No GPU results are recorded for '{experiment}' yet. They are added "
            "when the course's GPU check runs on a real GPU; until then, only "
            "this machine's own measurements are shown."
        )
    return "GPU results available: " + "; ".join(run.label for run in runs)


def recorded_rows(run: RecordedRun, section: str, **match: Any) -> list[dict[str, Any]]:
    """Rows of a ``course bench`` section whose fields equal ``match``.

    Example: ``recorded_rows(run, "sync_trap", device="cuda:0")``. A section
    that was skipped or is absent gives no rows.
    """
    part = run.results.get(section, {})
    if part.get("status") != "ok":
        return []
    return [
        row
        for row in part.get("rows", [])
        if all(row.get(key) == value for key, value in match.items())
    ]


def recorded_sweep(
    run: RecordedRun, op: str = "matmul", library: str = "torch"
) -> tuple[list[int], list[float], list[float]]:
    """Sizes measured on both sides, with ``library``'s CPU and GPU median seconds.

    The CPU side is the same library on the CPU (NumPy for CuPy).
    """
    cpu_library = "numpy" if library == "cupy" else library
    cpu = {
        r["size"]: r["median_s"]
        for r in recorded_rows(run, "ops", op=op, library=cpu_library, device="cpu")
    }
    gpu = {
        r["size"]: r["median_s"]
        for r in recorded_rows(run, "ops", op=op, library=library, device="cuda")
    }
    sizes = sorted(set(cpu) & set(gpu))
    return sizes, [cpu[n] for n in sizes], [gpu[n] for n in sizes]
