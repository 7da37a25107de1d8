"""Sample submissions for every lesson, each with the score it must get.

For each lesson: the reference solution (full marks), the blank student notebook
(zero), and realistic mistakes (partial marks). For Day 01 also an adversarial
set: attempts to cheat the tests, tampered notebooks, and broken files. Each
sample says which test cells must score zero; every other cell must keep its
points, so its expected score follows from the lesson's points.

``write_samples(folder)`` writes them as a platform export would look (loose
``<student>_<lesson>.ipynb`` files, plus ``expected.csv``); ``course demo`` and
the test suite grade them with ``course grade`` and compare.
"""

from __future__ import annotations

import csv
import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from autograder.lessons import (
    REPO_ROOT,
    find_lesson,
    lesson_names,
    source_to_notebook,
    write_notebook,
)
from autograder.samples import answers as a


@dataclass(frozen=True)
class Sample:
    """One submission and what grading it must give."""

    student: str
    lesson: str
    kind: str  # reference | blank | mistake | adversarial | tampered | broken
    why: str
    answers: dict[str, str] = field(default_factory=dict)
    zero: frozenset[str] = frozenset()
    status: str = "graded"
    flagged: bool = False


def _s(student, lesson, kind, why, answers=None, zero=(), **kw) -> Sample:
    return Sample(
        student, lesson, kind, why, dict(answers or {}), frozenset(zero), **kw
    )


def _both(prefix: str) -> set[str]:
    return {f"{prefix}-test", f"{prefix}-hidden-test"}


MISTAKES = [
    _s(
        "forgets-mps",
        "01_devices",
        "mistake",
        "no MPS fallback",
        {"01-pick-device": a.FORGETS_MPS},
        {"01-pick-device-hidden-test"},
    ),
    _s(
        "decimal-gb",
        "01_devices",
        "mistake",
        "GB (1e9) instead of GiB",
        {"01-memory-report": a.DECIMAL_GIGABYTES},
        _both("01-memory-report"),
    ),
    _s(
        "returns-str",
        "01_devices",
        "mistake",
        "returns 'cuda', not a torch.device",
        {"01-pick-device": a.RETURNS_STRING},
        _both("01-pick-device"),
    ),
    _s(
        "float-sqrt",
        "01_devices",
        "mistake",
        "float square root, off by one",
        {"01-largest-matrix": a.FLOAT_SQRT},
        {"01-largest-matrix-hidden-test"},
    ),
    _s(
        "forgets-labels",
        "02_migration",
        "mistake",
        "labels left on the CPU",
        {"02-train-iris": a.FORGETS_LABELS},
        {"02-train-iris-hidden-test"},
    ),
    _s(
        "moves-parameters-only",
        "02_migration",
        "mistake",
        "buffers not moved",
        {"02-build-model": a.MOVES_PARAMETERS_ONLY},
        _both("02-build-model"),
    ),
    _s(
        "item-every-epoch",
        "03_sync_trap",
        "mistake",
        "loss.item() every epoch",
        {"03-train": a.ITEM_EVERY_EPOCH},
        _both("03-train"),
    ),
    _s(
        "clock-without-sync",
        "03_sync_trap",
        "mistake",
        "timer never synchronises",
        {"03-timed": a.CLOCK_WITHOUT_SYNC},
        _both("03-timed"),
    ),
    _s(
        "calls-forward",
        "04_call_magic",
        "mistake",
        "model.forward(x), hooks skipped",
        {"04-predict": a.CALLS_FORWARD},
        _both("04-predict"),
    ),
    _s(
        "ignores-hook-result",
        "04_call_magic",
        "mistake",
        "hook return value ignored",
        {"04-mini-module": a.IGNORES_HOOK_RESULT},
        {"04-mini-module-hidden-test"},
    ),
    _s(
        "converts-to-numpy",
        "05_numpy_to_cupy",
        "mistake",
        "np.asarray on device data",
        {"05-standardize": a.CONVERTS_TO_NUMPY},
        _both("05-standardize"),
    ),
    _s(
        "asarray-everything",
        "05_numpy_to_cupy",
        "mistake",
        "np.asarray for all input",
        {"05-to-numpy": a.ASARRAY_EVERYTHING},
        _both("05-to-numpy"),
    ),
    _s(
        "logs-on-host",
        "06_linear_regression",
        "mistake",
        "float() every epoch",
        {"06-fit-gd": a.LOGS_ON_HOST},
        {"06-fit-gd-hidden-test"},
    ),
    _s(
        "mae-without-abs",
        "06_linear_regression",
        "mistake",
        "MAE without abs",
        {"06-metrics": a.MAE_WITHOUT_ABS},
        _both("06-metrics"),
    ),
    _s(
        "naive-sigmoid",
        "07_logistic_regression",
        "mistake",
        "overflowing sigmoid",
        {"07-sigmoid": a.NAIVE_SIGMOID},
        _both("07-sigmoid"),
    ),
    _s(
        "swapped-precision-recall",
        "07_logistic_regression",
        "mistake",
        "precision and recall swapped",
        {"07-scores": a.SWAPPED_PRECISION_RECALL},
        {"07-scores-hidden-test"},
    ),
    _s(
        "forgets-biases",
        "08_neural_network",
        "mistake",
        "count_params without biases",
        {"08-init": a.FORGETS_BIASES},
        _both("08-init"),
    ),
    _s(
        "wrong-init-scale",
        "08_neural_network",
        "mistake",
        "sqrt(1/n) instead of 2/n",
        {"08-init": a.FLOAT_SCALE_INIT},
        {"08-init-hidden-test"},
    ),
]

