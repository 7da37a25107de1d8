"""A whole term in one script: every instructor path, every store in agreement.

Six students (``o'brien`` and ``José`` among them) fetch Day 01 from the
nbgrader exchange and submit; the due date is set with ``nbgrader db
assignment add`` before the first grading; two students are late. Then:
the first grading is stopped by Ctrl-C and resumed; a student resubmits
(``collect --update``); an instructor grades a cell by hand and comments; a
rerun; a change of points applied with ``--rules current``; one student's
regrade; a release reworded mid-term beside the current one, graded in one
run, each notebook under its own release; a resubmission after a hand grade
(the stale hand grade named with both scores); an extension for a mistyped
id; a resubmission on the Chinese edition. After each step, every store
gives every student the same final score and maximum: the gradebook,
``grades.csv``, the feedback page, ``nbgrader export``, and the Canvas and
Moodle files; the results JSON holds no score at all.
"""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys
from datetime import datetime, timedelta, timezone

import pytest

from autograder.lessons import REPO_ROOT, releases
from tests.lesson_helpers import CHANGED, older_release, reworded_release
from tests.term import LESSON, STUDENTS, Term
from tests.term import answers as _answers

LATE = {"dee": 2.5, "o'brien": 0.5}  # hours past the due date
pytestmark = pytest.mark.slow


