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


# One test per row of the rules table in course.fakecupy's docstring.


def test_rule_implicit_conversion_raises(X):
    for convert in (np.asarray, np.array):
        with pytest.raises(TypeError, match="Implicit conversion"):
            convert(X)


@pytest.mark.parametrize(
    "host", [np.ones(3), np.array(2.0), np.ones((1, 1))], ids=["1-d", "0-d", "2-d"]
)
def test_rule_a_host_array_of_any_ndim_cannot_meet_a_device_array(X, host):
    with pytest.raises(TypeError, match="Unsupported type"):
        X + host
    with pytest.raises(TypeError, match="Unsupported type"):
        host * X


def test_rule_scalars_pass_by_value(X):
    for scalar in (2.0, 2, np.float32(2.0), np.int64(2), True):
        assert isinstance(X + scalar, DeviceArray)


def test_rule_numpy_functions_dispatch_to_the_device(X):
    assert isinstance(np.mean(X), DeviceArray)
    assert isinstance(np.exp(X), DeviceArray)


def test_rule_reductions_give_0d_device_arrays(X):
    for total in (X.sum(), X.mean(), X.max()):
        assert isinstance(total, DeviceArray) and total.shape == ()


def test_rule_a_list_of_device_arrays_stays_on_the_device(X):
    with SyncCounter() as syncs:
        joined = fake_cupy.asarray([X.sum(), X.mean(), X[0, 0]])
        nested = fake_cupy.asarray([[X[0, 0], X[0, 1]], [X[1, 0], X[1, 1]]])
    assert syncs.count == 0
    assert isinstance(joined, DeviceArray) and joined.shape == (3,)
    np.testing.assert_allclose(joined.get(), [66.0, 5.5, 0.0])
    assert nested.shape == (2, 2)


def test_rule_device_and_host_values_mixed_in_a_list_raise(X):
    with pytest.raises(TypeError, match="Implicit conversion"):
        fake_cupy.asarray([X.sum(), 1.0])


def test_rule_every_explicit_copy_back_is_counted(X):
    with SyncCounter() as syncs:
        X.get()
        fake_cupy.asnumpy(X)
        X.sum().item()
        X.tolist()
        float(X.sum())
        int(X.sum())
        bool(X.sum())
        str(X)
    assert syncs.count == 8
