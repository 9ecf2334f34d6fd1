# SPDX-License-Identifier: Apache-2.0
"""Feature names as scikit-learn has them: a DataFrame's columns become feature_names_in_ and go
into the blob; predict matches a DataFrame by name, an array by position; `pbp predict` matches
a CSV by the stored names and takes a nameless model's CSV by position only with --by-position."""
import numpy as np
import pytest

from helpers import as_float32, read_csv, write_csv
from pbp_edge import PBPRegressor, load

pd = pytest.importorskip("pandas")
FAST = dict(recipe="paper", hidden=(8,), epochs=5, verbose=0)


@pytest.fixture
def frame(regression):
    X, y = regression
    return pd.DataFrame(X, columns=["a", "b", "c"]), pd.Series(y, name="t")


def test_names_from_a_dataframe_go_into_the_blob(frame, tmp_path):
    X, y = frame
    model = PBPRegressor(**FAST).fit(X, y)
    assert list(model.feature_names_in_) == ["a", "b", "c"]
    model.save(tmp_path / "m.pbp")
    loaded = load(tmp_path / "m.pbp")
    assert list(loaded.feature_names_in_) == ["a", "b", "c"]
    assert loaded._fitted_model().target_name == "t"


def test_reordered_columns_give_the_same_predictions(frame):
    X, y = frame
    model = PBPRegressor(**FAST).fit(X, y)
    reordered = X[["c", "a", "b"]]
    assert np.array_equal(model.predict(reordered), model.predict(X))
    by_position = model.predict(X[["c", "b", "a"]].to_numpy())  # an array: by position
    assert not np.array_equal(by_position, model.predict(X))


def test_missing_and_unexpected_columns_raise(frame):
    X, y = frame
    model = PBPRegressor(**FAST).fit(X, y)
    with pytest.raises(ValueError, match="Feature names seen at fit time, yet now missing:\n- b"):
        model.predict(X.drop(columns="b"))
    with pytest.raises(ValueError, match="Feature names unseen at fit time:\n- d"):
        model.predict(X.rename(columns={"b": "d"}))
    with pytest.raises(ValueError, match="Feature names unseen at fit time:\n- d"):
        model.predict(X.assign(d=1.0))


def test_arrays_are_taken_by_position_with_a_warning(frame):
    X, y = frame
    model = PBPRegressor(**FAST).fit(X, y)
    with pytest.warns(UserWarning, match="X does not have valid feature names"):
        assert np.array_equal(model.predict(X.to_numpy()), model.predict(X))


def test_pbp_predict_matches_by_the_stored_names(frame, tmp_path, pbp_cli, pbp_cli_error):
    X, y = frame
    model = PBPRegressor(**FAST).fit(X, y)
    model.save(tmp_path / "m.pbp")
    rows = X[["c", "a", "b"]].to_numpy()
    write_csv(tmp_path / "reordered.csv", rows, names=["c", "a", "b"])
    out = read_csv(pbp_cli("predict", "--model", tmp_path / "m.pbp",
                           "--data", tmp_path / "reordered.csv"))
    assert np.array_equal(as_float32(out["mean"]), model.predict(X))
    write_csv(tmp_path / "missing.csv", X[["a", "c"]].to_numpy(), names=["a", "c"])
    error = pbp_cli_error("predict", "--model", tmp_path / "m.pbp",
                          "--data", tmp_path / "missing.csv")
    assert "missing 'b'" in error


def test_pbp_predict_takes_a_nameless_model_by_position_only_when_asked(
        regression, tmp_path, pbp_cli, pbp_cli_error):
    X, y = regression
    model = PBPRegressor(**FAST).fit(X, y)
    assert not hasattr(model, "feature_names_in_")
    model.save(tmp_path / "m.pbp")
    write_csv(tmp_path / "x.csv", X)
    error = pbp_cli_error("predict", "--model", tmp_path / "m.pbp", "--data", tmp_path / "x.csv")
    assert "stores no input names" in error and "--by-position" in error
    out = read_csv(pbp_cli("predict", "--model", tmp_path / "m.pbp", "--by-position",
                           "--data", tmp_path / "x.csv"))
    assert np.array_equal(as_float32(out["mean"]), model.predict(X))
