# SPDX-License-Identifier: Apache-2.0
"""PBPClassifier: a Bayesian neural network classifier (probit or softmax), trained by PBP."""
import json

import numpy as np

from ._base import PBPEstimator
from ._validation import (check_choice, check_hidden, check_int, check_sample_weight, check_X,
                          check_y_length)
from .regressor import InputRange

MAX_CLASSES = 64  # the runtime's limit (PBP_MAX_CLASSES)


class PBPClassifier(PBPEstimator):
    """Probabilistic backpropagation classification (Ghosh et al. 2016): two classes train a
    probit output, more a softmax over one output per class (at most 64).

    Labels may be any values np.unique sorts (classes_ holds them; with two, classes_[1] is the
    positive class). With `classes=C` the labels must be the integers 0..C-1 and the model has
    C classes even if some never occur in y. Defaults as `pbp train --task binary|multiclass`:
    1 x 50, 40 epochs. softmax ('mean-field', 'bound' or 'sampled' with `samples` draws) is how
    a model of 3 or more classes approximates its likelihood (tools/pbp/README.md, "Multiclass defaults"). Predictions run the model blob through the runtime in float32, bit for
    bit what a device computes. verbose, threads and activation as PBPRegressor's.
    """

    _estimator_type = "classifier"
    _tasks = ("binary", "multiclass")

    def __init__(self, hidden=(50,), epochs=40, seed=1, classes=None, prior="auto",
                 softmax="mean-field", samples=10, algorithm="pbp", inference="adf",
                 averaging="auto", threads=None, verbose=1, activation="relu"):
        self.hidden = hidden
        self.activation = activation
        self.epochs = epochs
        self.seed = seed
        self.classes = classes
        self.prior = prior
        self.softmax = softmax
        self.samples = samples
        self.algorithm = algorithm
        self.inference = inference
        self.averaging = averaging
        self.threads = threads
        self.verbose = verbose

    def fit(self, X, y, feature_names=None, target_name=None):
        """Trains on X (rows x inputs) and y (one label per row)."""
        X = check_X(X)
        y = check_y_length(y, X, "one label")
        count = check_int("classes", self.classes, 2, MAX_CLASSES, allow_none=True)
        if count is None:
            if y.dtype.kind == "f" and not np.isfinite(y).all():
                row = int(np.flatnonzero(~np.isfinite(y))[0])
                raise ValueError(f"y[{row}] is {y[row]}: labels must be finite")
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
        task = "binary" if classes.shape[0] == 2 else "multiclass"
        softmax = check_choice("softmax", self.softmax, ("mean-field", "bound", "sampled"))
        options = {"hidden": check_hidden(self.hidden, allow_none=False),
                   "epochs": check_int("epochs", self.epochs, 1, 1_000_000),
                   # Two classes train a probit output: no softmax to approximate.
                   "softmax": softmax if task == "multiclass" else "mean-field",
                   "samples": check_int("samples", self.samples, 1, 100_000),
                   "recipe": "paper"}
        self._train(X, targets, task, classes.shape[0] if task == "multiclass" else 0, options,
                    feature_names, target_name, {"classes": _json_labels(classes)})
        self.classes_ = classes
        return self

    def predict(self, X):
        """The most probable class of every row (lowest index on ties, as the runtime says)."""
        return self.classes_[self._classes(X)[1]]

    def predict_proba(self, X):
        """The probability of every class (columns in the order of classes_), float32."""
        return self._classes(X)[0]

    def predict_log_proba(self, X):
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def predict_entropy(self, X):
        """The predictive entropy of every row in nats (0 = certain, log(classes) = no idea)."""
        return self._classes(X)[2]

    def input_range(self, X):
        """Each row against the training ranges of the inputs (InputRange)."""
        return InputRange(*self._fitted_model().input_range(self._check_X(X)))

    def score(self, X, y, sample_weight=None):
        """The accuracy of predict, as scikit-learn's."""
        predicted = self.predict(X)
        y = check_y_length(y, predicted.reshape(-1, 1), "one label")
        w = check_sample_weight(sample_weight, y.shape[0])
        return float(np.average(predicted == y, weights=w))

    def _classes(self, X):
        return self._fitted_model().predict_classes(self._check_X(X))

    def _restore(self, model, notes):
        count = 2 if model.task == "binary" else model.output_count
        labels = notes.get("classes")
        if isinstance(labels, list) and len(labels) == count:
            self.classes_ = np.asarray(labels)
        else:
            self.classes_ = np.arange(count)


def _json_labels(classes):
    """The labels for the blob's notes, or None when JSON cannot hold them."""
    labels = classes.tolist()
    try:
        json.dumps(labels)
    except (TypeError, ValueError):
        return None
    return labels
