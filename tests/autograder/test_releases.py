"""Released lessons keep their grading mid-term: each notebook is graded under
the release it carries, and ``course grade --diff`` shows what the current
rules would change, writing nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from autograder.classgrade import grade_class, regrade, store
from autograder.cli import main
from autograder.lessons import REPO_ROOT, find_lesson, releases
from tests.lesson_helpers import CHANGED, submission
from tests.lesson_helpers import older_release as kept_older_release

LESSON = "01_devices"
NOTEBOOK = REPO_ROOT / "notebooks" / LESSON / f"{LESSON}.ipynb"


def test_the_stamp_picks_the_rules(tmp_path):
    now = releases.current(LESSON)
    kept = tmp_path / "releases"
    (kept / LESSON / "0ld" / "solutions" / LESSON).mkdir(parents=True)
    (kept / LESSON / "0ld" / "solutions" / LESSON / f"{LESSON}.py").write_text("")
    assert releases.resolve(LESSON, now, now, kept=kept).root is None
    old = releases.resolve(LESSON, "0ld", now, kept=kept)
    assert old.root == kept / LESSON / "0ld" and old.digest == "0ld"
    assert releases.resolve(LESSON, "0ld", now, "current", kept).root is None
    missing = releases.resolve(LESSON, "gone", now, kept=kept)
    assert missing.root is None and "release gone" in missing.held
    assert str(kept) in missing.held and "--rules current" in missing.held
    assert not old.held
    assert not releases.resolve(LESSON, "gone", now, "current", kept).held
    other = releases.resolve(LESSON, "0ld", now, kept=kept, of="02_migration")
    assert other.root is None and not other.held  # graded, and found of Day 02
    assert other.note == "carry a release of 02_migration"
    bare = releases.resolve(LESSON, None, now, kept=kept)
    assert bare.digest == now and "no release stamp" in bare.note and not bare.held
    assert releases.summary([old, old, bare]) == [
        f"{LESSON}: 1 submission(s) carry no release stamp: graded under the "
        "current release",
        f"{LESSON}: 2 submission(s) were released as 0ld: graded under that "
        "release (kept in releases/)",
    ]


def test_a_stamp_that_is_not_a_digest_is_none(tmp_path):
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    assert releases.stamp_of(nb) == releases.current(LESSON)
    for forged in ("../../etc", "a" * 300, "ABCDEF0123456789", "٣" * 16):
        nb["metadata"]["course"]["release"]["digest"] = forged
        assert releases.stamp_of(nb) is None, forged
    assert releases.stamp_of(tmp_path / "missing.ipynb") is None


@pytest.fixture(scope="module")
def older_release(tmp_path_factory) -> tuple[Path, str]:
    """A kept release of Day 01 from before a change of rules: there, task
    1.4's hidden test was worth 4 points (now 2)."""
    return kept_older_release(tmp_path_factory.mktemp("older"))


@pytest.mark.slow
def test_each_notebook_is_graded_under_the_release_it_carries(
    older_release, tmp_path, monkeypatch, capsys
):
    kept, old = older_release
    monkeypatch.setattr(releases, "RELEASES", kept)
    folder, out = tmp_path / "in", tmp_path / "out"
    folder.mkdir()
    for student in ("ann", "ben"):
        submission(LESSON, folder / f"{student}_{LESSON}.ipynb")
    ann = folder / f"ann_{LESSON}.ipynb"
    nb = json.loads(ann.read_text(encoding="utf-8"))
    nb["metadata"]["course"]["release"]["digest"] = old  # given the older release
    ann.write_text(json.dumps(nb), encoding="utf-8")

    report = grade_class(folder, LESSON, out_dir=out, jobs=2, progress=False)
    by = {r.student: r for r in report.results}
    assert (by["ann"].score, by["ann"].max_score) == (14.0, 14.0)
    assert by["ann"].per_question[CHANGED] == [4.0, 4.0]
    assert (by["ben"].score, by["ben"].max_score) == (12.0, 12.0)
    assert by["ann"].release == old
    assert by["ben"].release == releases.current(LESSON)
    assert f"were released as {old}: graded under that release" in report.summary()

    # --diff: what the current rules would change, with nothing written
    before = store.result_path(out, "ann", LESSON).read_bytes()
    assert (
        main(
            [
                "grade",
                str(folder),
                "--lesson",
                LESSON,
                "--out",
                str(out),
                "--diff",
                "--quiet",
            ]
        )
        == 0
    )
    shown = capsys.readouterr().out
    assert "would change 1 of 2 submission(s)" in shown
    assert f"ann/{LESSON}: 14/14 -> 12/12 (-2): {CHANGED} 4/4 -> 2/2" in shown
    assert "ben/" not in shown
    assert store.result_path(out, "ann", LESSON).read_bytes() == before

    # --rules current applies it: ann is graded again, ben's result is kept
    again = grade_class(
        folder, LESSON, out_dir=out, jobs=2, progress=False, rules="current"
    )
    assert again.graded_now == 1 and again.reused == 1
    by = {r.student: r for r in again.results}
    assert (by["ann"].score, by["ann"].max_score) == (12.0, 12.0)


