"""Intake: one student's file never harms another's, and zip exports are bounded.

Broken and adversarial *exports* (the red-team suite's intake class): names
that collide, a zip bomb, unsafe paths, stray copies in an nbgrader layout.
"""

from __future__ import annotations

import shutil
import zipfile

import pytest

from autograder.classgrade.intake import (
    IntakeError,
    collect_submissions,
    extract_zip,
)
from autograder.lessons import REPO_ROOT

LESSON = "01_devices"
BLANK = REPO_ROOT / "notebooks" / LESSON / f"{LESSON}.ipynb"


def _copy(folder, name):
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(BLANK, folder / name)
    return folder / name


def test_names_that_map_to_one_student_are_a_conflict_and_neither_is_graded(tmp_path):
    src = tmp_path / "in"
    _copy(src, f"alice_{LESSON}.ipynb")
    _copy(src, f"alice__{LESSON}.ipynb")
    _copy(src, f"bob_{LESSON}.ipynb")
    subs, problems = collect_submissions(src, None, tmp_path / "work")
    assert [s.student for s in subs] == ["bob"]
    (conflict,) = [p for p in problems if p.startswith("conflict")]
    assert f"alice_{LESSON}.ipynb" in conflict and f"alice__{LESSON}.ipynb" in conflict


def test_an_upper_case_suffix_is_read_and_clashes_with_its_twin(tmp_path):
    src = tmp_path / "in"
    _copy(src, f"carol_{LESSON}.IPYNB")
    subs, problems = collect_submissions(src, None, tmp_path / "work")
    assert [s.student for s in subs] == ["carol"] and problems == []
    _copy(src, f"carol_{LESSON}.ipynb")
    subs, problems = collect_submissions(src, None, tmp_path / "work")
    assert subs == [] and any("conflict" in p for p in problems)


def test_zip_entries_that_land_on_one_file_are_kept_out(tmp_path):
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(BLANK, f"dan_{LESSON}.ipynb")
        zf.write(BLANK, f"dan_{LESSON}.IPYNB")
        zf.write(BLANK, f"eve_{LESSON}.ipynb")
        zf.writestr("../escape.ipynb", "{}")
    subs, problems = collect_submissions(archive, None, tmp_path / "work")
    assert [s.student for s in subs] == ["eve"]
    assert any("unpack to the same file" in p for p in problems)
    assert any("unsafe path" in p for p in problems)
    assert not (tmp_path / "escape.ipynb").exists()


@pytest.mark.parametrize(
    ("entries", "size", "limits", "message"),
    [
        (1, 200_000_000, {}, "for one file"),  # declared size over the per-file cap
        (3, 5_000_000, {"max_total": 10_000_000}, "the whole zip"),
        (30, 10, {"max_entries": 20}, "entries, more than the 20 allowed"),
    ],
)
def test_a_zip_bomb_is_refused_and_leaves_nothing_behind(
    tmp_path, entries, size, limits, message
):
    archive = tmp_path / "bomb.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        for i in range(entries):
            with zf.open(f"s{i}_{LESSON}.ipynb", "w", force_zip64=True) as entry:
                chunk = b"\0" * 1_000_000
                for _ in range(size // len(chunk)):
                    entry.write(chunk)
                entry.write(b"\0" * (size % len(chunk)))
    assert archive.stat().st_size < 2_000_000  # it is small: the contents are not
    target = tmp_path / "unpacked"
    with pytest.raises(IntakeError, match=message):
        extract_zip(archive, target, **limits)
    assert not target.exists()


def test_a_lying_zip_header_is_caught_while_streaming(tmp_path):
    archive = tmp_path / "liar.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(f"liar_{LESSON}.ipynb", b"\0" * 3_000_000)
    with pytest.raises(IntakeError, match="zip bomb"):
        extract_zip(archive, tmp_path / "out", max_entry=1_000_000)


def test_not_a_zip_is_one_clear_line(tmp_path):
    fake = tmp_path / "export.zip"
    fake.write_text("hello")
    with pytest.raises(IntakeError, match="not a readable zip file"):
        collect_submissions(fake, None, tmp_path / "work")


def test_nbgrader_layout_grades_the_named_notebook_and_lists_strays(tmp_path):
    root = tmp_path / "submitted"
    _copy(root / "fay" / LESSON, f"{LESSON}.ipynb")
    _copy(root / "fay" / LESSON, f"{LESSON}-Copy1.ipynb")
    _copy(root / "gus" / LESSON, "mine.ipynb")
    subs, problems = collect_submissions(tmp_path, None, tmp_path / "work")
    assert [(s.student, s.path.name) for s in subs] == [("fay", f"{LESSON}.ipynb")]
    assert any("extra file" in p and "Copy1" in p for p in problems)
    assert any(p.startswith("gus/") and f"no {LESSON}.ipynb" in p for p in problems)
