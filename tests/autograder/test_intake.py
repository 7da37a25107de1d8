"""Intake: one student's file never harms another's, and zip exports are bounded.

Broken and adversarial *exports* (the red-team suite's intake class): names
that collide (also in case only), a zip bomb, one bad entry among good ones,
unsafe paths, stray copies in an nbgrader layout; and answer cells whose
metadata was stripped, put back in the right cells.
"""

from __future__ import annotations

import copy
import random
import shutil
import zipfile

import nbformat
import pytest

from autograder.classgrade.intake import (
    IntakeError,
    collect,
    collect_submissions,
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
