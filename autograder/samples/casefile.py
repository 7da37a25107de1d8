"""Submissions written as small files, each with what grading it must give.

Both the samples (``autograder/samples/<lesson>/<student>.py``) and the
red-team attacks (``tests/redteam/<lesson>/<name>.py``) use this format::

    \"\"\"What the submission does, and what must happen to it.\"\"\"
    # score: 9
    # zero: 01-pick-device-test, 01-pick-device-hidden-test
    # %% 01-pick-device
    <the code the student wrote in that answer cell>

Every answer cell not named keeps the reference answer; a line
``# <reference>`` inside a cell stands for that cell's reference answer.
Headers (all optional except ``score``):

``score``    the total the submission must get (a named figure, not derived);
``zero``     the test cells that must score nothing (every other keeps its points);
``kind``     mistake, adversarial, tampered, broken, or allowed (another
             answer the instructions allow, full marks) (default: mistake);
``status``   graded (default), unreadable or wrong-lesson;
``review``   ``yes``: the static scan must list the submission for review;
``flagged``  ``yes``: the submission must be flagged as tampered;
``tamper``   how the notebook is damaged after the answers are put in
             (see :func:`damage`);
``file``     ``invalid-json``, ``empty`` or ``lesson:<other lesson>``: the file
             written instead of a notebook.

``{name}`` in the code is filled in by :func:`write` from its ``fill`` argument.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from autograder.lessons import find_lesson, source_to_notebook, write_notebook
from autograder.lessons.conventions import grade_id
from autograder.lessons.releases import as_released

_HEADERS = ("score", "zero", "kind", "status", "review", "flagged", "tamper", "file")


@dataclass(frozen=True)
class CaseFile:
    """One submission and what grading it must give."""

    lesson: str
    name: str
    why: str
    score: float
    zero: frozenset[str] = frozenset()
    kind: str = "mistake"
    status: str = "graded"
    review: bool = False
    flagged: bool = False
    tamper: str | None = None
    file: str | None = None
    answers: dict[str, str] = field(default_factory=dict)


def parse(path: Path) -> CaseFile:
    """Read one case file; the lesson is its folder's name, the name its stem."""
    text = path.read_text(encoding="utf-8")
    why = re.match(r'"""(.*?)"""', text, re.DOTALL)
    pattern = rf"^# ({'|'.join(_HEADERS)}): (.*)$"
    head = {m.group(1): m.group(2).strip() for m in re.finditer(pattern, text, re.M)}
    if "score" not in head:
        raise ValueError(f"{path}: no '# score:' line")
    parts = re.split(r"^# %% (\S+)\n", text, flags=re.MULTILINE)
    return CaseFile(
        lesson=path.parent.name,
        name=path.stem.replace("_", "-"),
        why=" ".join(why.group(1).split()) if why else "",
        score=float(head["score"]),
        zero=frozenset(z.strip() for z in head.get("zero", "").split(",") if z.strip()),
        kind=head.get("kind", "mistake"),
        status=head.get("status", "graded"),
        review=head.get("review", "no") == "yes",
        flagged=head.get("flagged", "no") == "yes",
        tamper=head.get("tamper"),
        file=head.get("file"),
        answers=dict(zip(parts[1::2], parts[2::2], strict=True)),
    )


def load(folder: Path) -> list[CaseFile]:
    """Every case file under ``folder/<lesson>/``, by lesson and name."""
    return [parse(p) for p in sorted(Path(folder).glob("[0-9][0-9]_*/*.py"))]


def damage(how: str, nb: dict) -> dict:
    """A notebook's JSON with its test cells or metadata damaged ``how``."""
    cells = nb["cells"]
    if how == "deletes-tests":
        nb["cells"] = [c for c in cells if not (grade_id(c) or "").endswith("-test")]
    elif how == "edits-tests":
        for cell in cells:
            if (grade_id(cell) or "").endswith("-test"):
                cell["source"] = "pass"
    elif how == "duplicates-and-reorders":
        answer = next(
            c for c in cells if grade_id(c) and not grade_id(c).endswith("test")
        )
        nb["cells"] = list(reversed(cells)) + [json.loads(json.dumps(answer))]
    elif how == "strips-metadata":
        for cell in cells:
            cell["metadata"] = {}
    elif how == "renames-ids":
        for cell in cells:
            gid = grade_id(cell) or ""
            if gid.endswith("-test"):
                prefix = gid.split("-")[0]
                cell["metadata"]["nbgrader"]["grade_id"] = f"{prefix}-free-points-{gid}"
    elif how == "changes-kernel":
        nb["metadata"]["kernelspec"] = {
            "name": "evil",
            "display_name": "evil",
            "language": "python",
        }
    else:
        raise ValueError(f"unknown tamper {how!r}")
    return nb


def write(case: CaseFile, target: Path, **fill: str) -> Path:
    """Write the submission ``case`` describes to ``target``."""
    if case.file == "invalid-json":
        target.write_text('{"cells": [', encoding="utf-8")
        return target
    if case.file == "empty":
        target.write_text("", encoding="utf-8")
        return target
    lesson = (
        case.file.split(":", 1)[1]
        if (case.file or "").startswith("lesson:")
        else case.lesson
    )
    nb = as_released(source_to_notebook(find_lesson(lesson)), lesson)
    remaining = dict(case.answers)
    for cell in nb.cells:
        gid = grade_id(cell)
        if gid in remaining:
            code = remaining.pop(gid)
            for key, value in fill.items():
                code = code.replace("{" + key + "}", value)
            cell.source = code.replace("# <reference>", cell.source)
    if remaining:
        raise ValueError(f"{case.name}: no such answer cells {sorted(remaining)}")
    if case.tamper:
        data = damage(case.tamper, json.loads(json.dumps(nb)))
        target.write_text(json.dumps(data), encoding="utf-8")
        return target
    write_notebook(nb, target)
    return target
