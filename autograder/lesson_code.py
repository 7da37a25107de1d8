"""Load a lesson's reference code as a namespace, for benchmarks and checks.

Runs every code cell of ``solutions/NN/NN.py`` except the test cells, in order,
with output captured and figures not shown, and returns the resulting globals.
The answers come from the solution source, so they never ship in an installed
helper module.
"""

from __future__ import annotations

import contextlib
import io
import os
from typing import Any

from autograder.lessons import find_lesson, source_to_notebook


def lesson_namespace(lesson: str) -> dict[str, Any]:
    """Execute lesson ``lesson``'s non-test code cells and return its globals.

    Raises:
        RuntimeError: a cell failed; the message names the cell and shows the
            lesson's captured output.
    """
    source = find_lesson(lesson)
    notebook = source_to_notebook(source)
    namespace: dict[str, Any] = {"__name__": f"lesson_{source.stem}"}
    os.environ.setdefault("MPLBACKEND", "Agg")
    output = io.StringIO()
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code" or cell.metadata.get("nbgrader", {}).get("grade"):
            continue
        try:
            with contextlib.redirect_stdout(output):
                code = compile(cell.source, f"{source.name}[cell {index + 1}]", "exec")
                exec(code, namespace)
        except Exception as exc:
            raise RuntimeError(
                f"{source.name}, cell {index + 1} failed: {exc!r}\n"
                f"{output.getvalue()[-2000:]}"
            ) from exc
    return namespace
