// SPDX-License-Identifier: Apache-2.0
// The runtime's float update tracks the trainer's double ADF update (prior fixed: the device runs
// no EP) from the same blob over the same 1 000 rows, checked two ways.
//
// Step by step: before each row both start from the same state (the double one rounded to
// float), so the difference is one update's arithmetic. The forward moments agree to ~1.2e-6
// relative (pbp verify's float-vs-double figures), eqs. 6-7 add a few float roundings (6e-8
// each), and the curvature term of the likelihood cancels: for the Gaussian (r/V)^2 - (r^2/V -
// 1)/V = 1/V loses a factor 1 + r^2/V, for the probit ratio (ratio + x) a factor 1 + x^2 (x the
// probit argument; ratio -> -x in the left tail). So each weight's mean (in its posterior std)
// and variance (relative) after one update agree to 2e-6 (1 + z^2), z^2 that factor's.
//
// Free running: 1 000 updates each on its own side; the step's errors add up, at worst
// linearly, to 1 000 x 1e-6 = 1e-3 (in each weight's std, relative for variances and the noise
// Gamma), and predictions on fresh rows agree to 1e-3 of the predictive std (binary: 1e-3 in
// probability), with the same weights skipped on both sides.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "learn_fixture.hpp"
#include "pbp/trainer/adf.hpp"
#include "pbp/trainer/likelihood.hpp"

