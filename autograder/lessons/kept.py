"""The kept releases of a course: where they live, listing, pruning, moving.

A release is kept where the instructor's state lives: ``releases/`` in the
course root, beside the gradebook (``$COURSE_ROOT``, else the repository's
folder), one folder per release, ``releases/NN_topic/DIGEST/``, laid out like
the repository (:mod:`autograder.lessons.releases`). Git ignores it, as it
ignores ``gradebook.db``: the working tree ships no kept release, and a
course moved to a new machine takes ``releases/`` with its gradebook.

Releases kept before this layout were committed in ``releases/``. They are
in the repository's history, and :func:`restore` puts them back, once, into
the course root's ``releases/`` the first time a kept release is looked up
in a checkout whose ``HEAD`` no longer tracks that folder (a fresh clone, or
a pull that removed it): nothing kept before is lost.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

from autograder.lessons import REPO_ROOT

MARK = ".restored"  # in releases/: the history tree restored from, once


def default_root() -> Path:
    """``releases/`` in the course root: ``$COURSE_ROOT`` (a hub's grader, a
    course folder of its own), else the repository's folder."""
    return Path(os.environ.get("COURSE_ROOT") or REPO_ROOT) / "releases"


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(REPO_ROOT), *args],
            capture_output=True,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.decode().strip() if done.returncode == 0 else None


def history_tree() -> str | None:
    """The tree of ``releases/`` as last committed, where ``HEAD`` no longer
    tracks it; None where it still does, or in a copy without history."""
    if _git("ls-tree", "-d", "HEAD", "releases") != "":
        return None  # tracked at HEAD (an older checkout), or not a git one
    last = _git("rev-list", "-1", "HEAD", "--", "releases")
    if not last:
        return None
    return _git("rev-parse", "--verify", "-q", f"{last}^:releases") or None


def restore(root: Path | None = None, log=None) -> int:
    """Put the releases the repository's history kept (see the module) into
    ``root`` (default: :func:`default_root`), once: each one ``root`` does
    not hold, whole or not at all. Returns how many were put back."""
    from autograder.config.settings import locked

    root = default_root() if root is None else Path(root)
    if (root / MARK).is_file():
        return 0
    tree = history_tree()
    if tree is None:
        return 0
    root.mkdir(parents=True, exist_ok=True)
    with locked(root / ".restore.lock"):
        if (root / MARK).is_file():
            return 0
        work = root / f".restoring-{os.getpid()}"
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir()
        try:
            archive = subprocess.run(
                ["git", "-C", str(REPO_ROOT), "archive", "--format=tar", tree],
                capture_output=True,
                timeout=300,
                check=True,
            ).stdout
            with tarfile.open(fileobj=_bytes(archive)) as tar:
                tar.extractall(work, filter="data")
            count = 0
            for folder in sorted(work.glob("*/*")):
                target = root / folder.parent.name / folder.name
                if folder.is_dir() and not target.exists():
                    target.parent.mkdir(exist_ok=True)
                    os.replace(folder, target)
                    count += 1
        finally:
            shutil.rmtree(work, ignore_errors=True)
        (root / MARK).write_text(
            json.dumps({"tree": tree, "restored": count}) + "\n", encoding="utf-8"
        )
    say = log or (lambda line: print(line, file=sys.stderr))
    say(f"releases: {count} kept release(s) restored from git history into {root}")
    return count


def _bytes(data: bytes):
    import io

    return io.BytesIO(data)


@dataclass(frozen=True)
class Kept:
    """One kept release."""

    lesson: str
    digest: str
    root: Path
    editions: tuple[str, ...]  # "en", and each translated edition kept

    def size(self) -> int:
        return sum(p.stat().st_size for p in self.root.rglob("*") if p.is_file())


def kept(root: Path | None = None) -> list[Kept]:
    """Every release kept in ``root`` (default: the course's, restored from
    history first), by lesson and digest."""
    if root is None:
        root = default_root()
        restore(root)
    found = []
    for source in sorted(Path(root).glob("*/*/solutions/*/*.py")):
        folder = source.parents[2]
        editions = ("en",) + tuple(
            sorted(
                p.name.removeprefix("notebooks-") for p in folder.glob("notebooks-*")
            )
        )
        found.append(Kept(folder.parent.name, folder.name, folder, editions))
    return found


def prune(releases: list[Kept]) -> None:
    """Remove these kept releases (each whole)."""
    for one in releases:
        gone = one.root.with_name(f".pruning-{one.digest}")
        os.replace(one.root, gone)
        shutil.rmtree(gone)
