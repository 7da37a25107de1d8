"""Run a lesson's solution top to bottom as a plain script.

A GPU box without Jupyter runs ``solutions/NN/NN.py`` this way, and so do
``course demo`` and the test suite. (As a notebook, the same source runs in
``nbgrader validate``: see :func:`autograder.grading.validate_notebook`.)
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from autograder.lessons import find_lesson


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
    ``env`` to a folder to save them there. The script runs in a scratch copy
    of its folder, so what it writes (Day 03's profiler trace) never lands in
    ``solutions/``.
    """
    source = find_lesson(lesson)
    with tempfile.TemporaryDirectory(prefix=f"{source.stem}-") as work:
        shutil.copytree(
            source.parent,
            work,
            dirs_exist_ok=True,
            ignore=shutil.ignore_patterns("*.py", "__pycache__", ".ipynb_checkpoints"),
        )
        return _run(source, Path(work), timeout, env)


def _run(
    source: Path, cwd: Path, timeout: float, env: dict[str, str] | None
) -> RunResult:
    run_env = dict(os.environ, MPLBACKEND="Agg", PYTHONUNBUFFERED="1")
    run_env.update(env or {})
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            [sys.executable, str(source)],
            cwd=cwd,
            env=run_env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        ok, output = proc.returncode == 0, proc.stdout + proc.stderr
    except subprocess.TimeoutExpired as exc:
        ok, output = False, f"timed out after {timeout} s\n{exc.stdout or ''}"
    return RunResult(source.stem, ok, time.perf_counter() - start, output)
