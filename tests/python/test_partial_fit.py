# SPDX-License-Identifier: Apache-2.0
"""partial_fit runs the device's update (pbp_learn_update): the same bits as `pbp learn`, and
more rows after fit improve the fit on held-out rows."""
import copy

import numpy as np
import pytest

from helpers import class_data, regression_data, write_csv
from pbp_edge import PBPClassifier, PBPRegressor, load

NAMES = ["x0", "x1", "x2"]


def test_regressor_partial_fit_is_pbp_learn_bit_for_bit(tmp_path, pbp_cli):
    X, y = regression_data(rows=40)
    model = PBPRegressor(recipe="paper", hidden=(10,), epochs=5, verbose=0)
    model.fit(X, y, feature_names=NAMES, target_name="y")
    model.save(tmp_path / "m.pbp")
    X_new, y_new = regression_data(rows=30, seed=1)
    write_csv(tmp_path / "new.csv", X_new, y_new)
    pbp_cli("learn", "--model", tmp_path / "m.pbp", "--data", tmp_path / "new.csv",
            "--out", tmp_path / "learnt.pbp")
    before = model.blob_
    row_by_row = copy.deepcopy(model)
    model.partial_fit(X_new, y_new)
    assert model.blob_ != before and model.learnt_rows_ == 30
    assert model.blob_ == (tmp_path / "learnt.pbp").read_bytes()
    for i in range(30):  # a device learning a row at a time: the blob carries the whole state
        row_by_row.partial_fit(X_new[i:i + 1], y_new[i:i + 1])
    assert row_by_row.blob_ == model.blob_
    assert np.array_equal(model.predict(X_new), load(tmp_path / "learnt.pbp").predict(X_new))


def test_binary_classifier_partial_fit_is_pbp_learn_bit_for_bit(tmp_path, pbp_cli):
    X, y = class_data(classes=2, rows=40)
    model = PBPClassifier(hidden=(10,), epochs=5, verbose=0)
    model.fit(X, y, feature_names=["x0", "x1"], target_name="y")
    model.save(tmp_path / "m.pbp")
    X_new, y_new = class_data(classes=2, rows=30, seed=1)
    write_csv(tmp_path / "new.csv", X_new, y_new)
    pbp_cli("learn", "--model", tmp_path / "m.pbp", "--data", tmp_path / "new.csv",
            "--out", tmp_path / "learnt.pbp")
    model.partial_fit(X_new, y_new)
    assert model.blob_ == (tmp_path / "learnt.pbp").read_bytes()


def test_more_rows_improve_the_held_out_fit():
    X, y = regression_data(rows=500, seed=2)
    train, more, held_out = slice(0, 30), slice(30, 330), slice(330, 500)
    model = PBPRegressor(recipe="paper", hidden=(20,), epochs=20, verbose=0)
    model.fit(X[train], y[train])
    before = model.score(X[held_out], y[held_out])
    model.partial_fit(X[more], y[more])
    after = model.score(X[held_out], y[held_out])
    assert after > before + 0.05, (before, after)


def test_first_partial_fit_trains_and_needs_classes_for_a_classifier():
    X, y = class_data(classes=2, rows=40)
    with pytest.raises(ValueError, match="classes must be passed on the first call"):
        PBPClassifier(hidden=(4,), epochs=2, verbose=0).partial_fit(X, y)
    labels = np.where(y == 1, "yes", "no")
    model = PBPClassifier(hidden=(4,), epochs=2, verbose=0)
    model.partial_fit(X[:20], labels[:20], classes=["no", "yes"])
    assert list(model.classes_) == ["no", "yes"]
    model.partial_fit(X[20:], labels[20:])
    assert model.learnt_rows_ == 20
    with pytest.raises(ValueError, match="labels not in classes"):
        model.partial_fit(X[:2], ["no", "maybe"])


def test_multiclass_partial_fit_is_refused():
    X, y = class_data(classes=3)
    with pytest.raises(ValueError, match="binary models only"):
        PBPClassifier(hidden=(4,), epochs=2, verbose=0).partial_fit(X, y, classes=[0, 1, 2])
    model = PBPClassifier(hidden=(4,), epochs=2, verbose=0).fit(X, y)
    with pytest.raises(ValueError, match="regression and binary models only"):
        model.partial_fit(X, y)
