# SPDX-License-Identifier: Apache-2.0
"""Checks on what users pass in: a ValueError that says what is wrong, never a crash."""
import numbers
import warnings

import numpy as np

from . import _core

try:
    from sklearn.exceptions import DataConversionWarning
except ImportError:
    DataConversionWarning = UserWarning


def check_X(X, n_features=None):
    """X as the C++ layer reads it: 2-D, C-contiguous float32 or float64, copied only if not.

    float32 is what the runtime computes in, so it is read in place; float64 rows are rounded to
    float32 one at a time, as a device would receive them. NaN and Inf are refused by the C++
    layer, which names the cell.
    """
    if hasattr(X, "toarray"):
        raise TypeError("X is a sparse matrix: pass a dense array (X.toarray())")
    X = np.asarray(X)
    if X.dtype.kind == "c":
        raise ValueError("Complex data not supported: X must hold real numbers")
    if X.dtype.kind not in "fiub":
        try:
            X = X.astype(np.float64)
        except (TypeError, ValueError) as error:  # the same type as NumPy's, as scikit-learn
            raise type(error)(f"X must hold numbers, got dtype {X.dtype}: {error}") from None
    elif X.dtype not in (np.float32, np.float64):
        X = X.astype(np.float32 if X.dtype == np.float16 else np.float64)
    if X.ndim == 1:
        raise ValueError(
            f"X must be 2-D (rows x inputs), got a 1-D array of shape {X.shape}. Reshape your "
            "data: X.reshape(-1, 1) if it is one input, X.reshape(1, -1) if it is one row")
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (rows x inputs), got shape {X.shape}")
    if X.shape[0] == 0:
        raise ValueError(f"X has no rows: found array with 0 sample(s) (shape={X.shape}) while "
                         "a minimum of 1 is required.")
    if X.shape[1] == 0:
        raise ValueError(f"X has no columns: found array with 0 feature(s) (shape={X.shape}) "
                         "while a minimum of 1 is required.")
    if n_features is not None and X.shape[1] != n_features:
        raise ValueError(f"X has {X.shape[1]} columns, but the model takes {n_features} inputs")
    return np.ascontiguousarray(X)


def check_y_length(y, X, what):
    """y as a 1-D array of one value per row of X ((n, 1) is taken as (n,), with scikit-learn's
    DataConversionWarning)."""
    if y is None:
        raise ValueError("this estimator requires y to be passed, but the target y is None")
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        warnings.warn("A column-vector y was passed when a 1d array was expected: y.ravel() "
                      "gives the 1-D array", DataConversionWarning, stacklevel=3)
        y = y.ravel()
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D ({what} per row of X), got shape {y.shape}")
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]} values")
    return y


def feature_names_of(X):
    """A DataFrame's column names as scikit-learn takes them (all strings), else None."""
    columns = getattr(X, "columns", None)
    if columns is None or not hasattr(X, "dtypes"):
        return None
    names = np.asarray(columns, dtype=object)
    types = sorted({type(name).__name__ for name in names})
    if len(types) > 1 and "str" in types:
        raise TypeError(
            "Feature names are only supported if all input features have string names, but your "
            f"input has {types} as feature name / column name types. If you want feature names "
            "to be stored and validated, you must convert them all to strings, by using "
            "X.columns = X.columns.astype(str) for example. Otherwise you can remove feature / "
            "column names from your input data, or convert them all to a non-string data type.")
    return names if types == ["str"] else None


