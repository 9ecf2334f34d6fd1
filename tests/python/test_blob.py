# SPDX-License-Identifier: Apache-2.0
"""The model as a blob: save and load, pickling through the blob, blobs `pbp train` wrote."""
import pickle

import numpy as np
import pytest

from helpers import class_data, write_csv
from pbp_edge import PBPClassifier, PBPRegressor, load


def test_save_and_load_keep_predictions_and_parameters(tmp_path, regression):
    X, y = regression
    model = PBPRegressor(recipe="paper", hidden=(6, 5), epochs=3, random_state=9, verbose=0).fit(X, y)
    model.save(tmp_path / "m.pbp")
    assert (tmp_path / "m.pbp").read_bytes() == model.blob_
    loaded = load(tmp_path / "m.pbp")
    assert type(loaded) is PBPRegressor
    assert loaded.get_params() == {**model.get_params(), "verbose": 0}
    assert loaded.hidden_ == (6, 5) and loaded.epochs_ == 3 and loaded.n_features_in_ == 3
    for a, b in zip(loaded.predict_uncertainty(X), model.predict_uncertainty(X)):
        assert np.array_equal(a, b)


def test_classifier_labels_travel_in_the_blob(tmp_path):
    X, y = class_data(classes=3)
    labels = np.array(["cat", "dog", "eel"])[y]
    model = PBPClassifier(hidden=(5,), epochs=2, verbose=0).fit(X, labels)
    loaded = PBPClassifier.from_blob(model.blob_)
    assert loaded.classes_.tolist() == ["cat", "dog", "eel"]
    assert np.array_equal(loaded.predict(X), model.predict(X))


def test_pickle_goes_through_the_blob(regression):
    X, y = regression
    model = PBPRegressor(recipe="paper", hidden=(6,), epochs=3, verbose=0).fit(X, y)
    state = model.__getstate__()
    assert state["_blob"] == model.blob_ and "_model" not in state
    copy = pickle.loads(pickle.dumps(model))
    assert copy.blob_ == model.blob_ and copy.get_params() == model.get_params()
    assert np.array_equal(copy.predict(X, return_std=True), model.predict(X, return_std=True))
    unfitted = pickle.loads(pickle.dumps(PBPClassifier(epochs=3)))
    assert unfitted.epochs == 3 and not unfitted.__sklearn_is_fitted__()


def test_blob_from_pbp_train(tmp_path, pbp_cli, regression):
    X, y = regression
    write_csv(tmp_path / "t.csv", X, y, names=["a", "b", "c"], target="price")
    pbp_cli("train", "--data", tmp_path / "t.csv", "--out", tmp_path / "m.pbp", "--recipe",
            "paper", "--hidden", "7", "--epochs", "3")
    model = load(tmp_path / "m.pbp")
    assert model.hidden_ == (7,) and list(model.feature_names_in_) == ["a", "b", "c"]
    assert model.epochs_ is None and model.get_params() == PBPRegressor().get_params()
    assert model.predict(X).shape == (60,)


def test_a_count_model_is_refused_by_the_regressor(tmp_path, pbp_cli, regression):
    X, _ = regression
    write_csv(tmp_path / "t.csv", X, np.arange(60) % 4)
    pbp_cli("train", "--data", tmp_path / "t.csv", "--out", tmp_path / "n.pbp", "--task",
            "count", "--hidden", "3", "--epochs", "1")
    with pytest.raises(ValueError, match="a count model: load it with PBPCountRegressor"):
        PBPRegressor.load(tmp_path / "n.pbp")
