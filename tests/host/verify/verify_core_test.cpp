// SPDX-License-Identifier: Apache-2.0
// The comparison core of `pbp verify`: the runtime and the trainer agree on the same blob for
// every task, and a disagreement injected into the trainer's model is caught and named.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>

#include "pbp/host/verification.hpp"
#include "pbp/trainer/blob.hpp"
#include "random_models.hpp"

namespace pbp::host {
namespace {

using trainer::Model;
using trainer::Task;

constexpr double kTolerance = 1e-5;

// A random model of `task` (multiclass: 4 classes) with moderate outputs.
Model task_model(Task task, uint64_t seed) {
  Model model = test_fixtures::random_model(3, {8}, seed);
  model.task = task;
  if (task != Task::regression) model.standardisation.target_mean = 0.0;
  if (task != Task::regression) model.standardisation.target_std = 1.0;
  if (task == Task::multiclass) {
    trainer::Layer& last = model.layers.back();
    last.outputs = 4;
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal(0.0, 0.5);
    last.mean.resize(4 * last.row_length());
    for (double& w : last.mean) w = normal(rng);
    last.variance.assign(last.mean.size(), 0.05);
  }
  if (task == Task::count) model.layers.back().mean.back() = 2.0;  // rates around e^2
  return model;
}

ModelRows random_rows(const Model& model, size_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  trainer::Dataset data;
  data.source = "generated";
  data.rows = count;
  data.inputs = model.input_count();
  for (size_t row = 0; row < count; ++row) {
    for (const double value : test_fixtures::random_row(model, rng)) data.x.push_back(value);
  }
  return model_rows(std::move(data));
}

std::vector<std::string> output_names(const VerifyReport& report) {
  std::vector<std::string> names;
  for (const WorstOutput& output : report.outputs) names.push_back(output.comparison.output);
  return names;
}

double difference_of(const VerifyReport& report, const std::string& name) {
  for (const WorstOutput& output : report.outputs) {
    if (output.comparison.output == name) return output.comparison.difference;
  }
  ADD_FAILURE() << "no output " << name;
  return 0.0;
}

TEST(VerifyCore, RuntimeAndTrainerAgreeOnEveryTask) {
  const std::vector<std::pair<Task, std::vector<std::string>>> cases{
      {Task::regression, {"mean", "std", "epistemic_std", "aleatoric_std", "lower", "upper"}},
      {Task::binary, {"p0", "p1", "entropy"}},
      {Task::multiclass, {"p0", "p1", "p2", "p3", "entropy"}},
      {Task::count, {"mean", "variance", "mode", "lower", "upper"}}};
  for (const auto& [task, names] : cases) {
    const std::vector<uint8_t> blob = trainer::write_blob(task_model(task, 7));
    const LoadedModel runtime = LoadedModel::open(blob, "test blob");
    const VerifyReport report = verify_rows(runtime, trainer::read_blob(blob),
                                            random_rows(task_model(task, 7), 300, 8), kTolerance);
    EXPECT_EQ(report.rows, 300u);
    EXPECT_EQ(output_names(report), names) << trainer::task_name(task);
    EXPECT_LE(report.worst().comparison.difference, kTolerance) << trainer::task_name(task);
    std::printf("%s: largest difference %.3g (%s)\n", trainer::task_name(task),
                report.worst().comparison.difference, report.worst().comparison.output.c_str());
  }
}

// Verifies `changed` (the trainer's side) against the blob of `model` (the runtime's side).
VerifyReport verify_changed(const Model& model, const Model& changed) {
  const LoadedModel runtime = LoadedModel::open(trainer::write_blob(model), "test blob");
  return verify_rows(runtime, changed, random_rows(model, 100, 9), kTolerance);
}

TEST(VerifyCore, NamesTheOutputThatDisagrees) {
  // A noisier noise Gamma changes the aleatoric part, and so std and the interval, not the mean.
  const Model regression = trainer::read_blob(trainer::write_blob(task_model(Task::regression, 3)));
  Model noisier = regression;
  noisier.noise.b *= 1.001;
  const VerifyReport noise = verify_changed(regression, noisier);
  EXPECT_GT(difference_of(noise, "aleatoric_std"), 1e-4);
  EXPECT_GT(difference_of(noise, "std"), kTolerance);
  EXPECT_LE(difference_of(noise, "mean"), kTolerance);
  EXPECT_LE(difference_of(noise, "epistemic_std"), kTolerance);
  const std::string worst = noise.worst().comparison.output;
  EXPECT_TRUE(worst == "aleatoric_std" || worst == "std" || worst == "lower" || worst == "upper")
      << worst;

  // One weight of the first layer, moved by 1e-3 of itself.
  Model moved = regression;
  moved.layers[0].mean[0] *= 1.001;
  EXPECT_GT(verify_changed(regression, moved).worst().comparison.difference, kTolerance);

  const Model binary = trainer::read_blob(trainer::write_blob(task_model(Task::binary, 4)));
  Model shifted = binary;
  shifted.layers.back().mean.back() += 0.01;  // the output bias
  const VerifyReport classes = verify_changed(binary, shifted);
  EXPECT_GT(difference_of(classes, "p0"), 1e-4);
  EXPECT_GT(difference_of(classes, "p1"), 1e-4);

  const Model count = trainer::read_blob(trainer::write_blob(task_model(Task::count, 5)));
  Model higher = count;
  higher.layers.back().mean.back() += 0.03;  // the output bias: nu + 0.03 / sqrt(inputs + 1)
  // Relative to the trainer's (higher) rate: 1 - e^-shift.
  const double rate_change = -std::expm1(-0.03 / std::sqrt(count.layers.back().row_length()));
  const VerifyReport counts = verify_changed(count, higher);
  EXPECT_NEAR(difference_of(counts, "mean"), rate_change, 1e-5);
  EXPECT_GT(difference_of(counts, "variance"), rate_change);
}

TEST(VerifyCore, RefusesModelsOfAnotherShape) {
  const Model regression = task_model(Task::regression, 6);
  EXPECT_THROW(verify_changed(regression, task_model(Task::count, 6)), std::runtime_error);
  EXPECT_THROW(verify_changed(regression, test_fixtures::random_model(4, {8}, 6)),
               std::runtime_error);
}

TEST(VerifyCore, DifferenceIsRelativeAboveTheFloorAbsoluteBelow) {
  EXPECT_DOUBLE_EQ(output_difference(101.0, 100.0, 1.0), 0.01);
  EXPECT_NEAR(output_difference(0.5 + 1e-6, 0.5, 1.0), 1e-6, 1e-15);  // |0.5| below the floor
  EXPECT_DOUBLE_EQ(output_difference(1e-9, 0.0, 2.0), 0.5e-9);
  EXPECT_EQ(output_difference(3.0, 3.0, 1.0), 0.0);
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(output_difference(std::nan(""), 1.0, 1.0), inf);
  EXPECT_EQ(output_difference(1.0, inf, 1.0), inf);
  EXPECT_EQ(output_difference(inf, inf, 1.0), 0.0);
}

}  // namespace
}  // namespace pbp::host
