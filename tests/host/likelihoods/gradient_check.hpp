// SPDX-License-Identifier: Apache-2.0
// Finite-difference checks of a likelihood's d log Z / d mean and d log Z / d var, as in
// tests/host/gradients: fourth-order differences, relative error with a rounding floor.
#pragma once
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <vector>

#include "pbp/trainer/likelihood.hpp"

namespace pbp::trainer::testing {

struct GradientSummary {
  double worst_relative = 0.0;
  size_t checked = 0;
  size_t pure_relative = 0;  // judged by relative error alone (above the rounding floor)
};

// How far the variance may be stepped: `variance_floor` is the smallest step scale (1e-3 of it
// is the step when v is smaller); below v = 2 h the one-sided stencil is used unless the
// likelihood is smooth through v = 0 (then central differences may cross it).
struct VarianceSteps {
  double variance_floor = 0.0;
  bool smooth_below_zero = false;
};

// Checks every d/dmean[i] and d/dvar[i] at one point; prints disagreements above 1e-6.
inline void check_gradients(Likelihood& likelihood, std::vector<double> mean,
                            std::vector<double> var, double target, VarianceSteps steps,
                            GradientSummary& summary) {
  const size_t n = mean.size();
  std::vector<double> g_mean(n), g_var(n), scratch_m(n), scratch_v(n);
  const double value =
      likelihood.log_z(mean.data(), var.data(), target, g_mean.data(), g_var.data());
  auto f = [&] {
    return likelihood.log_z(mean.data(), var.data(), target, scratch_m.data(), scratch_v.data());
  };
  // One evaluation of log Z is good to a few ulps of max(|log Z|, 1).
  const double evaluation_error = 8.0 * DBL_EPSILON * std::max(std::abs(value), 1.0);
  // Rounding in a stencil: (sum of |weights| / 12) evaluation errors over h; 1e6 of that is the
  // smallest derivative a 1e-6 relative check can resolve.
  auto judge = [&](double analytic, double numeric, double h, double stencil_weight,
                   const char* what, size_t i) {
    const double rounding_floor = 1e6 * stencil_weight * evaluation_error / h;
    const double scale = std::max({std::abs(analytic), std::abs(numeric), rounding_floor});
    const double relative = std::abs(analytic - numeric) / scale;
    ++summary.checked;
    if (scale > rounding_floor) ++summary.pure_relative;
    summary.worst_relative = std::max(summary.worst_relative, relative);
    if (relative > 1e-6) {
      std::printf("  d/d%s[%zu] at mean %.6g var %.6g target %g: analytic %.12g numeric %.12g\n",
                  what, i, mean[i], var[i], target, analytic, numeric);
    }
  };
  for (size_t i = 0; i < n; ++i) {
    const double saved_m = mean[i];
    const double h = 1e-3 * std::max(std::abs(saved_m), 0.05);
    auto at = [&](double offset) {
      mean[i] = saved_m + offset;
      return f();
    };
    const double numeric = (8.0 * (at(h) - at(-h)) - (at(2 * h) - at(-2 * h))) / (12.0 * h);
    mean[i] = saved_m;
    judge(g_mean[i], numeric, h, 18.0 / 12.0, "mean", i);
  }
  for (size_t i = 0; i < n; ++i) {
    const double saved_v = var[i];
    const double h = 1e-3 * std::max(saved_v, steps.variance_floor);
    auto at = [&](double offset) {
      var[i] = saved_v + offset;
      return f();
    };
    double numeric;
    double stencil_weight = 18.0 / 12.0;
    if (steps.smooth_below_zero || saved_v - 2.0 * h > 0.0) {
      numeric = (8.0 * (at(h) - at(-h)) - (at(2 * h) - at(-2 * h))) / (12.0 * h);
    } else {
      stencil_weight = 128.0 / 12.0;  // fourth-order forward stencil: never below v
      numeric =
          (-25.0 * at(0.0) + 48.0 * at(h) - 36.0 * at(2 * h) + 16.0 * at(3 * h) - 3.0 * at(4 * h)) /
          (12.0 * h);
    }
    var[i] = saved_v;
    judge(g_var[i], numeric, h, stencil_weight, "var", i);
  }
}

inline void print_summary(const char* name, const GradientSummary& s) {
  std::printf("%s: %zu derivatives, %zu judged purely relatively, worst relative error %.3g\n",
              name, s.checked, s.pure_relative, s.worst_relative);
}

}  // namespace pbp::trainer::testing
