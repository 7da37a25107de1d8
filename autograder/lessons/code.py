"""Load a lesson's reference code as a namespace, for benchmarks and checks.

Runs every code cell of ``solutions/NN/NN.py`` except the test cells, in order,
with output captured and figures not shown, and returns the resulting globals.
The answers come from the solution source, so they never ship in an installed
helper module.

The source is read by :mod:`autograder.lessons.percent`, the one reader of
lessons, which needs no Jupyter tools: this works on a GPU machine that has
torch and CuPy but no jupytext.
"""

from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path
from typing import Any

from autograder.lessons import find_lesson


def code_cells(source: Path) -> list[tuple[int, str, dict[str, Any]]]:
    """(cell number, code, nbgrader metadata) of each code cell of a lesson."""
    from autograder.lessons.percent import read_cells

    cells = read_cells(source.read_text(encoding="utf-8"), source.name)
    return [
        (number, cell.source, cell.metadata.get("nbgrader") or {})
        for number, cell in enumerate(cells, 1)
        if cell.cell_type == "code"
    ]


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
