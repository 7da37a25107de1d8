"""Benchmark: plain ``nbgrader autograde`` against ``course grade``, in one run.

``python -m autograder.measure.bench_grading [--per-lesson 6]`` builds a class of
submissions (for every lesson: the reference, the blank notebook, the sample
mistakes, and copies of the reference up to ``--per-lesson``), then times

1. stock nbgrader: one course folder, ``nbgrader autograde <assignment>`` per
   assignment, sequential, with nbgrader's default preprocessors (its own
   ``Execute``, cold kernels) and the same per-cell timeout, as an instructor
   without this course's grader would run it;
2. ``course grade`` with one worker per core, writing every result into a
   course gradebook as formgrader reads it (the reference results computed
   beforehand: they are made once per machine, not per class);
3. simply executing each notebook once in a fresh kernel (nbclient, no
   grading);
4. the floor, without a target: every notebook's cells run in one already-warm
   interpreter per worker, without nbgrader.

It prints the speed-up of 2 over 1 (target at least 5x on 2 cores), the
per-notebook overhead of ``course grade`` over plain execution, what the verdict
step costs per notebook, and where the time goes. A benchmark, not a test.
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
from queue import Empty

import nbformat

from autograder.classgrade import grade_class, reassemble
from autograder.grading.kernel.limits import GRADING_ENV
from autograder.lessons import REPO_ROOT, lesson_names
from autograder.lessons.scratch import ScratchCourse
from autograder.samples import all_samples, write_samples

#: ipykernel 7 warns on every start that loopback TCP is not encrypted.
QUIET = "--IPKernelApp.log_level=ERROR"


def build_class(folder: Path, per_lesson: int) -> list[tuple[str, str, Path]]:
    """Write the submissions; return (student, lesson, path) for each."""
    keep = [s for s in all_samples() if s.kind in ("reference", "blank", "mistake")]
    write_samples(folder / "all")
    entries = []
    for lesson in lesson_names():
        mine = [s for s in keep if s.lesson == lesson]
        for s in mine:
            entries.append(
                (s.name, lesson, folder / "all" / f"{s.name}_{lesson}.ipynb")
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


STOCK_CONFIG = """c = get_config()  # noqa: F821
c.CourseDirectory.root = {root!r}
c.CourseDirectory.course_id = "gpu-course"
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "notebooks"
c.Execute.timeout = {timeout}
c.Execute.interrupt_on_timeout = True
"""


def plain_nbgrader(entries, root: Path) -> float:
    """Sequential stock ``nbgrader autograde`` per assignment; returns seconds."""
    from autograder.config.settings import instructor_config

    course = ScratchCourse(root, keep=True)
    for lesson in sorted({e[1] for e in entries}):
        course.generate(lesson)
    # Read by the nbgrader command run in root: nbgrader's defaults, this layout.
    (root / "nbgrader_config.py").write_text(
        STOCK_CONFIG.format(
            root=str(root.resolve()),
            timeout=instructor_config(None).GradingExecute.timeout,
        ),
        encoding="utf-8",
    )
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
            nb,
            timeout=120,
            allow_errors=True,
            kernel_name="python3",
            extra_arguments=[QUIET],
        ).execute()
        times[f"{student}/{lesson}"] = time.perf_counter() - start
    return times


def _warm_share(paths: list[str], queue) -> None:
    """One worker of the floor: one kernel, every notebook's cells run in it."""
    from jupyter_client.manager import KernelManager

    km = KernelManager(kernel_name="python3")
    # One math thread per kernel, as course grade runs them side by side.
    threads = {
        v: "1" for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
    }
    km.start_kernel(
        extra_arguments=[QUIET],
        env={**os.environ, **threads, **GRADING_ENV},
    )
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=60)
    start = time.perf_counter()
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "code":
                kc.execute_interactive(
                    cell.source, timeout=120, output_hook=lambda m: None
                )
    queue.put(time.perf_counter() - start)
    kc.stop_channels()
    km.shutdown_kernel(now=True)


