// The negative-binomial predictive of outputs.hpp against direct sums of its pmf, computed
// independently in long double from lgamma: mean, variance, mode and the central interval, in
// double and in float (the runtime's instantiation).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "pbp/outputs.hpp"
#include "pbp/pbp.h"

namespace {

namespace outputs = pbp::outputs;

// pmf of NB(mean mu, scale psi); psi = 0: Poisson(mu).
long double nb_log_pmf(long double k, long double mu, long double psi) {
  if (psi == 0) return k * std::log(mu) - mu - std::lgamma(k + 1);
  const long double r = 1 / psi;
  return std::lgamma(k + r) - std::lgamma(r) - std::lgamma(k + 1) - r * std::log1p(psi * mu) +
         k * (std::log(psi * mu) - std::log1p(psi * mu));
}

struct Direct {
  long double mean = 0, variance = 0;
  double mode = 0, lower = -1, upper = -1;
};

Direct direct_sums(double mu, double psi, double probability) {
  Direct d;
  const long double tail = (1.0L - probability) / 2;
  long double cdf = 0, second = 0, best = -1;
  const long double limit = 50 * mu + 20000;
  for (long double k = 0; k < limit; ++k) {
    const long double p = std::exp(nb_log_pmf(k, mu, psi));
    cdf += p;
    d.mean += k * p;
    second += k * k * p;
    if (p > best) {
      best = p;
      d.mode = static_cast<double>(k);
    }
    if (d.lower < 0 && cdf >= tail) d.lower = static_cast<double>(k);
    if (d.upper < 0 && cdf >= 1 - tail) d.upper = static_cast<double>(k);
    if (d.upper >= 0 && k > mu && p < 1e-30L * cdf) break;
  }
  d.variance = second - d.mean * d.mean;
  return d;
}

TEST(CountSums, MomentsModeAndIntervalMatchDirectSums) {
  const double means[] = {0.05, 0.7, 3.2, 17.5, 140.0, 2600.0};
  const double scales[] = {0.0, 1e-9, 0.03, 0.4, 0.95, 2.5};
  const double probabilities[] = {0.5, 0.9, 0.99};
  int off_by_one_float = 0, cases = 0;
  double worst_relative = 0.0;
  for (double mu : means) {
    for (double psi : scales) {
      for (double q : probabilities) {
        const Direct d = direct_sums(mu, psi, q);
        const double nu = std::log(mu);
        const outputs::CountMoments<double> m = outputs::count_moments(nu, psi);
        EXPECT_NEAR(m.mean, static_cast<double>(d.mean), 1e-9 * mu) << mu << " " << psi;
        EXPECT_NEAR(m.variance, static_cast<double>(d.variance), 1e-7 * m.variance)
            << mu << " " << psi;
        // The mode formula; where two counts tie (integer (1 - psi) mu) either is a mode.
        EXPECT_NEAR(m.mode, d.mode, 1.0) << mu << " " << psi;
        if (std::abs((1 - psi) * mu - std::round((1 - psi) * mu)) > 1e-6 || psi >= 1) {
          EXPECT_EQ(m.mode, d.mode) << mu << " " << psi;
        }
        const outputs::CountInterval<double> i = outputs::count_interval(m.mean, psi, q, 100000);
        ASSERT_TRUE(i.complete) << mu << " " << psi << " " << q;
        EXPECT_EQ(i.lower, d.lower) << mu << " " << psi << " " << q;
        EXPECT_EQ(i.upper, d.upper) << mu << " " << psi << " " << q;
        // float: the runtime's instantiation. Its pmf recurrence drifts by a few ulp per term,
        // so a bound moves by one where the CDF is that close to a threshold, and by up to
        // ~0.4 % in the heavy tails of large means (mean 2600, psi ~ 1: ~13000 terms).
        const outputs::CountInterval<float> f = outputs::count_interval(
            static_cast<float>(m.mean), static_cast<float>(psi), static_cast<float>(q), 100000);
        ASSERT_TRUE(f.complete) << mu << " " << psi << " " << q;
        EXPECT_NEAR(f.lower, d.lower, 1.0 + 0.005 * d.lower) << mu << " " << psi << " " << q;
        EXPECT_NEAR(f.upper, d.upper, 1.0 + 0.005 * d.upper) << mu << " " << psi << " " << q;
        off_by_one_float += (f.lower != d.lower) + (f.upper != d.upper);
        if (mu <= 140.0) {
          EXPECT_NEAR(f.lower, d.lower, 1.0) << mu << " " << psi << " " << q;
          EXPECT_NEAR(f.upper, d.upper, 1.0) << mu << " " << psi << " " << q;
        }
        worst_relative = std::max(worst_relative, std::abs(f.upper - d.upper) / (d.upper + 1));
        ++cases;
      }
    }
  }
  std::printf(
      "count interval, float vs direct sums: %d of %d bounds differ, worst upper %.2e relative\n",
      off_by_one_float, 2 * cases, worst_relative);
}

TEST(CountSums, CapAndLimits) {
  // Poisson(20000) needs ~20000 terms.
  EXPECT_FALSE(outputs::count_interval(20000.0f, 0.0f, 0.9f, PBP_COUNT_MAX_STEPS).complete);
  const outputs::CountInterval<float> ok =
      outputs::count_interval(20000.0f, 0.0f, 0.9f, 2 * PBP_COUNT_MAX_STEPS);
  ASSERT_TRUE(ok.complete);
  const Direct d = direct_sums(20000.0, 0.0, 0.9);
  EXPECT_NEAR(ok.lower, d.lower, 2.0);
  EXPECT_NEAR(ok.upper, d.upper, 2.0);
  EXPECT_EQ(ok.terms, static_cast<uint32_t>(ok.upper) + 1);
  // mu = 0: everything at 0.
  const outputs::CountInterval<float> zero = outputs::count_interval(0.0f, 0.5f, 0.9f, 10);
  EXPECT_TRUE(zero.complete && zero.lower == 0.0f && zero.upper == 0.0f);
  // Probabilities at float's resolution near 1 still finish (the tail test, not the cap).
  const outputs::CountInterval<float> near_one =
      outputs::count_interval(30.0f, 0.1f, 0.99999994f, PBP_COUNT_MAX_STEPS);
  EXPECT_TRUE(near_one.complete);
  EXPECT_GT(near_one.upper, 60.0f);
}

}  // namespace
