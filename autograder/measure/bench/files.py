"""Result files: names, schema check, saving, and recording a GPU run for lessons."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

from autograder.measure.bench.core import SCHEMA


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
