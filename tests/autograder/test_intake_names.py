"""Intake of names no one typed the same way twice: Unicode forms and case,
any script, zip paths with backslashes or .., links, and nothing left out
without a line."""

from __future__ import annotations

import os
import zipfile

from autograder.classgrade.intake import (
    collect,
    collect_submissions,
    student_id,
)
from tests.autograder.test_intake import BLANK, LESSON, _copy, _summary  # noqa: F401

NFC, NFD = "jos\u00e9", "jose\u0301"  # josé typed on Linux or Windows, and on a Mac


def test_ids_that_differ_only_in_unicode_form_or_case_are_twins(tmp_path):
    """josé as one character and as e + a combining accent are one id: today
    they were once two students, "jos" and "jose", and no conflict."""
    src = tmp_path / "in"
    for name in (NFC, NFD, "bob"):
        _copy(src, f"{name}_{LESSON}.ipynb")
    subs, problems = collect_submissions(src, None, tmp_path / "work")
    assert [s.student for s in subs] == ["bob"]
    assert any(p.startswith(f"conflict: {NFC}") for p in problems)  # shown as josé
    (note,) = [p for p in problems if "look the same" in p]
    for raw in ("'jos\\xe9_01_devices.ipynb'", "'jose\\u0301_01_devices.ipynb'"):
        assert raw in note  # told apart
    assert "2 not graded" in _summary(problems)
    # alone, either is graded as josé (NFC), not mangled
    for i, name in enumerate((NFC, NFD)):
        _copy(tmp_path / f"one{i}", f"{name}_{LESSON}.ipynb")
        subs, _ = collect_submissions(tmp_path / f"one{i}", None, tmp_path / "w")
        assert [s.student for s in subs] == [NFC]
    # in a zip: the two names unpack to one file, a conflict as well
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for name in (NFC, NFD, "bob"):
            zf.write(BLANK, f"{name}_{LESSON}.ipynb")
    subs, problems = collect_submissions(archive, None, tmp_path / "w2")
    assert [s.student for s in subs] == ["bob"]
    assert any("unpack to the same file" in p and "NFD" in p for p in problems)
    # nbgrader folders keep their ids as they are; twins by case and Unicode form
    root = tmp_path / "submitted"
    for name in (NFC, NFD.upper(), "eli"):
        _copy(root / name / LESSON, f"{LESSON}.ipynb")
    found = collect(root, None, tmp_path / "w3" / ".work")
    assert [s.student for s in found.submissions] == ["eli"]
    (line,) = [p for p in found.problems if p.startswith("conflict: student ids")]
    assert "differ only in case and in how their accented letters are encoded" in line
    assert "rename the folders under submitted/" in line


def test_student_ids_keep_any_script_and_refuse_paths(tmp_path):
    assert student_id("Zoë Ångström") == "Zoë-Ångström"
    assert student_id(NFD) == NFC and student_id("李雷") == "李雷"
    for unsafe in ("../../etc/passwd", "a\\b", "..", "x\u202ey", "a\0b"):
        cleaned = student_id(unsafe)
        assert not {"/", "\\", "\u202e", "\0"} & set(cleaned)
        assert not cleaned.startswith(".")
    # an id given as it is, by --map: a path is refused, not cleaned into another
    src = tmp_path / "in"
    _copy(src, f"alice_{LESSON}.ipynb")
    _copy(src, f"x_{LESSON}.ipynb")
    names = {f"x_{LESSON}.ipynb": "../alice"}
    subs, problems = collect_submissions(src, None, tmp_path / "work", names)
    assert [s.student for s in subs] == ["alice"]
    assert "--map gives it '../alice', not a usable student id: it is a path" in (
        _summary(problems)
    )


def test_backslashes_in_zip_names_are_folders_and_dotdot_is_refused(tmp_path):
    archive = tmp_path / "windows.zip"
    notebook = BLANK.read_bytes()
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr(f"carol\\carol_{LESSON}.ipynb", notebook)
        zf.writestr(f"dan\\{LESSON}.ipynb", notebook)
        zf.writestr(f"..\\..\\x_{LESSON}.ipynb", notebook)
        zf.writestr(f"C:\\Users\\y\\y_{LESSON}.ipynb", notebook)
    found = collect(archive, None, tmp_path / "o" / ".work")
    assert [s.student for s in found.submissions] == ["carol", "dan"]
    assert found.submissions[0].path.relative_to(tmp_path / "o" / ".work").parts == (
        "unzipped",
        "carol",
        f"carol_{LESSON}.ipynb",
    )
    summary = _summary(found.problems)
    for name in (f"..\\..\\x_{LESSON}.ipynb", f"C:\\Users\\y\\y_{LESSON}.ipynb"):
        assert any(
            p.startswith(f"{name}: skipped, unsafe path") for p in found.problems
        )
        assert f"{name} (unsafe path in the zip" in summary
    assert "2 not graded" in summary and found.skipped == 2
    assert not list(tmp_path.rglob(f"x_{LESSON}.ipynb"))


