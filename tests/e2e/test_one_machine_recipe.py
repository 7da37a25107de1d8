"""The Instructor guide's one-machine recipe, run exactly as written, on a copy of
the course.

The block under "## On one machine" is read from docs/guides/instructor.md and
run by bash
with nothing on ``PATH`` but the system's: every tool must come from
``.venv/bin`` as the block names it. The course root is a copy (its
``nbgrader_config.py`` and ``notebooks/``; the package, the solutions and the
virtual environment linked), so the run writes nothing into the repository.
"""

from __future__ import annotations

import csv
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.lessons import REPO_ROOT

pytestmark = pytest.mark.slow
LESSON = "01_devices"


def recipe() -> str:
    """The bash block of the Instructor guide's "On one machine" section."""
    text = (REPO_ROOT / "docs" / "guides" / "instructor.md").read_text(encoding="utf-8")
    section = text[text.index("## On one machine") :]
    return re.search(r"```bash\n(.*?)```", section, re.S).group(1)


def test_the_recipe_is_the_one_the_guide_shows():
    block = recipe()
    assert "nbgrader fetch_assignment" in block and "--student alice" in block
    assert "--Exchange.cache=" in block  # each student's own cache
    # every command from the virtual environment, never from PATH
    for line in block.splitlines():
        words = line.split()
        if words and words[0] in ("nbgrader", "python", "jupyter", "course"):
            pytest.fail(f"a command taken from PATH: {line}")


def test_the_one_machine_recipe_runs_as_written(tmp_path):
    venv = Path(sys.executable).parent.parent
    root = tmp_path / "course"
    root.mkdir()
    shutil.copyfile(REPO_ROOT / "nbgrader_config.py", root / "nbgrader_config.py")
    shutil.copytree(REPO_ROOT / "notebooks" / LESSON, root / "notebooks" / LESSON)
    for name in ("autograder", "solutions", "course"):
        (root / name).symlink_to(REPO_ROOT / name)
    (root / ".venv").symlink_to(venv)
    env = {
        "PATH": "/usr/bin:/bin",  # no .venv/bin: the recipe must not need it
        "HOME": str(tmp_path / "home"),  # no stray ~/.jupyter config
        "LANG": "C.UTF-8",
        # the suite's grader cache (template courses, references), not a new one
        "COURSE_CACHE_DIR": os.environ["COURSE_CACHE_DIR"],
        "OMP_NUM_THREADS": "1",
    }
    run = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", recipe()],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, (run.stdout + run.stderr)[-4000:]
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        submission = gradebook.find_submission(LESSON, "alice")  # not "root"
        assert [s.id for s in gradebook.students] == ["alice"]
        assert submission.timestamp is not None
    feedback = root / "students" / "alice" / LESSON / "feedback"
    assert list(feedback.rglob(f"{LESSON}.html")), "alice fetched no feedback"
    with open(root / "canvas.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert rows[2][1] == "1001" and rows[2][5] != ""  # her Canvas id, her score
    assert "Traceback" not in run.stderr
    assert os.path.isfile(root / "grading" / "grades.csv")
