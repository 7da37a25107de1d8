"""The students' branch: the student edition as a git branch, for one-click links.

``course release`` ends by writing the branch ``students`` of this repository
(:func:`write_branch`) with what a student may see and nothing more: the
released notebooks (``notebooks/``, and the translated editions beside it:
``notebooks-zh/``), the ``course`` library they import, the
student wheel's ``pyproject.toml`` and a README. No ``solutions/``, no
``releases/``, no grader: the files are gathered in a scratch folder, which
must pass the student bundle's leak scan
(:func:`autograder.publish.bundle.check_files`) before anything is written.
The commit is made with git's plumbing (a scratch index), so the working tree
and the current branch are never touched; a release that changes nothing
makes no commit.

:func:`hub_link` is an nbgitpuller link: on a JupyterHub whose user servers
have nbgitpuller (the student image does), it clones or updates the branch in
the student's home, keeping their own changes, and opens the Day's notebook.
The website puts one on each Day's page when a hub is configured
(``course site --hub URL``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from urllib.parse import urlencode

from autograder.lessons import REPO_ROOT
from autograder.lessons.colab import REPOSITORY

BRANCH = "students"
#: Where the branch lands in a student's home (nbgitpuller's ``targetpath``).
FOLDER = "gpu-course"
#: What the branch holds, from the working tree (git's ignore rules apply).
PARTS = ("notebooks", "notebooks-zh", "course", "student/pyproject.toml")
#: What must never be in it.
NEVER = ("solutions/", "releases/", "autograder/", "tests/")

README = """\
# GPU acceleration with Python: the student edition

This branch is written by the course's release: each Day's notebook
(`notebooks/<day>/`), without answers or grading tests, and the `course`
library the notebooks import. Your course's website links each Day to your
hub: one click clones this branch into your home (or updates it, keeping your
own changes) and opens the notebook.
"""


class BranchLeakError(RuntimeError):
    """The branch would hold something a student must not see."""


def hub_link(
    hub: str,
    lesson: str,
    repository: str = REPOSITORY,
    branch: str = BRANCH,
) -> str:
    """The nbgitpuller link that opens ``lesson`` on ``hub`` (its address,
    e.g. ``https://hub.example.edu``), from ``branch`` of ``repository``."""
    if not hub.startswith(("http://", "https://")):
        raise ValueError(f"the hub's address must start with https:// (not {hub!r})")
    query = urlencode(
        {
            "repo": repository,
            "branch": branch,
            "targetpath": FOLDER,
            "urlpath": f"lab/tree/{FOLDER}/notebooks/{lesson}/{lesson}.ipynb",
        }
    )
    return f"{hub.rstrip('/')}/hub/user-redirect/git-pull?{query}"


def _git(repo: Path, *args: str, env: dict | None = None, text: str = "") -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args],
        input=text,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        check=False,
        timeout=300,
    )
    if done.returncode:
        raise RuntimeError(f"git {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout.strip()


def gather(repo: Path, into: Path) -> list[str]:
    """Copy the branch's files from ``repo``'s working tree into ``into``;
    return their paths."""
    listed = _git(
        repo, "ls-files", "--cached", "--others", "--exclude-standard", "-z", *PARTS
    )
    names = sorted(n for n in set(listed.split("\0")) if n and (repo / n).is_file())
    for name in names:
        (into / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(repo / name, into / name)
    (into / "README.md").write_text(README, encoding="utf-8")
    return [*names, "README.md"]


def check_branch(root: Path) -> list[str]:
    """What a student must not receive, in the folder ``root``."""
    from autograder.publish.bundle import check_files

    problems = [
        f"{p.relative_to(root).as_posix()}: grader or answer folder"
        for p in root.rglob("*")
        if p.is_file() and p.relative_to(root).as_posix().startswith(NEVER)
    ]
    return problems + check_files(root)


def write_branch(repo: Path = REPO_ROOT, branch: str = BRANCH, log=print) -> str | None:
    """Write the student edition of ``repo``'s working tree as ``branch``
    (see the module); return the new commit, or None when nothing changed.

    Raises:
        BranchLeakError: a file would leak an answer, a hidden test or the grader.
        RuntimeError: ``repo`` is not a git repository, or git failed.
    """
    repo = Path(repo)
    _git(repo, "rev-parse", "--git-dir")
    with tempfile.TemporaryDirectory(prefix="course-students-") as tmp:
        root = Path(tmp) / "tree"
        root.mkdir()
        names = gather(repo, root)
        problems = check_branch(root)
        if problems:
            raise BranchLeakError(
                f"the {branch} branch would leak:\n" + "\n".join(problems)
            )
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        _git(repo, f"--work-tree={root}", "add", "-A", "-f", ".", env=env)
        tree = _git(repo, "write-tree", env=env)
    ref = f"refs/heads/{branch}"
    try:
        parent = _git(repo, "rev-parse", "--verify", "-q", ref)
    except RuntimeError:
        parent = ""
    if parent and _git(repo, "rev-parse", f"{parent}^{{tree}}") == tree:
        log(f"{branch}: unchanged ({len(names)} files)")
        return None
    try:
        source = _git(repo, "rev-parse", "--short", "HEAD")
    except RuntimeError:
        source = "an unborn branch"
    who = {
        "GIT_AUTHOR_NAME": "course release",
        "GIT_AUTHOR_EMAIL": "release@gpu-course.invalid",
        "GIT_COMMITTER_NAME": "course release",
        "GIT_COMMITTER_EMAIL": "release@gpu-course.invalid",
    }
    message = f"The student edition, released from {source}"
    commit = _git(
        repo,
        "commit-tree",
        tree,
        *(["-p", parent] if parent else []),
        "-m",
        message,
        env=who,
    )
    _git(repo, "update-ref", ref, commit, *([parent] if parent else []))
    log(f"{branch}: {commit[:12]} ({len(names)} files; no solutions, no releases)")
    return commit


__all__ = [
    "BRANCH",
    "BranchLeakError",
    "check_branch",
    "gather",
    "hub_link",
    "write_branch",
]
