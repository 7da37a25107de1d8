"""The grader image: its build context holds the course and no class (computed
with Docker's own rules from the ignore file beside the Dockerfile), and its
init container brings a fixed lesson to a course volume without touching the
class's work."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from autograder.lessons import REPO_ROOT

IMAGES = REPO_ROOT / "autograder" / "jupyter" / "images"
#: Grading state and rosters, planted at the root and deeper in the tree.
PLANTED = [
    "gradebook.db",
    "course/old/gradebook.db",
    "submitted/alice/01_devices/01_devices.ipynb",
    "class2/submitted/bob/01_devices/01_devices.ipynb",
    "autograded/alice/01_devices/01_devices.ipynb",
    "x/autograded/a.ipynb",
    "feedback/01_devices/alice.html",
    "x/feedback/01_devices/alice.html",
    "grading/results/alice__01_devices.json",
    "old-runs/grading/results/alice__01_devices.json",
    "old-runs/out/grades.csv",
    "old-runs/out/pass_rates.csv",
    "old-runs/out/due_dates.json",
    ".exchange/gpu-course/inbound/alice+01_devices+1/01_devices.ipynb",
    "x/.exchange/gpu-course/outbound/01_devices/01_devices.ipynb",
    "students/alice/work.ipynb",
    "roster.csv",
    "classes/2026/roster.csv",
    "classes/2026/canvas-roster-export.csv",
]
#: What the image must keep: the course's own files, deep ones included.
KEPT = [
    "autograder/grading/scan.py",
    "autograder/grading/feedback.py",
    "autograder/classgrade/store.py",
    "solutions/01_devices/01_devices.py",
    "notebooks/01_devices/01_devices.ipynb",
    "docs/gpu-runs/2026-11-30-nvidia-h200/results/01_devices.jsonl",
    "nbgrader_config.py",
    # the course root's kept releases (git ignores them; the image carries them)
    "releases/04_call_magic/89c8eb805db9e24a/solutions/04_call_magic/04_call_magic.py",
    "releases/04_call_magic/89c8eb805db9e24a/notebooks/04_call_magic/04_call_magic.ipynb",
]


def _patterns() -> list[str]:
    lines = (IMAGES / "Dockerfile.dockerignore").read_text().splitlines()
    return [ln.strip() for ln in lines if ln.strip() and not ln.startswith("#")]


def test_the_build_context_holds_the_course_and_no_class(tmp_path):
    build = pytest.importorskip("docker.utils.build")
    for name in PLANTED + KEPT:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x")
    context = set(build.exclude_paths(str(tmp_path), _patterns()))
    assert not [p for p in PLANTED if p in context], "grading state in the image"
    assert not [p for p in KEPT if p not in context], "course files left out"


def test_the_repository_s_own_context_has_no_class_in_it():
    build = pytest.importorskip("docker.utils.build")
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=REPO_ROOT, capture_output=True, text=True
    ).stdout.split()
    context = set(build.exclude_paths(str(REPO_ROOT), _patterns()))
    missing = [p for p in tracked if (REPO_ROOT / p).is_file() and p not in context]
    assert not [p for p in missing if p.startswith(("autograder/", "course/"))]
    assert not [p for p in context if p.endswith(("gradebook.db", "roster.csv"))]


def _init_script() -> str:
    docs = yaml.safe_load_all(
        (REPO_ROOT / "autograder/jupyter/formgrader-k8s.yaml").read_text()
    )
    for doc in docs:
        spec = (doc or {}).get("spec", {}).get("template", {}).get("spec", {})
        for container in spec.get("initContainers", []):
            if container["name"] == "course-files":
                return container["command"][2]
    raise AssertionError("no course-files init container")


def test_the_init_container_brings_a_fixed_lesson_and_keeps_the_class(tmp_path):
    image, volume = tmp_path / "opt", tmp_path / "srv"
    lesson = Path("notebooks/01_devices/01_devices.ipynb")
    for root, text in ((image, "fixed"), (volume, "old")):
        (root / lesson).parent.mkdir(parents=True)
        (root / lesson).write_text(text)
        (root / "nbgrader_config.py").write_text(f"# {root.name}'s config\n")
    (image / ".hidden-setting").write_text("from the image")
    made = "releases/01_devices/made-for-the-image/solutions/01_devices.py"
    (image / made).parent.mkdir(parents=True)
    (image / made).write_text("a release the image carries")
    work = {
        "gradebook.db": "scores",
        "submitted/alice/01_devices/01_devices.ipynb": "alice's answers",
        "releases/01_devices/made-in-the-volume/notebooks/x.ipynb": "a release",
    }
    for name, text in work.items():
        (volume / name).parent.mkdir(parents=True, exist_ok=True)
        (volume / name).write_text(text)
    script = _init_script().replace("/opt/gpu-course", str(image))
    script = script.replace("/srv/gpu-course", str(volume))
    subprocess.run([shutil.which("sh") or "/bin/sh", "-c", script], check=True)
    assert (volume / lesson).read_text() == "fixed"
    assert (volume / ".hidden-setting").read_text() == "from the image"
    assert (volume / "nbgrader_config.py").read_text() == "# srv's config\n"
    for name, text in work.items():
        assert (volume / name).read_text() == text, name
    assert (volume / made).read_text() == "a release the image carries"
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    subprocess.run(
        [
            "sh",
            "-c",
            _init_script()
            .replace("/opt/gpu-course", str(image))
            .replace("/srv/gpu-course", str(fresh)),
        ],
        check=True,
    )
    assert (fresh / "nbgrader_config.py").read_text() == "# opt's config\n"
