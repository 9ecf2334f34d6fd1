# SPDX-License-Identifier: Apache-2.0
"""scikit-learn's base classes and NotFittedError when it is installed (an optional dependency);
without it, the same parameter protocol (get_params, set_params, repr) so the estimators work
alone."""
import inspect

try:
    from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
    from sklearn.exceptions import NotFittedError
    HAVE_SKLEARN = True
except ImportError:
    HAVE_SKLEARN = False

    class NotFittedError(ValueError, AttributeError):
        """predict, score, save or export_c on an estimator that has not been fitted yet."""

    class BaseEstimator:
        """scikit-learn's parameter protocol: the constructor's arguments, stored as given."""

        @classmethod
        def _get_param_names(cls):
            signature = inspect.signature(cls.__init__)
            return sorted(p.name for p in signature.parameters.values() if p.name != "self")

        def get_params(self, deep=True):
            return {name: getattr(self, name) for name in self._get_param_names()}

        def set_params(self, **params):
            valid = self._get_param_names()
            for name, value in params.items():
                if name not in valid:
                    raise ValueError(f"Invalid parameter {name!r} for estimator {self}. "
                                     f"Valid parameters are: {valid!r}.")
                setattr(self, name, value)
            return self

        def __repr__(self):
            defaults = {name: p.default
                        for name, p in inspect.signature(type(self).__init__).parameters.items()}
            changed = [f"{name}={value!r}" for name, value in self.get_params().items()
                       if not _same(value, defaults.get(name))]
            return f"{type(self).__name__}({', '.join(changed)})"

    class RegressorMixin:
        _estimator_type = "regressor"

    class ClassifierMixin:
        _estimator_type = "classifier"

    def _same(a, b):
        try:
            return bool(a == b) and type(a) is type(b)
        except (TypeError, ValueError):
            return a is b
