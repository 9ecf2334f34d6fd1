# SPDX-License-Identifier: Apache-2.0
"""PBPRegressor: a Bayesian neural network for regression, trained by PBP."""
from collections import namedtuple

import numpy as np

from ._base import PBPEstimator
from ._validation import (check_choice, check_hidden, check_int, check_probability,
                          check_sample_weight, check_X, check_y_length)

Uncertainty = namedtuple("Uncertainty", "mean std epistemic_std aleatoric_std lower upper")
Uncertainty.__doc__ = """A regression's predictive distribution per row (float32, the runtime's):
mean and std (std**2 = epistemic_std**2 + aleatoric_std**2 up to rounding); epistemic_std is what
the weights do not know (large away from the training data), aleatoric_std the noise; [lower,
upper] the central interval holding `probability` of the Gaussian predictive."""

InputRange = namedtuple("InputRange", "outside distance input")
InputRange.__doc__ = """Each row against the inputs' training ranges: outside (bool), the farthest
input's distance beyond its range in training stds (0 inside), that input's index (-1 inside)."""


class PBPRegressor(PBPEstimator):
    """Probabilistic backpropagation regression (Hernandez-Lobato & Adams 2015).

    With the defaults it trains as `pbp train` does: the automatic recipe chooses the network
    (1 x 50 or 2 x 50), the epochs (10 to 200) and the noise level from held-out parts of the
    training rows, then trains on all of them. `hidden` and `epochs` fix what it searches;
    recipe='paper' is PBP as published (1 x 50, 40 epochs unless given). Predictions run the
    model blob through the runtime in float32, bit for bit what a device computes.

    activation: of the hidden layers, 'relu' (default), 'erf' (2 Phi(a) - 1, the EP paper's
    probit unit) or 'sign', as `pbp train --activation`.
    verbose: 1 shows a progress bar on stderr (tqdm when installed), 0 nothing; a callable is
    called as verbose(epochs_done, epochs_planned) after every epoch instead.
    threads: 1 or 2 per training update (None: 2 on a machine with 2 CPUs); the same model bits.
    """

    _estimator_type = "regressor"
    _tasks = ("regression",)

    def __init__(self, hidden=None, epochs=None, recipe="auto", seed=1, prior="auto",
                 algorithm="pbp", inference="adf", averaging="auto", threads=None, verbose=1,
                 activation="relu"):
        self.hidden = hidden
        self.activation = activation
        self.epochs = epochs
        self.recipe = recipe
        self.seed = seed
        self.prior = prior
        self.algorithm = algorithm
        self.inference = inference
        self.averaging = averaging
        self.threads = threads
        self.verbose = verbose

    def fit(self, X, y, feature_names=None, target_name=None):
        """Trains on X (rows x inputs) and y (one finite target per row).

        feature_names and target_name go into the blob: `pbp predict` then matches CSV columns by
        name, and range reports name the input."""
        X = check_X(X)
        y = check_y_length(y, X, "one target")
        try:
            y = y.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"y must hold numbers for a regression, got dtype {y.dtype}") from None
        recipe = check_choice("recipe", self.recipe, ("auto", "paper"))
        if recipe == "auto" and X.shape[0] < 10:
            raise ValueError(f"recipe='auto' needs at least 10 rows, X has {X.shape[0]}; "
                             "recipe='paper' trains on fewer")
        options = {"recipe": recipe, "hidden": check_hidden(self.hidden, allow_none=True),
                   "epochs": check_int("epochs", self.epochs, 1, 1_000_000, allow_none=True)}
        return self._train(X, y, "regression", 0, options, feature_names, target_name, {})

    def predict(self, X, return_std=False):
        """The predictive mean of every row (float32); with return_std, (mean, std)."""
        u = self._model_predict(X, 0.95)
        return (u.mean, u.std) if return_std else u.mean

    def predict_uncertainty(self, X, probability=0.95):
        """The predictive distribution of every row: an Uncertainty (mean, std, epistemic_std,
        aleatoric_std, lower, upper), each a float32 array, as a device computes them."""
        return self._model_predict(X, check_probability(probability))

    def input_range(self, X):
        """Each row against the training ranges of the inputs (InputRange)."""
        return InputRange(*self._fitted_model().input_range(self._check_X(X)))

    def score(self, X, y, sample_weight=None):
        """The coefficient of determination R^2 of the predictive mean, as scikit-learn's."""
        predicted = self.predict(X).astype(np.float64)
        y = check_y_length(y, predicted.reshape(-1, 1), "one target").astype(np.float64)
        w = check_sample_weight(sample_weight, y.shape[0])
        residual = np.average((y - predicted) ** 2, weights=w)
        total = np.average((y - np.average(y, weights=w)) ** 2, weights=w)
        if total == 0.0:
            return 1.0 if residual == 0.0 else 0.0
        return float(1.0 - residual / total)

    @property
    def noise_std_(self):
        """The noise standard deviation the model learnt, in target units."""
        return self._fitted_model().noise_std

    def _model_predict(self, X, probability):
        model = self._fitted_model()
        return Uncertainty(*model.predict_regression(self._check_X(X), probability))
