// SPDX-License-Identifier: Apache-2.0
// The negative-binomial count likelihood (eq. 22) as a distribution over y: it sums to 1 with
// mean e^m, matches the textbook pmf, tends to the Poisson as v -> 0, and stays finite.
#include <gtest/gtest.h>

#include <cmath>

#include "likelihoods/likelihoods.hpp"

namespace pbp::trainer {
namespace {

double nb_log_z(double m, double v, double y, double* d_mean = nullptr, double* d_var = nullptr) {
  NegativeBinomialLikelihood likelihood;
  double g, h;
  return likelihood.log_z(&m, &v, y, d_mean ? d_mean : &g, d_var ? d_var : &h);
}

TEST(NegativeBinomial, PmfSumsToOneWithMeanExpM) {
  for (double m : {-2.0, 0.0, 1.5, 4.0}) {
    for (double v : {0.0, 1e-8, 0.01, 0.3, 1.0}) {
      long double total = 0, mean = 0, second = 0;
      for (int y = 0; y < 6000; ++y) {  // the slowest tail (m 4, v 1) is below 1e-40 by then
        const long double p = std::exp(static_cast<long double>(nb_log_z(m, v, y)));
        total += p;
        mean += p * y;
        second += p * y * y;
      }
      const double rate = std::exp(m);
      EXPECT_NEAR(static_cast<double>(total), 1.0, 1e-12) << m << " " << v;
      EXPECT_NEAR(static_cast<double>(mean), rate, 1e-10 * std::max(1.0, rate)) << m << " " << v;
      // NB(mean e^m, scale v): variance e^m + v e^2m.
      const double variance = static_cast<double>(second - mean * mean);
      EXPECT_NEAR(variance, rate + v * rate * rate, 1e-8 * (rate + v * rate * rate));
    }
  }
}

TEST(NegativeBinomial, MatchesTheTextbookPmf) {
  double worst = 0.0;
  for (double m : {-1.0, 0.5, 3.0}) {
    for (double v : {0.01, 0.5, 2.0, 30.0}) {
      for (double y : {0.0, 1.0, 5.0, 80.0, 3000.0}) {
        const double r = 1.0 / v, p = v * std::exp(m) / (1.0 + v * std::exp(m));
        const double expected = std::lgamma(y + r) - std::lgamma(y + 1.0) - std::lgamma(r) +
                                y * std::log(p) + r * std::log1p(-p);
        worst = std::max(
            worst, std::abs(nb_log_z(m, v, y) - expected) / std::max(1.0, std::abs(expected)));
      }
    }
  }
  EXPECT_LE(worst, 1e-12);
}

TEST(NegativeBinomial, PoissonLimit) {
  for (double m : {-3.0, 0.0, 2.0}) {
    for (double y : {0.0, 1.0, 4.0, 30.0}) {
      const double rate = std::exp(m);
      const double poisson = y * m - rate - std::lgamma(y + 1.0);
      double d_mean, d_var;
      EXPECT_NEAR(nb_log_z(m, 0.0, y, &d_mean, &d_var), poisson,
                  1e-13 * std::max(1.0, std::abs(poisson)));
      EXPECT_NEAR(d_mean, y - rate, 1e-13 * std::max(1.0, std::abs(y - rate)));
      // d/dv at v = 0: ((y - e^m)^2 - y) / 2, and continuously so for tiny v (no cancellation).
      const double limit = 0.5 * ((y - rate) * (y - rate) - y);
      EXPECT_NEAR(d_var, limit, 1e-12 * std::max(1.0, std::abs(limit)));
      nb_log_z(m, 1e-14, y, &d_mean, &d_var);
      EXPECT_NEAR(d_var, limit, 1e-9 * std::max(1.0, std::abs(limit)));
    }
  }
}

TEST(NegativeBinomial, FiniteForLargeMeansAndCounts) {
  for (double m : {-700.0, -50.0, 50.0, 300.0, 700.0, 5000.0}) {
    for (double v : {1e-12, 1e-3, 1.0, 1e6}) {
      for (double y : {0.0, 3.0, 1e4, 1e8}) {
        double d_mean, d_var;
        const double value = nb_log_z(m, v, y, &d_mean, &d_var);
        EXPECT_TRUE(std::isfinite(value) && std::isfinite(d_mean) && std::isfinite(d_var))
            << "m " << m << " v " << v << " y " << y << ": " << value << " " << d_mean << " "
            << d_var;
        EXPECT_LE(value, 1e-9);  // a log probability
      }
    }
  }
}

}  // namespace
}  // namespace pbp::trainer
