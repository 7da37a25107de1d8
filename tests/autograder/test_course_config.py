"""One config for a run: the instructor's root ``nbgrader_config.py`` governs
``course grade`` as it governs nbgrader, read once, and carried to each job."""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder.config import settings
from autograder.config.settings import (
    course_config,
    grading_config,
    instructor_config,
    job_settings,
    write_course_config,
)

LESSON = "01_devices"


def _course(tmp_path: Path, *lines: str) -> Path:
    course = tmp_path / "course"
    course.mkdir()
    write_course_config(course)
    with open(course / "nbgrader_config.py", "a", encoding="utf-8") as handle:
        handle.write("".join(f"{line}\n" for line in lines))
    return course


def test_a_config_file_is_read_once_and_each_caller_gets_its_own_copy(tmp_path):
    course = _course(tmp_path, "c.GradingExecute.timeout = 7")
    first = instructor_config(course)
    loads = settings._loaded.cache_info().misses
    second = instructor_config(course)
    assert settings._loaded.cache_info().misses == loads  # not read again
    assert second.GradingExecute.timeout == 7
    first.GradingExecute.timeout = 1
    assert instructor_config(course).GradingExecute.timeout == 7
    (course / "nbgrader_config.py").write_text(
        "c = get_config()\nc.GradingExecute.timeout = 9\n"
    )
    assert instructor_config(course).GradingExecute.timeout == 9  # changed: read


def test_the_instructor_sets_limits_over_the_course_s_own(tmp_path):
    course = _course(
        tmp_path,
        "c.GradingExecute.timeout = 7",
        "c.LimitOutput.max_lines = 50",
        "c.CourseDirectory.submitted_directory = 'inbox'",
    )
    merged = course_config(course)
    assert merged.GradingExecute.timeout == 7
    assert merged.GradingExecute.max_output_bytes == 2_000_000  # the course's
    carried = job_settings(merged)
    assert carried == {
        "GradingExecute": {"timeout": 7},
        "LimitOutput": {"max_lines": 50},
    }
    job = grading_config(tmp_path / "job", carried)
    assert job.GradingExecute.timeout == 7 and job.LimitOutput.max_lines == 50
    assert job.CourseDirectory.root == str((tmp_path / "job").resolve())
    assert job_settings(course_config(None)) == {}  # the course's own: nothing


def test_a_root_without_a_config_runs_under_the_course_s_own(tmp_path):
    assert course_config(tmp_path).GradingExecute.timeout == (
        instructor_config(None).GradingExecute.timeout
    )


@pytest.mark.slow
def test_course_grade_runs_under_the_instructor_s_time_limit(tmp_path):
    """``c.GradingExecute.timeout`` in the course root's config, and no
    ``--timeout``: an endless answer is stopped after the instructor's 3 s."""
    from autograder.classgrade import grade_class
    from tests.lesson_helpers import submission

    course = _course(tmp_path, "c.GradingExecute.timeout = 3")
    folder = tmp_path / "in"
    folder.mkdir()
    endless = "def largest_square_matrix(free_bytes, dtype=None, copies=3):\n"
    endless += "    while True:\n        pass\n"
    submission(LESSON, folder / f"ann_{LESSON}.ipynb", {"01-largest-matrix": endless})
    report = grade_class(
        folder,
        LESSON,
        out_dir=tmp_path / "out",
        jobs=1,
        progress=False,
        gradebook=course / "gradebook.db",
    )
    (result,) = report.results
    assert result.status == "graded"
    assert result.per_question["01-largest-matrix-test"][0] == 0.0
    page = Path(result.feedback).read_text(encoding="utf-8")
    assert "ran past the 3 s a test may take" in page, (
        "the instructor's limit did not apply"
    )
