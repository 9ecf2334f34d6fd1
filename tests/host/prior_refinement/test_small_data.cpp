// SPDX-License-Identifier: Apache-2.0
// Small training sets (active learning starts from 20 rows) must give a usable model for every
// task, size, seed and width: the prior Gamma used to run away on them (issue 12, part 5), ending
// in "prior b is not finite in float32" or a noise Gamma with a <= 1, or in a model whose prior
// variance was 1e6 and whose predictions were useless. See FactorStart (prior.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "pbp/trainer/blob.hpp"
#include "pbp/trainer/train.hpp"
#include "prior_test_support.hpp"

namespace pbp::trainer {
namespace {

using test::synthetic;

// A smooth function of 7 standard normal inputs, like the Boston split that showed the problem
// (13 inputs): each input matters, none much.
double term(double v, size_t k) {
  return std::sin(v + static_cast<double>(k)) + 0.3 * v;
}

Dataset data_for(Task task, uint64_t seed, size_t rows) {
  switch (task) {
    case Task::binary:
      return synthetic(seed, rows, 7, term, 0.3, [](double t) { return t > 0 ? 1.0 : 0.0; });
    case Task::multiclass:
      return synthetic(seed, rows, 7, term, 0.3,
                       [](double t) { return t < -0.7 ? 0.0 : (t < 0.7 ? 1.0 : 2.0); });
    case Task::count:
      return synthetic(seed, rows, 7, term, 0.3,
                       [](double t) { return std::floor(std::exp(0.4 * t + 1.0)); });
    case Task::regression:
      break;
  }
  return synthetic(seed, rows, 7, term, 0.3, [](double t) { return 3.0 * t + 20.0; });
}

// On standardised data the EP prior variance b/(a-1) settles near the weights' second moment,
// O(1) (0.5-1.5 on these sets and on Boston); the runaway reached 1e2 after the first sweep and
// 1e6 to 1e65 later. 100 tells them apart with two orders of magnitude to spare either way.
constexpr double kRunawayPriorVariance = 100.0;

void check_sizes_seeds_and_widths(Task task, PriorMode prior) {
  const std::vector<std::vector<uint32_t>> widths{{50}, {100}, {50, 50}};
  int trained = 0;
  for (const size_t rows : {10, 20, 46, 100}) {
    for (const uint64_t seed : {1u, 2u, 3u}) {
      const Dataset data = data_for(task, seed, rows);
      for (const std::vector<uint32_t>& hidden : widths) {
        TrainOptions options;
        options.task = task;
        options.prior = prior;
        options.hidden = hidden;
        options.seed = seed;
        const std::string where = std::string(task_name(task)) + ", " + std::to_string(rows) +
                                  " rows, seed " + std::to_string(seed) + ", " +
                                  std::to_string(hidden.size()) + " x " +
                                  std::to_string(hidden.front());
        const Model model = train(data, options);
        // The blob writer refuses a Gamma with a <= 1 or b <= 0 and values not finite in float.
        EXPECT_NO_THROW(write_blob(model)) << where;
        EXPECT_LT(model.prior.variance_estimate(), kRunawayPriorVariance) << where;
        EXPECT_GT(model.prior.a, 1.0) << where;
        if (task == Task::regression) {
          EXPECT_GT(model.noise.a, 1.0) << where;
        }
        ++trained;
      }
    }
  }
  EXPECT_EQ(trained, 36);
}

TEST(SmallData, RegressionGivesAModelAtEverySize) {
  check_sizes_seeds_and_widths(Task::regression, PriorMode::automatic);
}

TEST(SmallData, CountGivesAModelAtEverySize) {
  check_sizes_seeds_and_widths(Task::count, PriorMode::automatic);
}

// Binary and multiclass keep the prior fixed by default (no refinement): they must train at
// every size too. (A learned prior is not asked of them here: small classification sets are
// separable, the weights grow without bound and a learned prior variance follows them, which is
// why their default keeps it fixed.)
TEST(SmallData, BinaryGivesAModelAtEverySize) {
  check_sizes_seeds_and_widths(Task::binary, PriorMode::automatic);
}

TEST(SmallData, MulticlassGivesAModelAtEverySize) {
  check_sizes_seeds_and_widths(Task::multiclass, PriorMode::automatic);
}

}  // namespace
}  // namespace pbp::trainer
