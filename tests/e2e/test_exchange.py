"""The whole nbgrader classroom cycle, in a temporary exchange, with two students.

instructor releases Day 01 -> students fetch -> alice submits the reference
answers on time, bob one mistake 2.5 hours late -> instructor collects ->
``course grade --due`` (into the course's gradebook, with the per-hour late
penalty: ``nbgrader export`` agrees; a rerun with nothing changed changes
nothing; ``--student bob --question ...`` rewrites that one score and keeps a
manual score) -> feedback released -> students fetch their feedback. Grades and
files are checked exactly.
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from autograder.config.settings import write_course_config
from autograder.lessons import REPO_ROOT
from autograder.samples import all_samples, expected_score, points
from tests.lesson_helpers import fill_answers
from tests.term import answers as reference_answers
from tests.term import as_student, nbgrader

LESSON = "01_devices"
COURSE = "gpu-course"
pytestmark = pytest.mark.slow


def _course(args, env: dict[str, str]) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", *args, "--quiet"],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def _rows(db: Path) -> list[tuple]:
    """Every grade and submission row that grading writes, in a fixed order."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{db}") as gradebook:
        rows = []
        for student in sorted(s.id for s in gradebook.students):
            sub = gradebook.find_submission(LESSON, student)
            rows.append((student, str(sub.timestamp), sub.late_submission_penalty))
            for grade in sorted(sub.notebooks[0].grades, key=lambda g: g.name):
                rows.append((student, grade.name, grade.auto_score, grade.manual_score))
        return rows


def _set_auto(db: Path, scores: dict[tuple[str, str], float]) -> None:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{db}") as gradebook:
        for (student, cell), score in scores.items():
            gradebook.find_grade(cell, LESSON, LESSON, student).auto_score = score
        gradebook.db.commit()


