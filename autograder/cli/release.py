"""``course release``: the student edition from the sources, and the students branch.

``course release [LESSONS]`` writes ``notebooks/`` from ``solutions/`` (each
release stamped and kept in the course root's ``releases/``), then the
``students`` branch (:mod:`autograder.publish.students_branch`) unless
``--no-branch``; ``--check`` releases into a scratch folder and fails if
``notebooks/`` is out of date.
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
    if args.lang and not args.check:
        return _edition(args.lang, lessons)
    if not args.check:
        release(lessons, probe=not args.no_probe)
        return 0 if args.no_branch else _students_branch()
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
        gaps, translated = _editions_checked(made, Path(tmp), lessons)
    if gaps or translated:
        for line in gaps:
            print(f"translation out of date: {line}")
        if translated:
            print("out of date with the catalogs: " + ", ".join(translated))
        print(
            "Run `course catalogs LANG` and translate what it marks, then "
            "`course release --lang LANG`, and commit the result."
        )
        return 1
    if stale:
        print("notebooks/ is out of date with solutions/: " + ", ".join(stale))
        print("Run `make release` (or `course release`) and commit the result.")
        return 1
    print(f"notebooks/ is up to date ({len(written)} notebook(s)).")
    return 0


def _edition(lang: str, lessons: list[str] | None) -> int:
    """``course release --lang``: the translated edition of released lessons."""
    from autograder.publish.release import release_edition

    written, gaps = release_edition(lang, lessons)
    for line in gaps:
        print(f"not released, translation out of date: {line}")
    if not written and not gaps:
        print(f"no lesson has a {lang} catalog yet (course catalogs {lang} LESSON)")
    return 1 if gaps else 0


def _editions_checked(
    made: Path, tmp: Path, lessons: list[str] | None
) -> tuple[list[str], list[str]]:
    """For ``--check``: every catalog's gaps, and the translated notebooks
    that differ from the ones the fresh release ``made`` would give."""
    from autograder.lessons import REPO_ROOT
    from autograder.lessons.catalogs import (
        LANGUAGES,
        message_gaps,
        translated_documents,
    )
    from autograder.lessons.catalogs import (
        gaps as document_gaps,
    )
    from autograder.publish.release import release_edition

    gaps, stale = [], []
    for lang in LANGUAGES:
        out = tmp / f"notebooks-{lang}"
        written, missing = release_edition(
            lang, lessons, source=made, out_dir=out, log=lambda *_: None
        )
        gaps += missing + message_gaps(LANGUAGES[lang])
        for name in translated_documents(LANGUAGES[lang]):  # the Student guide
            gaps += [g.line() for g in document_gaps(LANGUAGES[lang], name)]
        committed = REPO_ROOT / f"notebooks-{lang}"
        stale += [
            f"notebooks-{lang}/{p.relative_to(out)}"
            for p in written
            if not (committed / p.relative_to(out)).is_file()
            or not filecmp.cmp(p, committed / p.relative_to(out), shallow=False)
        ]
    return gaps, stale


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
        "--lang",
        choices=["zh"],
        help="write the translated edition (notebooks-zh/) of the released "
        "lessons whose catalog is complete (locale/zh_CN/)",
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
    catalogs = sub.add_parser(
        "catalogs",
        help="update a language's catalogs from the lessons' English prose "
        "(locale/<lang>/LC_MESSAGES/<lesson>.po) and say what needs translating",
        description="Each English paragraph of a lesson is an entry (msgctxt: "
        "the lesson). A changed paragraph keeps its old translation, marked "
        "fuzzy; a new one is added untranslated. Translate those, then run "
        "`course release --lang LANG`.",
    )
    catalogs.add_argument("lang", choices=["zh"], help="the edition's language")
    catalogs.add_argument(
        "lessons", nargs="*", help="lessons (default: those with a catalog)"
    )
    catalogs.set_defaults(func=_catalogs)


def _catalogs(args: argparse.Namespace) -> int:
    """``course catalogs LANG``: merge the English into the catalogs; report."""
    from autograder.lessons import find_lesson
    from autograder.lessons.catalogs import (
        DOCUMENTS,
        LANGUAGES,
        gaps,
        message_gaps,
        translated_lessons,
        update,
        update_messages,
    )

    code = LANGUAGES[args.lang]
    path = update_messages(code)
    print(f"{path}: {len(message_gaps(code))} message(s) to translate or compile")
    names = [
        n if n in DOCUMENTS else find_lesson(n).stem for n in args.lessons
    ] or translated_lessons(code) + sorted(DOCUMENTS)
    for name in names:
        path = update(code, name)
        found = gaps(code, name)
        fuzzy = sum(g.why == "fuzzy" for g in found)
        print(f"{path}: {len(found) - fuzzy} to translate, {fuzzy} fuzzy")
    return 0
