"""The `course` command line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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


def test_the_lesson_comes_from_the_cells_before_the_file_name(tmp_path):
    from autograder.lessons import REPO_ROOT, lesson_of

    day04 = REPO_ROOT / "notebooks" / "04_call_magic" / "04_call_magic.ipynb"
    renamed = tmp_path / "01_devices-but-really-day-4.ipynb"
    renamed.write_bytes(day04.read_bytes())
    assert lesson_of(renamed) == "04_call_magic"
    (tmp_path / "02_migration_broken.ipynb").write_text("{not json")
    assert lesson_of(tmp_path / "02_migration_broken.ipynb") == "02_migration"
    (tmp_path / "nothing.ipynb").write_text("{}")
    assert lesson_of(tmp_path / "nothing.ipynb") is None


@pytest.mark.slow
def test_two_checks_at_once_both_succeed_with_their_own_feedback(tmp_path):
    from autograder.lessons import find_lesson, source_to_notebook, write_notebook

    runs = []
    for lesson in ("01_devices", "04_call_magic"):
        mine = tmp_path / f"mine-{lesson[:2]}.ipynb"  # the name does not say
        write_notebook(source_to_notebook(find_lesson(lesson)), mine)
        runs.append(
            subprocess.Popen(
                [sys.executable, "-m", "autograder", "check", str(mine)]
                + ["--out", str(tmp_path / "out")],
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
        )
    outputs = [run.communicate(timeout=600)[0] for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    pages = []
    for text, full in zip(outputs, ("12 / 12", "12 / 12"), strict=True):
        assert f"graded, {full}" in text, text
        pages.append(text.split("feedback page: ")[1].split()[0])
    assert pages[0] != pages[1] and all(Path(p).is_file() for p in pages)


def test_course_check_keeps_line_breaks_and_never_cuts_a_word():
    from autograder.cli.check import shown_lines
    from autograder.grading.result_nodes import clip

    text = "AssertionError: shapes differ\n  yours (3,)\x1b[31m"
    assert shown_lines(text, "    ") == (
        "AssertionError: shapes differ\n      yours (3,)\\x1b[31m"
    )
    long = "the gradient of every parameter differs " * 20
    cut = clip(long, 100)
    assert len(cut) <= 100 and cut.endswith("\u2026")
    assert long.startswith(cut[:-1]) and long[len(cut) - 1] == " "
    assert clip("short", 100) == "short"
