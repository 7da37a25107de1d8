"""``course due LESSON``: the lesson's due date, where students see it.

The due date lives in the course gradebook (``course grade --due``, or
``nbgrader db assignment add --duedate``). Released notebooks are committed
and stamped, and a due date belongs to one class, so it travels in a file of
its own: ``due.txt`` beside the lesson's notebook in the release folder
(``notebooks/<lesson>/``, where git ignores it). ``nbgrader
release_assignment`` then puts it beside the notebook in the exchange, and a
student's fetch brings it to their folder, where ``course check`` reads it.
"""

from __future__ import annotations

import argparse
from datetime import datetime
from pathlib import Path
from typing import Any

#: The file beside a lesson's notebook that tells students its due date.
DUE_NOTE = "due.txt"


def note_text(lesson: str, due_utc: datetime, zone: str = "") -> str:
    """What ``due.txt`` says: the due date in the course's time zone (its
    ``c.DueDates.time_zone``, else UTC) and in UTC."""
    from autograder.classgrade.late import shown_time

    shown = shown_time(due_utc, zone)
    return (
        f"{lesson} is due {shown}.\n"
        "Submit it before then (the Assignments tab, or as your course says); "
        "a later submission loses points as the course's late policy says.\n"
    )


def read_note(notebook: Path) -> str | None:
    """The first line of the ``due.txt`` beside ``notebook``, if there is one."""
    path = Path(notebook).parent / DUE_NOTE
    try:
        return path.read_text(encoding="utf-8").splitlines()[0].strip() or None
    except (OSError, IndexError, UnicodeDecodeError):
        return None


def add_parser(sub: Any) -> None:
    """``course due``'s options, on the ``course`` command's subparsers."""
    due = sub.add_parser(
        "due",
        help="write a lesson's due date beside its release (notebooks/<lesson>/"
        "due.txt), for nbgrader release_assignment to hand out",
        description="Read the lesson's due date from the course gradebook and "
        "write it, in the course's time zone and in UTC, to notebooks/<lesson>/"
        "due.txt, which the exchange then gives students with the notebook.",
    )
    due.add_argument("lesson", help="lesson, e.g. 01_devices or 01")
    due.add_argument(
        "--gradebook",
        default="gradebook.db",
        help="the course gradebook (default: gradebook.db here)",
    )
    due.add_argument(
        "--to",
        default=None,
        help="the folder to write due.txt in (default: the lesson's release "
        "folder, notebooks/<lesson>/)",
    )
    due.set_defaults(func=due_command)


def due_command(args: argparse.Namespace) -> int:
    """Write ``due.txt`` for one lesson; say where."""
    from autograder.classgrade.gradebook import due_state
    from autograder.config.settings import course_config
    from autograder.lessons import REPO_ROOT, find_lesson

    lesson = find_lesson(args.lesson).stem
    gradebook = Path(args.gradebook)
    if not gradebook.is_file():
        raise ValueError(f"{gradebook} is not a gradebook: give --gradebook PATH")
    due, _ = due_state(gradebook, {lesson})
    if lesson not in due:
        raise ValueError(
            f"{lesson} has no due date in {gradebook}: set one with "
            f"`course grade submitted/ --lesson {lesson} --due DATE` or "
            "`nbgrader db assignment add`"
        )
    zone = str(course_config(gradebook.resolve().parent).DueDates.get("time_zone", ""))
    folder = Path(args.to) if args.to else REPO_ROOT / "notebooks" / lesson
    path = folder / DUE_NOTE
    text = note_text(lesson, due[lesson], zone)
    path.write_text(text, encoding="utf-8")
    print(f"{path}: {text.splitlines()[0]}")
    print(
        f"release it with: nbgrader release_assignment {lesson} --force "
        "(--force replaces a release already in the exchange; students who "
        "fetched it keep their copy)"
    )
    return 0
