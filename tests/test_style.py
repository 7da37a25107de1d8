"""Code and lessons follow the project's style rules (ruff, 88-character lines)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _ruff(*args: str) -> subprocess.CompletedProcess:
    exe = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    if not Path(exe).exists():
        pytest.skip("ruff is not installed (pip install -e .[dev])")
    return subprocess.run([exe, *args], cwd=ROOT, capture_output=True, text=True)


def test_ruff_check_is_clean():
    proc = _ruff("check", "course", "autograder", "tests", "solutions")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_format_is_clean():
    proc = _ruff("format", "--check", "course", "autograder", "tests")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_lesson_lines_fit_in_88_characters():
    long_lines = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted((ROOT / "solutions").rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if len(line) > 88
    ]
    assert long_lines == []


#: The formatter's off switches (spelt apart, so this file does not hold them).
FORMATTER_OFF = ("skip", "off")


def test_modules_are_read_in_one_sitting_and_formatted_as_written():
    """Each module of the course, the grader and the tests holds at most 400
    lines, kept so by splitting it by job, never by turning the formatter off."""
    long, unformatted = [], []
    for part in ("course", "autograder", "tests"):
        for path in sorted((ROOT / part).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            name = str(path.relative_to(ROOT))
            if text.count("\n") > 400:
                long.append(f"{name}: {text.count(chr(10))} lines")
            if any(f"fmt: {word}" in text for word in FORMATTER_OFF):
                unformatted.append(name)
    assert long == [], "split these by job:\n" + "\n".join(long)
    assert unformatted == [], "let the formatter format:\n" + "\n".join(unformatted)
