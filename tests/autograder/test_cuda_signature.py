"""Numba signatures of a kernel launch's arguments (autograder.grading.cuda_signature),
read in a grading kernel: no compiler needed."""

from __future__ import annotations

import numpy as np
import pytest
from numba.core import sigutils

from autograder.grading.cuda_compile import UnsupportedArgument, signature_of
from tests.autograder.test_cuda_compile import cuda  # the simulator, or a skip


def test_signature_of_numpy_arrays_and_numbers():
    got = signature_of(
        (
            np.zeros(4),
            np.zeros((2, 3), np.float32),
            np.asfortranarray(np.zeros((2, 3))),
            np.zeros(8)[::2],
            np.float32(1.5),
            2.5,
            7,
            np.int32(3),
            True,
            (1, 2),
        )
    )
    assert got == (
        "void(float64[::1], float32[:, ::1], float64[::1, :], float64[:], float32, "
        "float64, int64, int32, boolean, UniTuple(int64, 2))"
    )
    sigutils._parse_signature_string(got)  # numba reads it back


def test_signature_of_simulator_device_arrays():
    on_device = cuda.to_device(np.zeros((3, 4), np.float64))
    empty = cuda.device_array(5, dtype=np.int32)
    hinted = cuda.InOut(np.zeros(3, np.float32))
    got = signature_of((on_device, empty, hinted, np.ones(5), np.float64(2.0)))
    assert got == (
        "void(float64[:, ::1], int32[::1], float32[::1], float64[::1], float64)"
    )


def test_signature_of_arrays_of_the_simulated_gpu_s_store():
    """What cuda.to_device returns in grading (and a CuPy-like array): its
    shape and dtype, in any layout."""
    from course.fakecupy import DeviceArray

    got = signature_of((DeviceArray(np.zeros((2, 3))), DeviceArray(np.ones(4, "f4"))))
    assert got == "void(float64[:, :], float32[:])"


def test_signature_of_a_cuda_array_interface():
    class Foreign:  # what CuPy and PyTorch arrays offer
        def __init__(self, shape, strides):
            self.__cuda_array_interface__ = {
                "typestr": "<f4",
                "shape": shape,
                "strides": strides,
                "data": (0, False),
                "version": 3,
            }

    got = signature_of(
        (Foreign((2, 3), None), Foreign((2, 3), (4, 8)), Foreign((4,), (8,)))
    )
    assert got == "void(float32[:, ::1], float32[::1, :], float32[:])"


@pytest.mark.parametrize(
    "value, words",
    [([1.0, 2.0], "list"), ({"a": 1}, "dict"), ("text", "str"), (None, "NoneType")],
)
def test_signature_of_refuses_what_no_kernel_takes(value, words):
    with pytest.raises(UnsupportedArgument) as info:
        signature_of((np.zeros(2), value))
    assert "argument 2" in str(info.value) and words in str(info.value)
    assert "NumPy array" in str(info.value)


# --- the caller's side, without a compiler --------------------------------------
