"""autograder.lessons.code and the MLP benchmark, on tiny sizes."""

from __future__ import annotations

from dataclasses import replace

import pytest

from autograder.lessons.code import lesson_namespace
from autograder.measure.bench import QUICK, mlp


@pytest.mark.slow
def test_lesson_namespace_has_the_answers_and_no_test_side_effects():
    day = lesson_namespace("04_call_magic")
    counter = day["Counter"]()
    assert counter("x") == 1
    assert "calls" not in day  # defined only in a test cell


def test_unknown_lesson_is_reported():
    with pytest.raises(ValueError, match="No lesson named"):
        lesson_namespace("99_nothing")


@pytest.mark.slow
def test_mlp_benchmark_reports_positive_times_and_a_ratio():
    settings = replace(QUICK, mlp_cases=(((3, 4, 1), 16),), mlp_epochs=1, repeat=1)
    section = mlp.run(settings)
    cpu = {
        r["implementation"]: r["s_per_epoch"]
        for r in section["rows"]
        if r["device"] == "cpu"
    }
    assert cpu["from scratch (NumPy)"] > 0 and cpu["PyTorch"] > 0
    ratio = mlp.cpu_ratios(section)["[3, 4, 1] x16"]
    assert ratio == pytest.approx(
        cpu["from scratch (NumPy)"] / cpu["PyTorch"], rel=1e-9
    )
    assert any(
        "from scratch / PyTorch on the CPU" in line for line in mlp.summary(section)
    )
