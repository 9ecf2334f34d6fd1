// SPDX-License-Identifier: Apache-2.0
// Per task: data drawn from a known random "teacher" network; the trained model must come close
// to what the teacher itself achieves on fresh data (accuracy, or the count rate), and the
// runtime's float class probabilities must agree with the trainer's double ones to 1e-5.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "pbp/pbp.hpp"
#include "pbp/trainer/blob.hpp"
#include "pbp/trainer/random.hpp"
#include "pbp/trainer/train.hpp"

namespace pbp::trainer {
namespace {

constexpr size_t kInputs = 4;

// A fixed one-hidden-layer tanh-free ReLU network with `outputs` outputs.
struct Teacher {
  std::vector<double> w1, w2;
  uint32_t hidden = 8, outputs;
  Teacher(uint32_t out, Random& random) : outputs(out) {
    for (size_t i = 0; i < hidden * (kInputs + 1); ++i) w1.push_back(random.normal());
    for (size_t i = 0; i < outputs * (hidden + 1); ++i) w2.push_back(random.normal());
  }
  std::vector<double> operator()(const double* x) const {
    std::vector<double> h(hidden), out(outputs);
    for (uint32_t j = 0; j < hidden; ++j) {
      double a = w1[j * (kInputs + 1) + kInputs];
      for (size_t k = 0; k < kInputs; ++k) a += w1[j * (kInputs + 1) + k] * x[k];
      h[j] = std::max(a, 0.0);
    }
    for (uint32_t c = 0; c < outputs; ++c) {
      double a = w2[c * (hidden + 1) + hidden];
      for (uint32_t j = 0; j < hidden; ++j) a += w2[c * (hidden + 1) + j] * h[j];
      out[c] = a / std::sqrt(double(hidden));
    }
    return out;
  }
};

uint32_t poisson(double rate, Random& random) {  // Knuth's method: rates here stay small
  const double limit = std::exp(-rate);
  uint32_t k = 0;
  for (double p = random.uniform(); p > limit; p *= random.uniform()) ++k;
  return k;
}

// Labels from the teacher: probit noise for binary, Gumbel (softmax) for multiclass, Poisson.
Dataset sample(const Teacher& teacher, Task task, size_t rows, Random& random) {
  Dataset d;
  d.rows = rows;
  d.inputs = kInputs;
  for (size_t i = 0; i < rows; ++i) {
    for (size_t k = 0; k < kInputs; ++k) d.x.push_back(random.normal());
    const std::vector<double> z = teacher(d.row(i));
    if (task == Task::binary) {
      d.y.push_back(z[0] + random.normal() > 0 ? 1.0 : 0.0);
    } else if (task == Task::multiclass) {
      uint32_t best = 0;
      double best_value = -1e300;
      for (uint32_t c = 0; c < z.size(); ++c) {
        const double gumbel = -std::log(-std::log(random.uniform() + 1e-300) + 1e-300);
        if (z[c] + gumbel > best_value) best_value = z[c] + gumbel, best = c;
      }
      d.y.push_back(best);
    } else {
      d.y.push_back(poisson(std::exp(0.5 * z[0]), random));
    }
  }
  return d;
}

struct ClassScores {
  double model_accuracy, teacher_accuracy, max_probability_gap;
};

ClassScores score_classes(const Model& model, const Teacher& teacher, const Dataset& test) {
  const std::vector<uint8_t> blob = write_blob(model);
  pbp::Model runtime;
  EXPECT_EQ(runtime.open(blob.data(), blob.size()), PBP_OK);
  std::vector<float> workspace(runtime.workspace_bytes() / sizeof(float));
  ClassScores s{0, 0, 0};
  for (size_t i = 0; i < test.rows; ++i) {
    const std::vector<double> p = predict_class_probabilities(model, {test.row(i), kInputs});
    std::vector<float> x(test.row(i), test.row(i) + kInputs), q(p.size());
    pbp::ClassResult r;
    EXPECT_EQ(runtime.predict_classes(x.data(), kInputs, workspace.data(),
                                      workspace.size() * sizeof(float), q.data(),
                                      static_cast<uint32_t>(q.size()), &r),
              PBP_OK);
    for (size_t c = 0; c < p.size(); ++c) {
      s.max_probability_gap = std::max(s.max_probability_gap, std::abs(p[c] - q[c]));
    }
    const uint32_t label = static_cast<uint32_t>(test.y[i]);
    s.model_accuracy += std::max_element(p.begin(), p.end()) - p.begin() == label;
    const std::vector<double> z = teacher(test.row(i));
    const uint32_t teacher_label =
        z.size() == 1 ? (z[0] > 0) : std::max_element(z.begin(), z.end()) - z.begin();
    s.teacher_accuracy += teacher_label == label;
  }
  s.model_accuracy /= test.rows;
  s.teacher_accuracy /= test.rows;
  return s;
}

TEST(SyntheticTasks, BinaryRecoversTheTeacher) {
  Random random(31);
  const Teacher teacher(1, random);
  TrainOptions options;
  options.task = Task::binary;
  options.hidden = {20};
  const Model model = train(sample(teacher, Task::binary, 800, random), options);
  const ClassScores s = score_classes(model, teacher, sample(teacher, Task::binary, 2000, random));
  std::printf("binary: accuracy %.3f, teacher %.3f, max |p_runtime - p_trainer| %.2g\n",
              s.model_accuracy, s.teacher_accuracy, s.max_probability_gap);
  EXPECT_GT(s.model_accuracy, s.teacher_accuracy - 0.04);
  EXPECT_LE(s.max_probability_gap, 1e-5);
}

TEST(SyntheticTasks, MulticlassRecoversTheTeacher) {
  for (SoftmaxApproximation softmax :
       {SoftmaxApproximation::mean_field, SoftmaxApproximation::log_bound,
        SoftmaxApproximation::sampled}) {
    Random random(32);
    const Teacher teacher(4, random);
    TrainOptions options;
    options.task = Task::multiclass;
    options.classes = 4;
    options.hidden = {20};
    options.softmax = softmax;
    const Model model = train(sample(teacher, Task::multiclass, 1500, random), options);
    const ClassScores s =
        score_classes(model, teacher, sample(teacher, Task::multiclass, 2000, random));
    std::printf("multiclass (%s): accuracy %.3f, teacher %.3f, max |p_runtime - p_trainer| %.2g\n",
                softmax == SoftmaxApproximation::sampled     ? "sampled"
                : softmax == SoftmaxApproximation::log_bound ? "log bound"
                                                             : "mean-field",
                s.model_accuracy, s.teacher_accuracy, s.max_probability_gap);
    EXPECT_GT(s.model_accuracy, s.teacher_accuracy - 0.05);
    EXPECT_LE(s.max_probability_gap, 1e-5);
  }
}

TEST(SyntheticTasks, CountRecoversTheRate) {
  Random random(33);
  const Teacher teacher(1, random);
  TrainOptions options;
  options.task = Task::count;
  options.hidden = {20};
  const Model model = train(sample(teacher, Task::count, 1500, random), options);
  const std::vector<uint8_t> blob = write_blob(model);
  pbp::Model runtime;
  ASSERT_EQ(runtime.open(blob.data(), blob.size()), PBP_OK);
  std::vector<float> workspace(runtime.workspace_bytes() / sizeof(float));
  const Dataset test = sample(teacher, Task::count, 1000, random);
  double relative_error = 0.0, mean_rate = 0.0;
  for (size_t i = 0; i < test.rows; ++i) {
    const double rate = std::exp(0.5 * teacher(test.row(i))[0]);
    std::vector<float> x(test.row(i), test.row(i) + kInputs);
    pbp::CountResult r;
    ASSERT_EQ(runtime.predict_count(x.data(), kInputs, 0.9f, workspace.data(),
                                    workspace.size() * sizeof(float), &r),
              PBP_OK);
    relative_error += std::abs(r.mean - rate) / rate;
    mean_rate += rate;
  }
  relative_error /= test.rows;
  std::printf("count: mean rate %.2f, mean |predicted - true| / true %.3f\n", mean_rate / test.rows,
              relative_error);
  EXPECT_LT(relative_error, 0.25);
}

}  // namespace
}  // namespace pbp::trainer
