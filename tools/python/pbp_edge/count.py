# SPDX-License-Identifier: Apache-2.0
"""PBPCountRegressor: a Bayesian neural network for counts (Poisson likelihood), trained by PBP."""
from collections import namedtuple

import numpy as np

from ._base import PBPEstimator
from ._compat import RegressorMixin
from ._validation import (check_hidden, check_int, check_probability,
                          check_trainable, check_unweighted, check_X, check_y_length)
from .regressor import PBPRegressor, input_range_or_none

CountDistribution = namedtuple("CountDistribution",
                               "mean variance mode lower upper outside distance input")
CountDistribution.__doc__ = """A count model's predictive per row (float32, the runtime's
pbp_predict_count): the negative binomial's mean, variance and mode, [lower, upper] the central
interval holding at least `probability`, and the range report as InputRange's fields."""


class PBPCountRegressor(RegressorMixin, PBPEstimator):
    """Count regression (Ghosh et al. 2016's ADF extensions): a Poisson likelihood with rate e^z,
    whose predictive over the weights is a negative binomial; as `pbp train --task count`
    (1 x 50, 40 epochs). y holds non-negative integers. Predictions run the blob through the
    runtime's pbp_predict_count, bit for bit `pbp predict`. The device's update has no count
    form, so there is no partial_fit. Parameters as PBPRegressor's."""

    _tasks = ("count",)

    def __init__(self, hidden=(50,), epochs=40, random_state=1, prior="auto", algorithm="pbp",
                 inference="adf", averaging="auto", threads=None, verbose=1, activation="relu"):
        self._store_params(locals())

    def fit(self, X, y, sample_weight=None, feature_names=None, target_name=None):
        """Trains on X (rows x inputs) and y (one count per row); the trainer names a value that
        is not a non-negative integer. Names and sample_weight as PBPRegressor.fit."""
        names = self._fit_names(X, feature_names)
        if target_name is None and isinstance(getattr(y, "name", None), str):
            target_name = y.name
        X = check_X(X)
        y = check_y_length(y, X, "one count")
        try:
            y = np.ascontiguousarray(y.astype(np.float64))
        except (TypeError, ValueError):
            raise ValueError(f"y must hold counts, got dtype {y.dtype}") from None
        check_unweighted(sample_weight, X.shape[0])
        check_trainable(X)
        options = {"hidden": check_hidden(self.hidden, allow_none=False),
                   "epochs": check_int("epochs", self.epochs, 1, 1_000_000), "recipe": "paper"}
        return self._train(X, y, "count", 0, options, names, target_name, {})

    def predict(self, X):
        """The predictive mean count of every row (float32)."""
        return self._fitted_model().predict_count(self._check_X(X), 0.95)[0]

    def predict_distribution(self, X, probability=0.95):
        """The predictive of every row with its range report (CountDistribution)."""
        X = self._check_X(X)
        model = self._fitted_model()
        counts = model.predict_count(X, check_probability(probability))
        return CountDistribution(*counts, *input_range_or_none(model, X))

    score = PBPRegressor.score

