"""Canvas and Moodle grade files from nbgrader's gradebook, read as each LMS does."""

from __future__ import annotations

import csv
import os
import subprocess
import sys

import pytest
from nbgrader.api import Gradebook

from autograder.config.settings import put_python_on_path
from autograder.lessons import REPO_ROOT

#: ann scores 2 + 3 of 5 on Day 01, but was late: a 1.5-point penalty leaves 3.5;
#: on Day 02 the autograder gave her 1 of 4 and her instructor 4 by hand. bob
#: scores 1 of 5 on Day 01 and nothing on Day 02; cat submitted nothing; dee,
#: who submitted nothing either, has no lms_user_id in the roster.
EXPECTED = {"ann": ("3.5", "4"), "bob": ("1", ""), "cat": ("", ""), "dee": ("", "")}


@pytest.fixture
def course(tmp_path):
    put_python_on_path()  # nbgrader runs alembic by name
    root = tmp_path / "course"
    root.mkdir()
    (root / "nbgrader_config.py").write_text(
        f"c = get_config()\nc.CourseDirectory.root = {str(root)!r}\n"
    )
    with Gradebook(f"sqlite:///{root}/gradebook.db") as gb:
        for lesson, cells in (
            ("01_devices", {"01-a-test": 2, "01-b-test": 3}),
            ("02_migration", {"02-a-test": 4}),
        ):
            gb.add_assignment(lesson)
            gb.add_notebook(lesson, lesson)
            for cell, points in cells.items():
                gb.add_grade_cell(
                    cell, lesson, lesson, max_score=points, cell_type="code"
                )
        for sid, first, last, lms in (
            ("ann", "Ann", "Lee", "1001"),
            ("bob", "Bob", "Ng", "1002"),
            ("cat", "Cat", "Ode", "1003"),
            ("dee", "Dee", "Poe", None),
        ):
            gb.add_student(
                sid,
                first_name=first,
                last_name=last,
                email=f"{sid}@example.org",
                lms_user_id=lms,
            )
        scores = {
            ("ann", "01_devices"): {"01-a-test": 2, "01-b-test": 3},
            ("ann", "02_migration"): {"02-a-test": 1},
            ("bob", "01_devices"): {"01-a-test": 1, "01-b-test": 0},
        }
        for (sid, lesson), cells in scores.items():
            gb.add_submission(lesson, sid)
            for cell, score in cells.items():
                gb.find_grade(cell, lesson, lesson, sid).auto_score = score
        gb.find_grade(
            "02-a-test", "02_migration", "02_migration", "ann"
        ).manual_score = 4
        late = gb.find_submission_notebook("01_devices", "01_devices", "ann")
        late.late_submission_penalty = 1.5
        gb.db.commit()
    return root


def _export(root, exporter, *extra):
    out = root / f"{exporter}.csv"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "nbgrader",
            "export",
            f"--exporter=autograder.classgrade.lms.{exporter}",
            f"--to={out}",
            *extra,
        ],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with open(out, newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle)), proc.stderr


@pytest.mark.slow
def test_canvas_file_has_canvas_columns_points_possible_and_one_row_per_student(course):
    rows, warned = _export(
        course, "CanvasExport", "--CanvasExport.assignment_ids={'01_devices': '777'}"
    )
    head, possible, *students = rows
    assert head == [
        "Student",
        "ID",
        "SIS User ID",
        "SIS Login ID",
        "Section",
        "01_devices (777)",
        "02_migration",
    ]
    assert possible[0] == "Points Possible" and possible[5:] == ["5", "4"]
    # Canvas matches on ID; the SIS columns hold only what the roster is told to
    assert [r[:4] for r in students] == [
        ["Lee, Ann", "1001", "", ""],
        ["Ng, Bob", "1002", "", ""],
        ["Ode, Cat", "1003", "", ""],
    ]
    assert {r[1]: tuple(r[5:]) for r in students} == {
        "1001": EXPECTED["ann"],
        "1002": EXPECTED["bob"],
        "1003": EXPECTED["cat"],
    }
    assert "Left out 1 student(s) without lms_user_id" in warned and "dee" in warned
    rows, warned = _export(
        course,
        "CanvasExport",
        "--CanvasExport.sis_user_id=id",
        "--CanvasExport.sis_login_id=email",
    )
    students = rows[2:]
    assert [r[2] for r in students] == ["ann", "bob", "cat", "dee"]
    assert students[3][1:4] == ["", "dee", "dee@example.org"]
    assert {r[2]: tuple(r[5:]) for r in students} == EXPECTED
    assert (
        "1 student(s) without lms_user_id in the roster (Canvas's ID), matched by"
        in (warned)
    )


@pytest.mark.slow
def test_moodle_file_has_an_identifier_and_points_per_lesson(course):
    rows, _ = _export(course, "MoodleExport")
    assert rows[0] == ["Email address", "01_devices", "02_migration"]
    assert {r[0].split("@")[0]: tuple(r[1:]) for r in rows[1:]} == EXPECTED
    rows, warned = _export(
        course, "MoodleExport", "--MoodleExport.identifier=ID number"
    )
    assert rows[0][0] == "ID number" and [r[0] for r in rows[1:]] == [
        "1001",
        "1002",
        "1003",
    ]
    assert "Left out 1 student(s) without ID number in the roster: dee" in warned


@pytest.mark.slow
def test_scores_equal_nbgrader_own_csv_export(course):
    ours, _ = _export(course, "MoodleExport")
    out = course / "nbgrader.csv"
    subprocess.run(
        [sys.executable, "-m", "nbgrader", "export", f"--to={out}"],
        cwd=course,
        check=True,
        capture_output=True,
        timeout=120,
    )
    with open(out, newline="", encoding="utf-8") as handle:
        theirs = {(r["student_id"], r["assignment"]): r for r in csv.DictReader(handle)}
    lessons = ours[0][1:]
    for row in ours[1:]:
        student = row[0].split("@")[0]
        for lesson, score in zip(lessons, row[1:], strict=True):
            nbgrader_score = float(theirs[(student, lesson)]["score"])
            # nbgrader writes 0 for work never submitted; the LMS file leaves it empty
            assert (float(score) if score else 0.0) == nbgrader_score
    # the course's own read of the store (grades.csv, feedback pages) agrees
    from autograder.classgrade.gradebook import CourseBook

    with CourseBook(course / "gradebook.db") as book:
        marks = book.marks(theirs)
    assert len(marks) == 3
    for (student, lesson), found in marks.items():
        row = theirs[(student, lesson)]
        assert found.final == pytest.approx(float(row["score"]), abs=1e-9)
        assert found.max == pytest.approx(float(row["max_score"]), abs=1e-9)
