"""course.data: deterministic, correctly shaped datasets without a network."""

from __future__ import annotations

import numpy as np
import pytest

from course import data


def _same(a: data.Split, b: data.Split) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(a, b))


@pytest.mark.parametrize(
    "make",
    [
        lambda seed: data.iris(seed=seed),
        lambda seed: data.xor(repeats=5, noise=0.1, seed=seed),
        lambda seed: data.linear_regression(200, 3, seed=seed),
        lambda seed: data.binary_classification(300, 10, seed=seed),
    ],
)
def test_same_seed_same_data_other_seed_other_data(make):
    assert _same(make(1), make(1))
    assert not _same(make(1), make(2))


def test_iris_shapes_dtypes_and_scaling():
    split = data.iris()
    assert split.X_train.shape == (120, 4) and split.X_test.shape == (30, 4)
    assert split.X_train.dtype == np.float32 and split.y_train.dtype == np.int64
    assert split.X_train.min() == pytest.approx(0.0, abs=1e-6)
    assert split.X_train.max() == pytest.approx(1.0, abs=1e-6)
    assert sorted(np.unique(split.y_test)) == [0, 1, 2]
    assert np.bincount(split.y_test).tolist() == [10, 10, 10]  # stratified


def test_xor_truth_table():
    split = data.xor()
    X_train, X_test, y_train, y_test = split
    expected = (X_test[:, 0] != X_test[:, 1]).astype(np.float32)
    np.testing.assert_array_equal(y_test[:, 0], expected)
    assert X_train.shape == (4, 2) and y_train.shape == (4, 1)
    assert data.xor(repeats=10).X_train.shape == (40, 2)


def test_linear_regression_is_recoverable_by_least_squares():
    split = data.linear_regression(2000, 4, noise=1.0, scale=None, seed=3)
    X = np.c_[split.X_train, np.ones(len(split.X_train))]
    coef, *_ = np.linalg.lstsq(X, split.y_train, rcond=None)
    np.testing.assert_allclose(coef[:-1], split.info["true_w"], atol=0.1)
    assert coef[-1] == pytest.approx(split.info["true_b"], abs=0.1)
    assert split.y_train.shape == (1600,) and split.y_train.dtype == np.float32


def test_standard_scaling_uses_training_statistics_only():
    split = data.linear_regression(500, 3, seed=0)
    np.testing.assert_allclose(split.X_train.mean(axis=0), 0.0, atol=1e-5)
    np.testing.assert_allclose(split.X_train.std(axis=0), 1.0, atol=1e-4)
    assert np.abs(split.X_test.mean(axis=0)).max() > 1e-4  # not refitted on test


def test_binary_classification_sources():
    synthetic = data.binary_classification(1000, 20)
    assert synthetic.X_train.shape == (800, 20)
    assert set(np.unique(synthetic.y_train)) == {0.0, 1.0}
    assert 0.3 < synthetic.y_train.mean() < 0.5
    cancer = data.binary_classification(source="breast_cancer")
    assert cancer.X_train.shape[1] == 30
    assert len(cancer.X_train) + len(cancer.X_test) == 569


@pytest.mark.parametrize(
    "call",
    [
        lambda: data.binary_classification(source="spam.csv"),
        lambda: data.linear_regression(5, 2),
        lambda: data.xor(repeats=0),
        lambda: data.iris(test_size=1.5),
        lambda: data.iris(scale="log"),
    ],
)
def test_bad_arguments_raise_value_error(call):
    with pytest.raises(ValueError):
        call()
