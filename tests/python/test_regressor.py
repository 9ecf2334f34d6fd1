# SPDX-License-Identifier: Apache-2.0
"""PBPRegressor: training, the predictive distribution and its parts, determinism."""
import numpy as np
import pytest

from pbp_edge import PBPRegressor

FAST = dict(recipe="paper", hidden=(10,), epochs=10, verbose=0)


def test_defaults_are_the_trainers():
    assert PBPRegressor().get_params() == {
        "hidden": None, "epochs": None, "recipe": "auto", "random_state": 1, "prior": "auto",
        "algorithm": "pbp", "inference": "adf", "averaging": "auto", "threads": None,
        "verbose": 1, "activation": "relu", "likelihood": "gaussian",
        "distance_variance": True}


def test_predictions_are_float32_arrays(regression):
    X, y = regression
    model = PBPRegressor(**FAST).fit(X, y)
    mean = model.predict(X)
    assert mean.dtype == np.float32 and mean.shape == (60,)
    mean2, std = model.predict(X, return_std=True)
    assert np.array_equal(mean, mean2) and std.dtype == np.float32 and (std > 0).all()
    assert model.n_features_in_ == 3 and model.hidden_ == (10,) and model.epochs_ == 10
    assert model.recipe_ is None and model.noise_std_ > 0
    assert model.tail_dof_ == 0  # --recipe paper: a Gaussian predictive


def test_heavy_tailed_noise_gets_a_student_t_and_its_interval():
    # y = x0 plus Student-t noise with 3 degrees of freedom (a normal over the root of a chi-square
    # over 3): the recipe's held-out rows prefer a t, whose 50 % interval is narrower than the
    # Gaussian's 0.6745 std and whose 99 % one wider than its 2.5758 std.
    rng = np.random.default_rng(3)
    X = rng.uniform(-2, 2, size=(300, 1))
    noise = rng.normal(size=300) / np.sqrt(rng.chisquare(3, size=300) / 3)
    y = X[:, 0] + 0.3 * noise
    model = PBPRegressor(hidden=(10,), verbose=0, distance_variance=False).fit(X, y)
    assert model.tail_dof_ in (3, 4, 5, 6, 8, 10, 12)
    half = model.predict_uncertainty(X[:5], probability=0.5)
    wide = model.predict_uncertainty(X[:5], probability=0.99)
    assert ((half.upper - half.mean) < 0.6745 * half.std).all()
    assert ((wide.upper - wide.mean) > 2.5758 * wide.std).all()


def test_uncertainty_parts_add_up(regression):
    X, y = regression
    u = PBPRegressor(**FAST).fit(X, y).predict_uncertainty(X, probability=0.9)
    assert (u.epistemic_std > 0).all() and (u.aleatoric_std > 0).all()
    # std is the float root of the float sum of the variances; each part a float root: a few
    # float32 roundings (2^-24 each) apart.
    parts = np.hypot(u.epistemic_std.astype(np.float64), u.aleatoric_std.astype(np.float64))
    np.testing.assert_allclose(u.std, parts, rtol=1e-6)
    # The central 90 % interval of a Gaussian: mean -/+ 1.6448536 std, up to float rounding.
    np.testing.assert_allclose(u.upper - u.mean, 1.6448536 * u.std, rtol=1e-5, atol=0)
    np.testing.assert_allclose(u.mean - u.lower, 1.6448536 * u.std, rtol=1e-5, atol=0)


def test_epistemic_uncertainty_grows_away_from_the_data(regression):
    X, y = regression
    model = PBPRegressor(**FAST).fit(X, y)
    inside = model.predict_uncertainty(np.zeros((1, 3)))
    outside = model.predict_uncertainty(np.full((1, 3), 8.0))
    assert outside.epistemic_std[0] > 3 * inside.epistemic_std[0]
    assert outside.aleatoric_std[0] == inside.aleatoric_std[0]  # the noise is the same anywhere


