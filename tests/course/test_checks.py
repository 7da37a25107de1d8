"""course.checks: strict, helpful assertions that cheats cannot satisfy."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from course import checks


class EqualsEverything:
    """An answer that claims to equal anything and to be truthy."""

    shape = (3,)
    dtype = np.float64

    def __eq__(self, other):
        return True

    def __bool__(self):
        return True

    __hash__ = object.__hash__


class SneakyFloat(float):
    def __eq__(self, other):
        return True

    __hash__ = float.__hash__


def test_check_type_accepts_subclasses_and_names_both_types():
    checks.check_type(True, int)
    with pytest.raises(
        AssertionError, match="should be a torch.device, but it is a str"
    ):
        checks.check_type("cuda", torch.device, "pick_device()")


def test_check_equal_is_not_fooled_by_permissive_eq():
    with pytest.raises(AssertionError):
        checks.check_equal(EqualsEverything(), 3)
    with pytest.raises(AssertionError, match="is 1.5, expected 2.0"):
        checks.check_equal(SneakyFloat(1.5), 2.0)
    checks.check_equal(SneakyFloat(2.0), 2.0)


def test_check_equal_types_are_strict():
    with pytest.raises(AssertionError, match="should be a int"):
        checks.check_equal(True, 1)
    with pytest.raises(AssertionError, match="should be a NoneType"):
        checks.check_equal(0.0, None)
    with pytest.raises(AssertionError, match="should be a int"):
        checks.check_equal(np.float64(3.0), 3)  # a NumPy scalar of another kind
    with pytest.raises(AssertionError, match="should be a bool"):
        checks.check_equal(np.int64(1), True)
    with pytest.raises(AssertionError, match="should be a int"):
        checks.check_equal(np.array(3), 3)  # an array, even 0-d, is not a number


def test_a_numpy_scalar_counts_as_the_python_number_of_its_kind():
    checks.check_equal(np.int64(3), 3)
    checks.check_equal(np.uint8(3), 3)
    checks.check_equal(np.float32(1.5), 1.5)
    checks.check_equal(np.bool_(True), True)
    checks.check_type(np.int32(3), int)
    checks.check_type(np.float16(1.0), (int, float))
    checks.check_type(np.bool_(False), bool)
    with pytest.raises(AssertionError, match="is 4, expected 3"):
        checks.check_equal(np.int64(4), 3)
    with pytest.raises(AssertionError, match="should be a int"):
        checks.check_type(np.float64(3.0), int)


def test_check_equal_recurses_into_dicts_and_lists():
    checks.check_equal({"a": [1, 2], "b": None}, {"a": [1, 2], "b": None})
    with pytest.raises(AssertionError, match=r"x\['a'\]\[1\] is 3, expected 2"):
        checks.check_equal({"a": [1, 3]}, {"a": [1, 2]}, "x")
    with pytest.raises(AssertionError, match="missing keys \\['b'\\]"):
        checks.check_equal({"a": 1}, {"a": 1, "b": 2})


def test_check_close_reports_where_and_by_how_much():
    checks.check_close(np.array([1.0, 2.0]), [1.0, 2.0 + 1e-9])
    checks.check_close(torch.tensor([1.0, 2.0]), np.array([1.0, 2.0]))
    with pytest.raises(AssertionError, match=r"at index \(1,\): got 2.5, expected 2"):
        checks.check_close(np.array([1.0, 2.5]), np.array([1.0, 2.0]), name="w")


def test_check_close_rejects_nan_shape_and_fakes():
    with pytest.raises(AssertionError, match="NaN"):
        checks.check_close(np.array([np.nan]), np.array([np.nan]))
    with pytest.raises(AssertionError, match="shape"):
        checks.check_close(np.zeros(3), np.zeros((3, 1)))
    with pytest.raises(AssertionError, match="not numeric"):
        checks.check_close(EqualsEverything(), np.zeros(3))


def test_check_shape_and_dtype():
    checks.check_shape(np.zeros((2, 3)), (2, 3))
    with pytest.raises(AssertionError, match=r"shape \(3, 2\), expected \(2, 3\)"):
        checks.check_shape(np.zeros((3, 2)), (2, 3))
    with pytest.raises(AssertionError, match="has no .shape"):
        checks.check_shape([1, 2], (2,))
    checks.check_dtype(np.zeros(2, dtype=np.float32), np.float32)
    checks.check_dtype(torch.zeros(2), torch.float32)
    with pytest.raises(AssertionError, match="dtype float64, expected float32"):
        checks.check_dtype(np.zeros(2), np.float32)


def test_device_mismatch_names_both_devices_and_the_fix():
    with pytest.raises(AssertionError) as info:
        checks.check_device(torch.zeros(2), "cuda:0", "X_train")
    message = str(info.value)
    assert "X_train is on cpu" in message and "cuda:0" in message
    assert "X_train.to('cuda:0')" in message
    checks.check_device(torch.zeros(2), "cpu")
    checks.check_device(np.zeros(2), torch.device("cpu"))


def test_check_keys_lists_missing_and_extra():
    with pytest.raises(AssertionError, match=r"missing keys \['b'\] and unexpected"):
        checks.check_keys({"a": 1, "c": 2}, ["a", "b"])


def test_check_finite_and_positive():
    checks.check_finite(np.ones(3))
    with pytest.raises(AssertionError, match="NaN or inf"):
        checks.check_finite(np.array([1.0, np.inf]))
    checks.check_positive(0.5)
    for bad in (0, -1.0, float("nan"), True):
        with pytest.raises(AssertionError):
            checks.check_positive(bad)


@given(
    arrays=st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=20).map(
        np.array
    ),
    scale=st.floats(1e-3, 1e3),
)
def test_check_close_accepts_exact_copies_and_rejects_perturbed_ones(arrays, scale):
    checks.check_close(arrays.copy(), arrays)
    checks.check_close(torch.from_numpy(arrays.copy()), arrays)
    perturbed = arrays.copy()
    perturbed[-1] += scale + abs(perturbed[-1]) * 1e-3
    with pytest.raises(AssertionError, match="differs from the expected value"):
        checks.check_close(perturbed, arrays, rtol=1e-5, atol=1e-8)
