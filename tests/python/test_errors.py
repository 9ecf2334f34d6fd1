# SPDX-License-Identifier: Apache-2.0
"""Bad input gets a Python exception that says what is wrong, never a crash."""
import re

import numpy as np
import pytest

from helpers import class_data, regression_data, write_csv
from pbp_edge import NotFittedError, PBPClassifier, PBPRegressor

FAST = dict(recipe="paper", hidden=(4,), epochs=2, verbose=0)


@pytest.fixture
def fitted(regression):
    X, y = regression
    return PBPRegressor(**FAST).fit(X, y)


def test_shapes(regression, fitted):
    X, y = regression
    with pytest.raises(ValueError, match=r"X must be 2-D .*reshape\(-1, 1\)"):
        PBPRegressor(**FAST).fit(X[:, 0], y)
    with pytest.raises(ValueError, match=r"X must be 2-D \(rows x inputs\), got shape \(60, 3, 1\)"):
        PBPRegressor(**FAST).fit(X[:, :, None], y)
    with pytest.raises(ValueError, match="X has 60 rows but y has 59 values"):
        PBPRegressor(**FAST).fit(X, y[:-1])
    with pytest.raises(ValueError, match=r"y must be 1-D"):
        PBPRegressor(**FAST).fit(X, np.stack([y, y], axis=1))
    with pytest.raises(ValueError, match="X has 2 columns, but the model takes 3 inputs"):
        fitted.predict(X[:, :2])
    with pytest.raises(ValueError, match="X has no rows"):
        fitted.predict(np.zeros((0, 3)))
    with pytest.raises(ValueError, match="n_samples=1: training needs at least 2 rows"):
        PBPRegressor(**FAST).fit(X[:1], y[:1])
    with pytest.raises(ValueError, match="recipe='auto' needs at least 10 rows, X has 5"):
        PBPRegressor(verbose=0).fit(X[:5], y[:5])
    with pytest.raises(ValueError, match=r"--distance-variance goes with --recipe auto"):
        PBPRegressor(distance_variance=False, **FAST).fit(X, y)
    with pytest.raises(ValueError, match="distance_variance must be True or False, got 'off'"):
        PBPRegressor(distance_variance="off", verbose=0).fit(X, y)


def test_non_finite_values_are_named(regression, fitted):
    X, y = regression
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match=r"X\[3, 1\] is nan: training inputs must be finite"):
        PBPRegressor(**FAST).fit(bad, y)
    with pytest.raises(ValueError, match=r"X\[3, 1\] is nan: every input must be finite"):
        fitted.predict(bad)
    bad[3, 1] = -np.inf
    with pytest.raises(ValueError, match=r"X\[3, 1\] is -inf"):
        fitted.predict(bad.astype(np.float32))
    bad[3, 1] = 1e39
    with pytest.raises(ValueError, match=r"X\[3, 1\] = .* is beyond float32"):
        fitted.predict(bad)
    with pytest.raises(ValueError, match=r"beyond float32"):
        PBPRegressor(**FAST).fit(bad, y)
    bad_y = y.copy()
    bad_y[2] = np.inf
    with pytest.raises(ValueError, match=r"y\[2\] is inf: targets must be finite"):
        PBPRegressor(**FAST).fit(X, bad_y)


def test_types(regression):
    X, y = regression
    with pytest.raises(ValueError, match="X must hold numbers"):
        PBPRegressor(**FAST).fit(np.array([["a", "b"], ["c", "d"]], dtype=object), [1.0, 2.0])
    with pytest.raises(ValueError, match="y must hold numbers for a regression"):
        PBPRegressor(**FAST).fit(X, np.array(["a"] * 60))
    sparse = pytest.importorskip("scipy.sparse")
    with pytest.raises(TypeError, match=r"sparse matrix: pass a dense array"):
        PBPRegressor(**FAST).fit(sparse.csr_matrix(X), y)


def test_labels():
    X, y = class_data(classes=3)
    with pytest.raises(ValueError, match=r"y\[4\]: expected a class index 0\.\.2, found 7"):
        PBPClassifier(hidden=(4,), epochs=1, classes=3, verbose=0).fit(X, np.where(np.arange(60) == 4, 7, y))
    with pytest.raises(ValueError, match=r"y\[2\]: expected a binary label 0 or 1, found 2"):
        PBPClassifier(hidden=(4,), epochs=1, classes=2, verbose=0).fit(X, y)
    with pytest.raises(ValueError, match=r"y\[0\]: expected a class index 0\.\.2, found 0\.5"):
        PBPClassifier(hidden=(4,), epochs=1, classes=3, verbose=0).fit(X, np.full(60, 0.5))
    with pytest.raises(ValueError, match=r"with classes=3, y must hold the integers 0\.\.2"):
        PBPClassifier(classes=3, verbose=0).fit(X, np.array(["a", "b", "c"])[y])
    with pytest.raises(ValueError, match="softmax must be one of"):
        PBPClassifier(softmax="exact", verbose=0).fit(X, y)
    with pytest.raises(ValueError, match="y has one class"):
        PBPClassifier(verbose=0).fit(X, np.ones(60))
    with pytest.raises(ValueError, match="y has 65 classes: the runtime takes at most 64"):
        PBPClassifier(verbose=0).fit(np.arange(130.0).reshape(65, 2), np.arange(65))
    with pytest.raises(ValueError, match=r"y\[2\] is nan: labels must be finite"):
        PBPClassifier(verbose=0).fit(X, np.where(np.arange(60) == 2, np.nan, y))


