// SPDX-License-Identifier: Apache-2.0
// The negative-binomial predictive of outputs.hpp against direct sums of its pmf, computed
// independently in long double from lgamma: mean, variance, mode and the central interval, in
// double and in float (the runtime's instantiation).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "pbp/outputs.hpp"
#include "pbp/pbp.h"

namespace {

namespace outputs = pbp::outputs;

// log pmf of NB(mean mu, scale psi); psi = 0: Poisson(mu). `magnitude` gets the sum of the
// terms' magnitudes, which bounds the rounding error of the result (see Direct::log_pmf_error).
// The terms that do not depend on k are computed once (the same values in the same operations,
// so the same bits): long double is binary128 in software under qemu-aarch64, where the
// logarithms and lgamma(r) taken again for each of up to 5e5 terms made this test 40 s long.
struct NbLogPmf {
  long double mu, psi;
  long double r = psi == 0 ? 0 : 1 / psi;
  long double log_mu = std::log(mu);
  long double lgamma_r = psi == 0 ? 0 : std::lgamma(r);
  long double r_log1p = psi == 0 ? 0 : r * std::log1p(psi * mu);
  long double log_odds = psi == 0 ? 0 : std::log(psi * mu) - std::log1p(psi * mu);

  long double operator()(long double k, long double& magnitude) const {
    if (psi == 0) {
      const long double terms[] = {k * log_mu, mu, std::lgamma(k + 1)};
      magnitude = std::abs(terms[0]) + terms[1] + std::abs(terms[2]);
      return terms[0] - terms[1] - terms[2];
    }
    const long double terms[] = {std::lgamma(k + r), lgamma_r, std::lgamma(k + 1), r_log1p,
                                 k * log_odds};
    magnitude = 0;
    for (const long double term : terms) magnitude += std::abs(term);
    return terms[0] - terms[1] - terms[2] - terms[3] + terms[4];
  }
};

// The pmf ratio pmf(k + 1) / pmf(k) of NB(mu, psi).
long double pmf_ratio(long double k, long double mu, long double psi) {
  return mu * (1 + k * psi) / ((k + 1) * (1 + psi * mu));
}

// Unit roundoff of a type: its relative rounding error.
template <class T>
constexpr long double kUnitRoundoff = std::numeric_limits<T>::epsilon() / 2;

// The reference: the pmf summed term by term in long double (x87 80-bit on x86-64, 128-bit on
// aarch64 Linux), normalised by its own total. Each log pmf carries an absolute error of at most
// log_pmf_error = 8 u M (M the terms' summed magnitudes: a few ulp for each lgamma / log and one
// rounding per operation); what is common to every k cancels in the normalisation (lgamma(1/psi)
// is ~2e10 at psi = 1e-9, so the unnormalised sums are off by ~1e-9 relative, and the variance,
// E k^2 - mean^2 with mean^2 = 6.8e6 at mean 2600, by ~7e-3).
struct Direct {
  long double mean = 0, variance = 0;
  double mode = 0;
  std::vector<long double> cdf;    // normalised CDF(k) for k = 0, 1, ... (1 beyond the end)
  long double log_pmf_error = 0;   // bound on each term's log pmf error
  long double cdf_error = 0;       // bound on each CDF(k)'s absolute error
  long double mean_error = 0;      // bound on the mean's absolute error
  long double variance_error = 0;  // bound on the variance's absolute error

