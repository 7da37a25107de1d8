"""``course release``: the student edition from the sources, and the students branch.

``course release [LESSONS]`` writes ``notebooks/`` from ``solutions/`` (each
release stamped and kept in ``releases/``), then the ``students`` branch
(:mod:`autograder.publish.students_branch`) unless ``--no-branch``;
``--check`` releases into a scratch folder and fails if ``notebooks/`` or
``releases/`` is out of date.
"""

from __future__ import annotations

import argparse
import filecmp
import sys
import tempfile
from pathlib import Path
from typing import Any


def _release(args: argparse.Namespace) -> int:
    from autograder.lessons import REPO_ROOT
    from autograder.publish.release import release

    lessons = args.lessons or None
    if not args.check:
        release(lessons, probe=not args.no_probe)
        return 0 if args.no_branch else _students_branch()
    from autograder.lessons.releases import RELEASES, stamp_of

    notebooks = REPO_ROOT / "notebooks"
    with tempfile.TemporaryDirectory() as tmp:
        made = Path(tmp) / "notebooks"
        written = release(lessons, made, log=lambda *_: None, keep=Path(tmp) / "r")
        stale = [
            str(p.relative_to(made))
            for p in written
            if not (notebooks / p.relative_to(made)).is_file()
            or not filecmp.cmp(p, notebooks / p.relative_to(made), shallow=False)
        ]
        unkept = [
            f"{p.stem}/{stamp_of(p)}"
            for p in written
            if not (RELEASES / p.stem / str(stamp_of(p))).is_dir()
        ]
    if stale or unkept:
        if stale:
            print("notebooks/ is out of date with solutions/: " + ", ".join(stale))
        if unkept:
            print("releases/ does not keep: " + ", ".join(unkept))
        print("Run `make release` (or `course release`) and commit the result.")
        return 1
    print(f"notebooks/ is up to date ({len(written)} notebook(s)).")
    return 0


def _students_branch() -> int:
    """After a release: the ``students`` branch, for the site's hub links."""
    from autograder.publish.students_branch import BranchLeakError, write_branch

    try:
        write_branch()
    except BranchLeakError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except RuntimeError as exc:  # not a git checkout: no branch to write
        print(f"note: no students branch written ({exc})")
    return 0


def add_parser(sub: Any) -> None:
    """``course release``'s options, on the ``course`` command's subparsers."""
    rel = sub.add_parser(
        "release",
        help="regenerate notebooks/ (student edition) from solutions/, and the "
        "students branch",
    )
    rel.add_argument("lessons", nargs="*", help="lessons to release (default: all)")
    rel.add_argument(
        "--check",
        action="store_true",
        help="release into a scratch folder and fail if notebooks/ differs",
    )
    rel.add_argument(
        "--no-branch",
        action="store_true",
        help="do not write the students branch (the student edition as a git "
        "branch, which the website's hub links open)",
    )
    rel.add_argument(
        "--no-probe",
        action="store_true",
        help="skip the delegation probe (grading a submission that uses the "
        "course's helpers for graded tasks, which must earn nothing)",
    )
    rel.set_defaults(func=_release)
