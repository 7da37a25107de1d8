"""autograder.lesson_code and the MLP benchmark, on tiny sizes."""

from __future__ import annotations

import pytest

from autograder.bench_mlp import run
from autograder.lesson_code import lesson_namespace


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
    result = run(sizes=(3, 4, 1), n_samples=16, epochs=1, repeat=1)
    assert set(result) == {"numpy_s_per_epoch", "torch_s_per_epoch", "ratio"}
    assert result["numpy_s_per_epoch"] > 0 and result["torch_s_per_epoch"] > 0
    assert result["ratio"] == pytest.approx(
        result["numpy_s_per_epoch"] / result["torch_s_per_epoch"], rel=1e-9
    )
