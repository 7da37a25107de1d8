"""Zip exports at intake (autograder.classgrade.unzip): entries that clash,
bombs, oversized, lying and mislabelled entries; each skipped with a line,
everyone else graded."""

from __future__ import annotations

import io
import struct
import zipfile

import pytest

from autograder.classgrade.intake import (
    IntakeError,
    collect_submissions,
    extract_zip,
)
from tests.autograder.test_intake import BLANK, LESSON, _summary  # noqa: F401


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


def test_an_oversized_entry_is_skipped_and_everyone_else_is_graded(tmp_path):
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.write(BLANK, f"amy_{LESSON}.ipynb")
        with zf.open(f"huge_{LESSON}.ipynb", "w", force_zip64=True) as entry:
            for _ in range(70):  # 70 MB of zeros, over the 64 MiB for one file
                entry.write(b"\0" * 1_000_000)
        zf.write(BLANK, f"ben_{LESSON}.ipynb")
    assert archive.stat().st_size < 1_000_000
    subs, problems = collect_submissions(archive, None, tmp_path / "work")
    assert sorted(s.student for s in subs) == ["amy", "ben"]
    assert any(
        p.startswith(f"huge_{LESSON}.ipynb: skipped, 70,000,000 bytes unpacked")
        and "unzip the export and grade the folder" in p
        for p in problems
    )
    assert "2 notebook(s) to grade; 1 not graded: huge_" in _summary(problems)
    assert not (tmp_path / "work" / "unzipped" / f"huge_{LESSON}.ipynb").exists()


def test_a_lying_or_broken_entry_is_skipped_and_the_rest_unpacked(tmp_path):
    archive = tmp_path / "liar.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(f"liar_{LESSON}.ipynb", b"\0" * 3_000_000)
        zf.write(BLANK, f"amy_{LESSON}.ipynb")
    data = bytearray(archive.read_bytes())
    directory = data.index(b"PK\x01\x02")  # the liar's entry comes first
    data[directory + 24 : directory + 28] = struct.pack("<L", 1000)  # "1000 bytes"
    archive.write_bytes(bytes(data))
    out, skipped = tmp_path / "out", []
    problems = extract_zip(archive, out, max_entry=1_000_000, skipped=skipped)
    (line,) = [p for p in problems if p.startswith(f"liar_{LESSON}.ipynb")]
    assert "skipped, cannot be unpacked (Bad CRC-32" in line
    assert "ask for the file again" in line
    assert [p.name for p in out.iterdir()] == [f"amy_{LESSON}.ipynb"]
    assert skipped[0].startswith(f"liar_{LESSON}.ipynb (cannot be unpacked")


def _mislabelled_zip(path, good=("bob",), other=()):
    """A zip whose entry ``zo\xe9\xe9_...`` says its name is UTF-8, and is not."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.write(BLANK, f"zoé_{LESSON}.ipynb")  # non-ASCII: marked UTF-8
        for name in good:
            zf.write(BLANK, f"{name}_{LESSON}.ipynb")
        for name in other:
            zf.writestr(name, b"%PDF")
    data = buffer.getvalue()
    assert data.count("zoé_".encode()) == 2  # local header and central directory
    path.write_bytes(data.replace("zoé_".encode(), b"zo\xe9\xe9_"))
    return path


def test_an_entry_name_marked_utf8_that_is_not_skips_that_entry_only(tmp_path):
    archive = _mislabelled_zip(tmp_path / "export.zip", good=("bob", "cy"))
    subs, problems = collect_submissions(archive, None, tmp_path / "work")
    assert sorted(s.student for s in subs) == ["bob", "cy"]
    name = f"zo\\xe9\\xe9_{LESSON}.ipynb"
    (line,) = [p for p in problems if p.startswith(name)]
    assert "skipped, its name is marked as UTF-8 but is not valid UTF-8" in line
    assert "rename the file and zip it again" in line
    assert f"1 not graded: {name} (its name is marked" in _summary(problems)
    for line in problems:
        line.encode("utf-8")  # printable as it is


def test_an_entry_name_marked_utf8_that_is_not_does_not_stop_the_cli(tmp_path, capsys):
    from autograder.cli import main

    archive = _mislabelled_zip(tmp_path / "export.zip", (), ["report.pdf", ".DS_Store"])
    assert main(["grade", str(archive), "--out", str(tmp_path / "o"), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert f"zo\\xe9\\xe9_{LESSON}.ipynb: skipped" in out
    assert "report.pdf: skipped, not a notebook (.ipynb)" in out
    assert "intake: 0 notebook(s) to grade; 2 not graded" in out
    assert "2 file(s) skipped and 0 unattributed at intake" in out
