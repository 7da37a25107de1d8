"""GPU measurements recorded on real hardware, for readers without a GPU.

Lessons that teach performance show the reader's own measurements first. Where
the reader has no GPU, they also show results measured earlier on a real one,
always labelled with the hardware and the date, never as the reader's own.

Each file ``course/recorded/<experiment>--<slug>.json`` holds one run::

    {"experiment": "sync_trap", "hardware": "NVIDIA H200", "date": "2026-11-30",
     "software": {"torch": "2.9.0", "cuda": "12.8"}, "results": {...}}
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