def test_a_whole_term(tmp_path, monkeypatch):
    kept, old = older_release(tmp_path / "older")
    monkeypatch.setattr(releases, "RELEASES", kept)
    term = Term(tmp_path, tmp_path / "older" / "notebooks" / LESSON)
    term.nbgrader("release_assignment", LESSON, *term.teacher)
    # The due date first, the Instructor guide's way, an hour from now; and the roster.
    due = datetime.now(timezone.utc).replace(microsecond=0) + timedelta(hours=1)
    term.nbgrader(
        "db", "assignment", "add", LESSON, f"--duedate={due:%Y-%m-%d %H:%M:%S} UTC"
    )
    roster = tmp_path / "roster.csv"
    with open(roster, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "first_name", "last_name", "email", "lms_user_id"])
        for i, name in enumerate(STUDENTS):
            writer.writerow([name, name.title(), "X", f"s{i}@example.org", f"10{i}"])
    term.nbgrader("db", "student", "import", str(roster))

    for name in STUDENTS:
        term.submit(name, _answers("forgets-mps" if name == "bob" else None))
    term.nbgrader("collect", LESSON, *term.teacher)
    submitted = term.root / "submitted"
    for name, hours in LATE.items():
        late = due.replace(tzinfo=None) + timedelta(hours=hours)
        (submitted / name / LESSON / "timestamp.txt").write_text(
            late.strftime("%Y-%m-%d %H:%M:%S.%f UTC"), encoding="utf-8"
        )

    # 1. The first grading, stopped by Ctrl-C after two results: what was
    # recorded stays, in the gradebook and beside it; the rerun grades the rest.
    arrived: list[str] = []

    def stop_after_two(result) -> None:
        arrived.append(result.student)
        if len(arrived) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        term.grade(on_result=stop_after_two)
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{term.db}") as book:
        kept_rows = {s.student.id for s in book.find_assignment(LESSON).submissions}
    assert kept_rows == set(arrived)
    report = term.grade()
    assert (report.graded_now, report.reused) == (4, 2), report.summary()
    book = term.agree(tmp_path, 14.0)  # under the release the class got
    assert book["ann"][0] == 14.0
    assert book["dee"][0] == 14.0 - 3 and book["o'brien"][0] == 14.0 - 1
    assert book["bob"][0] < 14.0

    # 2. cat resubmits (a mistake now), and ann (the same marks, her code
    # changed); `collect --update` takes both, and ann's page shows her new code.
    term.submit("cat", _answers("forgets-mps"), fetch=False)
    again = _answers()
    first = next(iter(again))
    again[first] += "\n# resubmitted by ann\n"
    term.submit("ann", again, fetch=False)
    term.nbgrader("collect", "--update", LESSON, *term.teacher)
    report = term.grade()
    assert (report.graded_now, report.reused) == (2, 4), report.summary()
    now = term.agree(tmp_path, 14.0)
    assert now["cat"][0] == book["bob"][0] and now["ann"][0] == 14.0
    page = term.out / "feedback" / LESSON / "ann.html"
    assert "resubmitted by ann" in page.read_text(encoding="utf-8")

    # 3. A manual grade and a comment (as formgrader writes them); a rerun
    # grades nothing, and every store shows the manual score.
    with Gradebook(f"sqlite:///{term.db}") as gb:
        grade = gb.find_grade("01-usable-memory-test", LESSON, LESSON, "ann")
        grade.manual_score, grade.needs_manual_grade = 0.5, False
        gb.db.commit()
    report = term.grade()
    assert (report.graded_now, report.reused) == (0, 6), report.summary()
    assert term.agree(tmp_path, 14.0)["ann"][0] == 13.5
    with Gradebook(f"sqlite:///{term.db}") as gb:  # a rerun changed no triage
        grade = gb.find_grade("01-usable-memory-test", LESSON, LESSON, "ann")
        assert (grade.manual_score, grade.needs_manual_grade) == (0.5, False)

    # 4. The points change: the current release gives the changed test 2
    # points (4 in the class's release); --diff shows it against the
    # gradebook's scores, and --rules current applies it.
    from autograder.classgrade import regrade

    changes = regrade.diff(
        submitted, LESSON, term.out, gradebook=term.db, jobs=2, progress=False
    )
    (ann,) = [c for c in changes if c.after.student == "ann"]
    assert ann.line() == (f"ann/{LESSON}: 14/14 -> 12/12 (-2): {CHANGED} 4/4 -> 2/2"), (
        ann.line()
    )
    assert all(c.changed for c in changes) and len(changes) == 6
    report = term.grade(rules="current")
    assert report.graded_now == 6, report.summary()
    book = term.agree(tmp_path, 12.0)
    assert book["ann"][0] == 11.5 and book["dee"][0] == 12.0 - 3
    with Gradebook(f"sqlite:///{term.db}") as gb:
        cell = gb.find_grade_cell(CHANGED, LESSON, LESSON)
        assert float(cell.max_score) == 2.0
        assert max(g.score for g in cell.grades) <= 2.0

    # 5. One student's regrade, under his own release by default: the
    # gradebook holds the current rules, and so grades him under them.
    report = term.grade(student="bob")
    assert report.graded_now == 1, report.summary()
    assert term.agree(tmp_path, 12.0) == book
    (bob,) = [r for r in report.results if r.student == "bob"]
    assert bob.release == releases.current(LESSON) != old

    # 6. The prose is reworded mid-term (the same cells and points) and
    # released again: cat takes that release, José the repository's current
    # one (a kept release and the current one); one run grades both, each
    # under its own release, beside the gradebook's current definition.
    reworded, notebook = reworded_release(tmp_path / "older")
    now = REPO_ROOT / "notebooks" / LESSON / f"{LESSON}.ipynb"
    for name, given in (("cat", notebook), ("José", now)):
        shutil.copyfile(given, term.homes / name / LESSON / f"{LESSON}.ipynb")
        term.submit(name, _answers(), fetch=False)
    term.nbgrader("collect", "--update", LESSON, *term.teacher)
    report = term.grade()
    assert report.graded_now == 2, report.summary()
    by = {r.student: r for r in report.results}
    assert by["cat"].release == reworded != releases.current(LESSON)
    assert by["José"].release == releases.current(LESSON)
    book = term.agree(tmp_path, 12.0)
    assert book["cat"][0] == book["José"][0] == 12.0

    # 7. A hand grade on a hidden test bob failed; then bob resubmits a
    # correct notebook. The hand grade still counts (nbgrader's rule) but is
    # never stale in silence: the summary, the review column and his page
    # name both scores; once looked at again in formgrader, no line is left.
    hidden = "01-pick-device-hidden-test"
    with Gradebook(f"sqlite:///{term.db}") as gb:
        grade = gb.find_grade(hidden, LESSON, LESSON, "bob")
        top = float(grade.max_score)
        assert grade.auto_score == 0.0
        grade.manual_score, grade.needs_manual_grade = top / 2, False
        gb.db.commit()
    term.submit("bob", _answers(), fetch=False)
    term.nbgrader("collect", "--update", LESSON, *term.teacher)
    report = term.grade()
    assert report.graded_now == 1, report.summary()
    stale = f"hand grade {top / 2:g}/{top:g} on {hidden} stands over its new auto "
    stale += f"score {top:g}: look again in formgrader"
    assert f"bob/{LESSON}: {stale}" in report.summary()
    book = term.agree(tmp_path, 12.0)
    assert book["bob"][0] == 12.0 - top / 2
    rows = {r["student"]: r for r in csv.DictReader(open(term.out / "grades.csv"))}
    assert stale in rows["bob"]["review"] and float(rows["bob"]["manual"]) == top / 2
    assert rows["cat"]["manual"] == ""
    page = (term.out / "feedback" / LESSON / "bob.html").read_text(encoding="utf-8")
    assert 'class="hand-stale"' in page and f"{top / 2:g} / {top:g}" in page
    with Gradebook(f"sqlite:///{term.db}") as gb:  # formgrader: saved again
        gb.find_grade(hidden, LESSON, LESSON, "bob").needs_manual_grade = False
        gb.db.commit()
    report = term.grade()
    assert report.graded_now == 0 and "hand grade" not in report.summary()
    page = (term.out / "feedback" / LESSON / "bob.html").read_text(encoding="utf-8")
    assert 'class="hand-stale"' not in page
    assert term.agree(tmp_path, 12.0) == book

    # 8. An extension for a mistyped id is refused; with --new it is kept, and
    # the next run names it; --remove takes it back.
    until = (due + timedelta(days=1)).isoformat().replace("+00:00", "Z")

    def extend(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "autograder", "extend", *args]
            + ["--gradebook", str(term.db)],
            env=term.env,
            cwd=term.root,
            capture_output=True,
            text=True,
            timeout=300,
        )

    typo = extend("bbo", LESSON, "--until", until)
    assert typo.returncode != 0 and "bbo" in typo.stderr + typo.stdout
    assert extend("bbo", LESSON, "--until", until, "--new").returncode == 0
    stray = f"bbo/{LESSON}: an extension (course extend) is kept for a student"
    assert term.grade().summary().count(stray) == 1  # named, once a run
    assert extend("bbo", LESSON, "--remove").returncode == 0
    assert "bbo/" not in term.grade().summary()
    assert term.agree(tmp_path, 12.0) == book

    # 9. José resubmits on the Chinese edition: graded under the same rules,
    # his page in Chinese, every store agreeing.
    zh = REPO_ROOT / "notebooks-zh" / LESSON / f"{LESSON}.ipynb"
    shutil.copyfile(zh, term.homes / "José" / LESSON / f"{LESSON}.ipynb")
    term.submit("José", _answers(), fetch=False)
    term.nbgrader("collect", "--update", LESSON, *term.teacher)
    report = term.grade()
    assert report.graded_now == 1, report.summary()
    assert term.agree(tmp_path, 12.0) == book
    page = (term.out / "feedback" / LESSON / "José.html").read_text(encoding="utf-8")
    assert "学习目标" in page
