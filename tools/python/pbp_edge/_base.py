# SPDX-License-Identifier: Apache-2.0
"""What PBPRegressor and PBPClassifier share: parameters, training, the device's learning,
feature names, the blob, pickling."""
import copy
import json
import os
import warnings

import numpy as np

from . import _core
from ._compat import BaseEstimator, NotFittedError
from ._progress import close, progress_callback
from ._validation import check_int, check_option, check_X, feature_names_of, match_columns, seed_of

# The blob's metadata notes start with this when pbp_edge wrote it; the rest is JSON: the
# estimator's class and parameters, what the recipe chose, a classifier's labels.
NOTES_PREFIX = "pbp_edge "


class PBPEstimator(BaseEstimator):
    """A model that is a blob opened by the runtime (the same code a device runs), pickled as
    that blob; scikit-learn's BaseEstimator when scikit-learn is installed."""

    _tasks = ()  # the blob tasks this estimator serves

    def _store_params(self, params):
        """__init__'s arguments stored as given, as scikit-learn's estimators store them."""
        for name, value in params.items():
            if name not in ("self", "__class__"):
                setattr(self, name, value)

    # -- fitted state -----------------------------------------------------------------------
    def __sklearn_is_fitted__(self):
        return "_model" in self.__dict__

    def _fitted_model(self):
        model = self.__dict__.get("_model")
        if model is None:
            raise NotFittedError(f"This {type(self).__name__} instance is not fitted yet: call "
                                 "fit first")
        return model

    def _check_X(self, X):
        """X for a fitted model: a DataFrame's columns matched to feature_names_in_ by name."""
        model = self._fitted_model()
        X = match_columns(X, getattr(self, "feature_names_in_", None), type(self).__name__)
        return check_X(X, model.input_count)

    def _fit_names(self, X, feature_names):
        """The names for the blob: feature_names if given, else a DataFrame's columns."""
        names = feature_names_of(X)
        if feature_names is None:
            return None if names is None else [str(n) for n in names]
        given = [str(n) for n in feature_names]
        if names is not None and given != list(names):
            raise ValueError(f"feature_names {given} differ from X's columns {list(names)}")
        return given

    @property
    def blob_(self):
        """The model blob (bytes): what save writes and export_c embeds."""
        return self._fitted_model().blob

    def _train(self, X, y, task, classes, options, names, target_name, extra_notes):
        """Trains with the trainer's train_with_recipe; sets the fitted attributes."""
        names = names or []
        if names and len(names) != X.shape[1]:
            raise ValueError(f"feature_names has {len(names)} names for {X.shape[1]} columns of X")
        threads = check_int("threads", self.threads, 1, 2, allow_none=True)
        if threads is None:
            threads = min(2, os.cpu_count() or 1)
        seed = seed_of(self.random_state)
        progress = progress_callback(self.verbose, f"{type(self).__name__}.fit")
        try:
            result = _core.train(
                X, y, task=task, classes=classes, seed=seed,
                algorithm=check_option("algorithm", self.algorithm),
                activation=check_option("activation", self.activation),
                prior=check_option("prior", self.prior),
                inference=check_option("inference", self.inference),
                averaging=check_option("averaging", self.averaging),
                threads=threads, feature_names=names, target_name=target_name or "",
                progress=progress, **options)
        finally:
            close(progress)
        notes = {"estimator": type(self).__name__, "params": _json_params(self.get_params()),
                 "epochs": result["epochs"], "recipe": result["recipe"],
                 "constant_inputs": result["constant_inputs"]}
        notes.update(extra_notes)
        self._set_model(_core.Model(_core.write_blob(result["model"],
                                                     NOTES_PREFIX + _notes_json(notes))))
        self.seed_ = seed
        self.epochs_ = result["epochs"]
        self.recipe_ = result["recipe"]
        self.constant_inputs_ = list(result["constant_inputs"])
        for k in self.constant_inputs_:
            name = f"X[:, {k}]" + (f" ({names[k]!r})" if names else "")
            warnings.warn(f"{name} is constant on the training rows: it contributes nothing to "
                          "the model", UserWarning, stacklevel=3)
        return self

    def _learn(self, X, targets):
        """The device's update (pbp_learn_update) over the rows, all or none applied."""
        result = self._fitted_model().learn(X, targets)
        if result["rejected"]:
            row, why = result["rejected"][0]
            raise ValueError(f"row {row} of X: the device's update refused it ({why}); "
                             f"{len(result['rejected'])} rows refused, none learnt")
        self._set_model(_core.Model(result["blob"]))
        self.learnt_rows_ = getattr(self, "learnt_rows_", 0) + result["applied"]
        return self

    def _set_model(self, model):
        if model.task not in self._tasks:
            raise ValueError(f"a {model.task} model: {_reader_of(model.task)}")
        self._model = model
        self.n_features_in_ = model.input_count
        self.hidden_ = tuple(model.hidden)
        if model.feature_names:
            self.feature_names_in_ = np.asarray(model.feature_names, dtype=object)
        else:
            self.__dict__.pop("feature_names_in_", None)

    def input_range(self, X):
        """Each row against the training ranges of the inputs (InputRange)."""
        from .regressor import InputRange
        return InputRange(*self._fitted_model().input_range(self._check_X(X)))

    # -- storage ----------------------------------------------------------------------------
    def quantize(self, storage, X=None, fallback="none"):
        """A copy of this fitted estimator whose blob stores the weights as `storage`: 'float16'
        (4 bytes a weight), 'int8' or 'int8-logvar' (2), or 'float32' (8). Each weight goes to the
        nearest code, as `pbp quantize --storage S`; with X (the training rows; int8 storages)
        the means are rounded to make up for each other's rounding over those rows, as
        `pbp quantize --storage S --data F --fallback none`. With X, `fallback` 'auto' or
        'float16' moves the layers whose int8 codes change the predictions on X beyond the
        quantisation goals to logarithmic variance codes or float16, as `pbp quantize
        --fallback` (from a float32 blob). save and export_c write it."""
        model = self._fitted_model()
        if X is not None:
            X = self._check_X(X)
        quantized = copy.deepcopy(self)
        quantized._set_model(_core.Model(model.quantize(str(storage), X, fallback=str(fallback))))
        return quantized

    @property
    def storage_(self):
        """The storage type of each layer's weights ('float32', 'float16', 'int8', ...)."""
        return tuple(self._fitted_model().layer_storage)

    # -- blobs ------------------------------------------------------------------------------
    def save(self, path):
        """Writes the model blob to `path` atomically (readers see the old file or the new)."""
        self._fitted_model().save(os.fspath(path))

    def export_c(self, name, out_dir="."):
        """Writes OUT_DIR/NAME.h and OUT_DIR/NAME.c for firmware, both or neither, as
        `pbp export-c` does; returns their paths. Open it with pbp_open(&model, NAME, NAME_SIZE)."""
        base = self._fitted_model().export_c(str(name), os.fspath(out_dir))
        return base + ".h", base + ".c"

    @classmethod
    def from_blob(cls, blob):
        """The fitted estimator a blob holds (one pbp_edge or `pbp train` wrote)."""
        model = _core.Model(bytes(blob))
        notes = _read_notes(model.notes)
        params = notes.get("params", {})
        if "seed" in params:  # written before random_state
            params.setdefault("random_state", params.pop("seed"))
        if "hidden" in params and params["hidden"] is not None:
            params["hidden"] = tuple(params["hidden"])
        known = set(cls._get_param_names())
        estimator = cls(**{k: v for k, v in params.items() if k in known})
        estimator._set_model(model)
        estimator.epochs_ = notes.get("epochs")
        estimator.recipe_ = notes.get("recipe")
        estimator.constant_inputs_ = notes.get("constant_inputs", [])
        estimator._restore(model, notes)
        return estimator

    @classmethod
    def load(cls, path):
        """The fitted estimator of a blob file."""
        with open(path, "rb") as file:
            return cls.from_blob(file.read())

    def _restore(self, model, notes):
        """What a subclass keeps in the notes beyond the parameters (a classifier's labels)."""

    # -- pickling: the model travels as its blob --------------------------------------------
    def __getstate__(self):
        state = dict(self.__dict__)
        model = state.pop("_model", None)
        if model is not None:
            state["_blob"] = model.blob
        return state

    def __setstate__(self, state):
        blob = state.pop("_blob", None)
        self.__dict__.update(state)
        if blob is not None:
            self._model = _core.Model(blob)


