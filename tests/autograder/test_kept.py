"""Kept releases live in the course root, not the working tree: restored once
from git history, listed, pruned to those a student has, and carried by a
cluster's bundle."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest

from autograder.cli import main
from autograder.lessons import REPO_ROOT, kept, releases

LESSON = "01_devices"
NOTEBOOK = REPO_ROOT / "notebooks" / LESSON / f"{LESSON}.ipynb"


def test_restore_puts_back_every_release_history_kept(tmp_path):
    root = tmp_path / "releases"
    mine = root / "04_call_magic" / "89c8eb805db9e24a"
    (mine / "notebooks-zh").mkdir(parents=True)  # a part left behind
    (mine / "notebooks-zh" / "x.ipynb").write_text("not replaced")
    lines: list[str] = []
    count = kept.restore(root, log=lines.append)
    found = kept.kept(root)
    assert count >= 100 and len(found) == count  # the part left is filled in
    assert (mine / "notebooks-zh" / "x.ipynb").read_text() == "not replaced"
    assert (mine / "solutions" / "04_call_magic" / "04_call_magic.py").is_file()
    assert lines == [
        f"releases: {count} kept release(s) restored from git history into {root}"
    ]
    assert all((k.root / "notebooks" / k.lesson).is_dir() for k in found)
    assert any("zh" in k.editions for k in found)
    assert kept.restore(root) == 0  # once a process
    assert len(json.loads((root / kept.MARK).read_text())["releases"]) == count
    assert not [p for p in root.iterdir() if p.name.startswith(".restoring")]
    # A checkout of an older commit took two away; one was pruned since.
    first, second = found[0], found[1]
    shutil.rmtree(first.root)
    shutil.rmtree(second.root)
    kept.prune([found[2]])
    kept._CHECKED.discard(root)
    assert kept.restore(root, log=lines.append) == 2
    assert len(kept.kept(root)) == count - 1
    assert not found[2].root.exists()


def _keep(root: Path, digest: str) -> None:
    folder = root / LESSON / digest
    (folder / "solutions" / LESSON).mkdir(parents=True)
    shutil.copyfile(
        REPO_ROOT / "solutions" / LESSON / f"{LESSON}.py",
        folder / "solutions" / LESSON / f"{LESSON}.py",
    )
    (folder / "notebooks" / LESSON).mkdir(parents=True)
    shutil.copyfile(NOTEBOOK, folder / "notebooks" / LESSON / NOTEBOOK.name)


def _stamped(path: Path, digest: str) -> dict:
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    nb["metadata"]["course"]["release"]["digest"] = digest
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb), encoding="utf-8")
    return nb


def test_releases_lists_and_prunes_those_no_student_has(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(releases, "RELEASES", tmp_path / "releases")
    root = tmp_path / "releases"
    root.mkdir()
    (root / kept.MARK).write_text('{"releases": []}')  # nothing to restore
    now = releases.current(LESSON)
    for digest in (now, "a" * 16, "b" * 16, "c" * 16):
        _keep(root, digest)
    _stamped(tmp_path / "submitted" / "ann" / LESSON / f"{LESSON}.ipynb", "a" * 16)
    with zipfile.ZipFile(tmp_path / "export.zip", "w") as archive:
        archive.writestr("ben.ipynb", json.dumps(_stamped(tmp_path / "b", "c" * 16)))
    assert main(["releases"]) == 0
    out = capsys.readouterr().out
    assert f"4 release(s) kept in {root}" in out
    assert f"{LESSON}  {now}  en" in out and out.count("current") == 1
    sources = [str(tmp_path / "submitted"), str(tmp_path / "export.zip")]
    assert main(["releases", "prune", *sources]) == 0
    out = capsys.readouterr().out
    assert f"{LESSON}  {'b' * 16}" in out and "Nothing removed" in out
    assert f"{LESSON}  {'a' * 16}" not in out
    assert len(kept.kept(root)) == 4
    assert main(["releases", "prune", *sources, "--yes"]) == 0
    assert sorted(k.digest for k in kept.kept(root)) == sorted(
        [now, "a" * 16, "c" * 16]
    )
    assert main(["releases", "prune", str(tmp_path / "nowhere")]) == 2
    assert "no such file or folder" in capsys.readouterr().err


@pytest.mark.slow
def test_a_cluster_bundle_carries_the_kept_release_it_grades(tmp_path):
    """The bundle holds the kept release's own source and notebook, and a
    worker computes the same reference key from them."""
    import io
    import tarfile
    from types import SimpleNamespace

    from autograder.classgrade import remote
    from autograder.lessons.releases import Release

    now = releases.current(LESSON)
    old = next(k for k in kept.kept() if k.lesson == LESSON and k.digest != now)
    course = tmp_path / "course"
    (course / "notebooks" / LESSON).mkdir(parents=True)
    cells = tmp_path / "cells.json"
    cells.write_text("{}")
    job = SimpleNamespace(
        lesson=LESSON, root=str(old.root), course=str(course), cells=str(cells)
    )
    bundle = remote.bundle_for(job)
    with tarfile.open(fileobj=io.BytesIO(bundle)) as tar:
        source = tar.extractfile(f"release/solutions/{LESSON}/{LESSON}.py").read()
        tar.extractall(tmp_path / "worker", filter="data")
    assert source == Release(LESSON, old.root).source.read_bytes()
    assert source != (REPO_ROOT / "solutions" / LESSON / f"{LESSON}.py").read_bytes()
    remote._place_records(tmp_path / "worker")  # the key matches, or it raises


def test_course_check_says_when_it_cannot_grade_a_notebook_s_release(tmp_path, capsys):
    """A self-study learner's notebook of a release this copy does not keep:
    not graded, and the line says what to do."""
    mine = _stamped(tmp_path / f"mine_{LESSON}.ipynb", "d" * 16)
    assert mine["metadata"]["course"]["release"]["lesson"] == LESSON
    assert (
        main(
            [
                "check",
                str(tmp_path / f"mine_{LESSON}.ipynb"),
                "--out",
                str(tmp_path / "out"),
            ]
        )
        == 1
    )
    out = capsys.readouterr().out
    assert f"not graded: {LESSON}: 1 submission(s) held back" in out
    assert f"release {'d' * 16}, which this course does not keep" in out
    assert "--rules current" in out


def test_prune_refuses_sources_that_say_nothing(tmp_path, capsys):
    """A zip it cannot read, or sources with no stamped notebook (an empty
    or wrong folder): nothing pruned, and the error says what to name."""
    (tmp_path / "empty").mkdir()
    assert main(["releases", "prune", str(tmp_path / "empty"), "--yes"]) == 2
    assert "hold no notebook with a release stamp" in capsys.readouterr().err
    (tmp_path / "class.ZIP").write_bytes(b"not a zip")
    assert main(["releases", "prune", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "not a zip that can be read" in err and "Name folders" in err
