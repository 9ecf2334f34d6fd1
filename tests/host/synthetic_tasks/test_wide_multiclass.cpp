// SPDX-License-Identifier: Apache-2.0
// Multiclass training of wide, deep networks (many inputs, two hidden layers), where the start
// matters: unit-scale weight means, and prior factors that start at them when the prior is
// learned.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "pbp/trainer/metrics.hpp"
#include "pbp/trainer/random.hpp"
#include "pbp/trainer/train.hpp"

namespace pbp::trainer {
namespace {

constexpr size_t kWideInputs = 200;
constexpr uint32_t kClasses = 4;

// Labels argmax_c (w_c . x / sqrt(inputs) * 3 + Gumbel noise): a linear teacher the network must
// read through its hidden layers. Inputs are correlated in blocks of 10, like neighbouring pixels.
Dataset teacher_data(size_t rows, uint64_t seed) {
  Random weights(99);
  std::vector<double> w(kClasses * kWideInputs);
  for (double& v : w) v = weights.normal();
  Random random(seed);
  Dataset d;
  d.rows = rows;
  d.inputs = kWideInputs;
  for (size_t i = 0; i < rows; ++i) {
    double block = 0.0;
    for (size_t k = 0; k < kWideInputs; ++k) {
      if (k % 10 == 0) block = random.normal();
      d.x.push_back(block + 0.5 * random.normal());
    }
    uint32_t best = 0;
    double best_value = -1e300;
    for (uint32_t c = 0; c < kClasses; ++c) {
      double z = 0.0;
      for (size_t k = 0; k < kWideInputs; ++k)
        z += w[c * kWideInputs + k] * d.x[i * kWideInputs + k];
      z = 3.0 * z / std::sqrt(double(kWideInputs));
      const double gumbel = -std::log(-std::log(random.uniform() + 1e-300) + 1e-300);
      if (z + gumbel > best_value) best_value = z + gumbel, best = c;
    }
    d.y.push_back(best);
  }
  return d;
}

ClassificationMetrics evaluate(const Model& model, const Dataset& test) {
  std::vector<double> probabilities;
  for (size_t i = 0; i < test.rows; ++i) {
    const std::vector<double> p = predict_class_probabilities(model, {test.row(i), test.inputs});
    probabilities.insert(probabilities.end(), p.begin(), p.end());
  }
  return classification_metrics(test.y, probabilities, kClasses);
}

TrainOptions wide_options() {
  TrainOptions options;
  options.task = Task::multiclass;
  options.classes = kClasses;
  options.hidden = {64, 64};
  options.epochs = 3;
  return options;
}

// Multiclass starts the means at unit scale; the other tasks keep the paper's slight
// perturbation eps ~ N(0, 1/(n+1)). No epoch: the model is its start.
TEST(WideMulticlass, MeansStartAtUnitScaleForMulticlassOnly) {
  const Dataset data = teacher_data(50, 3);
  auto first_layer_mean_square = [&](Task task, InitialMeans init) {
    TrainOptions options = wide_options();
    options.task = task;
    options.classes = task == Task::multiclass ? kClasses : 0;
    options.initial_means = init;
    options.epochs = 0;
    Dataset relabelled = data;
    if (task == Task::binary) {
      for (double& y : relabelled.y) y = y > 0.5 ? 1.0 : 0.0;
    }
    const Model model = train(relabelled, options);
    double sum = 0.0;
    for (double m : model.layers[0].mean) sum += m * m;
    return sum / double(model.layers[0].mean.size());
  };
  const double paper = 1.0 / (kWideInputs + 1.0);
  EXPECT_NEAR(first_layer_mean_square(Task::multiclass, InitialMeans::automatic), 1.0, 0.05);
  EXPECT_NEAR(first_layer_mean_square(Task::multiclass, InitialMeans::paper), paper, 0.05 * paper);
  EXPECT_NEAR(first_layer_mean_square(Task::regression, InitialMeans::automatic), paper,
              0.05 * paper);
  EXPECT_NEAR(first_layer_mean_square(Task::binary, InitialMeans::automatic), paper, 0.05 * paper);
  EXPECT_NEAR(first_layer_mean_square(Task::regression, InitialMeans::unit), 1.0, 0.05);
}

// With the paper's start the means' signal vanishes through two wide layers and three epochs
// leave the network at chance (0.295 measured); from unit-scale means it learns (0.682).
TEST(WideMulticlass, UnitMeansLetAWideDeepNetworkLearn) {
  const Dataset train_set = teacher_data(1500, 1), test = teacher_data(2000, 2);
  TrainOptions options = wide_options();
  const ClassificationMetrics unit = evaluate(train(train_set, options), test);
  options.initial_means = InitialMeans::paper;
  const ClassificationMetrics paper = evaluate(train(train_set, options), test);
  std::printf("wide 200-64-64-4, 3 epochs: accuracy %.3f unit means, %.3f paper (ECE %.3f, %.3f)\n",
              unit.accuracy, paper.accuracy, unit.ece, paper.ece);
  EXPECT_GT(unit.accuracy, 0.6);
  EXPECT_GT(unit.accuracy, paper.accuracy + 0.2);
}

// Learning the prior from unit-scale means: the factors start at those means, so the EP sweeps
// see only what the data added. Started at zero mean, the first cavities credit the data with
// the random start (amplified about 40-fold) and the prior variance runs away (9e5 after 8
// epochs, measured; 14 with the factors at the means).
TEST(WideMulticlass, LearnedPriorFromUnitMeansStaysBounded) {
  const Dataset train_set = teacher_data(1500, 1), test = teacher_data(2000, 2);
  TrainOptions options = wide_options();
  options.prior = PriorMode::learned;
  options.epochs = 8;
  const Model model = train(train_set, options);
  const ClassificationMetrics m = evaluate(model, test);
  std::printf("learned prior: variance %.3g, accuracy %.3f\n", model.prior.variance_estimate(),
              m.accuracy);
  EXPECT_LT(model.prior.variance_estimate(), 100.0);
  EXPECT_GT(m.accuracy, 0.65);
}

}  // namespace
}  // namespace pbp::trainer
