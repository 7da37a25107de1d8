"""The `course` command line."""

from __future__ import annotations

import subprocess
import sys

import pytest

from autograder.cli import build_parser, main


def test_doctor_prints_the_environment_and_exits_zero(capsys):
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    for row in (
        "python",
        "torch",
        "torch.cuda.is_available()",
        "cupy usable",
        "torch device for lessons",
        "array backend (xp) for lessons",
        "nbgrader extensions",
    ):
        assert row in out


def test_doctor_respects_force_cpu(capsys, monkeypatch):
    monkeypatch.setenv("COURSE_FORCE_CPU", "1")
    main(["doctor"])
    out = capsys.readouterr().out
    assert "cpu (COURSE_FORCE_CPU is set)" in out


def test_every_command_has_help():
    parser = build_parser()
    help_text = parser.format_help()
    for command in ("doctor", "release", "demo"):
        assert command in help_text


def test_unknown_lesson_is_a_one_line_error(capsys):
    assert main(["release", "--check", "42_nothing"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("course release: error: No lesson named '42_nothing'")
    assert len(err.splitlines()) == 1


def test_module_and_console_entry_points_work():
    proc = subprocess.run(
        [sys.executable, "-m", "course", "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0 and "doctor" in proc.stdout


@pytest.mark.slow
def test_release_check_passes_on_a_clean_tree(capsys):
    assert main(["release", "--check"]) == 0
    assert "up to date" in capsys.readouterr().out
