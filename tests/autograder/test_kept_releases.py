"""Every kept release is honoured: its own reference notebook, stamped with it,
scores full marks under ``course grade``, graded under that release; or the
release is listed in :data:`CANNOT` with the reason, and its notebook is held
back with a problem line that says so, never graded under other rules.

Grading ~100 releases costs minutes, so each verdict is cached by the
release's digest, outside the clone (``$COURSE_KEPT_CHECK_DIR``, else
``gpu-course-tests/kept-releases`` in the user cache), with a fingerprint of
everything grading reads: the grader, the ``course`` library, NumPy and
torch, and the release's own files. A run pays for a release once, and again
only when one of those changes.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

import pytest

from autograder.lessons import REPO_ROOT
from autograder.lessons.kept import Kept, history_tree, kept

pytestmark = pytest.mark.timeout(3600)

#: Kept releases that cannot be graded as written, and why: a phrase of the
#: held-back line (the failure of the release's own tests in the referee).
#: Each was written for graders before the referee, whose tests ran in the
#: student's process.
_SYNC_LOG = (
    "synchronise after the last timed call, before the clock"  # 03-timed-test:
    # the device appends "sync" to a copy of the test's list, in the kernel
)
_BARRIERS = (
    "never called cuda.syncthreads()"  # 09-reduce-test: its report comes from
    # the notebook's own `checked`, which never sees the store's barriers
)
CANNOT = {
    ("03_sync_trap", "15f4115e33bd656f"): _SYNC_LOG,
    ("03_sync_trap", "6ef59c734890a8a2"): _SYNC_LOG,
    # 04-mini-module-hidden-test subclasses MiniModule, the notebook's class
    ("04_call_magic", "89c8eb805db9e24a"): "cannot subclass a class defined in "
    "the notebook",
    ("09_kernels", "37adb4d390b8dcde"): _BARRIERS,
    ("09_kernels", "d3ca3d8baf1c2333"): _BARRIERS,
    ("09_kernels", "d685eff64699d517"): _BARRIERS,
}


def _cache_dir() -> Path:
    named = os.environ.get("COURSE_KEPT_CHECK_DIR")
    if named:
        return Path(named)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "gpu-course-tests" / "kept-releases"


#: What grading runs on, besides NumPy and torch (in library_fingerprint).
_STACK = (
    "nbgrader",
    "nbclient",
    "nbconvert",
    "nbformat",
    "ipykernel",
    "jupyter_client",
    "numba",
    "numba-cuda",
    "msgpack",
    "traitlets",
)


def _grader_fingerprint() -> str:
    from importlib.metadata import PackageNotFoundError, version

    from autograder.config.settings import library_fingerprint

    digest = hashlib.sha256(library_fingerprint().encode())
    digest.update(sys.version.encode())
    for package in _STACK:
        try:
            digest.update(f"{package}=={version(package)}".encode())
        except PackageNotFoundError:
            digest.update(f"{package} absent".encode())
    for name in ("constraints.txt", "pyproject.toml", "nbgrader_config.py"):
        digest.update((REPO_ROOT / name).read_bytes())
    for part in ("autograder", "course"):
        for path in sorted((REPO_ROOT / part).rglob("*")):
            if path.is_file() and path.suffix in (".py", ".json", ".cfg"):
                digest.update(str(path.relative_to(REPO_ROOT)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()


def _fingerprint(one: Kept, grader: str) -> str:
    digest = hashlib.sha256(grader.encode())
    for path in sorted(one.root.rglob("*")):
        if path.is_file():
            digest.update(str(path.relative_to(one.root)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _grade(todo: list[Kept], folder: Path) -> dict[str, dict]:
    """Grade each release's reference notebook in one ``course grade`` run."""
    from autograder.classgrade import grade_class
    from autograder.lessons import source_to_notebook, write_notebook
    from autograder.lessons.releases import META, STAMP, Release, grade_points

    subs = folder / "submissions"
    subs.mkdir(parents=True)
    for one in todo:
        nb = source_to_notebook(Release(one.lesson, one.root).source)
        stamp = {"lesson": one.lesson, "digest": one.digest}
        nb.metadata.setdefault(META, {})[STAMP] = stamp
        write_notebook(nb, subs / f"r{one.digest}_{one.lesson}.ipynb")
    report = grade_class(
        subs, out_dir=folder / "out", jobs=os.cpu_count(), progress=False
    )
    by = {r.student[1:]: r for r in report.results}
    verdicts = {}
    for one in todo:
        full = sum(grade_points(Release(one.lesson, one.root)).values())
        r = by.get(one.digest)
        held = [p for p in report.problems if f"release {one.digest}" in p]
        verdicts[one.digest] = {
            "status": r.status if r else "held",
            "score": r.score if r else 0.0,
            "full": full,
            "release": r.release if r else "",
            "lost": {
                k: v for k, v in (r.per_question if r else {}).items() if v[0] < v[1]
            },
            "held": held[0] if held else "",
        }
    return verdicts


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory) -> dict[tuple[str, str], dict]:
    """Each kept release's verdict, from the cache or graded now."""
    grader = _grader_fingerprint()
    cache = _cache_dir()
    found, todo = {}, []
    for one in kept():
        key = _fingerprint(one, grader)
        entry = cache / f"{one.lesson}@{one.digest}.json"
        try:
            data = json.loads(entry.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = {}
        if data.get("key") == key:
            found[(one.lesson, one.digest)] = data["verdict"]
        else:
            todo.append((one, key, entry))
    if todo:
        graded = _grade([t[0] for t in todo], tmp_path_factory.mktemp("kept"))
        cache.mkdir(parents=True, exist_ok=True)
        for one, key, entry in todo:
            verdict = graded[one.digest]
            found[(one.lesson, one.digest)] = verdict
            if _wrong(one.lesson, one.digest, verdict):
                continue  # graded again next time: never a cached failure
            partial = entry.with_suffix(f".tmp{os.getpid()}")
            partial.write_text(json.dumps({"key": key, "verdict": verdict}))
            os.replace(partial, entry)
    return found


def test_every_release_git_kept_before_is_kept_now():
    """None is lost in the move out of the working tree."""
    import subprocess

    tree = history_tree()
    assert tree, (
        "this checkout has no history of releases/ (a shallow clone?): the "
        "releases kept before cannot be restored"
    )
    listed = subprocess.run(
        ["git", "-C", str(REPO_ROOT), "ls-tree", "-r", "--name-only", tree],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    before = {tuple(p.split("/")[:2]) for p in listed if "/solutions/" in p}
    now = {(k.lesson, k.digest) for k in kept()}
    assert len(before) >= 100 and before <= now, sorted(before - now)
    assert not any(p.startswith("releases/") for p in _tracked())


def _tracked() -> list[str]:
    import subprocess

    return subprocess.run(
        ["git", "-C", str(REPO_ROOT), "ls-files"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()


def _wrong(lesson: str, digest: str, v: dict) -> str:
    """What is wrong with a release's verdict ("" when it is as it must be)."""
    if (lesson, digest) in CANNOT:
        why = CANNOT[(lesson, digest)]
        ok = (
            v["status"] == "held"
            and why in v["held"]
            and "--rules current" in v["held"]
        )
        return "" if ok else f"{lesson}/{digest}: must be held back ({why}): {v}"
    ok = v["status"] == "graded" and v["release"] == digest
    if not ok or abs(v["score"] - v["full"]) > 1e-9:
        return f"{lesson}/{digest}: {v}"
    return ""


@pytest.mark.slow
@pytest.mark.xdist_group("kept-releases")
def test_each_kept_release_s_reference_scores_full_marks_under_it(verdicts):
    assert len(verdicts) >= 100
    wrong = [
        _wrong(lesson, digest, v)
        for (lesson, digest), v in sorted(verdicts.items())
        if (lesson, digest) not in CANNOT
    ]
    assert not any(wrong), "\n".join(w for w in wrong if w)


@pytest.mark.slow
@pytest.mark.xdist_group("kept-releases")
def test_a_release_that_cannot_be_graded_as_written_is_listed_and_held(verdicts):
    for lesson, digest in CANNOT:
        assert (lesson, digest) in verdicts, f"{lesson}/{digest} is not kept"
        assert not _wrong(lesson, digest, verdicts[(lesson, digest)])