  long double cdf_at(double k) const {
    if (k < 0) return 0;
    const size_t index = static_cast<size_t>(k);
    return index < cdf.size() ? cdf[index] : 1.0L;
  }
};

Direct direct_sums(double mu, double psi) {
  Direct d;
  std::vector<long double> pmf;
  long double total = 0, best = -1, magnitude = 0, second = 0;
  // Summed until the tail beyond k (at most pmf(k) rho / (1 - rho), rho bounding the later pmf
  // ratios) is negligible even weighted by k^2: psi = 2.5 at mean 2600 needs ~5e5 terms.
  const long double p_limit = psi * mu / (1 + psi * mu);
  const NbLogPmf log_pmf{mu, psi};
  for (long double k = 0;; ++k) {
    const long double p = std::exp(log_pmf(k, magnitude));
    d.log_pmf_error = std::max(d.log_pmf_error, 8 * kUnitRoundoff<long double> * magnitude);
    pmf.push_back(p);
    total += p;
    if (p > best) {
      best = p;
      d.mode = static_cast<double>(k);
    }
    second += k * k * p;
    const long double rho = psi < 1 ? pmf_ratio(k, mu, psi) : p_limit;
    const long double tail = p * rho / (1 - rho), reach = k + 1 / (1 - rho);
    if (k > mu && rho < 1 && tail * reach * reach < 1e-30L * second) break;
  }
  long double cdf = 0, first = 0;
  second = 0;
  for (size_t k = 0; k < pmf.size(); ++k) {
    const long double p = pmf[k] / total;
    cdf += p;
    d.cdf.push_back(cdf);
    first += static_cast<long double>(k) * p;
    second += static_cast<long double>(k) * static_cast<long double>(k) * p;
  }
  d.mean = first;
  d.variance = second - first * first;
  // Errors of the normalised sums (first order in delta = log_pmf_error, each pmf off by a factor
  // e^delta_k): a CDF by at most 2 delta; the mean by Cov(k, delta) <= E|k - mean| 2 delta <=
  // 2 sd delta; the variance by Cov((k - mean)^2, delta) <= E|(k - mean)^2 - var| 2 delta <=
  // 4 var delta. Summation and the cancellation in E k^2 - mean^2 add n u and 4 u E k^2.
  const long double n = static_cast<long double>(pmf.size());
  const long double u = kUnitRoundoff<long double>;
  d.cdf_error = 2 * d.log_pmf_error + 2 * n * u;
  d.mean_error = 2 * std::sqrt(d.variance) * d.log_pmf_error + 2 * n * u * d.mean;
  d.variance_error = 4 * d.variance * d.log_pmf_error + (2 * n + 4) * u * second;
  return d;
}

// The reference's central interval of the given probability: the smallest k whose CDF reaches
// each threshold.
struct Bounds {
  double lower = -1, upper = -1;
};
Bounds direct_interval(const Direct& d, double probability) {
  Bounds b;
  const long double tail = (1.0L - probability) / 2;
  for (size_t k = 0; k < d.cdf.size(); ++k) {
    if (b.lower < 0 && d.cdf[k] >= tail) b.lower = static_cast<double>(k);
    if (b.upper < 0 && d.cdf[k] >= 1 - tail) b.upper = static_cast<double>(k);
  }
  return b;
}

// count_interval<T>'s CDF error, relative to the CDF (outputs.hpp): pmf(0) from log pmf(0) with
// ~8 roundings of its size (log1p_over_x, the split into w 2^e, exp), each later term one step of
// the recurrence with <= 8 roundings (its ratio's 3 included), Kahan summation 2 u, the tail cut
// 2^-(mantissa - 3) = 8 u; the thresholds (1 -+ probability) / 2 from a probability rounded to T
// (2 u absolute); the mean and psi rounded to T (u each: the CDF moves by pmf(k) mean u <= mean u).
template <class T>
long double interval_error(double k, double mean, double psi, long double cdf) {
  const long double u = kUnitRoundoff<T>;
  const double a = psi * mean;
  const double log_pmf0 = a > 0 ? mean * std::log1p(a) / a : mean;
  return (8 * k + 8 * log_pmf0 + 12) * u * cdf + 2 * u + (mean + 1) * u;
}

// Whether `bound` is the smallest k with CDF(k) >= threshold for some CDF within `error` of the
// reference: it differs from the reference's only where the CDF is that close to the threshold
// (a tie at the resolution of the arithmetic).
template <class T>
::testing::AssertionResult legitimate_bound(double bound, double reference, const Direct& d,
                                            double threshold, double mean, double psi) {
  const long double at = d.cdf_at(bound);
  const long double below = d.cdf_at(bound - 1);
  const long double error_at = d.cdf_error + interval_error<T>(bound, mean, psi, at);
  const long double error_below = d.cdf_error + interval_error<T>(bound - 1, mean, psi, below);
  if (at >= threshold - error_at && (bound == 0 || below < threshold + error_below)) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << "bound " << bound << " (reference " << reference << "): CDF " << static_cast<double>(at)
         << " at it, " << static_cast<double>(below) << " below it, threshold " << threshold
         << ", allowed error " << static_cast<double>(error_at);
}

TEST(CountSums, MomentsModeAndIntervalMatchDirectSums) {
  const double means[] = {0.05, 0.7, 3.2, 17.5, 140.0, 2600.0};
  const double scales[] = {0.0, 1e-9, 0.03, 0.4, 0.95, 2.5};
  const double probabilities[] = {0.5, 0.9, 0.99};
  // count_moments<double>: mu = exp(log mu), log mu rounded (|log mu| u), exp a few ulp; the
  // variance mu (1 + psi mu) adds three roundings and twice mu's error.
  const long double u = kUnitRoundoff<double>;
  int differ_float = 0, cases = 0;
  double worst_relative = 0.0;
  for (double mu : means) {
    for (double psi : scales) {
      // The sums do not depend on the probability: once per (mean, scale), the costliest part
      // (long double is binary128 in software on AArch64).
      const Direct d = direct_sums(mu, psi);
      const double nu = std::log(mu);
      const long double mean_error = (std::abs(nu) + 6) * u;  // relative
      const outputs::CountMoments<double> m = outputs::count_moments(nu, psi);
      EXPECT_NEAR(m.mean, static_cast<double>(d.mean),
                  static_cast<double>(mean_error * mu + d.mean_error))
          << mu << " " << psi;
      EXPECT_NEAR(m.variance, static_cast<double>(d.variance),
                  static_cast<double>((2 * mean_error + 4 * u) * m.variance + d.variance_error))
          << mu << " " << psi;
      // The mode formula; where pmf(mode +- 1) / pmf(mode) is within the reference's error of
      // 1, the two counts tie at its resolution and either is a mode.
      EXPECT_NEAR(m.mode, d.mode, 1.0) << mu << " " << psi;
      const long double tie = 2 * d.log_pmf_error + 8 * u;
      const bool near_tie =
          std::abs(std::log(pmf_ratio(m.mode, mu, psi))) <= tie ||
          (m.mode > 0 && std::abs(std::log(pmf_ratio(m.mode - 1, mu, psi))) <= tie);
      if (!near_tie) {
        EXPECT_EQ(m.mode, d.mode) << mu << " " << psi;
      }
      for (double q : probabilities) {
        const Bounds b = direct_interval(d, q);
        const double tail = (1.0 - q) / 2;
        const outputs::CountInterval<double> i = outputs::count_interval(m.mean, psi, q, 100000);
        ASSERT_TRUE(i.complete) << mu << " " << psi << " " << q;
        EXPECT_TRUE(legitimate_bound<double>(i.lower, b.lower, d, tail, mu, psi))
            << mu << " " << psi << " " << q;
        EXPECT_TRUE(legitimate_bound<double>(i.upper, b.upper, d, 1 - tail, mu, psi))
            << mu << " " << psi << " " << q;
        // float: the runtime's instantiation, whose CDF error grows with k (mean 2600, psi ~ 1:
        // ~13000 terms), so its bounds may move further from the reference in the heavy tails.
        const outputs::CountInterval<float> f = outputs::count_interval(
            static_cast<float>(m.mean), static_cast<float>(psi), static_cast<float>(q), 100000);
        ASSERT_TRUE(f.complete) << mu << " " << psi << " " << q;
        EXPECT_TRUE(legitimate_bound<float>(f.lower, b.lower, d, tail, mu, psi))
            << mu << " " << psi << " " << q;
        EXPECT_TRUE(legitimate_bound<float>(f.upper, b.upper, d, 1 - tail, mu, psi))
            << mu << " " << psi << " " << q;
        differ_float += (f.lower != b.lower) + (f.upper != b.upper);
        worst_relative = std::max(worst_relative, std::abs(f.upper - b.upper) / (b.upper + 1));
        ++cases;
      }
    }
  }
  std::printf(
      "count interval, float vs direct sums: %d of %d bounds differ, worst upper %.2e relative\n",
      differ_float, 2 * cases, worst_relative);
}

TEST(CountSums, CapAndLimits) {
  // Poisson(20000) needs ~20000 terms.
  EXPECT_FALSE(outputs::count_interval(20000.0f, 0.0f, 0.9f, PBP_COUNT_MAX_STEPS).complete);
  const outputs::CountInterval<float> ok =
      outputs::count_interval(20000.0f, 0.0f, 0.9f, 2 * PBP_COUNT_MAX_STEPS);
  ASSERT_TRUE(ok.complete);
  const Direct d = direct_sums(20000.0, 0.0);
  const Bounds b = direct_interval(d, 0.9);
  EXPECT_TRUE(legitimate_bound<float>(ok.lower, b.lower, d, 0.05, 20000.0, 0.0));
  EXPECT_TRUE(legitimate_bound<float>(ok.upper, b.upper, d, 0.95, 20000.0, 0.0));
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