def test_parameters(regression):
    X, y = regression
    cases = [
        (dict(recipe="fast"), "recipe must be one of 'auto', 'paper', got 'fast'"),
        (dict(hidden=(0,)), r"hidden layer widths must be in 1\.\.65535, got 0"),
        (dict(hidden=(70000,)), r"hidden layer widths must be in 1\.\.65535, got 70000"),
        # The host library's check, before any training, in the words `pbp train` prints.
        (dict(hidden=(5,) * 16), "hidden has 16 layers: the runtime takes at most 15"),
        (dict(hidden="50"), r"hidden must be a tuple of layer widths"),
        (dict(epochs=0), r"epochs must be in 1\.\.1000000, got 0"),
        (dict(random_state=-1), r"random_state must be in 0\.\.\d+, got -1"),
        (dict(threads=3), r"threads must be in 1\.\.2, got 3"),
        (dict(prior="strong"), "prior must be one of"),
        (dict(prior="ard", algorithm="ebp"), "--prior ard goes with --algorithm pbp"),
        (dict(prior="laplace", algorithm="ebp"), "--prior laplace goes with --algorithm pbp"),
    ]
    for params, message in cases:
        with pytest.raises(ValueError, match=message):
            PBPRegressor(**{**FAST, **params}).fit(X, y)
    with pytest.raises(ValueError, match="Invalid parameter 'depth' for estimator PBPRegressor"):
        PBPRegressor().set_params(depth=3)


def test_unfitted_and_bad_blobs(tmp_path, fitted, regression):
    X, _ = regression
    with pytest.raises(NotFittedError, match="not fitted yet: call fit first"):
        PBPRegressor().predict(X)
    with pytest.raises(NotFittedError):
        PBPClassifier().save(tmp_path / "m.pbp")
    blob = bytearray(fitted.blob_)
    blob[100] ^= 1
    with pytest.raises(ValueError, match=r"invalid model blob: .*\(PBP_ERR_CRC_MISMATCH\)"):
        PBPRegressor.from_blob(bytes(blob))
    with pytest.raises(ValueError, match=r"PBP_ERR_TOO_SMALL"):
        PBPRegressor.from_blob(b"PBPM")
    with pytest.raises(ValueError, match="a regression model: load it with PBPRegressor"):
        PBPClassifier.from_blob(fitted.blob_)
    with pytest.raises(ValueError, match="probability must be in"):
        fitted.predict_uncertainty(X, probability=1.0)
    with pytest.raises(ValueError, match="must be a C identifier, got '9lives'"):
        fitted.export_c("9lives", tmp_path)
    with pytest.raises(RuntimeError, match="nowhere"):
        fitted.save(tmp_path / "nowhere" / "m.pbp")
    with pytest.raises(FileNotFoundError):
        PBPRegressor.load(tmp_path / "missing.pbp")


def test_targets_the_device_cannot_predict_are_refused_before_training(tmp_path, pbp_cli_error):
    X, y = regression_data()
    for scale, problem in ((1e30, "std .* needs a std between 1.1e-19 and 1.8e19"),
                           (1e-30, "std .* needs a std between 1.1e-19 and 1.8e19")):
        with pytest.raises(ValueError, match="target column 'power' has " + problem):
            PBPRegressor(recipe="paper", verbose=0).fit(X, y * scale, target_name="power")
        write_csv(tmp_path / "big.csv", X, y * scale, target="power")
        error = pbp_cli_error("train", "--data", tmp_path / "big.csv", "--out", tmp_path / "m.pbp")
        assert re.search("target column 'power' has " + problem, error), error
        assert not (tmp_path / "m.pbp").exists()
    with pytest.raises(ValueError, match="the target y varies too little for float32"):
        PBPRegressor(recipe="paper", verbose=0).fit(X, 1e6 + y * 1e-3)
    with pytest.raises(ValueError, match=r"beyond float32 \(3.4e38\)"):
        PBPRegressor(recipe="paper", verbose=0).fit(X, y * 1e300)


def test_training_requests_are_checked_in_one_place_with_the_same_words(tmp_path, pbp_cli_error):
    """The host library's check (pbp/host/training.hpp), before any training: `pbp train` and fit
    refuse a network the runtime cannot hold with the same text, and nothing is written."""
    X, y = regression_data()
    write_csv(tmp_path / "train.csv", X, y)
    for hidden, message in (((5,) * 16, "hidden has 16 layers: the runtime takes at most 15"),
                            ((70000,), "hidden layer widths must be in 1..65535, got 70000")):
        with pytest.raises(ValueError) as refused:
            PBPRegressor(recipe="paper", hidden=hidden, epochs=1, verbose=0).fit(X, y)
        assert str(refused.value) == message
        error = pbp_cli_error("train", "--data", tmp_path / "train.csv", "--out",
                              tmp_path / "m.pbp", "--recipe", "paper", "--hidden",
                              ",".join(map(str, hidden)), "--epochs", "1")
        assert error == f"pbp train: {message} (see 'pbp train --help')\n"
        assert not (tmp_path / "m.pbp").exists()
