"""The student bundle: notebooks, data, the student wheel and a README, no answers."""

from __future__ import annotations

import shutil
import zipfile

import pytest

from autograder.lessons import REPO_ROOT, lesson_names
from autograder.publish.bundle import build_bundle, check_files


@pytest.mark.slow
def test_the_bundle_holds_what_a_student_needs_and_nothing_else(tmp_path):
    archive = build_bundle(tmp_path / "dist", log=lambda *_: None)
    with zipfile.ZipFile(archive) as bundle:
        names = bundle.namelist()
        bundle.extractall(tmp_path / "x")
    root = tmp_path / "x" / "gpu-course-student"
    top = {n.split("/")[1] for n in names}
    assert top == {"README.md", "notebooks", "notebooks-zh", "data", "wheels"}
    for lesson in lesson_names():
        assert f"gpu-course-student/notebooks/{lesson}/{lesson}.ipynb" in names
        assert f"gpu-course-student/notebooks-zh/{lesson}/{lesson}.ipynb" in names
    assert any(n.startswith("gpu-course-student/data/recorded/") for n in names)
    (wheel,) = (root / "wheels").glob("gpu_course_student-*.whl")
    with zipfile.ZipFile(wheel) as w:
        assert {m.split("/")[0] for m in w.namelist()} == {
            "course",
            wheel.name.split("-py3")[0] + ".dist-info",
        }
    # The same check the build ran, on what was actually written.
    assert check_files(root) == []
    readme = (root / "README.md").read_text()
    assert "pip install wheels/*.whl" in readme
    # Validate and the Assignments tab are nbgrader's: the install line has it,
    # pinned as the course's own requirements pin it
    assert '"nbgrader>=0.9.2,<0.10"' in readme and '"jupyterlab>=4.0,<5"' in readme


def test_the_check_finds_a_solution_a_hidden_test_and_a_sample_answer(tmp_path):
    root = tmp_path / "bundle"
    (root / "notebooks").mkdir(parents=True)
    shutil.copytree(REPO_ROOT / "solutions" / "01_devices", root / "solutions")
    leaked = REPO_ROOT / "autograder" / "samples" / "01_devices" / "forgets_mps.py"
    shutil.copyfile(leaked, root / "notes.txt")
    problems = "\n".join(check_files(root))
    assert "solutions/01_devices.py: grader or answer folder" in problems
    assert "notes.txt: contains" in problems
    (root / "hidden.md").write_text("### BEGIN HIDDEN TESTS\n")
    assert any("hidden.md" in p for p in check_files(root))