def test_same_seed_same_model_bits(regression):
    X, y = regression
    first = PBPRegressor(**FAST, random_state=7, threads=1).fit(X, y)
    assert first.blob_ == PBPRegressor(**FAST, random_state=7, threads=1).fit(X, y).blob_
    assert first.blob_ != PBPRegressor(**FAST, random_state=8, threads=1).fit(X, y).blob_
    # Two threads train the same model (the blobs differ only in the parameters they note).
    two = PBPRegressor(**FAST, random_state=7, threads=2).fit(X, y)
    outside = np.vstack([X, np.full((1, 3), 9.0)])
    for a, b in zip(first.predict_uncertainty(outside), two.predict_uncertainty(outside)):
        assert np.array_equal(a, b)


def test_float32_input_is_what_float64_input_rounds_to(regression):
    X, y = regression
    model = PBPRegressor(**FAST).fit(X, y)
    assert np.array_equal(model.predict(X), model.predict(X.astype(np.float32)))
    assert np.array_equal(model.predict(X), model.predict(np.asfortranarray(X)))
    assert np.array_equal(model.predict(X[:5]), model.predict(X.tolist()[:5]))
    assert np.array_equal(model.predict(X.round().astype(int)), model.predict(X.round()))


def test_input_range(regression):
    X, y = regression
    model = PBPRegressor(**FAST).fit(X, y)
    r = model.input_range(np.array([[0.0, 0.0, 0.0], [0.0, 5.0, 0.0], [0.0, 0.0, -9.0]]))
    assert r.outside.tolist() == [False, True, True]
    assert r.input.tolist() == [-1, 1, 2]
    assert r.distance[0] == 0 and r.distance[2] > r.distance[1] > 0


def test_the_recipe_chooses_the_network(regression):
    X, y = regression
    model = PBPRegressor(hidden=(8,), epochs=20, verbose=0).fit(X, y)  # auto: one candidate
    assert model.recipe_["hidden"] == [8] and model.recipe_["epochs"] == 20
    assert model.recipe_["folds"] == 3 and model.recipe_["held_out_rows"] == 60
    assert model.score(X, y) > 0.2


def test_heteroscedastic_noise_follows_the_input():
    # Noise std 0.05 for x < 0, 0.35 for x > 0: the learnt aleatoric std must tell them apart.
    rng = np.random.default_rng(0)
    X = rng.uniform(-2.0, 2.0, size=(400, 1))
    y = np.sin(X[:, 0]) + rng.normal(size=400) * np.where(X[:, 0] > 0, 0.35, 0.05)
    model = PBPRegressor(likelihood="heteroscedastic", hidden=(16,), epochs=40, verbose=0)
    model.fit(X, y)
    parts = model.predict_uncertainty(np.array([[-1.5], [1.5]]))
    assert parts.aleatoric_std[1] > 2.0 * parts.aleatoric_std[0]
    with pytest.raises(AttributeError, match="depends on the input"):
        model.noise_std_
    # The fitted model decides, not a parameter changed after fit.
    model.set_params(likelihood="auto")
    with pytest.raises(AttributeError, match="depends on the input"):
        model.noise_std_


def test_score_is_r2(regression):
    X, y = regression
    model = PBPRegressor(**FAST).fit(X, y)
    predicted = model.predict(X).astype(np.float64)
    r2 = 1 - ((y - predicted) ** 2).sum() / ((y - y.mean()) ** 2).sum()
    assert model.score(X, y) == pytest.approx(r2, rel=1e-12)
    weights = np.arange(60.0)
    assert model.score(X, y, sample_weight=weights) != model.score(X, y)


def test_a_constant_input_is_reported(regression):
    X, y = regression
    X = X.copy()
    X[:, 1] = 0.998
    with pytest.warns(UserWarning, match=r"X\[:, 1\] \('b'\) is constant on the training rows"):
        PBPRegressor(**FAST).fit(X, y, feature_names=["a", "b", "c"])


def test_feature_names_go_into_the_blob(regression):
    X, y = regression
    model = PBPRegressor(**FAST).fit(X, y, feature_names=["a", "b", "c"], target_name="t")
    assert list(model.feature_names_in_) == ["a", "b", "c"]
    assert not hasattr(PBPRegressor(**FAST).fit(X, y), "feature_names_in_")