def test_links_are_refused_and_what_they_point_to_never_read(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("root:x:0:0:root:/root:/bin/bash\n")
    never = ("root:x", str(secret), "/etc/passwd")
    # a zip: symbolic link entries (what `zip -y` stores) hold the target's path
    archive = tmp_path / "links.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(BLANK, f"submitted/amy/{LESSON}/{LESSON}.ipynb")
        for name in (f"mal_{LESSON}.ipynb", f"submitted/amy/{LESSON}/timestamp.txt"):
            link = zipfile.ZipInfo(name)
            link.create_system, link.external_attr = 3, (0o120777 << 16)
            zf.writestr(link, "/etc/passwd")
    found = collect(archive, None, tmp_path / "o" / ".work")
    assert [(s.student, s.submitted_at) for s in found.submissions] == [("amy", "")]
    assert f"mal_{LESSON}.ipynb: skipped, a symbolic link" in "\n".join(found.problems)
    assert f"mal_{LESSON}.ipynb (a symbolic link" in _summary(found.problems)
    assert not any(n in p for p in found.problems for n in never)
    # a folder: linked notebooks, timestamp, student folder; a hard link
    root = tmp_path / "submitted"
    _copy(root / "amy" / LESSON, f"{LESSON}.ipynb")
    (root / "amy" / LESSON / "timestamp.txt").symlink_to(secret)
    (root / "alice" / LESSON).mkdir(parents=True)
    (root / "alice" / LESSON / f"{LESSON}.ipynb").symlink_to(secret)
    (root / "carl").symlink_to(
        _copy(tmp_path / "elsewhere" / LESSON, f"{LESSON}.ipynb").parent.parent
    )
    os.link(_copy(tmp_path / "other", "x.ipynb"), root / f"dan_{LESSON}.ipynb")
    (root / f"eve_{LESSON}.ipynb").symlink_to(secret)
    found = collect(root, None, tmp_path / "o2" / ".work")
    assert [(s.student, s.submitted_at) for s in found.submissions] == [("amy", "")]
    text = "\n".join(found.problems)
    for name in (
        f"amy/{LESSON}/timestamp.txt",
        f"alice/{LESSON}/{LESSON}.ipynb",
        "carl",
        f"eve_{LESSON}.ipynb",
    ):
        assert (
            f"{name}: skipped, a symbolic link: what it points to is not read" in text
        )
    assert f"dan_{LESSON}.ipynb: skipped, a hard link (one file with 2 names" in text
    assert "5 not graded" in _summary(found.problems) and found.skipped == 5
    assert not any(n in p for p in found.problems for n in never)


def test_no_entry_or_file_is_left_out_without_a_line(tmp_path):
    archive = tmp_path / "export.zip"
    graded = [f"ann_{LESSON}.ipynb", f"bea/{LESSON}.ipynb"]
    listed = [
        f".cid_{LESSON}.ipynb",  # hidden: once silently dropped
        f"..\\dee_{LESSON}.ipynb",  # once unpacked as dee_01_devices.ipynb
        "notes.txt",
    ]
    junk = ["__MACOSX/._ann.ipynb", ".DS_Store", f".ipynb_checkpoints/{LESSON}.ipynb"]
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("bea/", "")  # a folder's own entry: nothing in it
        for name in graded + listed + junk:
            zf.write(BLANK, name)
    found = collect(archive, None, tmp_path / "o" / ".work")
    assert [s.student for s in found.submissions] == ["ann", "bea"]
    summary = _summary(found.problems)
    assert f"{len(listed)} not graded" in summary and found.skipped == len(listed)
    for name in listed:
        assert f" {name} (" in summary
        assert any(p.startswith(f"{name}: skipped, ") for p in found.problems)
    assert f".cid_{LESSON}.ipynb (a hidden file" in summary
    # a folder: a submission in another format, a folder named like a notebook
    src = tmp_path / "in"
    _copy(src, f"ann_{LESSON}.ipynb")
    (src / f"eve_{LESSON}.pdf").write_bytes(b"%PDF")
    (src / f"fay_{LESSON}.ipynb").mkdir()
    (src / "map.csv").write_text("file,student\n")  # not a submission: no line
    found = collect(src, None, tmp_path / "o2" / ".work")
    assert [s.student for s in found.submissions] == ["ann"]
    summary = _summary(found.problems)
    assert "2 not graded" in summary and found.skipped == 2
    assert f"eve_{LESSON}.pdf (not a notebook (.ipynb))" in summary
    assert f"fay_{LESSON}.ipynb (a folder)" in summary
