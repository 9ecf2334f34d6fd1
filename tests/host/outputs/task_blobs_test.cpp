// SPDX-License-Identifier: Apache-2.0
// Blobs of every task written by write_blob open with pbp_open as that task, and the runtime's
// task functions (float) agree with outputs.hpp in double on the double-precision moments.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "pbp/moments.hpp"
#include "pbp/outputs.hpp"
#include "pbp/pbp.hpp"
#include "pbp/trainer/blob.hpp"
#include "random_models.hpp"

namespace {

using pbp::trainer::Model;
using pbp::trainer::Task;

// A random model for `task`, with `outputs` units in the last layer.
Model task_model(Task task, uint32_t outputs, uint64_t seed) {
  Model model = pbp::test_fixtures::random_model(5, {8, 6}, seed);
  model.task = task;
  model.standardisation.target_mean = 0.0;
  model.standardisation.target_std = 1.0;
  pbp::trainer::Layer& last = model.layers.back();
  std::mt19937_64 rng(seed + 99);
  std::normal_distribution<double> normal(0.0, 0.4);
  last.outputs = outputs;
  last.mean.assign(size_t{outputs} * last.row_length(), 0.0);
  last.variance.assign(last.mean.size(), 0.02);
  for (double& w : last.mean) w = normal(rng);
  return model;
}

// Output moments in double through the shared layer templates of moments.hpp.
void double_moments(const Model& model, const std::vector<double>& raw, std::vector<double>* nu,
                    std::vector<double>* psi) {
  std::vector<double> mean(raw.size()), var(raw.size(), 0.0);
  for (size_t i = 0; i < raw.size(); ++i) {
    mean[i] = (raw[i] - model.standardisation.input_mean[i]) / model.standardisation.input_std[i];
  }
  for (size_t l = 0; l < model.layers.size(); ++l) {
    const pbp::trainer::Layer& layer = model.layers[l];
    const pbp::LayerWeights<double> w{layer.mean.data(), layer.variance.data(), layer.inputs,
                                      layer.outputs};
    std::vector<double> next_mean(layer.outputs), next_var(layer.outputs);
    if (l == 0) {
      pbp::linear_moments<double, true>(w, mean.data(), nullptr, next_mean.data(), next_var.data());
    } else {
      pbp::relu_moments_inplace(layer.inputs, mean.data(), var.data());
      pbp::linear_moments<double, false>(w, mean.data(), var.data(), next_mean.data(),
                                         next_var.data());
    }
    mean.swap(next_mean);
    var.swap(next_var);
  }
  *nu = mean;
  *psi = var;
}

TEST(TaskBlobs, EveryTaskRoundTripsAndPredicts) {
  const struct {
    Task task;
    uint32_t outputs;
  } cases[] = {{Task::regression, 1},
               {Task::binary, 1},
               {Task::multiclass, 2},
               {Task::multiclass, 7},
               {Task::multiclass, PBP_MAX_CLASSES},
               {Task::count, 1}};
  std::mt19937_64 rng(5);
  for (const auto& c : cases) {
    const Model model = task_model(c.task, c.outputs, 40 + c.outputs);
    const std::vector<uint8_t> blob = pbp::trainer::write_blob(model);
    pbp::Model opened;
    ASSERT_EQ(opened.open(blob.data(), blob.size()), PBP_OK);
    EXPECT_EQ(opened.task(), static_cast<uint32_t>(c.task));
    EXPECT_EQ(opened.output_count(), c.outputs);
    std::vector<float> workspace(opened.workspace_bytes() / 4);
    const size_t bytes = opened.workspace_bytes();
    for (int row = 0; row < 5; ++row) {
      const std::vector<double> raw = pbp::test_fixtures::random_row(model, rng);
      const std::vector<float> x(raw.begin(), raw.end());
      const uint32_t n = static_cast<uint32_t>(x.size());
      std::vector<double> nu, psi;
      double_moments(model, std::vector<double>(x.begin(), x.end()), &nu, &psi);
      pbp::ClassResult classes;
      pbp::CountResult count;
      pbp::Prediction prediction;
      std::vector<float> p(PBP_MAX_CLASSES);
      const pbp_status classes_status = opened.predict_classes(x.data(), n, workspace.data(), bytes,
                                                               p.data(), PBP_MAX_CLASSES, &classes);
      const pbp_status count_status =
          opened.predict_count(x.data(), n, 0.9f, workspace.data(), bytes, &count);
      if (c.task == Task::regression) {
        EXPECT_EQ(opened.predict(x.data(), n, 0.9f, workspace.data(), bytes, &prediction), PBP_OK);
        EXPECT_EQ(classes_status, PBP_ERR_WRONG_TASK);
        EXPECT_EQ(count_status, PBP_ERR_WRONG_TASK);
      } else if (c.task == Task::count) {
        EXPECT_EQ(classes_status, PBP_ERR_WRONG_TASK);
        ASSERT_EQ(count_status, PBP_OK);
        const auto m = pbp::outputs::count_moments(nu[0], psi[0]);
        EXPECT_NEAR(count.mean, m.mean, 1e-4 * m.mean);
        EXPECT_NEAR(count.variance, m.variance, 1e-4 * m.variance);
        const auto interval = pbp::outputs::count_interval(m.mean, psi[0], 0.9, 100000);
        EXPECT_NEAR(count.lower, interval.lower, 1.0);
        EXPECT_NEAR(count.upper, interval.upper, 1.0);
      } else {
        EXPECT_EQ(count_status, PBP_ERR_WRONG_TASK);
        ASSERT_EQ(classes_status, PBP_OK);
        const uint32_t k = c.task == Task::binary ? 2 : c.outputs;
        ASSERT_EQ(classes.class_count, k);
        std::vector<double> expected(k);
        if (c.task == Task::binary) {
          const auto b = pbp::outputs::binary_probabilities(nu[0], psi[0]);
          expected = {b.negative, b.positive};
        } else {
          pbp::outputs::softmax_probabilities(nu.data(), psi.data(), k, expected.data());
        }
        for (uint32_t j = 0; j < k; ++j) EXPECT_NEAR(p[j], expected[j], 2e-5) << j;
        EXPECT_NEAR(classes.entropy, pbp::outputs::entropy(expected.data(), k), 1e-4);
        EXPECT_EQ(classes.confidence, p[classes.predicted_class]);
      }
    }
  }
}

// pbp_predict is for regression only: on a multiclass model it would write output_count moments
// into room for one. Needs predict.cpp to check the task (detail::check_prediction_arguments).
TEST(TaskBlobs, PredictRejectsOtherTasks) {
  for (Task task : {Task::binary, Task::multiclass, Task::count}) {
    const Model model = task_model(task, task == Task::multiclass ? PBP_MAX_CLASSES : 1, 3);
    const std::vector<uint8_t> blob = pbp::trainer::write_blob(model);
    pbp::Model opened;
    ASSERT_EQ(opened.open(blob.data(), blob.size()), PBP_OK);
    std::vector<float> workspace(opened.workspace_bytes() / 4);
    const std::vector<float> x(model.input_count(), 0.5f);
    pbp::Prediction prediction;
    EXPECT_EQ(opened.predict(x.data(), model.input_count(), 0.9f, workspace.data(),
                             opened.workspace_bytes(), &prediction),
              PBP_ERR_WRONG_TASK);
  }
}

TEST(TaskBlobs, WriterRejectsBadOutputCounts) {
  EXPECT_THROW(pbp::trainer::write_blob(task_model(Task::multiclass, 1, 1)), std::invalid_argument);
  EXPECT_THROW(pbp::trainer::write_blob(task_model(Task::multiclass, PBP_MAX_CLASSES + 1, 1)),
               std::invalid_argument);
  EXPECT_THROW(pbp::trainer::write_blob(task_model(Task::binary, 2, 1)), std::invalid_argument);
  EXPECT_THROW(pbp::trainer::write_blob(task_model(Task::count, 3, 1)), std::invalid_argument);
  Model bad = task_model(Task::count, 1, 1);
  bad.task = static_cast<Task>(4);
  EXPECT_THROW(pbp::trainer::write_blob(bad), std::invalid_argument);
}

}  // namespace
