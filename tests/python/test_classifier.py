# SPDX-License-Identifier: Apache-2.0
"""PBPClassifier: labels, probabilities, binary (probit) and multiclass (softmax)."""
import numpy as np
import pytest

from helpers import class_data
from pbp_edge import PBPClassifier

FAST = dict(hidden=(10,), epochs=5, verbose=0)


def test_defaults_are_the_trainers():
    params = PBPClassifier().get_params()
    assert params["hidden"] == (50,) and params["epochs"] == 40 and params["random_state"] == 1
    assert params["softmax"] == "mean-field" and params["classes"] is None


def test_multiclass(classification):
    X, y = classification
    model = PBPClassifier(**FAST).fit(X, y)
    assert model.classes_.tolist() == [0, 1, 2]
    proba = model.predict_proba(X)
    assert proba.shape == (60, 3) and proba.dtype == np.float32
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=3 * 2.0**-23)
    predicted = model.predict(X)
    assert np.array_equal(predicted, proba.argmax(axis=1))
    assert model.score(X, y) > 0.8
    entropy = model.predict_entropy(X)
    assert ((entropy >= 0) & (entropy <= np.log(3) + 1e-6)).all()
    np.testing.assert_allclose(model.predict_log_proba(X), np.log(proba))


def test_string_labels_binary():
    X, y = class_data(classes=2)
    labels = np.where(y == 1, "spam", "ham")
    model = PBPClassifier(**FAST).fit(X, labels)
    assert model.classes_.tolist() == ["ham", "spam"]
    assert model.predict_proba(X).shape == (60, 2)
    assert set(model.predict(X)) <= {"ham", "spam"}
    assert model.score(X, labels) > 0.8


def test_fixed_class_count_keeps_absent_classes():
    X, y = class_data(classes=3)
    model = PBPClassifier(**FAST, classes=5).fit(X, y)
    assert model.classes_.tolist() == [0, 1, 2, 3, 4]
    assert model.predict_proba(X).shape == (60, 5)


def test_labels_are_mapped_in_sorted_order():
    X, y = class_data(classes=3)
    shifted = PBPClassifier(**FAST).fit(X, y * 10 + 5)
    plain = PBPClassifier(**FAST).fit(X, y)
    assert shifted.classes_.tolist() == [5, 15, 25]
    assert np.array_equal(shifted.predict_proba(X), plain.predict_proba(X))


@pytest.mark.parametrize("softmax", ["bound", "sampled"])
def test_softmax_approximations(classification, softmax):
    X, y = classification
    model = PBPClassifier(**FAST, softmax=softmax).fit(X, y)
    assert model.score(X, y) > 0.6


def test_predict_uncertainty_carries_the_range_report():
    X, y = class_data(classes=3)
    labels = np.array(["a", "b", "c"])[y]
    model = PBPClassifier(hidden=(8,), epochs=5, verbose=0).fit(X, labels)
    rows = np.vstack([X[:2], [[40.0, 0.0]]])
    p = model.predict_uncertainty(rows)
    assert np.array_equal(p.proba, model.predict_proba(rows))
    assert np.array_equal(p.label, model.predict(rows))
    assert np.array_equal(p.entropy, model.predict_entropy(rows))
    assert list(p.outside) == [False, False, True] and p.input[2] == 0 and p.distance[2] > 5
