"""``course grade``: a class graded from the command line's options."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from autograder.config import DEFAULT_MEMORY_MB, DEFAULT_OUT


def read_map(path: str | None) -> tuple[dict[str, str] | None, dict[str, str]]:
    """``--map``: rows ``file name,student id[,submitted_at]``, an optional
    header row first (``file,student,submitted_at``). Returns the students and
    the submission times by file name."""
    if path is None:
        return None, {}
    import csv

    with open(path, newline="", encoding="utf-8-sig") as handle:  # Excel's BOM
        rows = [row for row in csv.reader(handle) if len(row) >= 2]
    if rows and rows[0][0].strip().lower() in ("file", "file name", "filename"):
        rows = rows[1:]
    names = {row[0]: row[1] for row in rows}
    times = {row[0]: row[2] for row in rows if len(row) >= 3 and row[2].strip()}
    return names, times


def _strict_times(times: dict[str, str], gradebook: Path | None) -> dict[str, str]:
    """``--map``'s submission times read as due dates are (ISO 8601 with a zone,
    or a format the course config names), as ISO text in UTC.

    Raises:
        ValueError: the first time that is not read, with its file name.
    """
    from autograder.classgrade.late import parse_time
    from autograder.config.settings import instructor_config

    # the course's settings: beside its gradebook, else where the command runs
    config = instructor_config(gradebook.resolve().parent if gradebook else Path.cwd())
    read = {}
    for name, text in times.items():
        try:
            read[name] = parse_time(text, config).isoformat()
        except ValueError as exc:
            raise ValueError(f"--map, submitted_at of {name}: {exc}") from None
    return read


def gradebook_for(args: argparse.Namespace) -> Path | None:
    """The gradebook to fill: ``--gradebook``, or, for an nbgrader ``submitted/``
    folder, the course's own ``gradebook.db`` beside it; None with
    ``--no-gradebook`` or when neither applies."""
    if args.no_gradebook:
        return None
    if args.gradebook:
        return Path(args.gradebook)
    source = Path(args.source).resolve()
    if source.is_dir() and source.name == "submitted":
        return source.parent / "gradebook.db"
    if (source / "submitted").is_dir() and (source / "gradebook.db").is_file():
        return source / "gradebook.db"  # a course root
    return None


def grade_command(args: argparse.Namespace) -> int:
    """Run ``course grade`` with the parsed ``args``; return the exit code."""
    from autograder.classgrade import grade_class

    gradebook = gradebook_for(args)
    if args.due and not args.lesson:
        raise ValueError("--due needs --lesson: a due date belongs to one lesson")
    if (args.student or args.question) and args.force:
        raise ValueError(
            "--force regrades everyone; leave it out with --student or --question"
        )
    names, times = read_map(args.map)
    if times:
        times = _strict_times(times, gradebook)
    common = {  # what a grading run and a --diff take alike
        "jobs": args.jobs,
        "timeout": args.timeout,
        "memory_mb": args.memory,
        "name_map": names,
        "times": times,
        "progress": not args.quiet,
        "warm": not args.cold_kernels,
        "sandbox": not args.no_sandbox,
        "weak_confinement": args.allow_weak_confinement,
        "student": args.student,
        "gradebook": gradebook,
        **_cluster(args),
    }
    if args.diff:
        from autograder.classgrade import regrade

        ignored = [
            flag
            for flag, on in (
                ("--question", args.question),
                ("--due", args.due),
                ("--nbgrader-feedback", args.nbgrader_feedback),
            )
            if on
        ]
        if ignored:
            raise ValueError(
                f"--diff compares whole results and writes nothing: leave out "
                f"{', '.join(ignored)}"
            )
        if not (Path(args.out) / "results").is_dir():
            print(
                f"note: {args.out} holds no results yet: every submission will "
                "show as not graded before"
            )

        changes = regrade.diff(
            Path(args.source),
            args.lesson,
            Path(args.out).resolve(),
            question=None,
            **common,
        )
        print(regrade.summary(changes, Path(args.out)))
        return 0
    report = grade_class(
        Path(args.source),
        args.lesson,
        out_dir=Path(args.out),
        force=args.force,
        course_feedback=args.nbgrader_feedback,
        due=args.due,
        question=args.question,
        yes=args.yes,
        rules=args.rules,
        **common,
    )
    print(report.summary())
    if gradebook is not None:
        print(f"gradebook: {gradebook} (formgrader and `nbgrader export` read it)")
    return 0


def _cluster(args: argparse.Namespace) -> dict[str, Any]:
    """``--cluster`` and its two flags, as :func:`grade_class` takes them."""
    if args.cluster is None:
        if args.allow_plain_tcp or args.allow_weak_workers:
            raise ValueError(
                "--allow-plain-tcp and --allow-weak-workers go with --cluster"
            )
        return {}
    return {
        "cluster": args.cluster,
        "allow_plain_tcp": args.allow_plain_tcp,
        "allow_weak_workers": args.allow_weak_workers,
    }


def lesson_flag(parser: Any, text: str) -> None:
    """``--lesson``, also spelt ``--assignment`` (nbgrader's word)."""
    parser.add_argument("--lesson", "--assignment", dest="lesson", help=text)


def add_parser(sub: Any, weak_flag: Callable[[Any], None]) -> None:
    """``course grade``'s options, on the ``course`` command's subparsers."""
    grade = sub.add_parser(
        "grade",
        help="grade a class: nbgrader layout, a folder of notebooks, or a zip",
        description="Grade every submission with nbgrader's autograde, in parallel, "
        "each in its own job folder. Results are kept per submission in "
        "OUT/results/, so an interrupted run resumes and a rerun grades only new or "
        "changed notebooks. Writes OUT/grades.csv, OUT/pass_rates.csv and "
        "OUT/feedback/<assignment>/<student>.html.",
    )
    grade.add_argument("source", help="submitted/ folder, folder of .ipynb, or .zip")
    lesson_flag(
        grade, "lesson, e.g. 01_devices (default: all; --assignment is nbgrader's name)"
    )
    grade.add_argument("--out", default=str(DEFAULT_OUT), help="output folder")
    grade.add_argument(
        "--jobs", type=int, default=None, help="parallel workers (default: cores)"
    )
    grade.add_argument(
        "--force",
        action="store_true",
        help="regrade everything, and replace what --out holds: results of "
        "students not in SOURCE are removed once the run has finished (without "
        "--force such a run stops and names them)",
    )
    grade.add_argument(
        "--timeout",
        type=int,
        default=None,
        help="seconds per cell (default: the course config's "
        "c.GradingExecute.timeout, 60 unless the instructor's sets another)",
    )
    grade.add_argument(
        "--memory",
        type=int,
        default=DEFAULT_MEMORY_MB,
        help="address-space cap in MiB per grading process (0: none; not applied "
        "on machines with an NVIDIA GPU, where CUDA needs a large address space)",
    )
    grade.add_argument(
        "--map",
        help="CSV of file name,student id[,submitted_at] for loose files (the "
        "time, ISO 8601 with a zone, for late penalties)",
    )
    grade.add_argument(
        "--due",
        help="set the lesson's due date in the gradebook first: ISO 8601 with a "
        "zone, e.g. '2026-12-01 17:00 Europe/Paris' or '2026-12-01T16:00Z' (or a "
        "format the course config names: c.DueDates.formats); late submissions "
        "then get the course config's penalty. The date as read and each "
        "student's lateness are printed before grading",
    )
    grade.add_argument(
        "--yes",
        action="store_true",
        help="grade even when the late penalties would take more than half of "
        "the marks from more than half of the class (else the run stops first)",
    )
    grade.add_argument(
        "--student", help="regrade this student only; everyone else stays untouched"
    )
    grade.add_argument(
        "--question",
        metavar="GRADE_ID",
        help="run the notebooks again but write only this test cell's score "
        "(e.g. 01-pick-device-test); other scores, manual ones included, stay",
    )
    grade.add_argument(
        "--rules",
        choices=("release", "current"),
        default="release",
        help="grade each notebook under the rules of the release it was given "
        "(default: its tests, points and reference, kept in releases/), or all "
        "under the lesson as it is now ('current'; results graded under other "
        "rules are graded again)",
    )
    grade.add_argument(
        "--diff",
        action="store_true",
        help="show, per student, what grading under the current rules would change "
        "against --out's results, writing nothing there or to a gradebook",
    )
    grade.add_argument("--quiet", action="store_true", help="no progress output")
    grade.add_argument(
        "--nbgrader-feedback",
        action="store_true",
        help="also put each feedback page in the course's feedback/<student>/"
        "<assignment>/ folder, ready for `nbgrader release_feedback`",
    )
    grade.add_argument(
        "--gradebook",
        help="the course's gradebook.db to write every result into (default: the "
        "one beside an nbgrader submitted/ folder); formgrader and `nbgrader "
        "export` read it",
    )
    grade.add_argument(
        "--no-gradebook", action="store_true", help="write the reports only"
    )
    grade.add_argument(
        "--cold-kernels",
        action="store_true",
        help="start every kernel from scratch instead of forking a preloaded one "
        "(slower; same grades)",
    )
    grade.add_argument(
        "--no-sandbox",
        action="store_true",
        help="do not confine kernels with Landlock (by default, on Linux 5.13+, a "
        "kernel reads only Python, the system and the course package, writes only "
        "its scratch folder, and opens no TCP connection)",
    )
    weak_flag(grade)
    grade.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="grade on a Dask cluster: a scheduler address (tls://host:8786; "
        "tcp:// on this machine only, unless --allow-plain-tcp) or local:N for N "
        "worker processes here. Same results, stored as with --jobs; see the "
        "docs/guides/running-a-class.md, 'Grading on a cluster'",
    )
    grade.add_argument(
        "--allow-plain-tcp",
        action="store_true",
        help="with --cluster: accept a tcp:// scheduler on another machine "
        "(unencrypted, unauthenticated: a network you trust only)",
    )
    grade.add_argument(
        "--allow-weak-workers",
        action="store_true",
        help="with --cluster: grade on workers that cannot confine kernels as "
        "the batch needs (Landlock ABI 4 or this machine's, user namespaces); "
        "a kernel that got out could then take over its worker",
    )
    grade.set_defaults(func=grade_command)
