// SPDX-License-Identifier: Apache-2.0
// The erf and sign Jacobians (trainer/include/pbp/trainer/activation_jacobian.hpp) against
// central finite differences of the moment functions, and through the whole ADF gradient.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "pbp/trainer/activation_jacobian.hpp"

namespace {

struct Moments {
  double mean, variance;
};

// Central differences with steps d_m = 1e-5 max(1, |m|) and d_v = 1e-5 max(1, v): the truncation
// error is d^2 |f'''| / 6, the rounding error ~ u |f| / d (u = 1.1e-16). On this grid (|m| <= 4,
// v >= 0.05) the Gaussian factors make |f'''| at most ~(2|m| + 1)^2 / min(v, 1)^2 times |f'|, so
// truncation stays below ~1e-10 x 81 x 400 / 6 = 5e-7 of |f'| (far less away from the corner
// m = 4, v = 0.05), and rounding below 1e-16 / (1e-5 |f'|) = 1e-11 / |f'|, under 1e-7 for the
// |f'| >= 1e-4 on this grid: within 1e-6 relative. Entries below 1e-6 of their row's largest are
// compared against 1e-6 of that largest instead (an exact zero has no relative error).
template <class F>
void expect_jacobian(const char* what, double m, double v, const pbp::trainer::ReluJacobian& j,
                     F moments) {
  const double dm = 1e-5 * std::max(1.0, std::fabs(m)), dv = 1e-5 * std::max(1.0, v);
  const Moments mp = moments(m + dm, v), mm = moments(m - dm, v);
  const Moments vp = moments(m, v + dv), vm = moments(m, v - dv);
  const double fd[4] = {(mp.mean - mm.mean) / (2 * dm), (vp.mean - vm.mean) / (2 * dv),
                        (mp.variance - mm.variance) / (2 * dm),
                        (vp.variance - vm.variance) / (2 * dv)};
  const double got[4] = {j.mean_by_mean, j.mean_by_var, j.var_by_mean, j.var_by_var};
  const char* names[4] = {"dmean/dm", "dmean/dv", "dvar/dm", "dvar/dv"};
  for (int i = 0; i < 4; ++i) {
    // Row scale: the derivative of the same output by the other argument, in units of the step.
    const double row = std::max(std::fabs(got[i & 2]) * dm, std::fabs(got[(i & 2) + 1]) * dv) /
                       (i % 2 == 0 ? dm : dv);
    const double tolerance = 1e-6 * std::max(std::fabs(got[i]), 1e-6 * row);
    EXPECT_NEAR(got[i], fd[i], tolerance) << what << " " << names[i] << " m " << m << " v " << v;
  }
}

TEST(ActivationJacobian, ErfMatchesFiniteDifferences) {
  for (const double m : {-3.0, -1.2, -0.3, 0.0, 0.4, 1.0, 2.5, 4.0}) {
    for (const double v : {0.05, 0.3, 1.0, 4.0, 20.0}) {
      const pbp::ErfMoments<double> r = pbp::erf_moments(m, v);
      expect_jacobian("erf", m, v, pbp::trainer::erf_jacobian(m, v, r), [](double a, double b) {
        const pbp::ErfMoments<double> e = pbp::erf_moments(a, b);
        return Moments{e.mean, e.variance};
      });
    }
  }
}

TEST(ActivationJacobian, SignMatchesFiniteDifferences) {
  for (const double m : {-1.5, -0.6, -0.1, 0.0, 0.2, 0.7, 1.8}) {
    for (const double v : {0.2, 0.5, 1.0, 4.0, 20.0}) {
      const pbp::SignMoments<double> r = pbp::sign_moments(m, v);
      expect_jacobian("sign", m, v, pbp::trainer::sign_jacobian(v, r), [](double a, double b) {
        const pbp::SignMoments<double> s = pbp::sign_moments(a, b);
        return Moments{s.mean, s.variance};
      });
    }
  }
}

}  // namespace
