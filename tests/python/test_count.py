# SPDX-License-Identifier: Apache-2.0
"""PBPCountRegressor: what `pbp train --task count` trains and `pbp predict` predicts, bit for
bit."""
import numpy as np
import pytest

from helpers import as_float32, read_csv, write_csv
from pbp_edge import PBPCountRegressor, load


def count_data(rows=80, seed=0):
    """Poisson counts with rate exp(x0 / 2 + 1)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(rows, 2))
    return X, rng.poisson(np.exp(X[:, 0] / 2 + 1.0)).astype(np.float64)


def test_count_model_is_pbp_train_and_pbp_predict(tmp_path, pbp_cli):
    X, y = count_data()
    write_csv(tmp_path / "train.csv", X, y)
    pbp_cli("train", "--data", tmp_path / "train.csv", "--out", tmp_path / "cli.pbp",
            "--task", "count", "--hidden", "10", "--epochs", "5", "--seed", "3")
    ours = PBPCountRegressor(hidden=(10,), epochs=5, random_state=3, verbose=0)
    ours.fit(X, y, feature_names=["x0", "x1"], target_name="y")
    cli = load(tmp_path / "cli.pbp")
    assert isinstance(cli, PBPCountRegressor)
    for a, b in zip(ours.predict_distribution(X), cli.predict_distribution(X)):
        assert np.array_equal(a, b)
    out = read_csv(pbp_cli("predict", "--model", tmp_path / "cli.pbp",
                           "--data", write_csv(tmp_path / "x.csv", X, names=["x0", "x1"])))
    d = ours.predict_distribution(X)
    for field in ("mean", "variance", "mode", "lower", "upper"):
        assert np.array_equal(as_float32(out[field]), getattr(d, field)), field
    assert (d.lower <= d.mode).all() and (d.mode <= d.upper).all() and (d.variance > d.mean).all()
    assert ours.score(X, y) > 0.2


def test_counts_must_be_non_negative_integers():
    X, y = count_data()
    y[3] = 1.5
    with pytest.raises(ValueError, match=r"y\[3\]: expected a count"):
        PBPCountRegressor(hidden=(4,), epochs=2, verbose=0).fit(X, y)
    assert not hasattr(PBPCountRegressor(), "partial_fit")  # the device's update has no count form
