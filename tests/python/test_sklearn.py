# SPDX-License-Identifier: Apache-2.0
"""scikit-learn: the estimators clone, pickle, and work in a Pipeline and cross_val_score."""
import pickle

import numpy as np
import pytest

from helpers import class_data
from pbp_edge import PBPClassifier, PBPRegressor

sklearn = pytest.importorskip("sklearn")
from sklearn.base import clone, is_classifier, is_regressor  # noqa: E402
from sklearn.model_selection import GridSearchCV, cross_val_score  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.utils.validation import check_is_fitted  # noqa: E402


def test_clone():
    model = PBPRegressor(hidden=(7, 3), epochs=5, verbose=0)
    copy = clone(model)
    assert copy is not model and copy.get_params() == model.get_params()
    assert is_regressor(model) and is_classifier(PBPClassifier())


def test_clone_of_fitted_is_unfitted(regression):
    X, y = regression
    model = PBPRegressor(recipe="paper", hidden=(4,), epochs=2, verbose=0).fit(X, y)
    check_is_fitted(model)
    with pytest.raises(sklearn.exceptions.NotFittedError):
        check_is_fitted(clone(model))


def test_pickle_in_a_pipeline(regression):
    X, y = regression
    pipe = make_pipeline(StandardScaler(), PBPRegressor(recipe="paper", hidden=(8,), epochs=5,
                                                        verbose=0))
    pipe.fit(X, y)
    copy = pickle.loads(pickle.dumps(pipe))
    assert np.array_equal(copy.predict(X), pipe.predict(X))
    assert pipe.score(X, y) == copy.score(X, y) > 0.3


def test_cross_val_score_regression(regression):
    X, y = regression
    scores = cross_val_score(PBPRegressor(recipe="paper", hidden=(8,), epochs=5, verbose=0), X,
                             y, cv=3)
    assert scores.shape == (3,) and np.isfinite(scores).all()


def test_cross_val_score_classifier():
    X, y = class_data(classes=3)
    pipe = make_pipeline(StandardScaler(), PBPClassifier(hidden=(8,), epochs=5, verbose=0))
    scores = cross_val_score(pipe, X, y, cv=3)
    assert scores.shape == (3,) and (scores > 0.6).all()
    log_loss = cross_val_score(pipe, X, y, cv=3, scoring="neg_log_loss")
    assert np.isfinite(log_loss).all()


def test_grid_search_sets_parameters(regression):
    X, y = regression
    search = GridSearchCV(PBPRegressor(recipe="paper", epochs=3, verbose=0),
                          {"hidden": [(4,), (8,)]}, cv=2)
    search.fit(X, y)
    assert search.best_params_["hidden"] in [(4,), (8,)]
    assert search.best_estimator_.hidden_ == search.best_params_["hidden"]