def match_columns(X, fitted_names, estimator):
    """X with its columns in the fitted order: a DataFrame is matched by name (another order is
    reordered; a missing or unexpected column raises, in scikit-learn's words), an array is
    taken by position."""
    names = feature_names_of(X)
    if fitted_names is None:
        if names is not None:
            warnings.warn(f"X has feature names, but {estimator} was fitted without feature "
                          "names", UserWarning, stacklevel=3)
        return X
    if names is None:
        warnings.warn(f"X does not have valid feature names, but {estimator} was fitted with "
                      "feature names", UserWarning, stacklevel=3)
        return X
    fitted = list(fitted_names)
    if list(names) == fitted:
        return X
    unexpected = sorted(set(names) - set(fitted))
    missing = sorted(set(fitted) - set(names))
    if unexpected or missing or len(set(names)) != len(names):
        message = "The feature names should match those that were passed during fit.\n"
        if unexpected:
            message += "Feature names unseen at fit time:\n" + _listed(unexpected)
        if missing:
            message += "Feature names seen at fit time, yet now missing:\n" + _listed(missing)
        if not unexpected and not missing:
            duplicated = sorted({n for n in names if list(names).count(n) > 1})
            message += "Feature names repeated:\n" + _listed(duplicated)
        raise ValueError(message)
    return X[fitted]


def _listed(names, most=5):
    lines = [f"- {name}\n" for name in names[:most]]
    return "".join(lines) + ("- ...\n" if len(names) > most else "")


def seed_of(random_state):
    """The trainer's 64-bit seed: an int as it is, None from NumPy's global RandomState (as
    scikit-learn's None), a RandomState or Generator one draw from it."""
    if random_state is None:
        random_state = np.random.mtrand._rand
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(np.iinfo(np.int64).max, dtype=np.int64))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(np.iinfo(np.int64).max))
    return check_int("random_state", random_state, 0, 2**64 - 1)


def check_unweighted(sample_weight, n):
    """Refuses weights other than 1: a weighted PBP update raises each row's likelihood to its
    weight, which the trainer and the device's update do not implement; ignoring the weights
    would answer a question that was not asked."""
    w = check_sample_weight(sample_weight, n)
    if w is not None and not np.all(w == 1.0):
        raise ValueError(
            "sample_weight other than 1 is not supported: weighting a row in PBP raises its "
            "likelihood to the weight, which neither the trainer nor the device's update "
            "implements (pbp_edge refuses rather than ignore the weights)")


def check_trainable(X):
    """At least 2 rows, in words scikit-learn's checks look for."""
    if X.shape[0] < 2:
        raise ValueError(f"n_samples={X.shape[0]}: training needs at least 2 rows")


def check_choice(name, value, choices):
    if not isinstance(value, str) or value not in choices:
        listed = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {listed}, got {value!r}")
    return value


def check_option(name, value):
    """check_choice against the option's values as the trainer names them (_core.option_names:
    its tables, so no list is copied here)."""
    return check_choice(name, value, _core.option_names[name])


def check_bool(name, value):
    """True or False (numpy's bools too); a string or a number is refused rather than read."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


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
    """The hidden layer widths as a list of ints (one int is one layer). Their count and range
    are the host library's checks (pbp/host/training.hpp), with `pbp train`'s words."""
    if value is None and allow_none:
        return None
    widths = [value] if isinstance(value, numbers.Integral) else value
    try:
        widths = list(widths)
    except TypeError:
        raise ValueError(f"hidden must be a tuple of layer widths, got {value!r}") from None
    if not widths or any(
            isinstance(w, bool) or not isinstance(w, numbers.Integral) or not 0 <= w < 2**32
            for w in widths):
        raise ValueError(f"hidden must be a tuple of layer widths, got {value!r}")
    return [int(w) for w in widths]


def check_probability(probability):
    if not isinstance(probability, numbers.Real) or not 0.0 < probability < 1.0:
        raise ValueError(f"probability must be in (0, 1), got {probability!r}")
    return float(probability)


def check_sample_weight(sample_weight, n):
    if sample_weight is None:
        return None
    w = np.asarray(sample_weight, dtype=np.float64)
    if w.ndim == 0:
        w = np.full(n, float(w))
    if w.shape != (n,):
        raise ValueError(f"sample_weight.shape == {w.shape}, expected ({n},)!")
    if not np.isfinite(w).all() or (w < 0).any():
        raise ValueError("sample_weight must be finite and non-negative")
    return w
