"""The one-source release pipeline: solutions/ -> notebooks/, checked end to end."""

from __future__ import annotations

import filecmp
import json
import re
import subprocess
from pathlib import Path

import nbformat
import pytest

from autograder.grading import validate_notebook
from autograder.lessons import (
    REPO_ROOT,
    LessonError,
    lesson_names,
    source_to_notebook,
    write_notebook,
)
from autograder.lessons.script import run_script
from autograder.publish.leaks import notebook_leaks
from autograder.publish.release import release

LESSONS = lesson_names()
NOTEBOOKS = REPO_ROOT / "notebooks"


@pytest.fixture(scope="session")
def fresh_release(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("release")
    release(out_dir=out, log=lambda *_: None)
    return out


def test_every_lesson_folder_has_a_source():
    assert LESSONS, "no lessons found under solutions/"
    for name in LESSONS:
        assert name[:2].isdigit() and name[2] == "_"


@pytest.mark.slow
def test_regenerating_notebooks_changes_nothing(fresh_release):
    fresh = sorted(
        p.relative_to(fresh_release) for p in fresh_release.rglob("*") if p.is_file()
    )
    # what git ignores (a profiler trace another test's run of a lesson left
    # there, say) is not part of the release
    ignored = subprocess.run(
        [
            "git",
            "ls-files",
            "--others",
            "--ignored",
            "--exclude-standard",
            "-z",
            "--",
            "notebooks",
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
    ).stdout.split("\0")
    skip = {REPO_ROOT / path for path in ignored if path}
    committed = sorted(
        p.relative_to(NOTEBOOKS)
        for p in NOTEBOOKS.rglob("*")
        if p.is_file() and p not in skip
    )
    assert fresh == committed, "run `make release` and commit notebooks/"
    for rel in fresh:
        assert filecmp.cmp(fresh_release / rel, NOTEBOOKS / rel, shallow=False), (
            f"notebooks/{rel} is stale: run `make release` and commit it"
        )


@pytest.mark.parametrize("lesson", LESSONS)
def test_student_edition_has_no_solutions_hidden_tests_or_outputs(lesson):
    notebook = NOTEBOOKS / lesson / f"{lesson}.ipynb"
    assert notebook.is_file(), f"{notebook} missing: run `make release`"
    assert notebook_leaks(notebook) == []
    assert not list((NOTEBOOKS / lesson).glob("*.py")), "a .py source was released"
    text = notebook.read_text()
    assert "NotImplementedError" in text


@pytest.mark.parametrize("lesson", LESSONS)
def test_every_answer_has_visible_and_hidden_tests(lesson):
    nb = source_to_notebook(REPO_ROOT / "solutions" / lesson / f"{lesson}.py")
    meta = [c.metadata["nbgrader"] for c in nb.cells if "nbgrader" in c.metadata]
    answers = [m["grade_id"] for m in meta if m["solution"]]
    tests = {m["grade_id"] for m in meta if m["grade"]}
    assert answers
    for answer in answers:
        assert f"{answer}-test" in tests, f"{answer} has no visible test cell"
        assert f"{answer}-hidden-test" in tests, f"{answer} has no hidden test cell"
    for cell in nb.cells:
        m = cell.metadata.get("nbgrader", {})
        if m.get("grade") and m["grade_id"].endswith("-hidden-test"):
            assert "### BEGIN HIDDEN TESTS" in cell.source
        if m.get("grade"):
            assert cell.source.lstrip().startswith('"""'), "test cell needs a docstring"


def test_leak_detector_finds_what_it_must(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("### BEGIN SOLUTION\nx = 1\n### END SOLUTION"),
        nbformat.v4.new_code_cell("_ref_f = 2"),
    ]
    nb.cells[1].outputs = [nbformat.v4.new_output("stream", text="2")]
    path = tmp_path / "leaky.ipynb"
    write_notebook(nb, path)
    problems = notebook_leaks(path)
    assert "contains a solution marker: 'BEGIN SOLUTION'" in problems
    assert any("reference name" in p for p in problems)
    assert "cell 2 has outputs" in problems
    # a line of a real lesson's hidden test, or of its answer, is found anywhere
    source = (
        REPO_ROOT / "solutions" / "06_linear_regression" / "06_linear_regression.py"
    )
    hidden = source.read_text().split("BEGIN HIDDEN TESTS")[1].splitlines()
    line = next(x.strip() for x in hidden if len(x.strip()) >= 40)
    nb.cells = [nbformat.v4.new_markdown_cell(f"Note: {line}")]
    write_notebook(nb, path)
    assert any("a line of a hidden test of " in p for p in notebook_leaks(path))


@pytest.mark.parametrize(
    ("header", "message"),
    [
        ('# %% nbgrader={"solution": true}', "without a grade_id"),
        ('# %% nbgrader={"grade": true, "grade_id": "99-x-test"}', "has no points"),
        ('# %% nbgrader={"grade_id": "07-x", "solution": true}', "must start with 99-"),
        (
            '# %% nbgrader={"grade": true, "grade_id": "99-x", "points": 1}',
            "must end in -test",
        ),
    ],
)
def test_malformed_metadata_is_reported_with_file_and_cell(tmp_path, header, message):
    source = tmp_path / "99_broken.py"
    source.write_text(f"# %% [markdown]\n# hi\n\n{header}\nx = 1\n")
    with pytest.raises(LessonError, match=message) as info:
        source_to_notebook(source)
    assert "99_broken.py, cell 2" in str(info.value)


def test_duplicate_grade_ids_are_rejected(tmp_path):
    source = tmp_path / "99_dup.py"
    cell = '# %% nbgrader={"grade_id": "99-a", "solution": true}\nx = 1\n\n'
    source.write_text(cell * 2)
    with pytest.raises(LessonError, match="duplicate grade_id"):
        source_to_notebook(source)


def test_conversion_is_deterministic_and_complete():
    source = REPO_ROOT / "solutions" / LESSONS[0] / f"{LESSONS[0]}.py"
    first, second = source_to_notebook(source), source_to_notebook(source)
    assert nbformat.writes(first) == nbformat.writes(second)
    assert "jupytext" not in first.metadata
    meta = next(c.metadata["nbgrader"] for c in first.cells if "nbgrader" in c.metadata)
    assert set(meta) >= {"grade", "solution", "locked", "grade_id", "schema_version"}


@pytest.mark.slow
@pytest.mark.parametrize("lesson", LESSONS)
def test_solution_passes_nbgrader_validate(lesson, tmp_path):
    path = tmp_path / f"{lesson}.ipynb"
    write_notebook(
        source_to_notebook(REPO_ROOT / "solutions" / lesson / f"{lesson}.py"), path
    )
    from autograder.grading.kernel import warmkernel

    before = warmkernel.LAUNCHED["warm"]
    results = validate_notebook(path, warm=True)
    assert results == {}, json.dumps(results, indent=1)[:3000]
    if warmkernel.supported():  # nbgrader's Execute got a warm kernel, by config
        assert warmkernel.LAUNCHED["warm"] == before + 1


@pytest.mark.slow
@pytest.mark.parametrize("lesson", LESSONS)
def test_student_notebook_fails_validate_and_passes_inverted(lesson):
    """`nbgrader validate --invert` passes: no test cell of the blank notebook passes.

    With at least one test cell, that is the same as plain `validate` failing, so
    one kernel run checks both.
    """
    notebook = NOTEBOOKS / lesson / f"{lesson}.ipynb"
    graded = [
        c
        for c in nbformat.read(notebook, as_version=4).cells
        if c.metadata.get("nbgrader", {}).get("grade")
    ]
    assert graded, "a lesson without test cells cannot fail validation"
    assert validate_notebook(notebook, invert=True, warm=True) == {}


@pytest.mark.slow
@pytest.mark.parametrize("lesson", LESSONS)
def test_solution_runs_as_a_plain_script_on_cpu(lesson, tmp_path):
    result = run_script(lesson, env={"COURSE_FIGURES": str(tmp_path)})
    assert result.ok, result.output[-3000:]
    assert "Traceback" not in result.output
    # every figure it saved reads: no text cut off, no tick labels overlapping
    layout = tmp_path / "layout.jsonl"
    source = (REPO_ROOT / "solutions" / lesson / f"{lesson}.py").read_text("utf-8")
    draws = re.search(r"^\s*show\(", source, re.MULTILINE) is not None
    assert layout.exists() == draws, "every figure a lesson shows is logged"
    saved = layout.read_text(encoding="utf-8").splitlines() if draws else []
    unreadable = {
        figure["figure"]: figure["problems"]
        for figure in map(json.loads, saved)
        if figure["problems"]
    }
    assert not unreadable, f"figures a reader cannot read: {unreadable}"


@pytest.mark.slow
def test_each_release_is_stamped_and_kept_as_released(fresh_release):
    """The student edition carries its release; a release keeps that release
    (the source grading reads and the notebook students got), byte for byte."""
    from autograder.lessons.releases import current, stamp_of

    fresh_keep = fresh_release.parent / "releases"
    for lesson in LESSONS:
        notebook = NOTEBOOKS / lesson / f"{lesson}.ipynb"
        digest = stamp_of(notebook)
        assert digest == current(lesson), f"{lesson}: run `make release`"
        kept = fresh_keep / lesson / digest
        for part in ("solutions", "notebooks"):
            name = f"{lesson}.py" if part == "solutions" else f"{lesson}.ipynb"
            ours = REPO_ROOT / part / lesson / name
            assert filecmp.cmp(ours, kept / part / lesson / name, shallow=False)
