"""Intake: one student's file never harms another's, and zip exports are bounded.

Broken and adversarial *exports* (the red-team suite's intake class): names
that collide (also in case only), a zip bomb, one bad entry among good ones,
unsafe paths, stray copies in an nbgrader layout; and answer cells whose
metadata was stripped, put back in the right cells.
"""

from __future__ import annotations

import copy
import io
import os
import random
import shutil
import struct
import zipfile

import nbformat
import pytest

from autograder.classgrade.intake import (
    IntakeError,
    collect,
    collect_submissions,
    extract_zip,
    student_id,
)
from autograder.grading.chain.reassemble import reassemble
from autograder.lessons import REPO_ROOT, source_to_notebook
from autograder.lessons.conventions import grade_id, is_answer

LESSON = "01_devices"
BLANK = REPO_ROOT / "notebooks" / LESSON / f"{LESSON}.ipynb"


def _summary(problems):
    (line,) = [p for p in problems if p.startswith("intake: ")]
    return line


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


def test_ids_that_differ_only_in_case_are_all_held_back(tmp_path):
    src = tmp_path / "in"
    for name in ("alice", "Alice", "ALICE", "bob"):
        _copy(src, f"{name}_{LESSON}.ipynb")
    subs, problems = collect_submissions(src, None, tmp_path / "work")
    assert [s.student for s in subs] == ["bob"]
    (conflict,) = [p for p in problems if "differ only in case" in p]
    assert conflict.startswith("conflict: student ids ALICE, Alice, alice differ")
    assert f"alice_{LESSON}.ipynb" in conflict and f"ALICE_{LESSON}.ipynb" in conflict
    assert "--map" in conflict and "rename the files" in conflict
    assert "3 not graded" in _summary(problems)
    # --map resolves it: here, three students
    names = {f"Alice_{LESSON}.ipynb": "alice0", f"ALICE_{LESSON}.ipynb": "alice1"}
    subs, problems = collect_submissions(src, None, tmp_path / "w2", names)
    assert sorted(s.student for s in subs) == ["alice", "alice0", "alice1", "bob"]
    assert not [p for p in problems if "conflict" in p]


def test_ids_that_differ_only_in_case_across_lessons_and_folders(tmp_path):
    root = tmp_path / "submitted"
    _copy(root / "dora" / LESSON, f"{LESSON}.ipynb")
    _copy(root / "Dora" / "02_migration", "02_migration.ipynb")
    _copy(root / "eli" / LESSON, f"{LESSON}.ipynb")
    subs, problems = collect_submissions(root, None, tmp_path / "work")
    assert [s.student for s in subs] == ["eli"]
    (conflict,) = [p for p in problems if "differ only in case" in p]
    assert (
        "Dora, dora" in conflict and "rename the folders under submitted/" in conflict
    )
    assert f"dora/{LESSON}" in conflict and "Dora/02_migration" in conflict


def test_notebooks_that_cannot_be_read_are_listed_at_intake(tmp_path):
    src = tmp_path / "in"
    _copy(src, f"ann_{LESSON}.ipynb")
    (src / f"dina_{LESSON}.ipynb").write_text("{not json")
    (src / f"emil_{LESSON}.ipynb").write_text("")
    (src / f"finn_{LESSON}.ipynb").write_text('{"just": "json"}')
    subs, problems = collect_submissions(src, None, tmp_path / "work")
    # still a row each (status "unreadable" once graded): nobody vanishes
    assert sorted(s.student for s in subs) == ["ann", "dina", "emil", "finn"]
    summary = _summary(problems)
    assert "4 notebook(s) to grade; 3 not graded" in summary
    assert f"dina_{LESSON}.ipynb (not valid JSON (Expecting property name" in summary
    assert f"emil_{LESSON}.ipynb (the file is empty)" in summary
    assert f"finn_{LESSON}.ipynb (JSON, but not a notebook" in summary
    assert "ann_" not in summary


# -- answer cells without metadata ------------------------------------------------

DAY09 = "09_kernels"


def _day09_answers(notebook):
    return {grade_id(c): c.source for c in notebook.cells if is_answer(c)}


@pytest.mark.parametrize("seed", [None, 1, 2, 3])
def test_day09_answers_without_metadata_each_land_in_their_own_cell(seed):
    """SAXPY and the fused kernel both start with ``@cuda.jit``: each answer
    goes to the cell that defines the same kernel, shuffled or not."""
    release = nbformat.read(
        REPO_ROOT / "notebooks" / DAY09 / f"{DAY09}.ipynb", as_version=4
    )
    solution = source_to_notebook(REPO_ROOT / "solutions" / DAY09 / f"{DAY09}.py")
    reference = _day09_answers(solution)
    assert sum(s.startswith("@cuda.jit") for s in reference.values()) == 2
    stripped = copy.deepcopy(solution)
    for cell in stripped.cells:
        cell.metadata = {}
    if seed is not None:
        random.Random(seed).shuffle(stripped.cells)
    rebuilt, flags = reassemble(stripped, release)
    assert _day09_answers(rebuilt) == reference
    assert (
        "metadata of 09-saxpy missing; matched by the names it defines (saxpy_kernel)"
        in flags
    )


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


