"""The run summary speaks of this run: kernels counted among the notebooks
graded now, not those an earlier run graded."""

from __future__ import annotations

from pathlib import Path

from autograder.classgrade.reports import ClassReport, Result


def test_the_kernel_line_counts_only_notebooks_graded_now():
    results = [
        Result(name, "01_devices", "graded", 12.0, 12.0, kernel="shared")
        for name in ("ann", "bob", "cat")
    ]
    report = ClassReport(
        results,
        [],
        1,
        2,
        Path("grading"),
        1.0,
        kernels="confined",
        fresh=frozenset({("bob", "01_devices")}),
    )
    assert "kernels: confined; 1 forked from the batch's warm server" in (
        report.summary()
    )
    none = ClassReport(results, [], 0, 3, Path("grading"), 1.0, kernels="confined")
    assert "kernels: confined\n" in none.summary() + "\n"
    assert "forked" not in none.summary()


def test_a_lesson_with_no_submission_says_so(tmp_path):
    import shutil

    from autograder.classgrade import grade_class
    from autograder.lessons import REPO_ROOT

    folder = tmp_path / "submitted" / "ann" / "01_devices"
    folder.mkdir(parents=True)
    shutil.copyfile(
        REPO_ROOT / "notebooks" / "01_devices" / "01_devices.ipynb",
        folder / "01_devices.ipynb",
    )
    report = grade_class(
        tmp_path / "submitted",
        "02_migration",
        out_dir=tmp_path / "out",
        jobs=1,
        progress=False,
    )
    assert report.results == []
    assert any(
        p.startswith("no submission of 02_migration in ") and "--lesson" in p
        for p in report.problems
    ), report.problems


def test_a_forced_run_stopped_says_what_the_next_run_will_grade(tmp_path):
    """Ctrl-C in a --force run: a plain rerun keeps the earlier result of a
    notebook not regraded yet, so the count says so."""
    from types import SimpleNamespace

    from autograder.classgrade import store
    from autograder.classgrade.batch import _stopped

    def job(name: str) -> SimpleNamespace:
        return SimpleNamespace(student=name, lesson="01_devices", digest=f"d-{name}")

    for name in ("bob", "cat"):  # graded by an earlier run, same files
        store.save(tmp_path, Result(name, "01_devices", "graded", digest=f"d-{name}"))
    jobs = [job(n) for n in ("ann", "bob", "cat", "dee")]
    done = {("ann", "01_devices")}
    forced = SimpleNamespace(
        jobs=jobs, request=SimpleNamespace(force=True, out_dir=tmp_path)
    )
    assert str(_stopped(forced, done)) == (
        "stopped; 1 graded, 1 will be graded on the next run, 2 keep their "
        "earlier result (--force again regrades them)"
    )
    plain = SimpleNamespace(
        jobs=jobs, request=SimpleNamespace(force=False, out_dir=tmp_path)
    )
    assert str(_stopped(plain, done)) == (
        "stopped; 1 graded, 3 will be graded on the next run"
    )