def test_release_fetch_submit_collect_grade_feedback(tmp_path):
    exchange = tmp_path / "exchange"
    exchange.mkdir()
    env = dict(
        os.environ,
        HOME=str(tmp_path / "home"),  # no stray ~/.jupyter config
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    )
    instructor = tmp_path / "instructor"  # a course root: notebooks/ is the release
    shutil.copytree(REPO_ROOT / "notebooks" / LESSON, instructor / "notebooks" / LESSON)
    write_course_config(instructor)  # what the root nbgrader_config.py does
    teacher = [f"--Exchange.root={exchange}"]
    nbgrader(["release_assignment", LESSON, *teacher], instructor, env)

    solution = reference_answers()
    mistake = next(s for s in all_samples([LESSON]) if s.name == "forgets-mps")
    students = {"alice": solution, "bob": {**solution, **mistake.answers}}
    for name, answers in students.items():
        home = tmp_path / name
        home.mkdir()
        student = as_student(home, exchange)
        nbgrader(["fetch_assignment", LESSON, *student], home, env)
        fetched = home / LESSON / f"{LESSON}.ipynb"
        assert fetched.is_file()
        assert "BEGIN SOLUTION" not in fetched.read_text(encoding="utf-8")
        fill_answers(fetched, answers)
        nbgrader(["submit", LESSON, *student, f"--student={name}"], home, env)

    nbgrader(["collect", LESSON, *teacher], instructor, env)
    submitted = instructor / "submitted"
    assert sorted(p.name for p in submitted.iterdir()) == ["alice", "bob"]

    # Late penalties: a due date an hour after alice's submission, bob 2.5 h
    # past it, and the per-hour example plugin in the course config.
    from autograder.classgrade.late import parse_stamp as parse_time

    stamp = (submitted / "alice" / LESSON / "timestamp.txt").read_text()
    due = parse_time(stamp) + timedelta(hours=1)
    late = due + timedelta(hours=2.5)
    (submitted / "bob" / LESSON / "timestamp.txt").write_text(
        late.strftime("%Y-%m-%d %H:%M:%S.%f UTC")
    )
    with open(instructor / "nbgrader_config.py", "a", encoding="utf-8") as config:
        config.write(
            "c.AssignLatePenalties.plugin_class = "
            '"autograder.classgrade.late.PerHourPenalty"\n'
            "c.PerHourPenalty.points_per_hour = 0.5\n"
        )

    out = instructor / "grading"
    db = instructor / "gradebook.db"
    first = [str(submitted), "--assignment", LESSON, "--out", str(out)]
    summary = _course(
        [*first, "--nbgrader-feedback", "--due", due.isoformat() + "Z"], env
    )
    assert "bob/01_devices: late by 2.50 h, 1.5 point(s) off (9 -> 7.5)" in summary
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        grades = {row["student"]: row for row in csv.DictReader(handle)}
    total = sum(points(LESSON).values())
    assert float(grades["alice"]["total"]) == total
    assert float(grades["bob"]["total"]) == expected_score(mistake) < total
    assert {g["status"] for g in grades.values()} == {"graded"}
    assert float(grades["alice"]["late_penalty"]) == 0.0
    assert float(grades["alice"]["final"]) == total
    assert float(grades["bob"]["hours_late"]) == pytest.approx(2.5, abs=1e-3)
    assert float(grades["bob"]["late_penalty"]) == 1.5
    assert float(grades["bob"]["final"]) == expected_score(mistake) - 1.5

    # The course's own gradebook holds the grades: formgrader reads it, and
    # nbgrader's own export gives the same totals as grades.csv.
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{db}") as gradebook:
        assert gradebook.find_assignment(LESSON).duedate == due
        seen = {}
        for name in students:
            submission = gradebook.find_submission(LESSON, name)
            seen[name] = (float(submission.score), submission.late_submission_penalty)
    assert seen == {
        n: (float(grades[n]["total"]), float(grades[n]["late_penalty"]))
        for n in students
    }
    for name in students:
        assert (instructor / "autograded" / name / LESSON / f"{LESSON}.ipynb").is_file()
    nbgrader(["export", "--to", str(tmp_path / "export.csv")], instructor, env)
    with open(tmp_path / "export.csv", newline="", encoding="utf-8") as handle:
        exported = {r["student_id"]: r for r in csv.DictReader(handle)}
    for name in students:
        assert float(exported[name]["raw_score"]) == float(grades[name]["total"])
        assert float(exported[name]["score"]) == float(grades[name]["final"])

    # An instructor's manual score; then a rerun that finds nothing changed
    # leaves every row as it was.
    with Gradebook(f"sqlite:///{db}") as gradebook:
        grade = gradebook.find_grade("01-usable-memory-test", LESSON, LESSON, "bob")
        grade.manual_score = 0.5
        gradebook.db.commit()
    before = _rows(db)
    again = _course([*first, "--due", due.isoformat() + "Z"], env)
    assert "0 graded now, 2 unchanged" in again
    assert _rows(db) == before
    # grades.csv reads the gradebook: bob's manual score is in his raw score,
    # his penalty off his final one, both as nbgrader's own export has them.
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        grades = {row["student"]: row for row in csv.DictReader(handle)}
    nbgrader(["export", "--to", str(tmp_path / "export2.csv")], instructor, env)
    with open(tmp_path / "export2.csv", newline="", encoding="utf-8") as handle:
        exported = {r["student_id"]: r for r in csv.DictReader(handle)}
    for name in students:
        assert float(exported[name]["raw_score"]) == float(grades[name]["raw"])
        assert float(exported[name]["score"]) == float(grades[name]["final"])
        # the points given by hand, blank where none were
        assert grades[name]["manual"] == ("0.5" if name == "bob" else "")
    bob = grades["bob"]
    cell = float(bob["01-usable-memory-test"])  # the autograder's score there
    assert float(bob["raw"]) == pytest.approx(float(bob["total"]) - cell + 0.5)
    # ... and so does his feedback page, as nbgrader's generate_feedback would.
    page = (out / "feedback" / LESSON / "bob.html").read_text(encoding="utf-8")
    assert "Late submission penalty (Score: -1.5)" in page
    assert f"(Score: {round(float(bob['final']), 2)} /" in page  # penalty off
    assert "(Score: 0.5 / 1.0)" in page  # the manual score of that cell

    # Regrade precisely: bob's one question is written again; his other scores,
    # his manual score and alice's rows stay as they are.
    _set_auto(
        db,
        {
            ("bob", "01-usable-memory-test"): 0.0,
            ("bob", "01-training-memory-test"): 0.125,
            ("alice", "01-usable-memory-test"): 0.25,
        },
    )
    _course(
        [*first, "--student", "bob", "--question", "01-usable-memory-test"]
        + ["--nbgrader-feedback"],
        env,
    )
    with Gradebook(f"sqlite:///{db}") as gradebook:

        def cell(name, student):
            return gradebook.find_grade(name, LESSON, LESSON, student)

        assert cell("01-usable-memory-test", "bob").auto_score == 1.0
        assert cell("01-usable-memory-test", "bob").manual_score == 0.5
        assert cell("01-training-memory-test", "bob").auto_score == 0.125
        assert cell("01-usable-memory-test", "alice").auto_score == 0.25
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        grades = {row["student"]: row for row in csv.DictReader(handle)}
    assert set(grades) == set(students)

    for name in students:
        placed = instructor / "feedback" / name / LESSON
        assert (placed / f"{LESSON}.html").is_file()
        assert (placed / "timestamp.txt").is_file()
    nbgrader(["release_feedback", LESSON, *teacher], instructor, env)
    for name in students:
        home = tmp_path / name
        student = [*as_student(home, exchange), f"--student={name}"]
        nbgrader(["fetch_feedback", LESSON, *student], home, env)
        (page,) = (home / LESSON / "feedback").glob(f"*/{LESSON}.html")
        html = page.read_text(encoding="utf-8")
        assert html == (out / "feedback" / LESSON / f"{name}.html").read_text(
            encoding="utf-8"
        )
        assert "BEGIN HIDDEN TESTS" not in html and "_ref_" not in html
        # bob's page, regraded last, shows the gradebook's final score as
        # grades.csv has it; alice's stays as the run before left it.
        if name == "bob":
            assert f"(Score: {round(float(grades[name]['final']), 2)} / " in html

    # An extension for bob, past his submission: his penalty goes, and the
    # next run (nothing regraded) shows his own due date in grades.csv and on
    # his feedback page.
    proc = subprocess.run(
        [sys.executable, "-m", "autograder", "extend", "bob", LESSON]
        + ["--until", (late + timedelta(hours=1)).isoformat() + "Z"]
        + ["--gradebook", str(db)],
        env=env,
        cwd=instructor,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "2.50 h late -> on time; late penalty 1.5 -> 0" in proc.stdout
    again = _course(first, env)
    assert "0 graded now, 2 unchanged" in again
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        grades = {row["student"]: row for row in csv.DictReader(handle)}
    assert grades["bob"]["extended_until"].startswith(
        (late + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M")
    )
    assert grades["alice"]["extended_until"] == ""
    assert float(grades["bob"]["late_penalty"]) == 0.0
    assert float(grades["bob"]["final"]) == float(grades["bob"]["raw"])
    page = (out / "feedback" / LESSON / "bob.html").read_text(encoding="utf-8")
    assert "Extension: your due date for this lesson is" in page
    assert "Late submission penalty" not in page


def test_a_mixed_language_class_through_the_exchange(tmp_path):
    """The Chinese edition handed out as a second course on the exchange
    (``gpu-course-zh``, released from ``notebooks-zh/``): each student fetches
    the notebook in their language, one collect per course fills the one
    ``submitted/``, one ``course grade`` grades both alike, and each student
    fetches their feedback page, in their language."""
    exchange = tmp_path / "exchange"
    exchange.mkdir()
    env = dict(
        os.environ,
        HOME=str(tmp_path / "home"),
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    )
    instructor = tmp_path / "instructor"
    for folder in ("notebooks", "notebooks-zh"):
        shutil.copytree(REPO_ROOT / folder / LESSON, instructor / folder / LESSON)
    write_course_config(instructor)
    courses = {
        "en": [f"--Exchange.root={exchange}"],
        "zh": [
            f"--Exchange.root={exchange}",
            f"--CourseDirectory.course_id={COURSE}-zh",
            "--CourseDirectory.release_directory=notebooks-zh",
        ],
    }
    for teacher in courses.values():
        nbgrader(["release_assignment", LESSON, *teacher], instructor, env)
    solution = reference_answers()
    students = {"alice": ("en", COURSE), "lin": ("zh", f"{COURSE}-zh")}
    for name, (lang, course) in students.items():
        home = tmp_path / name
        home.mkdir()
        student = as_student(home, exchange, course)
        nbgrader(["fetch_assignment", LESSON, *student], home, env)
        fetched = home / LESSON / f"{LESSON}.ipynb"
        assert ("学习目标" in fetched.read_text(encoding="utf-8")) == (lang == "zh")
        fill_answers(fetched, solution)
        nbgrader(["submit", LESSON, *student, f"--student={name}"], home, env)
    for teacher in courses.values():
        nbgrader(["collect", LESSON, *teacher], instructor, env)
    submitted = instructor / "submitted"
    assert sorted(p.name for p in submitted.iterdir()) == ["alice", "lin"]
    out = instructor / "grading"
    _course(
        [str(submitted), "--assignment", LESSON, "--out", str(out)]
        + ["--nbgrader-feedback"],
        env,
    )
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        grades = {row["student"]: row for row in csv.DictReader(handle)}
    total = sum(points(LESSON).values())
    assert {n: float(g["final"]) for n, g in grades.items()} == {
        "alice": total,
        "lin": total,
    }
    for teacher in courses.values():
        nbgrader(["release_feedback", LESSON, *teacher], instructor, env)
    for name, (lang, course) in students.items():
        home = tmp_path / name
        student = [*as_student(home, exchange, course), f"--student={name}"]
        nbgrader(["fetch_feedback", LESSON, *student], home, env)
        (page,) = (home / LESSON / "feedback").glob(f"*/{LESSON}.html")
        html = page.read_text(encoding="utf-8")
        assert ("学习目标" in html) == (lang == "zh"), name
