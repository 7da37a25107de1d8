"""``course similarity LESSON SOURCE``: pairs of submissions whose answers look
alike, ranked per answer cell and over the lesson, as a CSV and an HTML page."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def add_parser(sub: Any) -> None:
    """``course similarity``'s options, on the ``course`` command's subparsers."""
    found = sub.add_parser(
        "similarity",
        help="rank pairs of submissions whose answers look alike (an HTML report)",
        description="Compare every submission of a lesson with every other, answer "
        "cell by answer cell, with copydetect's fingerprints (names and literals "
        "made anonymous), leaving out the released cell's code and the reference "
        "answer. Writes OUT/similarity.csv and OUT/similarity.html, the code side "
        "by side. A high rank is a reason to read two notebooks, never a verdict.",
    )
    found.add_argument("lesson", help="lesson, e.g. 01_devices or 01")
    found.add_argument(
        "source", help="submitted/ folder, folder of .ipynb, or .zip (as `grade`)"
    )
    found.add_argument(
        "--out", default="similarity", help="output folder (default: similarity)"
    )
    found.add_argument(
        "--top", type=int, default=20, help="pairs shown per cell (default: 20)"
    )
    found.set_defaults(func=similarity_command)


def similarity_command(args: argparse.Namespace) -> int:
    """Run ``course similarity``; print the top pairs and the report's path."""
    from autograder.classgrade.similarity import similarity

    if args.top < 1:
        raise ValueError("--top must be at least 1")
    report = similarity(args.lesson, Path(args.source), Path(args.out), args.top)
    print(f"{report.students} submission(s) of {report.lesson} compared")
    for pair in report.overall[:5]:
        print(
            f"  {pair.first} and {pair.second}: {100 * pair.similarity:.0f}% of "
            f"their answers, {pair.tokens} shared tokens"
        )
    if not report.overall:
        print("  no two share code beyond what was given and what is right")
    for problem in report.problems:
        print(f"problem: {problem}")
    print(f"report: {Path(args.out) / 'similarity.html'}")
    return 0
