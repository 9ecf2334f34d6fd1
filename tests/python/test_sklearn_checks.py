# SPDX-License-Identifier: Apache-2.0
"""scikit-learn's estimator checks (check_estimator's list), each a test: the checks the
estimators fail by design are xfail through their `_xfail_checks` tags, which give the reason."""
import pytest

from pbp_edge import PBPClassifier, PBPRegressor

pytest.importorskip("sklearn")
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

# Small networks and few epochs: the checks test the contract, not the accuracy.
ESTIMATORS = [PBPRegressor(recipe="paper", hidden=(4,), epochs=2, verbose=0),
              PBPClassifier(hidden=(4,), epochs=2, verbose=0)]


@parametrize_with_checks(ESTIMATORS)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def test_column_names_are_matched_not_refused_when_reordered():
    """scikit-learn's own estimators refuse a DataFrame whose columns are in another order
    (check_dataframe_column_names_consistency, which check_estimator does not run); pbp_edge
    reorders it by name, so that check fails here on that one case and on no other."""
    pd = pytest.importorskip("pandas")
    from sklearn.utils.estimator_checks import check_dataframe_column_names_consistency
    for estimator in ESTIMATORS:
        with pytest.raises(AssertionError, match="did not raise"):
            check_dataframe_column_names_consistency(type(estimator).__name__, estimator)
    assert pd  # the check builds its frames with pandas
