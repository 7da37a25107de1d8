"""course.fakecupy: CuPy's device-array rules, simulated on NumPy data."""

from __future__ import annotations

import numpy as np
import pytest

from course.backend import array_module, device_of, host_copy
from course.checks import check_close, check_device
from course.fakecupy import DeviceArray, fake_cupy, to_device
from course.sync import SyncCounter


@pytest.fixture
def X():
    return to_device(np.arange(12, dtype=np.float32).reshape(4, 3))


def test_results_stay_on_the_device_with_numpy_semantics(X):
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    assert isinstance(Z, DeviceArray) and not isinstance(Z, np.ndarray)
    assert Z.dtype == np.float32 and Z.shape == (4, 3)
    host = np.arange(12, dtype=np.float32).reshape(4, 3)
    expected = (host - host.mean(axis=0)) / host.std(axis=0)
    np.testing.assert_allclose(Z.get(), expected, rtol=1e-6)
    assert isinstance(np.mean(X), DeviceArray)  # dispatched, like CuPy
    assert isinstance(X @ fake_cupy.ones(3), DeviceArray)
    assert isinstance(X.sum(), DeviceArray) and X.sum().shape == ()


@pytest.mark.parametrize(
    "mistake",
    [
        lambda X: np.asarray(X),
        lambda X: np.array(X, dtype=float),
        lambda X: X + np.ones(3),
        lambda X: np.ones(3) * X,
        lambda X: fake_cupy.maximum(np.zeros(3), X),
    ],
)
def test_implicit_conversion_and_mixing_raise_like_cupy(X, mistake):
    with pytest.raises(TypeError, match="Implicit conversion|Unsupported type"):
        mistake(X)


def test_explicit_transfers_and_scalars_are_fine(X):
    assert type(fake_cupy.asnumpy(X)) is np.ndarray
    assert float(X.sum()) == 66.0
    assert (X * 2.0 + np.float32(1)).get()[0, 0] == 1.0
    w = fake_cupy.zeros(3)
    w -= 0.5 * fake_cupy.ones(3)
    np.testing.assert_array_equal(w.get(), [-0.5, -0.5, -0.5])
    rng = fake_cupy.random.default_rng(0)
    assert isinstance(rng.normal(size=(2, 2)), DeviceArray)


def test_course_helpers_understand_simulated_arrays(X):
    assert array_module(X) is fake_cupy
    assert fake_cupy.get_array_module(X) is fake_cupy
    assert device_of(X) == "simgpu:0"
    check_device(X, "simgpu")
    with pytest.raises(AssertionError, match="is on cpu but should be on simgpu"):
        check_device(np.zeros(1), "simgpu")
    assert type(host_copy(X)) is np.ndarray
    check_close(X, np.arange(12).reshape(4, 3))


def test_transfers_back_to_the_host_are_counted(X):
    with SyncCounter() as syncs:
        total = X.sum()
        total.item()
        float(total)
        X.get()
        fake_cupy.asnumpy(X)  # calls .get() inside: counted once
        print(total)
        if total > 0:
            pass
    assert syncs.by_op() == {
        "DeviceArray.item": 1,
        "DeviceArray.__float__": 1,
        "DeviceArray.get": 1,
        "fake_cupy.asnumpy": 1,
        "DeviceArray.__str__": 1,
        "DeviceArray.__bool__": 1,
    }
