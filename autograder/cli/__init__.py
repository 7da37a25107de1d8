"""The `course` command (also `python -m autograder`): every instructor command.

Run ``course --help`` or ``course <command> --help`` for the options.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from autograder.cli.check import check as _check
from autograder.cli.due import add_parser as add_due_parser
from autograder.cli.extend import add_parser as add_extend_parser
from autograder.cli.grade import add_parser as add_grade_parser
from autograder.cli.grade import lesson_flag
from autograder.cli.grade import read_map as _read_map  # noqa: F401 - tests use it
from autograder.cli.release import add_parser as add_release_parser
from autograder.cli.releases import add_parser as add_releases_parser
from autograder.cli.similarity import add_parser as add_similarity_parser


def _doctor(args: argparse.Namespace) -> int:
    from course.doctor import doctor_text

    print(doctor_text())
    return 0


def _demo(args: argparse.Namespace) -> int:
    from autograder.cli.demo import demo

    return demo(args.lesson, skip_samples=args.skip_samples, everything=args.all)


def _bench(args: argparse.Namespace) -> int:
    from autograder.measure import bench

    if args.record:
        print(f"recorded: {bench.record(Path(args.record))}")
        return 0
    mode = "quick" if args.quick else args.mode
    only = args.only.split(",") if args.only else None
    start = time.perf_counter()
    data = bench.run_all(mode, only, log=lambda line: print(line, flush=True))
    out = Path(args.out)
    path = bench.save(data, out)
    figures = [] if args.no_plots else bench.plot(data, out / path.stem)
    print()
    print(bench.summary(data))
    print(f"\nresults: {path}")
    for figure in figures:
        print(f"plot:    {figure}")
    print(f"({mode} mode, {time.perf_counter() - start:.1f} s)")
    return 0


def _student_bundle(args: argparse.Namespace) -> int:
    from autograder.publish.bundle import BundleError, build_bundle

    try:
        build_bundle(Path(args.out))
    except BundleError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


def _site(args: argparse.Namespace) -> int:
    from autograder.cli.reference import command_reference
    from autograder.publish.site import SiteLeakError, build_site

    try:
        build_site(
            Path(args.out),
            solutions=not args.no_solutions,
            cache=Path(args.cache),
            lessons=args.lessons or None,
            commands=command_reference(build_parser()),
            hub=args.hub,
        )
    except SiteLeakError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


def _gpu_compare(args: argparse.Namespace) -> int:
    from autograder.measure.gpu_compare import compare_run, report

    try:
        outcome = compare_run(Path(args.folder))
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(report(outcome))
    return 0 if all(not m for t in outcome.values() for m in t.values()) else 1


def _model_check(args: argparse.Namespace) -> int:
    from autograder.measure.model_check import model_check
    from autograder.measure.model_rows import bench_file

    folder = Path(args.folder)
    try:
        bench_file(folder)
        found = (folder / "extras.json").is_file()
    except FileNotFoundError:
        found = False
    if not found:
        print(
            f"error: {folder} is not a `make gpu-check` run (no extras.json and "
            "bench--*.json); try docs/gpu-runs/2026-12-04-nvidia-h200",
            file=sys.stderr,
        )
        return 2
    model_check(folder, write=args.write)
    return 0


def _gpu_check(args: argparse.Namespace) -> int:
    from autograder.measure.gpu_check import gpu_check

    only = [d.strip().zfill(2) for d in args.only.split(",")] if args.only else None
    return gpu_check(
        Path(args.out), quick=args.quick, lessons=args.lessons or None, only=only
    )


def _weak_confinement_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--allow-weak-confinement",
        action="store_true",
        help="grade even where Linux refuses the kernels their own user, PID and "
        "mount namespaces (they could then read other processes' command lines "
        "and environments in /proc); by default grading stops there",
    )


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of the ``course`` command."""
    parser = argparse.ArgumentParser(
        prog="course",
        description="Tools for the GPU acceleration course.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    doctor = sub.add_parser(
        "doctor", help="print the environment: Python, torch, CUDA, CuPy, nbgrader"
    )
    doctor.set_defaults(func=_doctor)

    add_release_parser(sub)
    add_releases_parser(sub)

    add_grade_parser(sub, _weak_confinement_flag)
    add_similarity_parser(sub)
    add_due_parser(sub)
    add_extend_parser(sub)

    check = sub.add_parser(
        "check",
        help="grade your own notebook with the hidden tests (self-study)",
        description="Grade one notebook exactly as `course grade` does, without "
        "changing it, and print the points per question with hints.",
    )
    check.add_argument("notebook", help="your notebook, e.g. notebooks/01_devices/...")
    lesson_flag(check, "lesson, if the file name does not say")
    check.add_argument(
        "--out", default=str(Path.home() / ".course-check"), help="where feedback goes"
    )
    check.add_argument(
        "--timeout",
        type=int,
        default=None,
        help="seconds per cell (default: the course config's)",
    )
    check.add_argument(
        "--rules",
        choices=("release", "current"),
        default="release",
        help="grade under the release the notebook was fetched from (default), "
        "or under the lesson as it is now",
    )
    _weak_confinement_flag(check)
    check.set_defaults(func=_check)

    bench = sub.add_parser(
        "bench",
        help="measure copies, launches, the sync trap, ops and the MLP; JSON + plots",
        description="Measure on every device present, with warm-up, synchronisation, "
        "repeats, median and spread. Writes OUT/bench--<hardware>--<time>.json and "
        "one PNG per experiment next to it. GPU parts are skipped, with the reason, "
        "on a machine without a GPU.",
    )
    bench.add_argument(
        "--quick", action="store_true", help="small sizes, few repeats (CI, CPU)"
    )
    bench.add_argument(
        "--mode",
        choices=("quick", "full", "gpu-check"),
        default="full",
        help="sizes and repeats (gpu-check: full, with a smaller CPU MLP)",
    )
    bench.add_argument("--out", default="bench-results", help="output folder")
    bench.add_argument(
        "--only",
        help="comma-separated experiments: timer,transfer,launch,"
        "sync_trap,ops,mlp (default: all)",
    )
    bench.add_argument("--no-plots", action="store_true", help="JSON only")
    bench.add_argument(
        "--record",
        metavar="RESULT_JSON",
        help="copy a GPU result file into course/recorded/ for the lessons",
    )
    bench.set_defaults(func=_bench)

    gpu = sub.add_parser(
        "gpu-check",
        help="run every lesson as a script and the full bench; results under OUT",
        description="For a GPU machine without Jupyter: runs solutions/NN/NN.py as "
        "plain scripts, then `course bench`, and writes OUT/gpu-check.json.",
    )
    gpu.add_argument("--out", default="gpu-check", help="output folder")
    gpu.add_argument("--quick", action="store_true", help="bench in quick mode")
    gpu.add_argument("lessons", nargs="*", help="lessons to run (default: all)")
    gpu.add_argument(
        "--only",
        metavar="DAYS",
        help="e.g. 09,10: just those Days and their GPU extras (numba launches, "
        "the kernels on the device, CuPy's kernels, memory, launches under a "
        "profiler), no bench: a few minutes",
    )
    gpu.set_defaults(func=_gpu_check)

    bundle = sub.add_parser(
        "student-bundle",
        help="write the student bundle (notebooks, data, student wheel, README)",
        description="For a graded class: an archive of what students may see, "
        "checked file by file for answers, hidden tests and the grader.",
    )
    bundle.add_argument("--out", default="dist", help="output folder")
    bundle.set_defaults(func=_student_bundle)

    site = sub.add_parser(
        "site",
        help="build the course website (every Day executed on the CPU) with Sphinx",
        description="Every Day's page is the lesson executed on the CPU, hidden "
        "tests removed before anything runs; answers collapsed behind 'Show "
        "solution', or left out with --no-solutions. Executions are cached by the "
        "lesson's text: a rebuild with no change executes nothing.",
    )
    site.add_argument("--out", default="build/site", help="output folder")
    site.add_argument(
        "--no-solutions",
        action="store_true",
        help="leave the answers out (for graded classes; make site SOLUTIONS=0)",
    )
    site.add_argument(
        "--cache", default="build/site-cache", help="executed lessons, by text"
    )
    site.add_argument(
        "--hub",
        default=os.environ.get("COURSE_HUB_URL", ""),
        help="the class's JupyterHub (https://...): each Day gets a link that "
        "opens it there from the students branch (default: $COURSE_HUB_URL)",
    )
    site.add_argument("lessons", nargs="*", help="lessons (default: all)")
    site.set_defaults(func=_site)

    compare = sub.add_parser(
        "gpu-compare",
        help="judge a gpu-check folder's hidden-test results against the CPU reference",
        description="Pairs each hidden test's results logged by `course gpu-check` "
        "on a GPU with the same test's reference results computed here, and "
        "compares them as the grader does (device names aside).",
    )
    compare.add_argument("folder", help="a folder written by `course gpu-check`")
    compare.set_defaults(func=_gpu_compare)

    model = sub.add_parser(
        "model-check",
        help="the GPU cost model against a recorded GPU run: every row, in sample "
        "and leave-one-experiment-out",
        description="Fits the constants of course.gpumodel on a `make gpu-check` "
        "run and prints measured, modelled and error for every row it covers, "
        "with each experiment also predicted from constants fitted without it, "
        "and the blind test against seed 004's published 18.55 s. Writes "
        "DIR/model-check.json.",
    )
    model.add_argument(
        "folder", help="a run, e.g. docs/gpu-runs/2026-12-04-nvidia-h200"
    )
    model.add_argument(
        "--write",
        action="store_true",
        help="also write the fitted constants into the course's table "
        "(course/recorded/gpumodel--*.json)",
    )
    model.set_defaults(func=_model_check)

    demo = sub.add_parser(
        "demo",
        help="doctor, release, run a lesson, and grade one sample of each kind "
        "for two lessons",
    )
    demo.add_argument(
        "--lesson", default="01_devices", help="lesson to run as a script"
    )
    demo.add_argument(
        "--skip-samples", action="store_true", help="skip grading the samples"
    )
    demo.add_argument(
        "--all", action="store_true", help="grade the whole sample class instead"
    )
    demo.set_defaults(func=_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``course`` command; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    # progress and results as they happen, in a log file too
    if not sys.stdout.isatty() and hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(line_buffering=True)
    try:
        return args.func(args)
    except KeyboardInterrupt as exc:  # batch.Stopped says what stays graded
        print(f"course {args.command}: {str(exc) or 'stopped'}", file=sys.stderr)
        return 130
    except (ValueError, RuntimeError, OSError) as exc:
        print(f"course {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
