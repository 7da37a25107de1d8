"""The kept releases of a course: where they live, listing, pruning, moving.

A release is kept where the instructor's state lives: ``releases/`` in the
course root, beside the gradebook (``$COURSE_ROOT``, else the repository's
folder), one folder per release, ``releases/NN_topic/DIGEST/``, laid out like
the repository (:mod:`autograder.lessons.releases`). Git ignores it, as it
ignores ``gradebook.db``: the working tree ships no kept release, and a
course moved to a new machine takes ``releases/`` with its gradebook.

Releases kept before this layout were committed in ``releases/``. They are
in the repository's history, and :func:`restore` puts them back into the
course root's ``releases/`` the first time a kept release is looked up in a
checkout where a commit removed that folder (a fresh clone, or a pull that
removed it), and again whenever one of them goes missing (a checkout of an
older commit removes them with the files it tracked), except those pruned:
nothing kept before is lost.
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

MARK = ".restored"  # in releases/: the history tree, what it held, what was pruned

#: What to do about a held notebook (the end of its problem line).
ADVICE = (
    "Have the student move the answers into the current release's notebook "
    "and submit again, or grade that notebook under the current release: "
    "--student NAME --rules current (its tests may need cells the notebook "
    "lacks; with a gradebook, the current release's cells and points become "
    "the lesson's rules for later runs)"
)


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
    """The tree of ``releases/`` just before the last commit that removed the
    folder whole; None where no commit did (an older checkout, which still
    tracks it), or in a copy without that history (a tarball, a shallow
    clone)."""
    found = _git(
        "log", "--format=%H", "--diff-filter=D", "-n", "50", "HEAD", "--", "releases"
    )
    for commit in (found or "").split():
        if _git("rev-parse", "--verify", "-q", f"{commit}:releases") is None:
            return _git("rev-parse", "--verify", "-q", f"{commit}^:releases")
    return None


_CHECKED: set[Path] = set()  # roots restored (or found whole) in this process


def _mark(root: Path) -> dict:
    try:
        return json.loads((root / MARK).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _whole(root: Path, name: str) -> bool:
    """Whether release ``name`` (``lesson/digest``) has its source and its
    notebook in ``root``."""
    lesson = name.split("/")[0]
    return (root / name / "solutions" / lesson / f"{lesson}.py").is_file() and (
        root / name / "notebooks" / lesson / f"{lesson}.ipynb"
    ).is_file()


def restore(root: Path | None = None, log=None) -> int:
    """Put back into ``root`` (default: :func:`default_root`) the releases
    the repository's history kept (see the module): on the first call, each
    one; later, each one of those that went missing (a checkout of an older
    commit removes them with the files it tracked), except those pruned.
    Files already there are kept. Once per process; a failure is said once
    and grading goes on (a notebook of a release not found is held back).
    Returns how many releases were put back, whole or in part."""
    root = default_root() if root is None else Path(root)
    if root in _CHECKED:
        return 0
    _CHECKED.add(root)
    say = log or (lambda line: print(line, file=sys.stderr))
    mark = _mark(root)
    gone = set(mark.get("pruned", []))
    listed = mark.get("releases")
    if isinstance(listed, list) and all(_whole(root, n) for n in set(listed) - gone):
        return 0
    tree = mark.get("tree") or history_tree()
    if tree is None:
        if _git("rev-parse", "--is-shallow-repository") == "true":
            say(
                "releases: this clone is shallow, so the releases its history "
                "kept cannot be restored: run git fetch --unshallow"
            )
        return 0
    try:
        return _restore(root, tree, gone, say)
    except (OSError, subprocess.SubprocessError, tarfile.TarError) as exc:
        say(f"releases: could not restore the releases git's history kept: {exc}")
        return 0


def _restore(root: Path, tree: str, gone: set[str], say) -> int:
    from autograder.config.settings import locked

    root.mkdir(parents=True, exist_ok=True)
    with locked(root / ".restore.lock"):
        for stale in root.glob(".restoring-*"):
            shutil.rmtree(stale, ignore_errors=True)
        work = root / f".restoring-{os.getpid()}"
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
            names = sorted(
                f"{p.parent.name}/{p.name}" for p in work.glob("*/*") if p.is_dir()
            )
            count = 0
            for name in names:
                if name in gone or _whole(root, name):
                    continue
                for file in sorted((work / name).rglob("*")):
                    target = root / name / file.relative_to(work / name)
                    if file.is_file() and not target.exists():
                        target.parent.mkdir(parents=True, exist_ok=True)
                        os.replace(file, target)
                count += 1
        finally:
            shutil.rmtree(work, ignore_errors=True)
        mark = {"tree": tree, "releases": names, "pruned": sorted(gone)}
        (root / MARK).write_text(json.dumps(mark) + "\n", encoding="utf-8")
    if count:
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
        if folder.name.startswith(".") or folder.parent.name.startswith("."):
            continue  # a release being written, pruned or restored
        names = sorted(p.name for p in folder.glob("notebooks*") if p.is_dir())
        editions = tuple("en" if n == "notebooks" else n[10:] for n in names)
        found.append(Kept(folder.parent.name, folder.name, folder, editions))
    return found


def prune(releases: list[Kept]) -> None:
    """Remove these kept releases (each whole); those git's history kept are
    noted, so that :func:`restore` leaves them out."""
    for one in releases:
        gone = one.root.with_name(f".pruning-{one.digest}")
        shutil.rmtree(gone, ignore_errors=True)
        os.replace(one.root, gone)
        shutil.rmtree(gone)
        mark = _mark(one.root.parents[1])
        if mark:
            pruned = set(mark.get("pruned", [])) | {f"{one.lesson}/{one.digest}"}
            mark["pruned"] = sorted(pruned)
            path = one.root.parents[1] / MARK
            path.write_text(json.dumps(mark) + "\n", encoding="utf-8")
