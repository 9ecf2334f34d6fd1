# SPDX-License-Identifier: Apache-2.0
"""The scikit-learn estimator checks pbp_edge's estimators fail by design, each with the reason
(scikit-learn's `_xfail_checks` tag: check_estimator skips them, saying why)."""

_WEIGHTS = ("sample_weight other than 1 is refused: a weighted PBP update raises the likelihood "
            "to the weight, which the trainer and the device's update do not implement")

_MULTICLASS = ("partial_fit is the device's update, which has no multiclass form: multiclass "
               "partial_fit is refused")

COMMON_XFAIL = {
    "check_sample_weights_list": _WEIGHTS,
    "check_sample_weights_not_overwritten": _WEIGHTS,
    "check_sample_weights_invariance": _WEIGHTS,
}
REGRESSOR_XFAIL = dict(COMMON_XFAIL)
CLASSIFIER_XFAIL = dict(COMMON_XFAIL, check_classifiers_one_label_sample_weights=_WEIGHTS,
                        check_fit_score_takes_y=_MULTICLASS,
                        check_estimators_partial_fit_n_features=_MULTICLASS)
