# SPDX-License-Identifier: Apache-2.0
"""pbp-edge in Python: Bayesian neural networks trained by Probabilistic Backpropagation, with
scikit-learn's estimator interface, predicting through the runtime a device runs
(tools/python/README.md).

    from pbp_edge import PBPRegressor
    model = PBPRegressor().fit(X, y)
    mean, std = model.predict(X_new, return_std=True)
    model.partial_fit(X_more, y_more)           # the device's own update, row by row
    model.export_c("my_model", "firmware/")     # my_model.h / my_model.c for pbp_open
"""
from ._base import load
from ._compat import NotFittedError
from ._core import __version__
from .classifier import ClassPrediction, PBPClassifier
from .count import CountDistribution, PBPCountRegressor
from .regressor import InputRange, PBPRegressor, Uncertainty

__all__ = ["__version__", "PBPRegressor", "PBPClassifier", "PBPCountRegressor", "Uncertainty",
           "CountDistribution", "ClassPrediction", "InputRange", "NotFittedError", "load"]
