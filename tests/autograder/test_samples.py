"""Every shipped sample submission gets exactly the score written next to it.

One `course grade` run over all samples of all lessons (a platform-style export
of about fifty notebooks): references full marks, blank notebooks zero, each
mistake and each cheating attempt exactly the points it deserves, tampering
flagged, broken files reported, and nothing written outside the output folder.
"""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from autograder.classgrade import grade_class
from autograder.lessons import REPO_ROOT
from autograder.samples import (
    all_samples,
    check_files,
    compare,
    expected_score,
    write_samples,
)
from tests.once import once_per_run

# The first test here grades every case once for the module (about 13 minutes
# on 2 cores, more when the machine is shared): longer than the suite's
# default limit, which is meant for one test's own work.
pytestmark = pytest.mark.timeout(2400)

# Folders other tests write on purpose, possibly while the samples are graded.
_OTHER_TESTS = {"screenshots", "bench-results", "gpu-check"}


def _tree_state(root):
    """Modification times of the project's own files (caches, tools' dot-folders
    such as .venv, .git or .hypothesis, and other tests' output folders, which
    may change meanwhile, excluded)."""
    return {
        str(p.relative_to(root)): p.stat().st_mtime_ns
        for p in root.rglob("*")
        if p.is_file()
        and not any(part.startswith(".") for part in p.relative_to(root).parts[:-1])
        and p.relative_to(root).parts[0] not in _OTHER_TESTS
        and "__pycache__" not in p.parts
    }


@dataclass(frozen=True)
class GradedSamples:
    """Every sample, graded once: what was expected, what came out, and the repo
    before and after (nothing may appear in it)."""

    samples: list
    report: Any
    out: Path
    before: dict
    after: dict
    folder: Path


@pytest.fixture(scope="session")
def graded(tmp_path_factory) -> GradedSamples:
    """Graded once per test run (:func:`tests.once.once_per_run`)."""
    return once_per_run(tmp_path_factory, "samples", lambda: _grade(tmp_path_factory))


def _grade(tmp_path_factory) -> GradedSamples:
    folder = tmp_path_factory.mktemp("samples")
    samples = write_samples(folder)
    out = tmp_path_factory.mktemp("grading")
    before = _tree_state(REPO_ROOT)
    report = grade_class(folder, out_dir=out, jobs=os.cpu_count(), progress=False)
    after = _tree_state(REPO_ROOT)
    return GradedSamples(samples, report, out, before, after, folder)


@pytest.mark.slow
@pytest.mark.xdist_group("samples")
def test_every_sample_scores_exactly_as_expected(graded):
    samples, report = graded.samples, graded.report
    assert compare(samples, report.results) == []


@pytest.mark.slow
@pytest.mark.xdist_group("samples")
def test_samples_cover_every_lesson_and_every_attack(graded):
    samples = graded.samples
    lessons = {s.lesson for s in samples}
    assert len(lessons) == len(
        {p.parent.name for p in (REPO_ROOT / "solutions").glob("*/*.py")}
    )
    for lesson in lessons:
        kinds = [s.kind for s in samples if s.lesson == lesson]
        assert kinds.count("reference") == 1 and kinds.count("blank") == 1
        assert kinds.count("mistake") >= 2, lesson
    kinds = {s.kind for s in samples}
    assert {"adversarial", "tampered", "broken"} <= kinds


#: Each Day's central mistake, as a sample: the visible test that catches it
#: (it must score zero there, checked when the samples are graded) is where a
#: student learns of it, on a CPU, before any hidden test.
CENTRAL_MISTAKES = {
    "01_devices": ("forgets-mps", "01-pick-device-test"),
    "02_migration": ("moves-parameters-only", "02-build-model-test"),
    "03_sync_trap": ("item-every-epoch", "03-train-test"),
    "04_call_magic": ("calls-forward", "04-predict-test"),
    "05_numpy_to_cupy": ("converts-to-numpy", "05-standardize-test"),
    "06_linear_regression": ("logs-on-host", "06-fit-gd-test"),
    "07_logistic_regression": ("naive-sigmoid", "07-sigmoid-test"),
    "08_neural_network": ("forgets-biases", "08-init-test"),
    "09_kernels": ("missing-syncthreads", "09-reduce-test"),
    "10_launches": ("loop-update", "10-lean-step-test"),
    "11_feeding_the_gpu": ("mistake-compute-stream", "11-prefetch-test"),
}


