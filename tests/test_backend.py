"""course.backend: choosing xp, converting to NumPy, naming devices."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from course.backend import array_module, backend_name, device_of, get_xp, to_numpy
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
        torch.arange(6, dtype=torch.float32).reshape(2, 3),
        torch.arange(6, dtype=torch.float32).reshape(2, 3).requires_grad_(),
        [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]],
    ],
)
def test_to_numpy_accepts_arrays_tensors_and_lists(value):
    out = to_numpy(value)
    assert type(out) is np.ndarray
    assert out.shape == (2, 3)
    np.testing.assert_allclose(out, np.arange(6).reshape(2, 3), rtol=0, atol=0)


def test_to_numpy_returns_numpy_input_unchanged():
    a = np.ones(3)
    assert to_numpy(a) is a


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
    np.testing.assert_array_equal(to_numpy(x), np.arange(6, dtype=np.float32))


@needs_torch_cuda
def test_to_numpy_copies_cuda_tensors_back():
    t = torch.arange(4, device="cuda")
    assert device_of(t) == "cuda:0"
    np.testing.assert_array_equal(to_numpy(t), np.arange(4))