namespace pbp_learn_test {
namespace {

constexpr double kStepError = 2e-6;
constexpr double kFreeRunningTolerance = 1e-3;  // 1 000 updates x 1e-6

// Worst |m_f - m_d| / sqrt(v_d) and |v_f - v_d| / v_d over every weight.
double weight_deviation(const pbp_learner& learner, const Model& model) {
  double worst = 0.0;
  for (uint32_t l = 0; l < learner.model.layer_count; ++l) {
    const pbp_layer& layer = learner.model.layers[l];
    for (size_t i = 0; i < model.layers[l].mean.size(); ++i) {
      const double m = model.layers[l].mean[i], v = model.layers[l].variance[i];
      worst = std::max(
          {worst, std::abs(layer.mean[i] - m) / std::sqrt(v), std::abs(layer.variance[i] - v) / v});
    }
  }
  return worst;
}

// The device's state and noise set to the host's, rounded to float (and the host to those).
void synchronise(Learner& device, Model& host) {
  size_t at = 0;
  for (Layer& layer : host.layers) {
    for (std::vector<double>* values : {&layer.mean, &layer.variance}) {
      for (double& value : *values) value = device.state[at++] = static_cast<float>(value);
    }
  }
  host.noise.a = device.learner.model.noise_a = static_cast<float>(host.noise.a);
  host.noise.b = device.learner.model.noise_b = static_cast<float>(host.noise.b);
  device.learner.update_noise_a = device.learner.model.noise_a;  // the Gamma the update uses
  device.learner.update_noise_b = device.learner.model.noise_b;
}

struct Row {
  float xf[3];
  double x[3];
  float yf;
  double y;
};

Row row_of(const Dataset& data, size_t r, const Model& host, Task task) {
  const Standardisation& s = host.standardisation;
  Row row;
  for (int k = 0; k < 3; ++k) {
    row.xf[k] = static_cast<float>(data.row(r)[k]);
    row.x[k] = (static_cast<double>(row.xf[k]) - s.input_mean[k]) / s.input_std[k];
  }
  row.yf = static_cast<float>(data.y[r]);
  row.y = task == Task::regression ? (row.yf - s.target_mean) / s.target_std : row.yf;
  return row;
}

// The cancellation factor 1 + z^2 of the row's likelihood curvature (see the top).
double cancellation(Task task, const Row& row, Model& host, AdfWorkspace& ws) {
  const OutputMoments out = forward_with_cache(host.layers, row.x, ws);
  if (task == Task::regression) {
    const double r = row.y - out.mean;
    return 1.0 + r * r / (out.variance + host.noise.variance_estimate());
  }
  const double x = (row.y > 0.5 ? 1.0 : -1.0) * out.mean / std::sqrt(1.0 + out.variance);
  return 1.0 + x * x;
}

const std::vector<uint8_t>& blob_of(Task task) {
  static const std::vector<uint8_t> regression = write_blob(small_model(Task::regression));
  static const std::vector<uint8_t> binary = write_blob(small_model(Task::binary));
  return task == Task::regression ? regression : binary;
}

void step_by_step(Task task) {
  Learner device(blob_of(task));
  Model host = read_blob(blob_of(task));
  TrainOptions options;
  options.task = task;
  std::unique_ptr<Likelihood> likelihood = make_likelihood(options, 0, &host.noise, 1);
  AdfWorkspace ws(host.layers);
  const Dataset stream = synthetic(task, 1000, 11);
  double worst = 0.0;
  for (size_t r = 0; r < stream.rows; ++r) {
    const Row row = row_of(stream, r, host, task);
    synchronise(device, host);
    const double tolerance = kStepError * cancellation(task, row, host, ws);
    pbp_learn_outcome outcome{};
    ASSERT_EQ(device.update(row.xf, row.yf, &outcome), PBP_OK) << "row " << r;
    const AdfOutcome want = adf_update(host.layers, *likelihood, row.x, row.y, ws);
    ASSERT_EQ(outcome.skipped_weights, want.rejected_weights) << "row " << r;
    const double deviation = weight_deviation(device.learner, host);
    ASSERT_LT(deviation, tolerance) << "row " << r;
    worst = std::max(worst, deviation / tolerance);
    if (task == Task::regression) {
      EXPECT_NEAR(device.learner.model.noise_a, host.noise.a, tolerance * host.noise.a);
      EXPECT_NEAR(device.learner.model.noise_b, host.noise.b, tolerance * host.noise.b);
    }
  }
  std::printf("worst one-update deviation: %.3f of its tolerance\n", worst);
}

void free_running(Task task) {
  Learner device(blob_of(task));
  Model host = read_blob(blob_of(task));
  TrainOptions options;
  options.task = task;
  std::unique_ptr<Likelihood> likelihood = make_likelihood(options, 0, &host.noise, 1);
  AdfWorkspace ws(host.layers);
  const Dataset stream = synthetic(task, 1000, 11);
  uint64_t host_rejected = 0, device_skipped = 0;
  for (size_t r = 0; r < stream.rows; ++r) {
    const Row row = row_of(stream, r, host, task);
    pbp_learn_outcome outcome{};
    ASSERT_EQ(device.update(row.xf, row.yf, &outcome), PBP_OK) << "row " << r;
    device_skipped += outcome.skipped_weights;
    host_rejected += adf_update(host.layers, *likelihood, row.x, row.y, ws).rejected_weights;
  }
  EXPECT_EQ(device.learner.updates, 1000u);
  EXPECT_EQ(device_skipped, host_rejected);
  const double deviation = weight_deviation(device.learner, host);
  std::printf("after 1000 free-running updates: worst weight deviation %.2e\n", deviation);
  EXPECT_LT(deviation, kFreeRunningTolerance);
  if (task == Task::regression) {
    EXPECT_NEAR(device.learner.model.noise_a, host.noise.a, kFreeRunningTolerance * host.noise.a);
    EXPECT_NEAR(device.learner.model.noise_b, host.noise.b, kFreeRunningTolerance * host.noise.b);
    EXPECT_GT(host.noise.a, 400.0);  // it learnt the noise: a grows by 1/2 per row
  }
  const Dataset test = synthetic(task, 50, 12);
  double worst = 0.0;
  for (size_t r = 0; r < test.rows; ++r) {
    float xf[3];
    std::vector<double> x(3);
    for (int k = 0; k < 3; ++k) x[k] = xf[k] = static_cast<float>(test.row(r)[k]);
    if (task == Task::regression) {
      pbp_prediction p;
      ASSERT_EQ(pbp_predict(&device.learner.model, xf, 3, 0.9f, device.predict_workspace.data(),
                            device.predict_workspace.size() * 4, &p),
                PBP_OK);
      const Prediction want = predict(host, x);
      const double sd = std::sqrt(want.variance());
      worst = std::max({worst, std::abs(p.mean - want.mean) / sd, std::abs(p.std - sd) / sd});
    } else {
      pbp_class_result c;
      float probabilities[2];
      ASSERT_EQ(pbp_predict_classes(&device.learner.model, xf, 3, device.predict_workspace.data(),
                                    device.predict_workspace.size() * 4, probabilities, 2, &c),
                PBP_OK);
      worst = std::max(worst, std::abs(probabilities[1] - predict_class_probabilities(host, x)[1]));
    }
  }
  std::printf("worst prediction deviation %.2e\n", worst);
  EXPECT_LT(worst, kFreeRunningTolerance);
}

TEST(LearnAgreement, RegressionUpdateByUpdate) {
  step_by_step(Task::regression);
}
TEST(LearnAgreement, BinaryUpdateByUpdate) {
  step_by_step(Task::binary);
}
TEST(LearnAgreement, RegressionFreeRunningOver1000Rows) {
  free_running(Task::regression);
}
TEST(LearnAgreement, BinaryFreeRunningOver1000Rows) {
  free_running(Task::binary);
}

}  // namespace
}  // namespace pbp_learn_test