def test_a_diff_line_names_each_changed_cell():
    from autograder.classgrade.reports import Result

    before = Result("ann", LESSON, "graded", 3.0, 4.0, {"a": [1, 1], "b": [2, 3]})
    after = Result("ann", LESSON, "graded", 1.0, 4.0, {"a": [1, 1], "b": [0, 3]})
    change = regrade.Change(before, after)
    assert change.changed
    assert change.line() == f"ann/{LESSON}: 3/4 -> 1/4 (-2): b 2/3 -> 0/3"
    assert not regrade.Change(after, after).changed
    assert regrade.Change(None, after).line().endswith("not graded before -> 1/4")


def test_release_keeps_a_release_once(tmp_path):
    source = find_lesson(LESSON)
    shutil.copyfile(NOTEBOOK, tmp_path / "n.ipynb")
    first = releases.stamp(tmp_path / "n.ipynb", LESSON, tmp_path / "keep")
    again = releases.stamp(tmp_path / "n.ipynb", LESSON, tmp_path / "keep")
    assert first == again == releases.current(LESSON)
    kept = tmp_path / "keep" / LESSON / first
    assert (kept / "solutions" / LESSON / source.name).read_bytes() == (
        source.read_bytes()
    )
    assert [p.name for p in (tmp_path / "keep" / LESSON).iterdir()] == [first]


def test_a_gradebook_batch_refuses_releases_with_other_cells_or_points():
    from autograder.classgrade.prepare import _one_definition

    same = ({"01-a-test": 1.0}, {})
    _one_definition({LESSON: {"current": same, "5a3c5cca0bfd6445": same}})
    with pytest.raises(ValueError, match="one definition per lesson"):
        _one_definition({LESSON: {"current": same, "0ld": ({"01-a-test": 2.0}, {})}})


def test_one_student_under_an_old_release_is_refused_once_the_gradebook_moved_on():
    """After `--rules current` gave the gradebook a release's new points, a
    `--student bob` run under his own (old) release would mix the two: refused,
    as a mixed class is."""
    from autograder.classgrade.prepare import _one_definition

    old, new = ({"01-a-test": 2.0}, {}), ({"01-a-test": 4.0}, {})
    _one_definition({LESSON: {"0ld": new}}, {LESSON: new})  # the same: graded
    with pytest.raises(ValueError, match="course gradebook holds this lesson"):
        _one_definition({LESSON: {"0ld": old}}, {LESSON: new})
    _one_definition({LESSON: {"0ld": old}}, {"another": new})  # not this lesson


def test_once_the_gradebook_holds_the_current_rules_every_run_grades_under_them(
    older_release, tmp_path, monkeypatch
):
    """The gradebook's definition is the record of the rules: after `--rules
    current` made it the current release's, a later run (`--student bob`
    included) grades an old-release notebook under the current release."""
    from types import SimpleNamespace

    from autograder.classgrade.prepare import rules_of
    from autograder.lessons.releases import grade_points

    kept, old = older_release
    monkeypatch.setattr(releases, "RELEASES", kept)
    path = submission(LESSON, tmp_path / f"bob_{LESSON}.ipynb")
    nb = json.loads(path.read_text(encoding="utf-8"))
    nb["metadata"]["course"]["release"]["digest"] = old
    path.write_text(json.dumps(nb), encoding="utf-8")
    bob = [SimpleNamespace(path=path, lesson=LESSON, student="bob")]
    current = (grade_points(LESSON), {})
    then = (grade_points(releases.Release(LESSON, kept / LESSON / old)), {})
    assert then != current
    assert rules_of("release", bob)[path].root is not None  # no gradebook yet
    assert rules_of("release", bob, {LESSON: then})[path].root is not None
    moved = rules_of("release", bob, {LESSON: current})[path]
    assert moved.root is None and moved.digest == releases.current(LESSON)
    assert "gradebook holds the current release's" in moved.note


