"""Red-team submissions: one small file per attack, its expected score beside it.

A case file ``tests/redteam/<lesson>/<name>.py`` looks like::

    \"\"\"What the attack tries, and what must happen instead.\"\"\"
    # score: 9
    # zero: 01-pick-device-test, 01-pick-device-hidden-test
    # review: yes
    # %% 01-pick-device
    <the code the student wrote in that answer cell>

Every answer cell not named takes the reference answer; a line ``# <reference>``
inside a cell stands for that cell's reference answer. ``score`` is the total
the submission must get, ``zero`` the test cells that must score nothing (every
other test cell keeps its points), ``review: yes`` that the static scan must
list the submission for review. ``{udp_port}``, ``{unix_path}`` and
``{marker}`` in the code are filled in by the test that grades the batch.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from autograder.conventions import grade_id
from autograder.lessons import find_lesson, source_to_notebook, write_notebook

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Case:
    """One red-team submission and what grading it must give."""

    lesson: str
    name: str
    why: str
    score: float
    zero: frozenset[str]
    review: bool
    answers: dict[str, str] = field(default_factory=dict)

    @property
    def student(self) -> str:
        return f"rt-{self.name}"


def _parse(path: Path) -> Case:
    text = path.read_text(encoding="utf-8")
    why = re.match(r'"""(.*?)"""', text, re.DOTALL)
    head = {
        m.group(1): m.group(2).strip()
        for m in re.finditer(r"^# (score|zero|review): (.*)$", text, re.MULTILINE)
    }
    parts = re.split(r"^# %% (\S+)\n", text, flags=re.MULTILINE)
    answers = dict(zip(parts[1::2], parts[2::2]))
    return Case(
        lesson=path.parent.name,
        name=path.stem.replace("_", "-"),
        why=" ".join(why.group(1).split()) if why else "",
        score=float(head["score"]),
        zero=frozenset(z.strip() for z in head.get("zero", "").split(",") if z.strip()),
        review=head.get("review", "no") == "yes",
        answers=answers,
    )


def load_cases() -> list[Case]:
    """Every case file, by lesson and name."""
    return [_parse(p) for p in sorted(HERE.glob("[0-9][0-9]_*/*.py"))]


def write_case(case: Case, folder: Path, **fill: str) -> Path:
    """Write the case as ``<student>_<lesson>.ipynb`` in ``folder``."""
    nb = source_to_notebook(find_lesson(case.lesson))
    remaining = dict(case.answers)
    for cell in nb.cells:
        gid = grade_id(cell)
        if gid in remaining:
            code = remaining.pop(gid)
            for key, value in fill.items():
                code = code.replace("{" + key + "}", value)
            cell.source = code.replace("# <reference>", cell.source)
    assert not remaining, f"{case.name}: no such answer cells {sorted(remaining)}"
    path = folder / f"{case.student}_{case.lesson}.ipynb"
    write_notebook(nb, path)
    return path
