# SPDX-License-Identifier: Apache-2.0
"""Checks on what users pass in: a ValueError that says what is wrong, never a crash."""
import numbers

import numpy as np


def check_X(X, n_features=None):
    """X as the C++ layer reads it: 2-D, C-contiguous float32 or float64, copied only if not.

    float32 is what the runtime computes in, so it is read in place; float64 rows are rounded to
    float32 one at a time, as a device would receive them. NaN and Inf are refused by the C++
    layer, which names the cell.
    """
    if hasattr(X, "toarray"):
        raise TypeError("X is a sparse matrix: pass a dense array (X.toarray())")
    X = np.asarray(X)
    if X.dtype.kind not in "fiub":
        try:
            X = X.astype(np.float64)
        except (TypeError, ValueError) as error:
            raise ValueError(f"X must hold numbers, got dtype {X.dtype}: {error}") from None
    elif X.dtype not in (np.float32, np.float64):
        X = X.astype(np.float32 if X.dtype == np.float16 else np.float64)
    if X.ndim == 1:
        raise ValueError(
            f"X must be 2-D (rows x inputs), got a 1-D array of shape {X.shape}: "
            "X.reshape(-1, 1) if it is one input, X.reshape(1, -1) if it is one row")
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (rows x inputs), got shape {X.shape}")
    if X.shape[0] == 0:
        raise ValueError(f"X has no rows (shape {X.shape})")
    if X.shape[1] == 0:
        raise ValueError(f"X has no columns (shape {X.shape})")
    if n_features is not None and X.shape[1] != n_features:
        raise ValueError(f"X has {X.shape[1]} columns, but the model takes {n_features} inputs")
    return np.ascontiguousarray(X)


def check_y_length(y, X, what):
    """y as a 1-D array of one value per row of X ((n, 1) is taken as (n,))."""
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y.ravel()
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D ({what} per row of X), got shape {y.shape}")
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]} values")
    return y


def check_choice(name, value, choices):
    if not isinstance(value, str) or value not in choices:
        listed = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {listed}, got {value!r}")
    return value


def check_int(name, value, low, high=None, allow_none=False):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if value < low or (high is not None and value > high):
        bounds = f">= {low}" if high is None else f"in {low}..{high}"
        raise ValueError(f"{name} must be {bounds}, got {value}")
    return int(value)


def check_hidden(value, allow_none):
    """The hidden layer widths as a list of positive ints (one int is one layer)."""
    if value is None and allow_none:
        return None
    widths = [value] if isinstance(value, numbers.Integral) else value
    try:
        widths = list(widths)
    except TypeError:
        raise ValueError(f"hidden must be a tuple of layer widths, got {value!r}") from None
    if not widths or any(
            isinstance(w, bool) or not isinstance(w, numbers.Integral) or not 1 <= w <= 65535
            for w in widths):
        raise ValueError(f"hidden must be a tuple of layer widths in 1..65535, got {value!r}")
    if len(widths) > 15:
        raise ValueError(f"hidden has {len(widths)} layers: the runtime takes at most 15")
    return [int(w) for w in widths]


def check_probability(probability):
    if not isinstance(probability, numbers.Real) or not 0.0 < probability < 1.0:
        raise ValueError(f"probability must be in (0, 1), got {probability!r}")
    return float(probability)


def check_sample_weight(sample_weight, n):
    if sample_weight is None:
        return None
    w = np.asarray(sample_weight, dtype=np.float64)
    if w.shape != (n,):
        raise ValueError(f"sample_weight must have shape ({n},), got {w.shape}")
    return w
