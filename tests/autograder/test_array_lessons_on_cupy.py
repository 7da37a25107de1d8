"""Days 05-08 give the same answers with NumPy and with CuPy on a real GPU.

The lessons' graded tests already run every function on NumPy and on simulated
device arrays (course.fakecupy), on every machine. This module adds the real
thing where CuPy has a device, and is skipped, with the reason, where it has none.
"""

from __future__ import annotations

import numpy as np
import pytest

from course.devices import cupy_status

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(
        not cupy_status().usable, reason=f"CuPy cannot run here: {cupy_status().reason}"
    ),
]


@pytest.fixture(scope="module")
def cupy():
    import cupy

    return cupy


def _lesson(name):
    from autograder.lessons.code import lesson_namespace

    return lesson_namespace(name)


def test_day05_standardize_and_summary(cupy):
    day = _lesson("05_numpy_to_cupy")
    X = np.random.default_rng(0).normal(3, 2, (500, 6)).astype(np.float32)
    on_gpu = day["standardize"](cupy.asarray(X))
    assert isinstance(on_gpu, cupy.ndarray)
    np.testing.assert_allclose(
        on_gpu.get(), day["standardize"](X), rtol=1e-5, atol=1e-5
    )
    np.testing.assert_allclose(
        day["summary_statistics"](X, cupy), day["summary_statistics"](X, np), rtol=1e-5
    )


def test_day06_fits_agree(cupy):
    day = _lesson("06_linear_regression")
    X = np.random.default_rng(1).normal(size=(400, 5))
    y = X @ np.arange(5.0) + 1.0
    w_np, b_np, h_np = day["fit_gd"](X, y, num_epochs=50)
    w_cp, b_cp, h_cp = day["fit_gd"](cupy.asarray(X), cupy.asarray(y), num_epochs=50)
    assert isinstance(h_cp, cupy.ndarray)
    np.testing.assert_allclose(w_cp.get(), w_np, rtol=1e-9)
    np.testing.assert_allclose(h_cp.get(), h_np, rtol=1e-9)
    w_cf, _ = day["fit_closed_form"](cupy.asarray(X), cupy.asarray(y))
    np.testing.assert_allclose(w_cf.get(), np.arange(5.0), atol=1e-6)


def test_day07_logistic_agrees(cupy):
    day = _lesson("07_logistic_regression")
    z = np.array([-1000.0, -1.0, 0.0, 1.0, 1000.0])
    np.testing.assert_allclose(day["sigmoid"](cupy.asarray(z)).get(), day["sigmoid"](z))
    X = np.random.default_rng(2).normal(size=(300, 4))
    y = (X[:, 0] > 0).astype(np.float64)
    *_, h_np = day["fit"](X, y, num_epochs=30)
    *_, h_cp = day["fit"](cupy.asarray(X), cupy.asarray(y), num_epochs=30)
    np.testing.assert_allclose(h_cp.get(), h_np, rtol=1e-9)


def test_day08_network_agrees(cupy):
    day = _lesson("08_neural_network")
    X = np.random.default_rng(3).normal(size=(64, 3))
    y = np.random.default_rng(4).normal(size=(64, 2))
    p_np = day["init_params"]([3, 8, 2], dtype=np.float64)
    p_cp = day["init_params"]([3, 8, 2], xp=cupy, dtype=np.float64)
    _, h_np = day["train"](p_np, X, y, lr=0.05, num_epochs=20)
    _, h_cp = day["train"](p_cp, cupy.asarray(X), cupy.asarray(y), 0.05, 20)
    np.testing.assert_allclose(h_cp.get(), h_np, rtol=1e-9)
