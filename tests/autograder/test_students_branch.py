"""The students branch (the student edition as a git branch) and the site's
nbgitpuller links to it."""

from __future__ import annotations

import subprocess
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from autograder.lessons import REPO_ROOT
from autograder.publish.students_branch import (
    BranchLeakError,
    hub_link,
    write_branch,
)


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    ).stdout


@pytest.fixture()
def clone(tmp_path):
    repo = tmp_path / "repo"
    subprocess.run(["git", "clone", "-q", str(REPO_ROOT), str(repo)], check=True)
    return repo


def test_the_branch_holds_the_student_edition_and_nothing_of_the_grader(clone):
    head, status = _git(clone, "rev-parse", "HEAD"), _git(clone, "status", "-s")
    commit = write_branch(clone, log=lambda *_: None)
    assert commit and _git(clone, "rev-parse", "students").strip() == commit
    names = _git(clone, "ls-tree", "-r", "--name-only", "students").split()
    tops = {n.split("/")[0] for n in names}
    assert tops == {"notebooks", "notebooks-zh", "course", "student", "README.md"}
    assert not any(
        n.startswith(("solutions/", "releases/", "autograder/")) for n in names
    )
    released = sorted(
        p.relative_to(clone).as_posix() for p in clone.glob("notebooks/*/*.ipynb")
    )
    assert released and set(released) <= set(names)
    # the checkout and its branch are as they were
    assert _git(clone, "rev-parse", "HEAD") == head
    assert _git(clone, "status", "-s") == status
    assert write_branch(clone, log=lambda *_: None) is None  # nothing changed


def test_a_leak_stops_the_branch_before_anything_is_written(clone):
    write_branch(clone, log=lambda *_: None)
    before = _git(clone, "rev-parse", "students")
    planted = clone / "notebooks" / "01_devices" / "notes.py"
    planted.write_text("### BEGIN HIDDEN TESTS\nassert _ref_usable_memory(1) == 1\n")
    with pytest.raises(BranchLeakError, match="notes.py"):
        write_branch(clone, log=lambda *_: None)
    assert _git(clone, "rev-parse", "students") == before


def test_a_folder_that_is_not_git_is_said(tmp_path):
    with pytest.raises(RuntimeError, match="git"):
        write_branch(tmp_path, log=lambda *_: None)


def test_the_hub_link_opens_the_day_from_the_students_branch():
    link = hub_link("https://hub.example.edu/", "03_training", "https://git.example/c")
    parsed = urlparse(link)
    assert parsed.netloc == "hub.example.edu"
    assert parsed.path == "/hub/user-redirect/git-pull"
    query = {k: v[0] for k, v in parse_qs(parsed.query).items()}
    assert query == {
        "repo": "https://git.example/c",
        "branch": "students",
        "targetpath": "gpu-course",
        "urlpath": "lab/tree/gpu-course/notebooks/03_training/03_training.ipynb",
    }
    with pytest.raises(ValueError, match="https://"):
        hub_link("hub.example.edu", "03_training")


def test_a_day_page_links_to_the_hub_only_where_one_is_configured():
    from autograder.publish.site import _links_cell

    plain = _links_cell("01_devices").source
    assert "Open in Colab" in plain and "git-pull" not in plain
    linked = _links_cell("01_devices", "https://hub.example.edu").source
    assert "Open on your course's hub" in linked
    assert "https://hub.example.edu/hub/user-redirect/git-pull?repo=" in linked
    assert "&amp;branch=students" in linked  # escaped in the page's HTML
