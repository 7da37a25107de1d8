"""Run a lesson's solution top to bottom: as a plain script, or as a notebook.

A GPU box without Jupyter runs ``solutions/NN/NN.py`` as a script; the test suite
and instructors run the same source as a notebook in a Jupyter kernel. Both
report how long the run took.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from autograder.lessons import REPO_ROOT, find_lesson


@dataclass(frozen=True)
class RunResult:
    """The outcome of running one lesson."""

    lesson: str
    ok: bool
    seconds: float
    output: str


def run_script(
    lesson: str, *, timeout: float = 600, env: dict[str, str] | None = None
) -> RunResult:
    """Run a lesson's solution source as a plain Python script.

    Figures are not shown (matplotlib's Agg backend); set ``COURSE_FIGURES`` in
    ``env`` to a folder to save them there.
    """
    source = find_lesson(lesson)
    run_env = dict(os.environ, MPLBACKEND="Agg", PYTHONUNBUFFERED="1")
    run_env.update(env or {})
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            [sys.executable, str(source)],
            cwd=source.parent,
            env=run_env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        ok, output = proc.returncode == 0, proc.stdout + proc.stderr
    except subprocess.TimeoutExpired as exc:
        ok, output = False, f"timed out after {timeout} s\n{exc.stdout or ''}"
    return RunResult(source.stem, ok, time.perf_counter() - start, output)


def execute_notebook(path: Path, *, timeout: float = 600) -> RunResult:
    """Execute a notebook in a fresh kernel, in its own folder; do not save it."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(Path(path).parent)}},
    )
    start = time.perf_counter()
    try:
        client.execute()
        ok, output = True, ""
    except CellExecutionError as exc:
        ok, output = False, str(exc)
    return RunResult(Path(path).stem, ok, time.perf_counter() - start, output)


__all__ = ["RunResult", "run_script", "execute_notebook", "REPO_ROOT"]