ADVERSARIAL = [
    _s(
        "patches-the-checks",
        "01_devices",
        "adversarial",
        "monkeypatches course.checks before the tests",
        {"01-pick-device": a.PATCHES_THE_CHECKS},
        _both("01-pick-device"),
    ),
    _s(
        "hides-tracebacks",
        "01_devices",
        "adversarial",
        "replaces sys.excepthook and IPython's showtraceback",
        {"01-pick-device": a.HIDES_TRACEBACKS},
        _both("01-pick-device"),
    ),
    _s(
        "hides-errors-when-called",
        "01_devices",
        "adversarial",
        "hides tracebacks from inside the graded function",
        {"01-pick-device": a.HIDES_ERRORS_WHEN_CALLED},
        _both("01-pick-device"),
    ),
    _s(
        "kills-the-kernel",
        "01_devices",
        "adversarial",
        "os._exit(0) when graded",
        {"01-largest-matrix": a.KILLS_THE_KERNEL},
        _both("01-largest-matrix"),
    ),
    _s(
        "calls-sys-exit",
        "01_devices",
        "adversarial",
        "sys.exit(0) when graded",
        {"01-pick-device": a.CALLS_SYS_EXIT},
        _both("01-pick-device"),
    ),
    _s(
        "equals-everything",
        "01_devices",
        "adversarial",
        "__eq__ always True",
        {"01-pick-device": a.EQUALS_EVERYTHING},
        _both("01-pick-device"),
    ),
    _s(
        "visible-inputs-only",
        "01_devices",
        "adversarial",
        "answers only the visible tests' inputs",
        {"01-largest-matrix": a.VISIBLE_INPUTS_ONLY},
        {"01-largest-matrix-hidden-test"},
    ),
    _s(
        "floods-output",
        "01_devices",
        "broken",
        "prints 200,000 lines",
        {"01-largest-matrix": a.FLOODS_OUTPUT},
    ),
]

# Tampered notebooks: correct answers, damaged test cells; edits in _tamper().
TAMPERED = [
    _s(name, "01_devices", "tampered", why, flagged=True)
    for name, why in [
        ("deletes-tests", "hidden and visible test cells deleted"),
        ("edits-tests", "test cells replaced by `pass`"),
        ("duplicates-and-reorders", "answer duplicated, cells in reverse order"),
        ("strips-metadata", "all cell metadata removed"),
        ("renames-ids", "test grade_ids changed"),
        ("changes-kernel", "kernelspec changed"),
    ]
]

BROKEN = [
    _s("invalid-json", "01_devices", "broken", "not JSON", status="unreadable"),
    _s("empty-file", "01_devices", "broken", "empty file", status="unreadable"),
    _s(
        "other-assignment",
        "01_devices",
        "broken",
        "Day 02's notebook as Day 01",
        status="wrong-lesson",
    ),
]


def all_samples(lessons: list[str] | None = None) -> list[Sample]:
    """Every sample of the given lessons (default: all lessons)."""
    names = lessons or lesson_names()
    base = [
        s
        for lesson in names
        for s in (
            _s("reference", lesson, "reference", "the solution"),
            _s("blank", lesson, "blank", "the student edition, untouched", zero={"*"}),
        )
    ]
    extra = MISTAKES + ADVERSARIAL + TAMPERED + BROKEN
    return base + [s for s in extra if s.lesson in names]


