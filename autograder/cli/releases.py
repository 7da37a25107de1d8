"""``course releases``: list the kept releases, and prune those no student has.

``course releases`` (or ``course releases list``) prints each kept release
(:mod:`autograder.lessons.kept`): its lesson, digest, editions and size, and
whether it is the lesson's current release. ``course releases prune SOURCE...``
reads the release stamp of every notebook in the sources (the class's
``submitted/`` folder, the exports and zips it handed in) and names each kept
release of the lessons they hold that none of them carries and that is not
its lesson's current one; with ``--yes`` it removes them. Sources with no
stamped notebook prune nothing.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def _size(n: int) -> str:
    return f"{n / 1024:.0f} KiB" if n < 1024 * 1024 else f"{n / 1024 / 1024:.1f} MiB"


def _list(args: argparse.Namespace) -> int:
    from autograder.lessons import lesson_names
    from autograder.lessons.kept import kept, restore
    from autograder.lessons.releases import RELEASES, current

    restore(RELEASES)
    found = kept(RELEASES)
    now = {(name, current(name)) for name in lesson_names()}
    print(f"{len(found)} release(s) kept in {RELEASES}")
    total = 0
    for one in found:
        size = one.size()
        total += size
        mark = "  current" if (one.lesson, one.digest) in now else ""
        editions = ",".join(one.editions)
        print(f"{one.lesson}  {one.digest}  {editions:8}  {_size(size):>9}{mark}")
    print(f"{_size(total)} in all")
    return 0


def _prune(args: argparse.Namespace) -> int:
    from autograder.lessons.kept import kept, prune
    from autograder.lessons.releases import RELEASES, prunable, stamps_in

    try:
        have = stamps_in(args.sources)
    except (OSError, ValueError) as exc:
        print(
            f"error: {exc}. Name folders, notebooks or zips that can be read.",
            file=sys.stderr,
        )
        return 2
    if not have:
        print(
            "error: the sources hold no notebook with a release stamp, so "
            "nothing tells which releases your students have. Name the class's "
            "submitted/ folder, its exports or zips.",
            file=sys.stderr,
        )
        return 2
    found = kept(RELEASES)
    for lesson, digest in sorted(have - {(k.lesson, k.digest) for k in found}):
        print(
            f"note: a notebook carries {lesson} release {digest}, which is not "
            f"kept in {RELEASES}: it would be held back when graded"
        )
    lessons = {lesson for lesson, _ in have}
    left = sorted({k.lesson for k in found} - lessons)
    if left:
        print(
            "the sources hold no notebook of " + ", ".join(left) + ": their "
            "releases are left alone"
        )
    gone = [k for k in prunable(have, RELEASES) if k.lesson in lessons]
    print(
        f"the sources carry {len(have)} release(s); {len(gone)} kept release(s) "
        "of their lessons are carried by none of them and are not their "
        "lesson's current release"
    )
    for one in gone:
        print(f"  {one.lesson}  {one.digest}")
    if not gone:
        return 0
    if not args.yes:
        print(
            "Nothing removed. Run again with --yes to remove them, once the "
            "sources hold every notebook your students have (a student who "
            "has not submitted may hold one of these)."
        )
        return 0
    prune(gone)
    print(f"removed {len(gone)} kept release(s)")
    return 0


def add_parser(sub: Any) -> None:
    """``course releases``' options, on the ``course`` command's subparsers."""
    top = sub.add_parser(
        "releases",
        help="list the kept releases (the rules each class was given), or "
        "prune those no student has",
        description="Releases are kept in releases/ in the course root, beside "
        "the gradebook (Instructor guide, 'Where releases live').",
    )
    top.set_defaults(func=_list)
    actions = top.add_subparsers(dest="action", metavar="[list | prune]")
    listing = actions.add_parser("list", help="each kept release, with its size")
    listing.set_defaults(func=_list)
    pruning = actions.add_parser(
        "prune",
        help="remove the kept releases that no notebook in SOURCES carries",
        description="Reads the release stamp of every notebook in SOURCES and "
        "names each kept release none carries that is not its lesson's current "
        "release; removes them with --yes.",
    )
    pruning.add_argument(
        "sources",
        nargs="+",
        help="folders (searched whole: submitted/, exports), notebooks or zips "
        "holding what your students have",
    )
    pruning.add_argument(
        "--yes", action="store_true", help="remove them (default: only name them)"
    )
    pruning.set_defaults(func=_prune)