def test_a_zip_mixing_layouts_grades_every_notebook_it_can_attribute(tmp_path):
    from autograder.classgrade.intake import collect

    src = tmp_path / "export"
    _copy(src / "submitted" / "ann" / LESSON, f"{LESSON}.ipynb")  # nbgrader layout
    _copy(src, f"bob_{LESSON}.ipynb")  # loose, named by the platform
    _copy(src / "cleo", f"{LESSON}.ipynb")  # a per-student folder
    _copy(src / "dan" / LESSON, f"{LESSON}.ipynb")  # a layout without submitted/
    _copy(src, f"{LESSON}.ipynb")  # whose?
    _copy(src, "homework.ipynb")  # which lesson?
    _copy(src, f"ann_{LESSON}.ipynb")  # ann twice: both held back
    (src / "notes.txt").write_text("not a notebook")
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for path in sorted(src.rglob("*")):
            if path.is_file():
                zf.write(path, path.relative_to(src))
    found = collect(archive, None, tmp_path / "out" / ".work")
    assert [s.student for s in found.submissions] == ["bob", "cleo", "dan"]
    assert (found.skipped, found.unattributed) == (1, 2)
    summary = _summary(found.problems)
    assert "3 notebook(s) to grade; 5 not graded" in summary
    assert f"{LESSON}.ipynb (cannot tell the student" in summary
    assert "homework.ipynb (cannot tell the lesson" in summary
    conflict = next(p for p in found.problems if p.startswith("conflict:"))
    assert f"submitted/ann/{LESSON}/{LESSON}.ipynb" in conflict
    assert f"ann_{LESSON}.ipynb" in conflict
    # a course root (its gradebook, release/, autograded/...): submitted/ only
    _copy(src / "release" / LESSON, f"{LESSON}.ipynb")
    _copy(src / "autograded" / "ann" / LESSON, f"{LESSON}.ipynb")
    (src / "gradebook.db").write_text("")
    found = collect(src, None, tmp_path / "o2" / ".work")
    assert [s.student for s in found.submissions] == ["ann"]


def test_what_grading_wrote_is_never_a_submission(tmp_path):
    from autograder.classgrade.intake import collect

    src = tmp_path / "class"
    _copy(src, f"alice_{LESSON}.ipynb")
    _copy(src, f"bob_{LESSON}.ipynb")
    # an earlier run with --out equal to the source: its graded copies, its
    # templates and its lock are there
    _copy(src / "autograded" / "alice" / LESSON, f"{LESSON}.ipynb")
    _copy(
        src / ".work" / "templates" / LESSON / "notebooks" / LESSON, f"{LESSON}.ipynb"
    )
    (src / "grades.csv").write_text("student\n")
    (src / ".course-grade.lock").write_text("")
    found = collect(src, None, src / ".work")
    assert [s.student for s in found.submissions] == ["alice", "bob"]
    assert not [p for p in found.problems if "conflict" in p]
    # ... or an output folder of its own inside the source
    other = tmp_path / "other"
    _copy(other, f"cleo_{LESSON}.ipynb")
    _copy(other / "grading2" / "autograded" / "cleo" / LESSON, f"{LESSON}.ipynb")
    (other / "grading2" / "grades.csv").write_text("student\n")
    found = collect(other, None, tmp_path / "out" / ".work")
    assert [s.student for s in found.submissions] == ["cleo"]


def test_a_symlinked_notebook_and_odd_case_lesson_names(tmp_path):
    from autograder.classgrade.intake import collect

    elsewhere = _copy(tmp_path / "store", "x.ipynb")
    folder = tmp_path / "submitted" / "alice" / LESSON
    folder.mkdir(parents=True)
    (folder / f"{LESSON}.ipynb").symlink_to(elsewhere)
    _copy(tmp_path / "submitted" / "ivy" / LESSON.upper(), f"{LESSON.upper()}.ipynb")
    found = collect(tmp_path / "submitted", None, tmp_path / "o" / ".work")
    # a link is refused, with a line (see test_links_are_refused_...)
    assert [(s.student, s.lesson) for s in found.submissions] == [("ivy", LESSON)]
    assert f"alice/{LESSON}/{LESSON}.ipynb: skipped, a symbolic link" in "\n".join(
        found.problems
    )
    loose = tmp_path / "loose"
    _copy(loose, "gina_01_Devices.ipynb")
    _copy(loose / "frank", "02_migration.ipynb")
    found = collect(loose, LESSON, tmp_path / "o2" / ".work")
    assert [(s.student, s.lesson) for s in found.submissions] == [("gina", LESSON)]
    assert "frank/02_migration.ipynb (a notebook of 02_migration, not 01_devices)" in (
        _summary(found.problems)
    )


def test_classroom_repository_folders_and_names_with_two_lessons(tmp_path):
    from autograder.classgrade.intake import collect

    src = tmp_path / "classroom"
    # GitHub Classroom: one <assignment>-<user> repository folder per student
    _copy(src / f"{LESSON}-alice", f"{LESSON}.ipynb")
    _copy(src / f"{LESSON}-bob", f"{LESSON}.ipynb")
    # a name that mentions another lesson too: --lesson decides
    _copy(src, f"cy_{LESSON}_after_02_migration.ipynb")
    found = collect(src, LESSON, tmp_path / "o" / ".work")
    assert [s.student for s in found.submissions] == [
        "alice",
        "bob",
        "cy__after_02_migration",  # the name, less the lesson
    ]
    # an nbgrader folder in another case, its notebook named in that other case
    _copy(tmp_path / "submitted" / "dee" / "01_Devices", f"{LESSON}.ipynb")
    found = collect(tmp_path / "submitted", None, tmp_path / "o2" / ".work")
    assert [(s.student, s.lesson) for s in found.submissions] == [("dee", LESSON)]


# -- ids in any script, Windows zips, links, nothing left out without a line ------

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