def points(lesson: str) -> dict[str, float]:
    """Points of every test cell of ``lesson``."""
    nb = source_to_notebook(find_lesson(lesson))
    return {
        c.metadata["nbgrader"]["grade_id"]: float(c.metadata["nbgrader"]["points"])
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("grade")
    }


def expected_score(sample: Sample) -> float:
    """The score ``sample`` must get."""
    if sample.status != "graded" or "*" in sample.zero:
        return 0.0
    return sum(
        p for cell, p in points(sample.lesson).items() if cell not in sample.zero
    )


def _tamper(name: str, nb: dict) -> dict:
    def gid(cell):
        return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", "")

    cells = nb["cells"]
    if name == "deletes-tests":
        nb["cells"] = [c for c in cells if not gid(c).endswith("-test")]
    elif name == "edits-tests":
        for cell in cells:
            if gid(cell).endswith("-test"):
                cell["source"] = "pass"
    elif name == "duplicates-and-reorders":
        answer = next(c for c in cells if gid(c) == "01-pick-device")
        nb["cells"] = list(reversed(cells)) + [json.loads(json.dumps(answer))]
    elif name == "strips-metadata":
        for cell in cells:
            cell["metadata"] = {}
    elif name == "renames-ids":
        for cell in cells:
            if gid(cell).endswith("-test"):
                cell["metadata"]["nbgrader"]["grade_id"] = "01-free-points-" + gid(cell)
    elif name == "changes-kernel":
        nb["metadata"]["kernelspec"] = {
            "name": "evil",
            "display_name": "evil",
            "language": "python",
        }
    return nb


def write_samples(folder: Path, lessons: list[str] | None = None) -> list[Sample]:
    """Write every sample as ``<student>_<lesson>.ipynb`` plus ``expected.csv``."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    samples = all_samples(lessons)
    for sample in samples:
        target = folder / f"{sample.student}_{sample.lesson}.ipynb"
        if sample.kind == "blank":
            blank = REPO_ROOT / "notebooks" / sample.lesson / f"{sample.lesson}.ipynb"
            shutil.copyfile(blank, target)
        elif sample.student == "invalid-json":
            target.write_text('{"cells": [', encoding="utf-8")
        elif sample.student == "empty-file":
            target.write_text("", encoding="utf-8")
        elif sample.student == "other-assignment":
            nb = source_to_notebook(find_lesson("02_migration"))
            write_notebook(nb, target)
        else:
            nb = source_to_notebook(find_lesson(sample.lesson))
            for cell in nb.cells:
                grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
                if grade_id in sample.answers:
                    cell.source = sample.answers[grade_id]
            if sample.kind == "tampered":
                data = _tamper(sample.student, json.loads(json.dumps(nb)))
                target.write_text(json.dumps(data), encoding="utf-8")
            else:
                write_notebook(nb, target)
    with open(folder / "expected.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(
            ["student", "lesson", "kind", "expected_status", "expected_score", "why"]
        )
        for s in samples:
            writer.writerow(
                [s.student, s.lesson, s.kind, s.status, expected_score(s), s.why]
            )
    return samples


def compare(samples: list[Sample], results: list) -> list[str]:
    """Differences between what the samples must score and what they scored."""
    got = {(r.student, r.lesson): r for r in results}
    problems = []
    for s in samples:
        r = got.get((s.student, s.lesson))
        if r is None:
            problems.append(f"{s.student}/{s.lesson}: not graded")
            continue
        if r.status != s.status:
            problems.append(f"{s.student}/{s.lesson}: status {r.status} != {s.status}")
            continue
        if r.score != expected_score(s):
            problems.append(
                f"{s.student}/{s.lesson}: {r.score:g} points, expected "
                f"{expected_score(s):g}"
            )
        if s.status == "graded" and "*" not in s.zero:
            wrong = [
                q
                for q, (score, top) in r.per_question.items()
                if (score == 0) != (q in s.zero) and top > 0
            ]
            if wrong:
                problems.append(f"{s.student}/{s.lesson}: unexpected cells {wrong}")
        if s.flagged and not r.flags:
            problems.append(f"{s.student}/{s.lesson}: tampering not flagged")
    return problems
