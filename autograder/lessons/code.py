"""Load a lesson's reference code as a namespace, for benchmarks and checks.

Runs every code cell of ``solutions/NN/NN.py`` except the test cells, in order,
with output captured and figures not shown, and returns the resulting globals.
The answers come from the solution source, so they never ship in an installed
helper module.

The source is split into cells by its ``# %%`` lines directly (no jupytext), so
this works on a GPU machine that has torch and CuPy but no Jupyter tools.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
from pathlib import Path
from typing import Any

from autograder.lessons import find_lesson

_HEADER = re.compile(r"^# %%(?P<rest>.*)$")


def code_cells(source: Path) -> list[tuple[int, str, dict[str, Any]]]:
    """(cell number, code, nbgrader metadata) of each code cell of a lesson."""
    cells: list[tuple[str, list[str]]] = []
    for line in source.read_text(encoding="utf-8").splitlines():
        match = _HEADER.match(line)
        if match:
            cells.append((match["rest"].strip(), []))
        elif cells:
            cells[-1][1].append(line)
    out = []
    for number, (header, lines) in enumerate(cells, 1):
        if header.startswith("[markdown]"):
            continue
        meta: dict[str, Any] = {}
        if header.startswith("nbgrader="):
            meta = json.loads(header[len("nbgrader=") :])
        out.append((number, "\n".join(lines), meta))
    return out


def lesson_namespace(lesson: str) -> dict[str, Any]:
    """Execute lesson ``lesson``'s non-test code cells and return its globals.

    Raises:
        RuntimeError: a cell failed; the message names the cell and shows the
            lesson's captured output.
    """
    source = find_lesson(lesson)
    namespace: dict[str, Any] = {"__name__": f"lesson_{source.stem}"}
    os.environ.setdefault("MPLBACKEND", "Agg")
    output = io.StringIO()
    for number, code_text, meta in code_cells(source):
        if meta.get("grade"):
            continue
        try:
            with contextlib.redirect_stdout(output):
                code = compile(code_text, f"{source.name}[cell {number}]", "exec")
                exec(code, namespace)
        except Exception as exc:
            raise RuntimeError(
                f"{source.name}, cell {number} failed: {exc!r}\n"
                f"{output.getvalue()[-2000:]}"
            ) from exc
    return namespace
