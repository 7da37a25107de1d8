"""course.backend: choosing xp, converting to NumPy, naming devices."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from course.backend import (
    array_module,
    as_numpy,
    backend_name,
    device_of,
    get_xp,
    host_copy,
)
from course.devices import cupy_status
from tests.markers import needs_cupy_gpu, needs_torch_cuda


def test_numpy_is_the_fallback_without_a_gpu():
    if cupy_status().usable:
        pytest.skip("CuPy works here, so it is the default")
    assert get_xp() is np
    assert backend_name() == "numpy"


def test_force_cpu_gives_numpy(monkeypatch):
    monkeypatch.setenv("COURSE_FORCE_CPU", "1")
    assert get_xp() is np


def test_asking_for_numpy_always_works():
    assert get_xp("numpy") is np


def test_asking_for_cupy_without_gpu_says_why_and_what_to_do(monkeypatch):
    monkeypatch.setenv("COURSE_FORCE_CPU", "1")
    with pytest.raises(RuntimeError, match="fall back to NumPy"):
        get_xp("cupy")


def test_unknown_backend_is_rejected():
    with pytest.raises(ValueError, match="prefer must be"):
        get_xp("jax")


def test_array_module_of_numpy_arrays_and_plain_values():
    assert array_module(np.zeros(2), 3.0) is np


@pytest.mark.parametrize(
    "value",
    [
        np.arange(6, dtype=np.float32).reshape(2, 3),
        [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]],
    ],
)
def test_host_copy_accepts_arrays_and_lists(value):
    out = host_copy(value)
    assert type(out) is np.ndarray
    assert out.shape == (2, 3)
    np.testing.assert_allclose(out, np.arange(6).reshape(2, 3), rtol=0, atol=0)


def test_host_copy_refuses_tensors_so_it_cannot_answer_task_5_2():
    """Day 05's to_numpy must handle tensors; the library's helper does not."""
    with pytest.raises(TypeError, match=r"detach\(\)\.cpu\(\)\.numpy\(\)"):
        host_copy(torch.ones(2, requires_grad=True))


def test_the_checks_still_read_tensors():
    t = torch.arange(6, dtype=torch.float32).reshape(2, 3).requires_grad_()
    np.testing.assert_array_equal(as_numpy(t), np.arange(6).reshape(2, 3))


def test_host_copy_returns_numpy_input_unchanged():
    a = np.ones(3)
    assert host_copy(a) is a


def test_device_of_cpu_values():
    assert device_of(np.zeros(1)) == "cpu"
    assert device_of(torch.zeros(1)) == "cpu"
    assert device_of(1.5) == "cpu"


@needs_cupy_gpu
def test_cupy_round_trip_on_gpu():
    import cupy

    x = cupy.arange(6, dtype=cupy.float32)
    assert array_module(x) is cupy
    assert device_of(x) == "cuda:0"
    np.testing.assert_array_equal(host_copy(x), np.arange(6, dtype=np.float32))


@needs_torch_cuda
def test_checks_copy_cuda_tensors_back():
    t = torch.arange(4, device="cuda")
    assert device_of(t) == "cuda:0"
    np.testing.assert_array_equal(as_numpy(t), np.arange(4))
