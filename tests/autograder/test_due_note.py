"""Students see the due date: ``course due`` writes it beside the lesson's
release from the gradebook, in the course's time zone, and ``course check``
reads it there."""

from __future__ import annotations

from datetime import datetime

import pytest

from autograder.cli import main
from autograder.cli.due import DUE_NOTE, note_text, read_note


def test_the_note_gives_the_course_s_zone_and_utc():
    text = note_text("01_devices", datetime(2026, 12, 1, 16, 0), "Europe/Paris")
    assert text.startswith(
        "01_devices is due 2026-12-01 17:00 Europe/Paris (2026-12-01 16:00 UTC)."
    )
    assert "2026-12-01 16:00 UTC." in note_text("01", datetime(2026, 12, 1, 16, 0))


def _course(tmp_path, zone: str | None):
    from nbgrader.api import Gradebook

    from autograder.config.settings import put_python_on_path, write_course_config

    put_python_on_path()  # nbgrader migrates a new gradebook with alembic

    course = tmp_path / "course"
    course.mkdir()
    write_course_config(course)
    if zone:
        with open(course / "nbgrader_config.py", "a", encoding="utf-8") as handle:
            handle.write(f"c.DueDates.time_zone = {zone!r}\n")
    book = course / "gradebook.db"
    with Gradebook(f"sqlite:///{book}") as gradebook:
        gradebook.add_assignment("01_devices", duedate=datetime(2026, 12, 1, 16, 0))
        gradebook.add_assignment("02_migration")
    return book


def test_course_due_writes_the_note_beside_the_release(tmp_path, capsys):
    book = _course(tmp_path, "Asia/Shanghai")
    release = tmp_path / "release" / "01_devices"
    release.mkdir(parents=True)
    notebook = release / "01_devices.ipynb"
    assert read_note(notebook) is None
    args = ["due", "01", "--gradebook", str(book), "--to", str(release)]
    assert main(args) == 0
    # the hint works as written, for a Day released before too
    assert "nbgrader release_assignment 01_devices --force" in capsys.readouterr().out
    assert (release / DUE_NOTE).is_file()
    assert read_note(notebook) == (
        "01_devices is due 2026-12-02 00:00 Asia/Shanghai (2026-12-01 16:00 UTC)."
    )


@pytest.mark.parametrize(
    "args, words",
    [
        (["due", "02", "--to", "{tmp}"], "02_migration has no due date"),
        (["due", "01", "--gradebook", "{tmp}/none.db"], "is not a gradebook"),
    ],
)
def test_without_a_due_date_it_says_how_to_set_one(tmp_path, capsys, args, words):
    book = _course(tmp_path, None)
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    if "--gradebook" not in args:
        args += ["--gradebook", str(book)]
    assert main(args) != 0
    assert words in capsys.readouterr().err


def test_an_unknown_course_zone_is_named():
    with pytest.raises(ValueError, match="unknown time zone 'Mars/Olympus'"):
        note_text("01_devices", datetime(2026, 12, 1, 16, 0), "Mars/Olympus")
