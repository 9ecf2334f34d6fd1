# SPDX-License-Identifier: Apache-2.0
"""PBPRegressor: a Bayesian neural network for regression, trained by PBP."""
from collections import namedtuple

import numpy as np

from ._base import PBPEstimator
from ._compat import RegressorMixin
from ._validation import (check_bool, check_hidden, check_int, check_option, check_probability,
                          check_sample_weight, check_trainable, check_unweighted, check_X,
                          check_y_length)
from ._xfail import REGRESSOR_XFAIL

Uncertainty = namedtuple("Uncertainty", "mean std epistemic_std aleatoric_std lower upper "
                         "outside distance input")
Uncertainty.__doc__ = """A regression's predictive distribution per row (float32, the runtime's):
mean and std (std**2 = epistemic_std**2 + aleatoric_std**2 up to rounding); epistemic_std is what
the weights do not know (large away from the training data), aleatoric_std the noise; [lower,
upper] the central interval holding `probability` of the predictive (Gaussian, or the Student-t
of the model's tail_dof); outside, distance
and input the row against the inputs' training ranges, as InputRange."""

InputRange = namedtuple("InputRange", "outside distance input")
InputRange.__doc__ = """Each row against the inputs' training ranges: outside (bool), the farthest
input's distance beyond its range in training stds (0 inside), that input's index (-1 inside)."""


class PBPRegressor(RegressorMixin, PBPEstimator):
    """Probabilistic backpropagation regression (Hernandez-Lobato & Adams 2015).

    With the defaults it trains as `pbp train` does: the automatic recipe chooses the network
    (1 x 50 or 2 x 50), the epochs (10 to 200) and the noise level from held-out parts of the
    training rows, then trains on all of them. `hidden` and `epochs` fix what it searches;
    recipe='paper' is PBP as published (1 x 50, 40 epochs unless given). Predictions run the
    model blob through the runtime in float32, bit for bit what a device computes.

    random_state: an int is the trainer's seed (`pbp train --seed`; the default 1 gives the
    command line's model bits), None or a numpy RandomState draws one (seed_ keeps it).
    activation: of the hidden layers, 'relu' (default), 'erf' (2 Phi(a) - 1, the EP paper's
    probit unit) or 'sign', as `pbp train --activation`.
    likelihood: a regression line of the trainer's likelihood table (_core.option_names), as
    `pbp train --likelihood`; 'gaussian' (default): the noise from a learnt Gamma.
    distance_variance: with recipe='auto', True (default) widens each prediction by its distance
    from the training rows' values and by how many of its input pairs lie in a combination no
    training row has (both fitted on held-out gap and tail folds of the training rows), False
    leaves them out, as `pbp train --distance-variance on|off`.
    verbose: 1 shows a progress bar on stderr (tqdm when installed), 0 nothing; a callable is
    called as verbose(epochs_done, epochs_planned) after every epoch instead.
    threads: 1 or 2 per training update (None: 2 on a machine with 2 CPUs); the same model bits.
    """

    _tasks = ("regression",)

    def __init__(self, hidden=None, epochs=None, recipe="auto", random_state=1, prior="auto",
                 algorithm="pbp", inference="adf", averaging="auto", threads=None, verbose=1,
                 activation="relu", likelihood="gaussian", distance_variance=True):
        self._store_params(locals())

    def fit(self, X, y, sample_weight=None, feature_names=None, target_name=None):
        """Trains on X (rows x inputs) and y (one finite target per row).

        A DataFrame's column names (or feature_names) become feature_names_in_ and go into the
        blob, with target_name (default: y's name if a Series): predict then matches a
        DataFrame's columns by name, as `pbp predict` matches a CSV's. sample_weight: only
        weights of 1 (see check_unweighted)."""
        names = self._fit_names(X, feature_names)
        target_name = _target_name(y, target_name)
        X = check_X(X)
        y = _regression_targets(y, X)
        check_unweighted(sample_weight, X.shape[0])
        check_trainable(X)
        recipe = check_option("recipe", self.recipe)
        if recipe == "auto" and X.shape[0] < 10:
            raise ValueError(f"recipe='auto' needs at least 10 rows, X has {X.shape[0]}; "
                             "recipe='paper' trains on fewer")
        options = {"recipe": recipe, "likelihood": check_option("likelihood", self.likelihood),
                   "hidden": check_hidden(self.hidden, allow_none=True),
                   "epochs": check_int("epochs", self.epochs, 1, 1_000_000, allow_none=True)}
        if self.distance_variance is not True:  # the default is the recipe's: paper takes it too
            options["distance_variance"] = check_bool("distance_variance", self.distance_variance)
        self.__dict__.pop("learnt_rows_", None)
        return self._train(X, y, "regression", 0, options, names, target_name, {})

    def partial_fit(self, X, y, sample_weight=None):
        """Learns from more rows the way a device does: one pbp_learn_update per row, in float,
        the bits `pbp learn` computes. The first call on an unfitted estimator trains on its
        rows as fit does (a device starts from a trained model)."""
        if not self.__sklearn_is_fitted__():
            return self.fit(X, y, sample_weight=sample_weight)
        X = self._check_X(X)
        y = _regression_targets(y, X)
        check_unweighted(sample_weight, X.shape[0])
        return self._learn(X, y)

    def predict(self, X, return_std=False):
        """The predictive mean of every row (float32); with return_std, (mean, std)."""
        mean, std = self._model_predict(X, 0.95)[:2]
        return (mean, std) if return_std else mean

    def predict_uncertainty(self, X, probability=0.95):
        """The predictive distribution of every row and its input-range report: an Uncertainty
        (mean, std, epistemic_std, aleatoric_std, lower, upper, outside, distance, input), each
        an array, as a device computes them."""
        X = self._check_X(X)
        model = self._fitted_model()
        prediction = model.predict_regression(X, check_probability(probability))
        return Uncertainty(*prediction, *input_range_or_none(model, X))

    def score(self, X, y, sample_weight=None):
        """The coefficient of determination R^2 of the predictive mean, as scikit-learn's."""
        return r2_score(self.predict(X), y, sample_weight)

    @property
    def noise_std_(self):
        """The noise standard deviation the model learnt, in target units: one for every input,
        which a heteroscedastic model does not have (predict_uncertainty gives it per row)."""
        model = self._fitted_model()
        if model.likelihood == "gaussian_heteroscedastic":  # the fitted model's, not the parameter's
            raise AttributeError("a heteroscedastic model's noise depends on the input: "
                                 "predict_uncertainty(X).aleatoric_std gives it per row")
        return model.noise_std

    @property
    def tail_dof_(self):
        """The predictive's shape: 0 for a Gaussian, else the degrees of freedom of the Student-t of
        the same variance that recipe='auto' fitted to held-out rows (runtime/FORMAT.md, section 9);
        predict_uncertainty's intervals follow it."""
        return self._fitted_model().tail_dof

    def _model_predict(self, X, probability):
        model = self._fitted_model()
        return model.predict_regression(self._check_X(X), probability)

    def _more_tags(self):
        return {"_xfail_checks": REGRESSOR_XFAIL}


