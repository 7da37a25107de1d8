"""What intake refuses before it reads a file, and ids that are one id twice.

* Links: a symbolic link (to a file or a folder) or a hard link below the
  source is not followed nor read, and what it points to is not named: it could
  be any file the grader may read (``/etc/passwd``, another student's work).
  Each is listed with what to do instead; so is a pipe or a device.
* Ids: one given as it is (a ``--map`` row, an nbgrader folder) is refused when
  it is a path or holds control characters (:func:`id_problem`). Ids are
  compared NFC-normalised and case-folded (:func:`twin_key`): two that differ
  only in case or in how an accent is encoded (``josé`` as one character, or
  as ``e`` and a combining accent, as a Mac writes it) are twins, and all
  their submissions are held back for the instructor (:func:`hold_twins`).
"""

from __future__ import annotations

import os
import stat
import unicodedata
from pathlib import Path

from autograder.classgrade.claims import Intake, label
from autograder.classgrade.unzip import shown, student_id, written_apart


def twin_key(student: str) -> str:
    """What two ids that are one student's share: NFC, then case-folded."""
    return unicodedata.normalize("NFC", student).casefold()


def id_problem(text: str) -> str:
    """Why ``text``, given as a student id as it is (a ``--map`` row, a folder
    of an nbgrader layout), is refused; "" when it is usable."""
    if "/" in text or "\\" in text or text.strip() in (".", ".."):
        return "it is a path, not a name"
    if any(unicodedata.category(c) in ("Cc", "Cf") for c in text):
        return "it holds control or invisible formatting characters"
    if not student_id(text):
        return "it has no letter or digit"
    return ""


def by_any_form(table: dict[str, str] | None) -> dict[str, str] | None:
    """``table`` (file name -> value) that also answers for each name in NFC and
    in NFD: a name typed on one system finds the file unpacked on another."""
    if table is None:
        return None
    forms = {
        unicodedata.normalize(f, k): v for f in ("NFD", "NFC") for k, v in table.items()
    }
    return {**forms, **table}


def links_under(
    source: Path, leave: list[Path]
) -> tuple[list[Path], list[str], list[str]]:
    """Links and special files below ``source``, outside hidden folders and
    ``leave``: their paths, a problem line each, and ``"name (why)"`` each.

    A symbolic link is listed, not followed (a linked folder is not entered);
    a regular file with more than one name (``st_nlink > 1``) is a hard link.
    """
    found: list[Path] = []
    problems: list[str] = []
    skipped: list[str] = []
    for top, dirs, files in os.walk(source):  # does not enter linked folders
        here = Path(top)
        # hidden folders (.ipynb_checkpoints, .work, .git) are not read at all
        dirs[:] = sorted(
            d
            for d in dirs
            if not d.startswith(".")
            and not any((here / d).is_relative_to(o) for o in leave)
        )
        for name in sorted(dirs + files):
            path = here / name
            try:
                info = path.lstat()
            except OSError:
                continue  # gone meanwhile
            if stat.S_ISLNK(info.st_mode):
                what = "a symbolic link"
                why = (
                    "a symbolic link: what it points to is not read; put the file "
                    "or folder itself there (a copy, not a link), then grade again"
                )
            elif stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
                what = "a hard link"
                why = (
                    f"a hard link (one file with {info.st_nlink} names on this disk): "
                    "it is not read; put a copy of its own there (cp, not ln or "
                    "cp -l), then grade again"
                )
            elif stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode):
                continue
            else:
                what = "not a regular file"
                why = "not a regular file (a pipe, socket or device): it is not read"
            rel = shown(str(path.relative_to(source)))
            found.append(path)
            problems.append(f"{rel}: skipped, {why}")
            skipped.append(f"{rel} ({what})")
    return found, problems, skipped


def same_name_notes(
    source: Path, claims: dict[tuple[str, str], list[Path]]
) -> list[str]:
    """For each conflict between files whose names look the same (one name,
    its accents encoded two ways), a line that shows them apart."""
    notes = []
    for (student, lesson), files in claims.items():
        names = [str(p.relative_to(source)) for p in files]
        note = written_apart(*names) if len(files) > 1 else ""
        if note:
            notes.append(f"conflict: {student}/{lesson}, two names look the same{note}")
    return notes


def hold_twins(found: Intake, layout: set[Path]) -> None:
    """Hold back every submission whose student id differs from another's only
    in case or in its Unicode form (:func:`twin_key`): one student twice, or
    two students whose results would land on one file on a case-insensitive
    or normalising disk (macOS). The instructor decides which."""
    spellings: dict[str, set[str]] = {}
    for sub in found.submissions:
        spellings.setdefault(twin_key(sub.student), set()).add(sub.student)
    clashing = {key for key, ids in spellings.items() if len(ids) > 1}
    if not clashing:
        return
    if any(s.path in layout for s in found.submissions):
        fix = "rename the folders under submitted/ so that each student has one id"
    else:
        fix = (
            "rename the files, or give each file its student id with --map FILE "
            "(a CSV of file name,student id)"
        )
    for key in sorted(clashing):
        held = [s for s in found.submissions if twin_key(s.student) == key]
        ids = sorted(spellings[key])
        in_case = len({unicodedata.normalize("NFC", i) for i in ids}) > 1
        if len({i.casefold() for i in ids}) == 1:  # the same letters, same code
            how, why = "in case", "case conflict"
        else:
            how = "in case and " if in_case else ""
            how += "in how their accented letters are encoded (Unicode NFC and "
            how += f"NFD, as a Mac writes them: {', '.join(map(ascii, ids))})"
            why = "id conflict"
        files = ", ".join(label(s, layout) for s in held)
        found.problems.append(
            f"conflict: student ids {', '.join(ids)} differ only {how}; none of "
            f"them is graded ({files}). If they are one student, or different "
            f"students, {fix}, then grade again"
        )
        found.not_graded += [f"{label(s, layout)} ({why})" for s in held]
    found.submissions = [
        s for s in found.submissions if twin_key(s.student) not in clashing
    ]
