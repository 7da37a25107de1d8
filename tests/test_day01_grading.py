"""Day 01 through nbgrader autograde: full marks, zero, and realistic mistakes."""

from __future__ import annotations

import pytest

from autograder.grading import grade_notebooks
from autograder.lessons import REPO_ROOT
from tests.lesson_helpers import submission

LESSON = "01_devices"

FORGETS_MPS = """
VALID_PREFERENCES = (None, "cpu", "cuda", "mps")


def pick_device(prefer=None):
    if prefer not in VALID_PREFERENCES:
        raise ValueError(f"prefer must be one of {VALID_PREFERENCES}")
    if prefer != "cpu" and torch.cuda.is_available():
        return torch.device("cuda")
    return torch.device("cpu")


device = pick_device()
"""

DECIMAL_GIGABYTES = """
REPORT_KEYS = ("device", "total_gb", "free_gb", "used_gb", "torch_allocated_gb")


def gpu_memory_report(device):
    device = torch.device(device)
    report = dict.fromkeys(REPORT_KEYS)
    if device.type != "cuda":
        report["device"] = device.type
        return report
    index = device.index or 0
    free, total = torch.cuda.mem_get_info(index)
    report.update(device=f"cuda:{index}", total_gb=round(total / 1e9, 2),
                  free_gb=round(free / 1e9, 2), used_gb=round((total - free) / 1e9, 2),
                  torch_allocated_gb=round(torch.cuda.memory_allocated(index) / 1e9, 2))
    return report
"""

RETURNS_STRING = """
VALID_PREFERENCES = (None, "cpu", "cuda", "mps")


def pick_device(prefer=None):
    return "cuda" if torch.cuda.is_available() else "cpu"


device = pick_device()
"""

FLOAT_SQRT = """
def largest_square_matrix(free_bytes, dtype=torch.float32, copies=3):
    size = torch.tensor([], dtype=dtype).element_size()
    return int((free_bytes / (copies * size)) ** 0.5)
"""


@pytest.mark.slow
def test_reference_blank_and_wrong_answers_get_the_right_points(tmp_path):
    blank = REPO_ROOT / "notebooks" / LESSON / f"{LESSON}.ipynb"
    subs = {
        "reference": submission(LESSON, tmp_path / "ref.ipynb"),
        "blank": blank,
        "forgets-mps": submission(
            LESSON, tmp_path / "mps.ipynb", {"01-pick-device": FORGETS_MPS}
        ),
        "decimal-gb": submission(
            LESSON, tmp_path / "gb.ipynb", {"01-memory-report": DECIMAL_GIGABYTES}
        ),
        "returns-str": submission(
            LESSON, tmp_path / "str.ipynb", {"01-pick-device": RETURNS_STRING}
        ),
        "float-sqrt": submission(
            LESSON, tmp_path / "sqrt.ipynb", {"01-largest-matrix": FLOAT_SQRT}
        ),
    }
    grades = {g.student: g for g in grade_notebooks(LESSON, subs)}

    assert grades["reference"].score == grades["reference"].max_score == 12
    assert grades["blank"].score == 0

    # Passes the visible test (no MPS there) but not the hidden ones.
    mps = grades["forgets-mps"].per_question
    assert mps["01-pick-device-test"] == (1.0, 1.0)
    assert mps["01-pick-device-hidden-test"] == (0.0, 2.0)
    assert grades["forgets-mps"].score == 10

    # GB instead of GiB: the visible test catches it, and so do the hidden ones.
    gb = grades["decimal-gb"].per_question
    assert gb["01-memory-report-test"] == (0.0, 1.0)
    assert gb["01-memory-report-hidden-test"] == (0.0, 2.0)
    assert grades["decimal-gb"].score == 9

    # A string is not a torch.device: every pick_device test fails, and later
    # cells that use `device` as a torch.device are unaffected in their points.
    assert grades["returns-str"].per_question["01-pick-device-test"][0] == 0.0
    assert grades["returns-str"].per_question["01-pick-device-hidden-test"][0] == 0.0

    # Float square roots are off by one for huge or borderline sizes.
    sqrt = grades["float-sqrt"].per_question
    assert sqrt["01-largest-matrix-hidden-test"] == (0.0, 2.0)
    assert grades["float-sqrt"].score < 12