def r2_score(predicted, y, sample_weight):
    """The coefficient of determination of `predicted` for y, as scikit-learn's r2_score."""
    predicted = predicted.astype(np.float64)
    y = check_y_length(y, predicted.reshape(-1, 1), "one target").astype(np.float64)
    w = check_sample_weight(sample_weight, y.shape[0])
    residual = np.average((y - predicted) ** 2, weights=w)
    total = np.average((y - np.average(y, weights=w)) ** 2, weights=w)
    if total == 0.0:
        return 1.0 if residual == 0.0 else 0.0
    return float(1.0 - residual / total)


def input_range_or_none(model, X):
    """The range report, or None for each field from a blob written before input ranges."""
    try:
        return model.input_range(X)
    except ValueError as error:
        if "no input ranges" not in str(error):
            raise
        return None, None, None


def _target_name(y, given):
    if given is not None:
        return str(given)
    name = getattr(y, "name", None)
    return name if isinstance(name, str) else ""


def _regression_targets(y, X):
    y = check_y_length(y, X, "one target")
    if y.dtype.kind == "c":
        raise ValueError("Complex data not supported: y must hold real numbers")
    try:
        y = y.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"y must hold numbers for a regression, got dtype {y.dtype}") from None
    if not np.isfinite(y).all():
        row = int(np.flatnonzero(~np.isfinite(y))[0])
        raise ValueError(f"y[{row}] is {y[row]}: targets must be finite")
    return np.ascontiguousarray(y)
