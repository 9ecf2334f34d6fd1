// SPDX-License-Identifier: Apache-2.0
// The batch EP algorithm end to end: it reaches a fixed point on a small problem, is
// deterministic, its predictions are the moments of its own approximation, and it fits a
// simple 1-D regression sensibly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "pbp/trainer/batch_ep.hpp"
#include "pbp/trainer/random.hpp"

namespace pbp::trainer::batch_ep {
namespace {

Dataset sine_data(size_t rows, double noise, uint64_t seed) {
  Random random(seed);
  Dataset data;
  data.source = "sine";
  data.rows = rows;
  data.inputs = 1;
  for (size_t i = 0; i < rows; ++i) {
    const double x = -3.0 + 6.0 * random.uniform();
    data.x.push_back(x);
    data.y.push_back(std::sin(x) + noise * random.normal());
  }
  return data;
}

double predict_mean(const Model& model, double x) {
  return model.predict(std::span<const double>(&x, 1)).mean;
}

// The prediction RMSE against sin on [-2.5, 2.5], where the data are dense.
double sine_error(const Model& model) {
  double squared = 0.0;
  for (int i = 0; i <= 50; ++i) {
    const double x = -2.5 + 5.0 * i / 50.0;
    squared += (predict_mean(model, x) - std::sin(x)) * (predict_mean(model, x) - std::sin(x));
  }
  return std::sqrt(squared / 51.0);
}

TEST(BatchEpTraining, FitsASineAndLearnsTheNoise) {
  const Dataset data = sine_data(60, 0.1, 3);
  Report report;
  const Model model = train(data, Options{}, &report);
  EXPECT_LT(sine_error(model), 0.1);
  // The noise sd (0.1 here) is learned, not left at the prior's 0.01 nor the initial 0.3 sd.
  const double x = 0.0;
  const Prediction near = model.predict(std::span<const double>(&x, 1));
  EXPECT_GT(std::sqrt(near.noise_variance), 0.05);
  EXPECT_LT(std::sqrt(near.noise_variance), 0.2);
  // Far from the data the latent variance grows.
  const double far_x = 8.0;
  EXPECT_GT(model.predict(std::span<const double>(&far_x, 1)).latent_variance,
            4.0 * near.latent_variance);
}

TEST(BatchEpTraining, ReachesAFixedPointOnATinyProblem) {
  const Dataset data = sine_data(12, 0.1, 5);
  Options options;
  options.hidden = 2;
  options.tolerance = 1e-6;
  options.max_sweeps = 400;
  Report report;
  const Model model = train(data, options, &report);
  ASSERT_TRUE(report.converged) << report.largest_change;
  EXPECT_LT(report.largest_change, 1e-6);
  // Sweeping on past the fixed point changes nothing that matters.
  options.tolerance = 0.0;
  options.max_sweeps = report.sweeps + 50;
  Report more;
  const Model later = train(data, options, &more);
  EXPECT_FALSE(more.converged);
  for (const double x : {-2.0, 0.0, 1.5}) {
    EXPECT_NEAR(predict_mean(later, x), predict_mean(model, x), 1e-4);
  }
}

TEST(BatchEpTraining, DeterministicGivenTheSeed) {
  const Dataset data = sine_data(25, 0.1, 9);
  Options options;
  options.max_sweeps = 40;
  const Model a = train(data, options, nullptr), b = train(data, options, nullptr);
  EXPECT_EQ(a.w_mean, b.w_mean);
  EXPECT_EQ(a.v_covariance, b.v_covariance);
  EXPECT_EQ(a.theta_mean, b.theta_mean);
  options.seed = 2;  // other initial input-bias sites
  const Model c = train(data, options, nullptr);
  EXPECT_NE(a.w_mean, c.w_mean);
}

// The prediction is the moments of y under the approximation q(w) q(v) q(theta) itself (eq.
// 68): sample it.
TEST(BatchEpTraining, PredictionsAreTheMomentsOfTheApproximation) {
  const Dataset data = sine_data(30, 0.2, 13);
  Options options;
  options.max_sweeps = 60;
  const Model model = train(data, options, nullptr);
  const size_t d = 2, o = model.hidden + 1;
  auto cholesky = [](const double* a, size_t n) {
    std::vector<double> l(n * n, 0.0);
    for (size_t j = 0; j < n; ++j) {
      double s = a[j * n + j];
      for (size_t p = 0; p < j; ++p) s -= l[j * n + p] * l[j * n + p];
      l[j * n + j] = std::sqrt(std::max(s, 0.0));
      for (size_t i = j + 1; i < n; ++i) {
        double t = a[i * n + j];
        for (size_t p = 0; p < j; ++p) t -= l[i * n + p] * l[j * n + p];
        l[i * n + j] = l[j * n + j] > 0 ? t / l[j * n + j] : 0.0;
      }
    }
    return l;
  };
  std::vector<std::vector<double>> w_chol;
  for (size_t k = 0; k < model.hidden; ++k)
    w_chol.push_back(cholesky(&model.w_covariance[k * d * d], d));
  const std::vector<double> v_chol = cholesky(model.v_covariance.data(), o);
  const double x = 0.7;
  const double z[2] = {(x - model.input_mean[0]) / model.input_scale[0], 1.0};
  Random random(17);
  const size_t n = 200000;
  double sum = 0, squares = 0;
  std::vector<double> ys(n);
  for (size_t s = 0; s < n; ++s) {
    std::vector<double> e(o), v(o);
    for (double& value : e) value = random.normal();
    for (size_t a = 0; a < o; ++a) {
      v[a] = model.v_mean[a];
      for (size_t p = 0; p <= a; ++p) v[a] += v_chol[a * o + p] * e[p];
    }
    double f = v[model.hidden];
    for (size_t k = 0; k < model.hidden; ++k) {
      const double e0 = random.normal(), e1 = random.normal();
      const double w0 = model.w_mean[k * d] + w_chol[k][0] * e0;
      const double w1 = model.w_mean[k * d + 1] + w_chol[k][2] * e0 + w_chol[k][3] * e1;
      f += v[k] * activation(w0 * z[0] + w1 * z[1], model.hidden);
    }
    const double theta = model.theta_mean + std::sqrt(model.theta_variance) * random.normal();
    const double y = f + std::exp(0.5 * theta) * random.normal();
    ys[s] = model.target_mean + model.target_scale * y;
    sum += ys[s];
  }
  const double mean = sum / n;
  double fourth = 0;
  for (const double y : ys) {
    squares += (y - mean) * (y - mean) / n;
  }
  for (const double y : ys) fourth += std::pow(y - mean, 4) / n;
  const Prediction p = model.predict(std::span<const double>(&x, 1));
  EXPECT_NEAR(p.mean, mean, 5.0 * std::sqrt(squares / n));
  EXPECT_NEAR(p.variance(), squares, 5.0 * std::sqrt((fourth - squares * squares) / n));
}

TEST(BatchEpTraining, RejectsBadInput) {
  Dataset one = sine_data(1, 0.1, 1);
  EXPECT_THROW(train(one, Options{}, nullptr), std::invalid_argument);
  Options zero;
  zero.hidden = 0;
  EXPECT_THROW(train(sine_data(10, 0.1, 1), zero, nullptr), std::invalid_argument);
  const Model model = train(sine_data(10, 0.1, 1), Options{}, nullptr);
  const double two[2] = {0, 0};
  EXPECT_THROW(model.predict(std::span<const double>(two, 2)), std::invalid_argument);
}

}  // namespace
}  // namespace pbp::trainer::batch_ep
