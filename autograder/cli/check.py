"""``course check``: grade your own notebook, and print the result for a terminal.

The notebook is graded as a class of one (:func:`autograder.classgrade.grade_class`),
in a folder of its own per run; every string that came from the notebook is
printed with its control characters made visible (:func:`shown`).
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

from course.i18n import _, say, use_language


def shown(value: object) -> str:
    """``value`` for a terminal: control characters (ANSI escapes, carriage
    returns, backspaces, line breaks, C1 controls, bidi overrides and other
    invisible formatting) become visible escapes such as ``\\x1b``."""
    import unicodedata

    out = []
    for char in str(value):
        if unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp"):
            code = ord(char)
            if code < 0x100:
                out.append(f"\\x{code:02x}")
            elif code < 0x10000:
                out.append(f"\\u{code:04x}")
            else:
                out.append(f"\\U{code:08x}")
        else:
            out.append(char)
    return "".join(out)


def shown_lines(value: object, indent: str) -> str:
    """``value`` as :func:`shown` makes it, but its line breaks kept as line
    breaks, each line after the first indented by ``indent``."""
    lines = str(value).replace("\r\n", "\n").split("\n")
    return ("\n" + indent).join(shown(line) for line in lines)


def check(args: argparse.Namespace) -> int:
    """Run ``course check`` with the parsed ``args``; return the exit code."""
    from autograder.classgrade import grade_class

    notebook = Path(args.notebook)
    if not notebook.is_file():
        raise ValueError(f"{notebook} is not a file")
    from autograder.config.settings import grading_config
    from autograder.grading.chain.execute import source_limit
    from autograder.lessons import REPO_ROOT, lesson_names, lesson_of

    limit = source_limit(grading_config(REPO_ROOT))
    if limit and notebook.stat().st_size > limit:  # too large to read: its name
        lesson = args.lesson or next(
            (n for n in lesson_names() if n in notebook.name), None
        )
    else:
        lesson = args.lesson or lesson_of(notebook)
    if lesson is None:
        raise ValueError(
            f"cannot tell the lesson of {notebook.name} from its cells or its name; "
            "use --lesson"
        )
    # A folder of its own per run: two checks at once never share one.
    stamp = time.strftime("%Y%m%d-%H%M%S")
    out = Path(args.out) / f"{lesson}-{stamp}-{os.getpid()}"
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "in"
        folder.mkdir()
        shutil.copyfile(notebook, folder / f"you_{lesson}.ipynb")
        report = grade_class(
            folder,
            lesson,
            out_dir=out,
            jobs=1,
            force=True,
            timeout=args.timeout,
            progress=False,
            weak_confinement=args.allow_weak_confinement,
            rules=getattr(args, "rules", "release"),
        )
    if not report.results:  # held back: its release is not kept, or cannot be
        for line in report.problems:  # graded as written
            print(f"not graded: {shown(line)}")
        print(
            f"Move your answers into the current notebook, notebooks/{lesson}/"
            f"{lesson}.ipynb, or grade this one under the lesson as it is now: "
            f"course check --rules current {shown(str(notebook))}"
        )
        return 1
    result = report.results[0]
    with use_language(_language_of(notebook)):
        _print_result(notebook, result, report.problems)
    return 0


def _language_of(notebook: Path) -> str:
    """The notebook's edition (:func:`course.i18n.notebook_language`)."""
    import json

    from course.i18n import notebook_language

    try:
        return notebook_language(json.loads(notebook.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return "en"


def _print_result(notebook: Path, result: object, problems: list[str]) -> None:
    """The result for a terminal, in the notebook's language."""
    from autograder.cli.due import read_note

    score, top = float(result.score), float(result.max_score)
    status = {
        "graded": _("graded"),
        "unreadable": _("unreadable"),
        "wrong-lesson": _("wrong-lesson"),
        "too-large": _("too-large"),
        "error": _("error"),
    }.get(result.status)
    print(f"{shown(notebook)}: {shown(status or result.status)}, {score:g} / {top:g}")
    due = read_note(notebook)  # only where the course gave one (course due)
    if due:
        print("  " + say("due: {due}", due=shown(due)))
    if result.message:
        print(f"  {shown_lines(result.message, '  ')}")
    for question, (score, top) in result.per_question.items():
        score, top = float(score), float(top)
        mark = "ok " if score >= top else "-- "
        print(f"  {mark}{shown(question):<34} {score:g} / {top:g}")
        if score < top and question in result.hints:
            print(f"       {shown_lines(result.hints[question], ' ' * 7)}")
    for flag in result.flags:
        print("  " + say("note: {note}", note=shown(flag)))
    for problem in problems:  # e.g. graded under another release, and why
        print("  " + say("note: {note}", note=shown_lines(problem, "  ")))
    if result.feedback:
        print(say("feedback page: {path}", path=shown(result.feedback)))
