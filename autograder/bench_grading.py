"""Benchmark: plain ``nbgrader autograde`` against ``course grade``, in one run.

``python -m autograder.bench_grading [--per-lesson 6]`` builds a class of
submissions (for every lesson: the reference, the blank notebook, the sample
mistakes, and copies of the reference up to ``--per-lesson``), then times

1. plain nbgrader: one course folder, ``nbgrader autograde <assignment>`` per
   assignment, sequential, as an instructor runs it;
2. ``course grade`` with one worker per core;
3. simply executing each notebook once in a fresh kernel (nbclient, no
   grading), the floor any grader pays.

It prints the speed-up of 2 over 1 (target at least 1.8x on 2 cores), the
per-notebook overhead of ``course grade`` over plain execution (target at most
1.3x), and where the time goes. A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from autograder.classgrade import grade_class, reassemble
from autograder.lessons import REPO_ROOT, lesson_names
from autograder.samples import all_samples, write_samples
from autograder.scratch import ScratchCourse, write_course_config


def build_class(folder: Path, per_lesson: int) -> list[tuple[str, str, Path]]:
    """Write the submissions; return (student, lesson, path) for each."""
    keep = [s for s in all_samples() if s.kind in ("reference", "blank", "mistake")]
    write_samples(folder / "all")
    entries = []
    for lesson in lesson_names():
        mine = [s for s in keep if s.lesson == lesson]
        for s in mine:
            entries.append(
                (s.student, lesson, folder / "all" / f"{s.student}_{lesson}.ipynb")
            )
        reference = folder / "all" / f"reference_{lesson}.ipynb"
        for i in range(per_lesson - len(mine)):
            copy = folder / "all" / f"copy{i}_{lesson}.ipynb"
            shutil.copyfile(reference, copy)
            entries.append((f"copy{i}", lesson, copy))
    loose = folder / "loose"
    loose.mkdir()
    for student, lesson, path in entries:
        shutil.copyfile(path, loose / f"{student}_{lesson}.ipynb")
    return entries


def plain_nbgrader(entries, root: Path) -> float:
    """Sequential ``nbgrader autograde`` per assignment; returns seconds."""
    course = ScratchCourse(root, keep=True)
    write_course_config(root)  # read by the nbgrader command run in root
    for lesson in sorted({e[1] for e in entries}):
        course.generate(lesson)
    for student, lesson, path in entries:
        target = root / "submitted" / student / lesson / f"{lesson}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    env = dict(
        os.environ,
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    )
    start = time.perf_counter()
    for lesson in sorted({e[1] for e in entries}):
        subprocess.run(
            [
                sys.executable,
                "-m",
                "nbgrader",
                "autograde",
                lesson,
                "--force",
            ],
            cwd=root,
            env=env,
            capture_output=True,
            check=False,
        )
    seconds = time.perf_counter() - start
    missing = [
        f"{student}/{lesson}"
        for student, lesson, _ in entries
        if not (root / "autograded" / student / lesson / f"{lesson}.ipynb").is_file()
    ]
    if missing:
        raise RuntimeError(f"plain nbgrader did not grade {missing}")
    return seconds


def execute_only(entries, release_dir: Path) -> dict[str, float]:
    """Execute each reassembled notebook once with nbclient; seconds per notebook."""
    from nbclient import NotebookClient

    times = {}
    for student, lesson, path in entries:
        release = nbformat.read(release_dir / lesson / f"{lesson}.ipynb", as_version=4)
        nb, _ = reassemble(nbformat.read(path, as_version=4), release)
        start = time.perf_counter()
        NotebookClient(
            nb, timeout=120, allow_errors=True, kernel_name="python3"
        ).execute()
        times[f"{student}/{lesson}"] = time.perf_counter() - start
    return times


def startup_cost() -> float:
    """Seconds to start a kernel, run an empty cell, and stop it."""
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("pass")])
    start = time.perf_counter()
    NotebookClient(nb, kernel_name="python3").execute()
    return time.perf_counter() - start


def main(argv=None) -> int:
    """Run the three measurements and print the comparison."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--per-lesson",
        type=int,
        default=6,
        help="submissions per lesson (default 6: 48 in all)",
    )
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        entries = build_class(tmp / "class", args.per_lesson)
        n = len(entries)
        print(f"{n} submissions, {len(lesson_names())} lessons, {os.cpu_count()} cores")
        plain = plain_nbgrader(entries, tmp / "plain")
        print(
            f"plain nbgrader autograde (sequential): {plain:7.1f} s "
            f"({plain / n:.2f} s per notebook)"
        )
        start = time.perf_counter()
        report = grade_class(
            tmp / "class" / "loose",
            out_dir=tmp / "ours",
            jobs=args.jobs,
            progress=False,
        )
        ours = time.perf_counter() - start
        print(
            f"course grade --jobs {args.jobs}:              {ours:7.1f} s "
            f"({ours / n:.2f} s per notebook)"
        )
        print(f"speed-up: {plain / ours:.2f}x (target >= 1.8x)")
        executed = execute_only(entries, REPO_ROOT / "notebooks")
        worker = {f"{r.student}/{r.assignment}": r.seconds for r in report.results}
        ratios = [worker[k] / executed[k] for k in executed if k in worker]
        print(
            f"plain execution, median per notebook: "
            f"{statistics.median(executed.values()):.2f} s"
        )
        print(
            f"course grade per-notebook time / plain execution: median "
            f"{statistics.median(ratios):.2f}x (target <= 1.3x)"
        )
        kernel = startup_cost()
        median_exec = statistics.median(executed.values())
        median_worker = statistics.median(worker.values())
        print("where a plain notebook's time goes (medians):")
        print(f"  kernel start and stop:          {kernel:5.2f} s")
        print(f"  imports and lesson code:        {median_exec - kernel:5.2f} s")
        print(
            f"course grade, per notebook (median, {args.jobs} at a time): "
            f"{median_worker:5.2f} s, nbgrader bookkeeping and feedback included; "
            "its warm kernels skip the imports"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
