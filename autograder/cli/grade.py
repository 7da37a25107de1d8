"""``course grade``: a class graded from the command line's options."""

from __future__ import annotations

import argparse
from pathlib import Path


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
    from autograder.config.scratch import instructor_config

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
    return None


def grade(args: argparse.Namespace) -> int:
    """Run ``course grade`` with the parsed ``args``; return the exit code."""
    from autograder.classgrade import grade_class

    gradebook = gradebook_for(args)
    if args.due and gradebook is None:
        raise ValueError(
            "--due sets the due date in a gradebook, and there is none here: "
            "grade an nbgrader submitted/ folder or pass --gradebook PATH"
        )
    if args.due and not args.lesson:
        raise ValueError("--due needs --lesson: a due date belongs to one lesson")
    if (args.student or args.question) and args.force:
        raise ValueError(
            "--force regrades everyone; leave it out with --student or --question"
        )
    names, times = read_map(args.map)
    if times:
        times = _strict_times(times, gradebook)
    report = grade_class(
        Path(args.source),
        args.lesson,
        out_dir=Path(args.out),
        jobs=args.jobs,
        force=args.force,
        timeout=args.timeout,
        memory_mb=args.memory,
        name_map=names,
        times=times,
        progress=not args.quiet,
        warm=not args.cold_kernels,
        course_feedback=args.nbgrader_feedback,
        sandbox=not args.no_sandbox,
        weak_confinement=args.allow_weak_confinement,
        gradebook=gradebook,
        due=args.due,
        student=args.student,
        question=args.question,
        yes=args.yes,
    )
    print(report.summary())
    if gradebook is not None:
        print(f"gradebook: {gradebook} (formgrader and `nbgrader export` read it)")
    return 0
