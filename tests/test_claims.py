"""Every sentence of a lesson about speed, memory or hardware behaviour is backed.

A sentence in a lesson's Markdown that uses one of :data:`PHRASES` must carry a
label that says where its figure comes from (:data:`LABELS`: measured here,
recorded on named hardware, modelled, or a vendor's document). The sentences
not labelled yet are listed, one per line, in ``claims_baseline.txt``; a new
unlabelled claim fails, and so does a listed one that was labelled or removed
(take it off the list), so the list only shrinks.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = Path(__file__).with_name("claims_baseline.txt")

#: Words that make a sentence a claim about speed, memory or hardware behaviour.
PHRASES = re.compile(
    r"\b(faster|slower|fast|slow|quick(?:er|ly)?|hangs?|speed(?:s|-?up)?|"
    r"memory traffic|per second|micro ?seconds?|bandwidth|throughput|latency|"
    r"cheap(?:er)?|expensive|TFLOP/s|nvidia-smi|allocator|Triton|spared|"
    r"wrong sum|under \d+%)\b",
    re.IGNORECASE,
)
#: Words that say where a claim's figure comes from.
LABELS = re.compile(
    r"\b(measured|measures|recorded|modelled|datasheets?|spec sheets?|"
    r"specifications?|documentation|programming guide|print(?:s|ed)|gpu-check|"
    r"seed|articles?|wrote|reported)\b",
    re.IGNORECASE,
)


def _markdown_sentences(path: Path) -> list[str]:
    """The sentences of a lesson source's Markdown cells (read by the course's
    one reader of lessons)."""
    from autograder.lessons.percent import read_cells

    cells = [
        c.source
        for c in read_cells(path.read_text(encoding="utf-8"), path.name)
        if c.cell_type == "markdown"
    ]
    sentences = []
    for cell in cells:
        text = " ".join(cell.split())
        sentences += [s.strip() for s in re.split(r"(?<=[.!?])\s+(?=[A-Z`*(])", text)]
    return [s for s in sentences if s]


def unlabelled_claims() -> list[str]:
    """``<lesson>: <sentence>`` for every claim without a label."""
    found = []
    for path in sorted((ROOT / "solutions").glob("*/*.py")):
        for sentence in _markdown_sentences(path):
            if PHRASES.search(sentence) and not LABELS.search(sentence):
                found.append(f"{path.stem}: {sentence}")
    return found


def _baseline() -> list[str]:
    lines = BASELINE.read_text(encoding="utf-8").splitlines()
    return [line for line in lines if line.strip() and not line.startswith("#")]


def test_no_new_unlabelled_speed_claim():
    new = sorted(set(unlabelled_claims()) - set(_baseline()))
    assert not new, (
        "lesson sentences about speed, memory or hardware with nothing beside "
        "them: add a measurement shown on the student's machine, a recorded "
        "result (hardware, date), a figure labelled 'modelled', or a source "
        "(vendor docs with section):\n" + "\n".join(new)
    )


def test_the_list_of_claims_to_back_only_shrinks():
    gone = sorted(set(_baseline()) - set(unlabelled_claims()))
    assert not gone, (
        "these claims are labelled or gone now: take them off "
        f"{BASELINE.name}:\n" + "\n".join(gone)
    )


def test_the_check_sees_a_claim_and_its_label():
    assert PHRASES.search("Fewer bits mean less memory traffic.")
    assert not LABELS.search("Fewer bits mean less memory traffic.")
    assert LABELS.search("It is 3x faster (recorded on an H200, 2026-12-01).")
    # a word that only looks like a label does not count
    assert not LABELS.search("A tiny model is faster on a CPU.")


def test_the_instructor_guide_states_the_timeouts_and_days_the_code_has():
    """The guide's per-cell timeouts and its range of Days are read from the
    course's config and its lessons, not written once and left."""
    import re

    from traitlets.config.loader import PyFileConfigLoader

    from autograder.lessons import REPO_ROOT, lesson_names

    guide = (REPO_ROOT / "docs" / "guides" / "instructor.md").read_text("utf-8")
    text = " ".join(guide.split())
    config = PyFileConfigLoader(
        "nbgrader_config.py", path=str(REPO_ROOT / "autograder")
    ).load_config()
    grading = config.GradingExecute.timeout
    validate = config.Execute.timeout
    assert f"timeout {grading} s when grading, `c.GradingExecute.timeout`" in text
    assert f"{validate} s for nbgrader's own Validate, `c.Execute.timeout`" in text
    assert f"| `GradingExecute.timeout`: time per cell | {grading} s" in text
    names = lesson_names()
    assert f"`{names[0]}` to `{names[-1]}`" in text
    stated = set(re.findall(r"\b(\d+) s (?:a|per) cell\b", text))
    assert stated <= {str(grading), "30"}, stated  # 30: the guide's example


def test_the_syllabus_times_are_each_days_own_estimate():
    """The README's time column (the English home page) is the sum of each
    Day's **Time.** line, the one source of the Chinese syllabus too."""
    from autograder.lessons import REPO_ROOT, lesson_names
    from autograder.publish.site_pages import day_time

    readme = (REPO_ROOT / "README.md").read_text("utf-8")
    shown = dict(re.findall(r"^\| (\d\d) \| [^|]+ \| (\d+) min \|", readme, re.M))
    expected = {name[:2]: str(sum(day_time(name))) for name in lesson_names()}
    assert shown == expected
