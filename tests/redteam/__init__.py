"""Red-team submissions: one small file per attack, its expected score beside it.

A case file ``tests/redteam/<lesson>/<name>.py`` has the format of the samples
(:mod:`autograder.samples.casefile`)::

    \"\"\"What the attack tries, and what must happen instead.\"\"\"
    # score: 9
    # zero: 01-pick-device-test, 01-pick-device-hidden-test
    # review: yes
    # %% 01-pick-device
    <the code the student wrote in that answer cell>

``review: yes`` says that the static scan must list the submission for review.
``{udp_port}``, ``{unix_path}``, ``{marker}`` and ``{cache_dir}`` (the
reference results' folder) in the code are filled in by the test that grades
the batch. Each is graded as student ``rt-<name>``.
"""

from __future__ import annotations

from pathlib import Path

from autograder.samples.casefile import CaseFile, load, write

HERE = Path(__file__).resolve().parent


def student(case: CaseFile) -> str:
    return f"rt-{case.name}"


def load_cases() -> list[CaseFile]:
    """Every case file, by lesson and name."""
    return load(HERE)


def write_case(case: CaseFile, folder: Path, **fill: str) -> Path:
    """Write the case as ``<student>_<lesson>.ipynb`` in ``folder``."""
    return write(case, Path(folder) / f"{student(case)}_{case.lesson}.ipynb", **fill)