def test_every_days_central_mistake_fails_a_visible_test():
    samples = {(s.lesson, s.name): s for s in all_samples()}
    assert set(CENTRAL_MISTAKES) == {
        p.parent.name for p in (REPO_ROOT / "solutions").glob("*/*.py")
    }
    for lesson, (name, visible) in CENTRAL_MISTAKES.items():
        sample = samples[(lesson, name)]
        assert sample.kind == "mistake", (lesson, name)
        assert visible in sample.zero and not visible.endswith("hidden-test")


def test_expected_csv_matches_the_samples(tmp_path):
    samples = write_samples(tmp_path)
    folder = tmp_path
    rows = list(csv.DictReader(open(folder / "expected.csv", encoding="utf-8")))
    assert len(rows) == len(samples)
    for row, sample in zip(rows, samples):
        assert float(row["expected_score"]) == expected_score(sample)


@pytest.mark.slow
@pytest.mark.xdist_group("samples")
def test_grading_writes_nothing_outside_its_output_folder(graded):
    before, after = graded.before, graded.after
    assert before == after


def test_sample_list_is_consistent():
    samples = all_samples()
    keys = [(s.name, s.lesson) for s in samples]
    assert len(keys) == len(set(keys)), "two samples share a student id"
    for s in samples:
        assert s.why
    # Each file's named score agrees with the cells it says score zero.
    assert check_files(samples) == []


def _course_for(root, lesson, entries):
    """A course root of its own for one lesson, with its submissions."""
    import shutil

    from autograder.config.settings import write_course_config
    from autograder.lessons.scratch import ScratchCourse

    ScratchCourse(root, keep=True).generate(lesson)
    write_course_config(root)
    for student, path in entries:
        target = root / "submitted" / student / lesson / f"{lesson}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)


def _plain_autograde(root, lesson, students) -> dict:
    """`nbgrader autograde LESSON` run at ``root``; per-cell scores per student,
    and the cells nbgrader marks "needs manual grade"."""
    import subprocess
    import sys

    from nbgrader.api import Gradebook

    env = dict(
        os.environ, PATH=f"{os.path.dirname(sys.executable)}:{os.environ['PATH']}"
    )
    done = subprocess.run(
        [sys.executable, "-m", "nbgrader", "autograde", lesson, "--force"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, (
        f"nbgrader autograde {lesson} exited with {done.returncode}:\n"
        f"{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    )
    scores, manual = {}, {}
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        for student in students:
            nb = gradebook.find_submission_notebook(lesson, lesson, student)
            scores[student] = {
                g.name: [float(g.score), float(g.max_score)] for g in nb.grades
            }
            manual[student] = sorted(g.name for g in nb.grades if g.needs_manual_grade)
    return scores, manual


@pytest.mark.slow
@pytest.mark.xdist_group("samples")
def test_plain_nbgrader_autograde_gives_the_same_grades(graded, tmp_path):
    """The chain is nbgrader's own: `nbgrader autograde` with the course config,
    at a course root as an instructor runs it, grades the reference and one
    mistake of every lesson alike (one course per lesson, two lessons at a
    time; every other sample is graded by `course grade` alone)."""
    from concurrent.futures import ThreadPoolExecutor

    samples, report, folder = graded.samples, graded.report, graded.folder
    mine = [s for s in samples if s.status == "graded" and s.kind == "reference"]
    for lesson in sorted({s.lesson for s in mine}):
        mistakes = [s for s in samples if s.lesson == lesson and s.kind == "mistake"]
        mine.append(mistakes[0])
    lessons = sorted({s.lesson for s in mine})
    students = {
        lesson: [s.name for s in mine if s.lesson == lesson] for lesson in lessons
    }
    for lesson in lessons:
        _course_for(
            tmp_path / lesson,
            lesson,
            [(st, folder / f"{st}_{lesson}.ipynb") for st in students[lesson]],
        )
    with ThreadPoolExecutor(max_workers=2) as pool:  # each runs a subprocess
        runs = {
            lesson: pool.submit(
                _plain_autograde, tmp_path / lesson, lesson, students[lesson]
            )
            for lesson in lessons
        }
        plain = {lesson: run.result() for lesson, run in runs.items()}
    ours = {(r.student, r.lesson): r for r in report.results}
    for s in mine:
        scores, manual = plain[s.lesson]
        assert scores[s.name] == ours[(s.name, s.lesson)].per_question, s.name
        # formgrader's triage: the course gradebook marks "needs manual grade"
        # on the cells only a person can grade (auto score None,
        # classgrade/gradebook.py), which must be nbgrader's own cells
        assert manual[s.name] == sorted(ours[(s.name, s.lesson)].manual), s.name