def _json_params(params):
    """The parameters that JSON can hold (a callable verbose is stored as 0)."""
    out = {}
    for name, value in params.items():
        if isinstance(value, tuple):
            value = list(value)
        try:
            json.dumps(value)
        except (TypeError, ValueError):
            value = 0 if name == "verbose" else None
        out[name] = value
    return out


def _notes_json(notes):
    return json.dumps(notes, separators=(",", ":"), default=_json_default)


def _json_default(value):
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _read_notes(text):
    if not text.startswith(NOTES_PREFIX):
        return {}
    try:
        notes = json.loads(text[len(NOTES_PREFIX):])
    except ValueError:
        return {}
    return notes if isinstance(notes, dict) else {}


def _reader_of(task):
    readers = {"regression": "PBPRegressor", "binary": "PBPClassifier",
               "multiclass": "PBPClassifier", "count": "PBPCountRegressor"}
    return f"load it with {readers[task]}" if task in readers else "pbp_edge has no estimator for it"


def load(path):
    """The fitted PBPRegressor, PBPClassifier or PBPCountRegressor of a blob file, by its task."""
    from .classifier import PBPClassifier
    from .count import PBPCountRegressor
    from .regressor import PBPRegressor
    with open(path, "rb") as file:
        blob = file.read()
    task = _core.Model(blob).task
    estimators = {"regression": PBPRegressor, "binary": PBPClassifier,
                  "multiclass": PBPClassifier, "count": PBPCountRegressor}
    return estimators[task].from_blob(blob)