def warm_floor(entries, release_dir: Path, jobs: int, tmp: Path) -> float:
    """Wall time to run every reassembled notebook in one warm kernel per worker."""
    import multiprocessing

    paths = []
    for student, lesson, path in entries:
        release = nbformat.read(release_dir / lesson / f"{lesson}.ipynb", as_version=4)
        nb, _ = reassemble(nbformat.read(path, as_version=4), release)
        out = tmp / f"{student}_{lesson}.ipynb"
        nbformat.write(nb, out)
        paths.append(str(out))
    queue = multiprocessing.get_context("spawn").Queue()
    workers = [
        multiprocessing.get_context("spawn").Process(
            target=_warm_share, args=(paths[i::jobs], queue)
        )
        for i in range(jobs)
    ]
    for worker in workers:
        worker.start()
    seconds: list[float] = []
    while len(seconds) < len(workers):
        try:
            seconds.append(queue.get(timeout=5))
        except Empty:
            dead = [w.exitcode for w in workers if w.exitcode not in (None, 0)]
            if dead:
                raise RuntimeError(
                    f"a floor worker stopped (exit code {dead[0]}) before it "
                    "reported: its error is printed above"
                ) from None
    for worker in workers:
        worker.join()
    return max(seconds)


def startup_cost() -> float:
    """Seconds to start a kernel, run an empty cell, and stop it."""
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("pass")])
    start = time.perf_counter()
    NotebookClient(nb, kernel_name="python3", extra_arguments=[QUIET]).execute()
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
    parser.add_argument(
        "--skip-stock",
        action="store_true",
        help="measure course grade and the floor only (no stock nbgrader run, "
        "no plain executions): the speed-up is then not reported",
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        entries = build_class(tmp / "class", args.per_lesson)
        n = len(entries)
        print(f"{n} submissions, {len(lesson_names())} lessons, {os.cpu_count()} cores")
        from autograder.grading.reference import reference_results

        start = time.perf_counter()
        for lesson in lesson_names():
            reference_results(lesson)
        print(
            f"reference results (once per machine and version; cached): "
            f"{time.perf_counter() - start:.1f} s"
        )
        if not args.skip_stock:
            plain = plain_nbgrader(entries, tmp / "plain")
            print(
                f"stock nbgrader autograde (sequential): {plain:7.1f} s "
                f"({plain / n:.2f} s per notebook)"
            )
        start = time.perf_counter()
        report = grade_class(
            tmp / "class" / "loose",
            out_dir=tmp / "ours",
            jobs=args.jobs,
            progress=False,
            gradebook=tmp / "ours-course" / "gradebook.db",
        )
        ours = time.perf_counter() - start
        print(
            f"course grade --jobs {args.jobs}:              {ours:7.1f} s "
            f"({ours / n:.2f} s per notebook)"
        )
        if not args.skip_stock:
            print(f"speed-up: {plain / ours:.2f}x (target >= 5x)")
        verdicts = [r.verdict_seconds for r in report.results if r.status == "graded"]
        median_ms = statistics.median(verdicts) * 1000
        print(
            f"verdict step, per notebook: median {median_ms:.1f} ms, "
            f"max {max(verdicts) * 1000:.1f} ms"
        )
        floor = warm_floor(entries, REPO_ROOT / "notebooks", args.jobs, tmp)
        print(
            f"floor: the same cells in one warm interpreter per worker, no "
            f"nbgrader, {args.jobs} workers: {floor:7.1f} s ({floor / n:.2f} s per "
            f"notebook; course grade is {ours / floor:.2f}x this)"
        )
        if args.skip_stock:
            return 0
        executed = execute_only(entries, REPO_ROOT / "notebooks")
        worker = {f"{r.student}/{r.lesson}": r.seconds for r in report.results}
        ratios = [worker[k] / executed[k] for k in executed if k in worker]
        print(
            f"plain execution, median per notebook: "
            f"{statistics.median(executed.values()):.2f} s"
        )
        print(
            f"course grade per-notebook time / plain execution: median "
            f"{statistics.median(ratios):.2f}x"
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
