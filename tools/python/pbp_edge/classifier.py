# SPDX-License-Identifier: Apache-2.0
"""PBPClassifier: a Bayesian neural network classifier (probit or softmax), trained by PBP."""
import json
from collections import namedtuple

import numpy as np

from ._base import PBPEstimator
from ._compat import ClassifierMixin
from ._validation import (check_hidden, check_int, check_option, check_sample_weight,
                          check_trainable, check_unweighted, check_X, check_y_length)
from ._xfail import CLASSIFIER_XFAIL
from .regressor import input_range_or_none

MAX_CLASSES = 64  # the runtime's limit (PBP_MAX_CLASSES)

ClassPrediction = namedtuple("ClassPrediction", "proba label entropy outside distance input")
ClassPrediction.__doc__ = """A classifier's prediction per row, as a device computes it: proba
(rows x classes, float32), the most probable label, the predictive entropy in nats, and the range
report as InputRange's fields."""


class PBPClassifier(ClassifierMixin, PBPEstimator):
    """Probabilistic backpropagation classification (Ghosh et al. 2016): two classes train a
    probit output, more a softmax over one output per class (at most 64).

    Labels may be any values np.unique sorts (classes_ holds them; with two, classes_[1] is the
    positive class). With `classes=C` the labels must be the integers 0..C-1 and the model has
    C classes even if some never occur in y. Defaults as `pbp train --task binary|multiclass`:
    1 x 50, 40 epochs. softmax ('mean-field', 'bound' or 'sampled' with `samples` draws) is how
    a model of 3 or more classes approximates its likelihood (tools/pbp/README.md, "Multiclass
    defaults"). Predictions run the model blob through the runtime in float32, bit for bit what a
    device computes. random_state, verbose, threads and activation as PBPRegressor's.
    """

    _tasks = ("binary", "multiclass")

    def __init__(self, hidden=(50,), epochs=40, random_state=1, classes=None, prior="auto",
                 softmax="mean-field", samples=10, algorithm="pbp", inference="adf",
                 averaging="auto", threads=None, verbose=1, activation="relu"):
        self._store_params(locals())

    def fit(self, X, y, sample_weight=None, feature_names=None, target_name=None):
        """Trains on X (rows x inputs) and y (one label per row); feature names and sample_weight
        as PBPRegressor.fit."""
        names = self._fit_names(X, feature_names)
        target_name = target_name if target_name is not None else getattr(y, "name", None)
        X = check_X(X)
        y = check_y_length(y, X, "one label")
        check_unweighted(sample_weight, X.shape[0])
        count = check_int("classes", self.classes, 2, MAX_CLASSES, allow_none=True)
        if count is None:
            _check_finite_labels(y)
            if y.dtype.kind == "f" and not np.array_equal(y, np.round(y)):
                raise ValueError("Unknown label type: 'continuous' (y holds fractions): a "
                                 "classifier's labels are classes; PBPRegressor fits values")
            classes, codes = np.unique(y, return_inverse=True)
            if classes.shape[0] < 2:
                raise ValueError(f"y has one class ({classes[0]!r}): a classifier needs 2 or more")
            if classes.shape[0] > MAX_CLASSES:
                raise ValueError(f"y has {classes.shape[0]} classes: the runtime takes at most "
                                 f"{MAX_CLASSES}")
            targets = codes.astype(np.float64)
        else:
            classes = np.arange(count)
            try:
                targets = y.astype(np.float64)  # the trainer names a label outside 0..C-1
            except (TypeError, ValueError):
                raise ValueError(f"with classes={count}, y must hold the integers 0..{count - 1}, "
                                 f"got dtype {y.dtype}") from None
        return self._fit_codes(X, targets, classes, names, target_name)

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Learns from more rows the way a device does (pbp_learn_update, as `pbp learn`): binary
        models only, the device's update has no multiclass form. The first call on an unfitted
        estimator needs `classes` (every label there will be) and trains on its rows as fit does."""
        if not self.__sklearn_is_fitted__():
            if classes is None:
                raise ValueError("classes must be passed on the first call to partial_fit")
            classes = np.unique(np.asarray(classes))
            if classes.shape[0] != 2:
                raise ValueError(f"partial_fit learns binary models only ({classes.shape[0]} "
                                 "classes given): the device's update (pbp_learn.h) has no "
                                 "multiclass form; fit trains multiclass models")
            names = self._fit_names(X, None)
            X = check_X(X)
            y = check_y_length(y, X, "one label")
            check_unweighted(sample_weight, X.shape[0])
            return self._fit_codes(X, _codes(y, classes), classes, names, None)
        if classes is not None and not np.array_equal(np.unique(np.asarray(classes)),
                                                      self.classes_):
            raise ValueError(f"classes {list(classes)} differ from the first call's "
                             f"{list(self.classes_)}")
        X = self._check_X(X)
        y = check_y_length(y, X, "one label")
        check_unweighted(sample_weight, X.shape[0])
        return self._learn(X, _codes(y, self.classes_))

    def predict(self, X):
        """The most probable class of every row (lowest index on ties, as the runtime says)."""
        predicted = self._classes(X)[1]
        return self.classes_[predicted]

    def predict_proba(self, X):
        """The probability of every class (columns in the order of classes_), float32."""
        return self._classes(X)[0]

    def predict_log_proba(self, X):
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def predict_uncertainty(self, X):
        """Every row's probabilities, label and entropy with its range report (ClassPrediction),
        from one pass through the runtime."""
        X = self._check_X(X)
        model = self._fitted_model()
        proba, index, entropy = model.predict_classes(X)
        return ClassPrediction(proba, self.classes_[index], entropy,
                               *input_range_or_none(model, X))

    def predict_entropy(self, X):
        """The predictive entropy of every row in nats (0 = certain, log(classes) = no idea)."""
        return self._classes(X)[2]

    def score(self, X, y, sample_weight=None):
        """The accuracy of predict, as scikit-learn's."""
        predicted = self.predict(X)
        y = check_y_length(y, predicted.reshape(-1, 1), "one label")
        w = check_sample_weight(sample_weight, y.shape[0])
        return float(np.average(predicted == y, weights=w))

    def _fit_codes(self, X, targets, classes, names, target_name):
        check_trainable(X)
        task = "binary" if classes.shape[0] == 2 else "multiclass"
        softmax = check_option("softmax", self.softmax)
        options = {"hidden": check_hidden(self.hidden, allow_none=False),
                   "epochs": check_int("epochs", self.epochs, 1, 1_000_000),
                   # Two classes train a probit output: no softmax to approximate.
                   "softmax": softmax if task == "multiclass" else "mean-field",
                   "samples": check_int("samples", self.samples, 1, 100_000),
                   "recipe": "paper"}
        self.__dict__.pop("learnt_rows_", None)
        self._train(X, targets, task, classes.shape[0] if task == "multiclass" else 0, options,
                    names, target_name if isinstance(target_name, str) else "",
                    {"classes": _json_labels(classes)})
        self.classes_ = classes
        return self

    def _classes(self, X):
        return self._fitted_model().predict_classes(self._check_X(X))

    def _restore(self, model, notes):
        count = 2 if model.task == "binary" else model.output_count
        labels = notes.get("classes")
        if isinstance(labels, list) and len(labels) == count:
            self.classes_ = np.asarray(labels)
        else:
            self.classes_ = np.arange(count)

    def _more_tags(self):
        return {"_xfail_checks": CLASSIFIER_XFAIL}


def _check_finite_labels(y):
    if y.dtype.kind == "f" and not np.isfinite(y).all():
        row = int(np.flatnonzero(~np.isfinite(y))[0])
        raise ValueError(f"y[{row}] is {y[row]}: labels must be finite")


def _codes(y, classes):
    """Each label's index in classes (sorted), as float64 for the trainer and the learner."""
    _check_finite_labels(y)
    codes = np.searchsorted(classes, y)
    unknown = (codes >= classes.shape[0]) | (classes[np.minimum(codes, classes.shape[0] - 1)] != y)
    if unknown.any():
        raise ValueError(f"y holds labels not in classes {list(classes)}: "
                         f"{sorted(set(np.asarray(y)[unknown].tolist()))[:5]}")
    return codes.astype(np.float64)


def _json_labels(classes):
    """The labels for the blob's notes, or None when JSON cannot hold them."""
    labels = classes.tolist()
    try:
        json.dumps(labels)
    except (TypeError, ValueError):
        return None
    return labels
