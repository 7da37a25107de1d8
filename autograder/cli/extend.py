"""``course extend STUDENT LESSON --until DATE``: one student's extension.

Recorded in the course gradebook as nbgrader keeps extensions, before or
after the student submits (:mod:`autograder.classgrade.extensions`); the late
penalty follows, and ``grades.csv`` and the student's feedback page show it
after the next ``course grade``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def add_parser(sub: Any) -> None:
    """``course extend``'s options, on the ``course`` command's subparsers."""
    extend = sub.add_parser(
        "extend",
        help="give one student a later due date for one lesson (in the gradebook)",
        description="Record an extension in the course gradebook: on the "
        "student's submission if it is recorded (its late penalty worked out "
        "again), otherwise kept and applied when `course grade` records it.",
    )
    extend.add_argument("student", help="the student's id, as in the gradebook")
    extend.add_argument("lesson", help="lesson, e.g. 06_linear_regression or 06")
    when = extend.add_mutually_exclusive_group(required=True)
    when.add_argument(
        "--until",
        metavar="DATE",
        help="the student's due date, with a zone: 2026-12-08T16:00Z, "
        "2026-12-08 17:00 Europe/Paris, or a format the course config names",
    )
    when.add_argument(
        "--remove",
        action="store_true",
        help="take the student's extension back: the class's due date again",
    )
    extend.add_argument(
        "--new",
        action="store_true",
        help="the student is not in the gradebook yet (else an unknown id is "
        "refused, as a typo would be)",
    )
    extend.add_argument(
        "--gradebook",
        default="gradebook.db",
        help="the course gradebook (default: gradebook.db here)",
    )
    extend.set_defaults(func=extend_command)


def extend_command(args: argparse.Namespace) -> int:
    """Record (or withdraw) one extension; say what it changed."""
    from autograder.classgrade.extensions import grant
    from autograder.classgrade.gradebook import CourseBook
    from autograder.classgrade.late import parse_time
    from autograder.config.settings import course_config
    from autograder.lessons import find_lesson

    lesson = find_lesson(args.lesson).stem
    gradebook = Path(args.gradebook)
    if not gradebook.is_file():
        raise ValueError(
            f"{gradebook} is not a gradebook: give --gradebook PATH (extensions "
            "live in the course gradebook, beside the due dates)"
        )
    config = course_config(gradebook.resolve().parent)
    until = None if args.remove else parse_time(args.until, config)
    with CourseBook(gradebook, config) as book:
        done = grant(book, args.student, lesson, until, new=args.new)
    zone = str(config.DueDates.get("time_zone", ""))
    print("\n".join(done.lines(zone)))
    return 0