def _raises_at_the_end(text: str) -> str:
    return text + '\n# %%\nraise RuntimeError("broken")\n'


def _a_visible_test_fails(text: str) -> str:
    # Releases kept from before the referee hold tests written for the
    # student's process; one that fails there must not cost an honest answer.
    marker = 'print("Visible tests passed.")'
    assert marker in text
    return text.replace(marker, 'assert False, "written for another grader"', 1)


@pytest.mark.slow
@pytest.mark.parametrize(
    "spoil, why",
    [(_raises_at_the_end, "RuntimeError"), (_a_visible_test_fails, "ReferenceError")],
)
def test_a_release_that_cannot_be_graded_as_written_is_held_back_alone(
    tmp_path, monkeypatch, spoil, why
):
    """ann's release fails to prepare, cat's is not kept: both held back, each
    named with its release and what to do; ben, on the current release, is
    graded in the same run."""
    kept = tmp_path / "releases"
    broken = kept / LESSON / "0123456789abcdef"
    source = broken / "solutions" / LESSON / f"{LESSON}.py"
    source.parent.mkdir(parents=True)
    source.write_text(spoil(find_lesson(LESSON).read_text(encoding="utf-8")), "utf-8")
    (broken / "notebooks" / LESSON).mkdir(parents=True)
    shutil.copyfile(NOTEBOOK, broken / "notebooks" / LESSON / NOTEBOOK.name)
    monkeypatch.setattr(releases, "RELEASES", kept)
    folder = tmp_path / "in"
    folder.mkdir()
    for name, stamp in (("ann", broken.name), ("cat", "fedcba9876543210")):
        path = submission(LESSON, folder / f"{name}_{LESSON}.ipynb")
        nb = json.loads(path.read_text(encoding="utf-8"))
        nb["metadata"]["course"]["release"]["digest"] = stamp
        path.write_text(json.dumps(nb), encoding="utf-8")
    submission(LESSON, folder / f"ben_{LESSON}.ipynb")
    report = grade_class(
        folder, LESSON, out_dir=tmp_path / "out", jobs=1, progress=False
    )
    (ben,) = report.results
    assert (ben.student, ben.status, ben.score) == ("ben", "graded", 12.0)
    assert ben.release == releases.current(LESSON)
    (ann,) = [p for p in report.problems if "(ann)" in p]
    assert f"release {broken.name}, which this grader cannot grade" in ann
    assert why in ann and "held back, not graded" in ann and "--rules current" in ann
    (cat,) = [p for p in report.problems if "(cat)" in p]
    assert "release fedcba9876543210, which this course does not keep" in cat
    assert store.stored(tmp_path / "out", "ann", LESSON, graded_only=False) is None
    again = grade_class(
        folder,
        LESSON,
        out_dir=tmp_path / "out",
        jobs=1,
        progress=False,
        rules="current",
    )
    assert sorted((r.student, r.score) for r in again.results) == [
        ("ann", 12.0),
        ("ben", 12.0),
        ("cat", 12.0),
    ]
    # Her own rules again, one student: still held, and what stood stays.
    alone = grade_class(
        folder,
        LESSON,
        out_dir=tmp_path / "out",
        jobs=1,
        progress=False,
        student="ann",
    )
    assert [(r.student, r.score) for r in alone.results if r.student == "ann"] == [
        ("ann", 12.0)
    ]
    assert any("(ann); the earlier result of 1 stands" in p for p in alone.problems)


def test_diff_refuses_options_it_would_ignore(tmp_path, capsys):
    assert main(["grade", str(tmp_path), "--diff", "--question", "01-a-test"]) == 2
    assert "leave out --question" in capsys.readouterr().err
