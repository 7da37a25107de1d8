"""The ``course`` command line: ``course doctor``, ``course release``, ``course demo``.

Run ``course --help`` or ``course <command> --help`` for the options.
"""

from __future__ import annotations

import argparse
import filecmp
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path


def _doctor(args: argparse.Namespace) -> int:
    from course.doctor import doctor_text

    print(doctor_text())
    return 0


def _release(args: argparse.Namespace) -> int:
    from autograder.lessons import REPO_ROOT
    from autograder.release import release

    lessons = args.lessons or None
    if not args.check:
        release(lessons)
        return 0
    notebooks = REPO_ROOT / "notebooks"
    with tempfile.TemporaryDirectory() as tmp:
        written = release(lessons, Path(tmp), log=lambda *_: None)
        stale = [
            str(p.relative_to(tmp))
            for p in written
            if not (notebooks / p.relative_to(tmp)).is_file()
            or not filecmp.cmp(p, notebooks / p.relative_to(tmp), shallow=False)
        ]
    if stale:
        print("notebooks/ is out of date with solutions/: " + ", ".join(stale))
        print("Run `make release` (or `course release`) and commit the result.")
        return 1
    print(f"notebooks/ is up to date ({len(written)} notebook(s)).")
    return 0


def _demo(args: argparse.Namespace) -> int:
    from autograder.execute import run_script
    from autograder.grading import grade_notebooks
    from autograder.lessons import (
        REPO_ROOT,
        find_lesson,
        source_to_notebook,
        write_notebook,
    )
    from autograder.release import release
    from course.doctor import doctor_text

    lesson = find_lesson(args.lesson).stem
    print("== 1/4 environment (course doctor)")
    print(doctor_text())
    print("\n== 2/4 release: solutions/ -> notebooks/ (student edition)")
    start = time.perf_counter()
    release()
    print(f"released in {time.perf_counter() - start:.1f} s")
    print(f"\n== 3/4 run {lesson}'s solution top to bottom, as a script")
    run = run_script(lesson)
    print(run.output.rstrip()[-1500:] if not run.ok else f"ok in {run.seconds:.1f} s")
    if not run.ok:
        print(f"FAILED: {lesson} did not run to the end.")
        return 1
    print(f"\n== 4/4 grade two submissions of {lesson} with nbgrader autograde")
    with tempfile.TemporaryDirectory() as tmp:
        reference = Path(tmp) / "reference.ipynb"
        write_notebook(source_to_notebook(find_lesson(lesson)), reference)
        blank = REPO_ROOT / "notebooks" / lesson / f"{lesson}.ipynb"
        start = time.perf_counter()
        grades = grade_notebooks(lesson, {"reference": reference, "blank": blank})
    print(f"graded in {time.perf_counter() - start:.1f} s")
    print(f"{'student':<16} {'lesson':<22} score")
    for grade in grades:
        print(grade)
    expected = {"reference": grades[0].max_score, "blank": 0.0}
    wrong = [g for g in grades if g.score != expected[g.student]]
    if wrong:
        print("UNEXPECTED: the reference must get full marks and the blank zero.")
        return 1
    print(
        "\nAs expected: the reference solution gets full marks, the blank "
        "student notebook gets zero."
    )
    return 0


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

    rel = sub.add_parser(
        "release", help="regenerate notebooks/ (student edition) from solutions/"
    )
    rel.add_argument("lessons", nargs="*", help="lessons to release (default: all)")
    rel.add_argument(
        "--check",
        action="store_true",
        help="release into a scratch folder and fail if notebooks/ differs",
    )
    rel.set_defaults(func=_release)

    demo = sub.add_parser(
        "demo",
        help="doctor, release, run a lesson, and grade its reference and blank copies",
    )
    demo.add_argument("--lesson", default="01_devices", help="lesson to demonstrate")
    demo.set_defaults(func=_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``course`` command; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, RuntimeError, OSError) as exc:
        print(f"course {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
