"""Reading submissions: the layouts intake reads, file names that are not
UTF-8, and each answer put back on the released notebook by reassembly."""

from __future__ import annotations

import os
import shutil
import zipfile

from autograder.classgrade import collect_submissions, reassemble
from autograder.cli import main
from tests.autograder.test_classgrade import BLANK, LESSON, _cell_id  # noqa: F401


def test_collect_nbgrader_layout_zip_and_names(tmp_path):
    nested = tmp_path / "course" / "submitted" / "ann" / LESSON
    nested.mkdir(parents=True)
    shutil.copyfile(BLANK, nested / f"{LESSON}.ipynb")
    subs, problems = collect_submissions(tmp_path / "course", None, tmp_path / "w")
    assert [(s.student, s.lesson) for s in subs] == [("ann", LESSON)]
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(BLANK, f"Ana Lima_123_{LESSON}.ipynb")
        zf.write(BLANK, f"Zoë Ångström_{LESSON}.ipynb")
        zf.writestr("../evil.ipynb", "{}")
        zf.writestr("notes.txt", "hello")
    subs, problems = collect_submissions(archive, LESSON, tmp_path / "w2")
    assert sorted(s.student for s in subs) == ["Ana-Lima_123", "Zoë-Ångström"]
    assert any("unsafe path" in p for p in problems)
    mapped, _ = collect_submissions(
        archive,
        LESSON,
        tmp_path / "w3",
        {f"Ana-Lima_123_{LESSON}.ipynb": "s123"},
    )
    assert "s123" in {s.student for s in mapped}


def test_file_names_that_are_not_utf8_on_disk(tmp_path, capsys):
    """Raw bytes in names (an old zip tool, a Latin-1 file system) never crash."""
    from autograder.classgrade import Result, write_reports

    loose = tmp_path / "loose"
    loose.mkdir()
    raw = os.fsdecode(b"jos\xe9_" + LESSON.encode() + b".ipynb")  # Latin-1 e-acute
    shutil.copyfile(BLANK, loose / raw)
    shutil.copyfile(BLANK, loose / os.fsdecode(b"\xff\xfe.ipynb"))
    subs, problems = collect_submissions(loose, None, tmp_path / "w")
    assert [(s.student, s.lesson) for s in subs] == [("jos", LESSON)]
    assert f"jos\\xe9_{LESSON}.ipynb: file name is not valid UTF-8, graded as jos" in (
        problems
    )
    summary = problems[-1]
    assert "1 not graded: \\xff\\xfe.ipynb (cannot tell the lesson" in summary
    assert "or pass --lesson" in summary
    nested = tmp_path / "submitted" / os.fsdecode(b"m\xfcller") / LESSON
    nested.mkdir(parents=True)
    shutil.copyfile(BLANK, nested / f"{LESSON}.ipynb")
    subs, problems = collect_submissions(tmp_path / "submitted", None, tmp_path / "w")
    assert [s.student for s in subs] == ["m-xfcller"]
    assert "not valid UTF-8" in problems[0]
    for line in problems:
        line.encode("utf-8")  # printable and writable as they are
    write_reports([Result(subs[0].student, LESSON, "graded")], tmp_path / "out")
    assert "m-xfcller" in (tmp_path / "out" / "grades.csv").read_text(encoding="utf-8")
    # and through the command line: reported in one printable line, not a crash
    odd = tmp_path / "odd"
    odd.mkdir()
    shutil.copyfile(BLANK, odd / os.fsdecode(b"\xff\xfe.ipynb"))
    assert main(["grade", str(odd), "--out", str(tmp_path / "o"), "--quiet"]) == 0
    assert "\\xff\\xfe.ipynb (cannot tell the lesson" in capsys.readouterr().out


def test_reassemble_restores_tests_and_finds_answers_without_metadata():
    import nbformat

    release = nbformat.read(BLANK, as_version=4)
    stripped = nbformat.read(BLANK, as_version=4)
    for cell in stripped.cells:
        cell.metadata = {}
    stripped.cells.reverse()
    rebuilt, flags = reassemble(stripped, release)
    # the release's cells, in order, and no cell of the grader's
    assert [_cell_id(c) for c in rebuilt.cells] == [_cell_id(c) for c in release.cells]
    assert any("matched by the names it defines" in f for f in flags)


def test_reassemble_without_metadata_matches_on_names_not_the_first_line():
    """Two answers that start alike (a decorator) each land in their own cell; a
    provided cell kept as it is, with the same first line, is no answer."""
    import nbformat

    def answer(gid, source):
        meta = {"grade_id": gid, "solution": True, "locked": False}
        return nbformat.v4.new_code_cell(source, metadata={"nbgrader": meta})

    stub = "@jit\ndef {}(x):\n    raise NotImplementedError()\n"
    release = nbformat.v4.new_notebook()
    release.cells = [
        nbformat.v4.new_code_cell("@jit\ndef provided(x):\n    return x\n"),
        answer("a-first", stub.format("first")),
        answer("a-second", stub.format("second")),
        answer("a-total", "total = None  # YOUR CODE HERE\n"),
    ]
    submitted = nbformat.v4.new_notebook()
    submitted.cells = [
        nbformat.v4.new_code_cell(source)
        for source in (
            "total = 42\n",
            "@jit\ndef second(x):\n    return 2 * x\n",
            "@jit\ndef first(x):\n    return x + 1\n",
            "@jit\ndef provided(x):\n    return x\n",
        )
    ]
    rebuilt, flags = reassemble(submitted, release)
    got = {_cell_id(c): c.source for c in rebuilt.cells if _cell_id(c)}
    assert got == {
        "a-first": "@jit\ndef first(x):\n    return x + 1\n",
        "a-second": "@jit\ndef second(x):\n    return 2 * x\n",
        "a-total": "total = 42\n",
    }
    assert "metadata of a-total missing; matched by the names it assigns (total)" in (
        flags
    )
