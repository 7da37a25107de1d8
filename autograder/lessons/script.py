"""Run a lesson's solution top to bottom as a plain script.

A GPU box without Jupyter runs ``solutions/NN/NN.py`` this way, and so do
``course demo`` and the test suite. (As a notebook, the same source runs in
``nbgrader validate``: see :func:`autograder.grading.validate_notebook`.)
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass

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
