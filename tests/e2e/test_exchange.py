"""The whole nbgrader classroom cycle, in a temporary exchange, with two students.

instructor releases Day 01 -> students fetch -> alice submits the reference
answers, bob one mistake -> instructor collects -> ``course grade`` (into the
course's gradebook: ``nbgrader export`` agrees, a manual score survives a rerun)
-> feedback released -> students fetch their feedback. Grades and files are
checked exactly.
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.lessons import REPO_ROOT, find_lesson, source_to_notebook
from autograder.samples import all_samples, expected_score, points
from autograder.scratch import write_course_config

LESSON = "01_devices"
COURSE = "gpu-course"
pytestmark = pytest.mark.slow


def _nbgrader(args, cwd: Path, env: dict[str, str]) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "nbgrader", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, f"nbgrader {args[0]} failed:\n{proc.stderr[-3000:]}"
    return proc.stdout + proc.stderr


def _answer(notebook: Path, answers: dict[str, str]) -> None:
    """Fill the fetched student notebook as a student would, cell by cell."""
    nb = nbformat.read(notebook, as_version=4)
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in answers:
            cell.source = answers[grade_id]
    nbformat.write(nb, notebook)


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
    _nbgrader(["release_assignment", LESSON, *teacher], instructor, env)

    solution = {
        c.metadata["nbgrader"]["grade_id"]: c.source
        for c in source_to_notebook(find_lesson(LESSON)).cells
        if c.metadata.get("nbgrader", {}).get("solution")
    }
    mistake = next(s for s in all_samples([LESSON]) if s.name == "forgets-mps")
    students = {"alice": solution, "bob": {**solution, **mistake.answers}}
    for name, answers in students.items():
        home = tmp_path / name
        home.mkdir()
        student = [
            "--course",
            COURSE,
            f"--Exchange.root={exchange}",
            f"--Exchange.cache={home / '.cache'}",
        ]
        _nbgrader(["fetch_assignment", LESSON, *student], home, env)
        fetched = home / LESSON / f"{LESSON}.ipynb"
        assert fetched.is_file()
        assert "BEGIN SOLUTION" not in fetched.read_text(encoding="utf-8")
        _answer(fetched, answers)
        _nbgrader(["submit", LESSON, *student, f"--student={name}"], home, env)

    _nbgrader(["collect", LESSON, *teacher], instructor, env)
    submitted = instructor / "submitted"
    assert sorted(p.name for p in submitted.iterdir()) == ["alice", "bob"]

    out = instructor / "grading"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "autograder",
            "grade",
            str(submitted),
            "--assignment",
            LESSON,
            "--out",
            str(out),
            "--nbgrader-feedback",
            "--quiet",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        grades = {row["student"]: row for row in csv.DictReader(handle)}
    total = sum(points(LESSON).values())
    assert float(grades["alice"]["total"]) == total
    assert float(grades["bob"]["total"]) == expected_score(mistake) < total
    assert {g["status"] for g in grades.values()} == {"graded"}

    # The course's own gradebook holds the grades: formgrader reads it, and
    # nbgrader's own export gives the same totals as grades.csv.
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{instructor / 'gradebook.db'}") as gradebook:
        seen = {
            name: float(gradebook.find_submission(LESSON, name).score)
            for name in students
        }
    assert seen == {n: float(grades[n]["total"]) for n in students}
    for name in students:
        assert (instructor / "autograded" / name / LESSON / f"{LESSON}.ipynb").is_file()
    _nbgrader(["export", "--to", str(tmp_path / "export.csv")], instructor, env)
    with open(tmp_path / "export.csv", newline="", encoding="utf-8") as handle:
        exported = {r["student_id"]: float(r["score"]) for r in csv.DictReader(handle)}
    assert exported == seen
    # An instructor's manual score survives a later autograde rerun.
    with Gradebook(f"sqlite:///{instructor / 'gradebook.db'}") as gradebook:
        grade = gradebook.find_grade("01-pick-device-test", LESSON, LESSON, "bob")
        grade.manual_score = 0.5
        gradebook.db.commit()
    again = subprocess.run(
        [
            sys.executable,
            "-m",
            "autograder",
            "grade",
            str(submitted),
            "--lesson",
            LESSON,
            "--out",
            str(tmp_path / "rerun"),
            "--quiet",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert again.returncode == 0, again.stderr[-3000:]
    with Gradebook(f"sqlite:///{instructor / 'gradebook.db'}") as gradebook:
        grade = gradebook.find_grade("01-pick-device-test", LESSON, LESSON, "bob")
        assert grade.manual_score == 0.5 and grade.auto_score == 1.0
        assert float(gradebook.find_submission(LESSON, "alice").score) == total

    for name in students:
        placed = instructor / "feedback" / name / LESSON
        assert (placed / f"{LESSON}.html").is_file()
        assert (placed / "timestamp.txt").is_file()
    _nbgrader(["release_feedback", LESSON, *teacher], instructor, env)
    for name in students:
        home = tmp_path / name
        student = [
            "--course",
            COURSE,
            f"--Exchange.root={exchange}",
            f"--Exchange.cache={home / '.cache'}",
            f"--student={name}",
        ]
        _nbgrader(["fetch_feedback", LESSON, *student], home, env)
        (page,) = (home / LESSON / "feedback").glob(f"*/{LESSON}.html")
        html = page.read_text(encoding="utf-8")
        assert html == (out / "feedback" / LESSON / f"{name}.html").read_text(
            encoding="utf-8"
        )
        assert "BEGIN HIDDEN TESTS" not in html and "_ref_" not in html
        score = float(grades[name]["total"])
        assert f"Score: {score:g}" in html or f"{score:g} / {total:g}" in html
