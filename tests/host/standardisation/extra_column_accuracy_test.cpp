// SPDX-License-Identifier: Apache-2.0
// Issue 12, part 2: an extra input column that is constant up to rounding, constant but for one
// row, around 1e12 with a spread of 1e-3, or spread over a range of 1e30 must not change what a
// model learns from the informative columns: y = a + 0.5 b + N(0, 0.1^2), 300 training rows,
// scored on 2000 test rows through the runtime (float, as on a device).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "pbp/pbp.h"
#include "pbp/trainer/blob.hpp"
#include "pbp/trainer/random.hpp"
#include "pbp/trainer/train.hpp"

namespace pbp::trainer {
namespace {

// c_at(i, random) gives row i's extra column; nullptr: no extra column.
using ExtraColumn = std::function<double(size_t, Random&)>;

Dataset regression_rows(size_t rows, uint64_t seed, const ExtraColumn& extra) {
  Random random(seed);
  Random extra_random(seed + 1000);
  Dataset data;
  data.rows = rows;
  data.inputs = extra ? 3 : 2;
  data.feature_names = {"a", "b"};
  if (extra) data.feature_names.push_back("c");
  for (size_t i = 0; i < rows; ++i) {
    const double a = random.normal();
    const double b = random.normal();
    data.x.push_back(a);
    data.x.push_back(b);
    if (extra) data.x.push_back(extra(i, extra_random));
    data.y.push_back(a + 0.5 * b + 0.1 * random.normal());
  }
  return data;
}

// Mean test log-likelihood of the Gaussian predictive, from the blob run by the runtime.
double test_loglik(const Model& model, const Dataset& test) {
  const std::vector<uint8_t> blob = write_blob(model);
  std::vector<uint32_t> aligned((blob.size() + 3) / 4);
  std::memcpy(aligned.data(), blob.data(), blob.size());
  pbp_model opened;
  EXPECT_EQ(pbp_open(&opened, aligned.data(), blob.size()), PBP_OK);
  std::vector<float> workspace(opened.workspace_bytes / 4);
  double sum = 0.0;
  for (size_t i = 0; i < test.rows; ++i) {
    const std::vector<float> x(test.row(i), test.row(i) + test.inputs);
    pbp_prediction p;
    EXPECT_EQ(pbp_predict(&opened, x.data(), static_cast<uint32_t>(x.size()), 0.95f,
                          workspace.data(), opened.workspace_bytes, &p),
              PBP_OK);
    const double z = (test.y[i] - p.mean) / p.std;
    sum += -0.5 * z * z - std::log(p.std) - 0.5 * std::log(2.0 * M_PI);
  }
  return sum / static_cast<double>(test.rows);
}

double loglik_with(const ExtraColumn& extra, uint64_t seed) {
  TrainOptions options;
  options.hidden = {50};
  options.epochs = 40;
  options.seed = seed;
  const Model model = train(regression_rows(300, 7, extra), options);
  return test_loglik(model, regression_rows(2000, 8, extra));
}

TEST(ExtraColumns, TrainToTheSameAccuracyAsWithoutThem) {
  // The noise of "the same accuracy": how far the test log-likelihood of the model without the
  // column moves over training seeds (the extra column changes the initial weights as a seed
  // does). Allowed: that spread again beyond its worst seed.
  double lowest = 1e300, highest = -1e300;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    const double ll = loglik_with(nullptr, seed);
    lowest = std::min(lowest, ll);
    highest = std::max(highest, ll);
  }
  const double allowed = lowest - (highest - lowest) - 0.02;
  std::printf("test LL without the column: %.4f .. %.4f; allowed > %.4f\n", lowest, highest,
              allowed);
  const std::vector<std::pair<std::string, ExtraColumn>> columns = {
      {"0.998 everywhere", [](size_t, Random&) { return 0.998; }},
      {"0.1 everywhere", [](size_t, Random&) { return 0.1; }},
      {"288.15 everywhere", [](size_t, Random&) { return 288.15; }},
      {"0.998 but one row 1.5", [](size_t i, Random&) { return i == 17 ? 1.5 : 0.998; }},
      {"1e12 + [0, 1e-3)", [](size_t, Random& r) { return 1e12 + 1e-3 * r.uniform(); }},
      {"uniform on [-1e30, 1e30]", [](size_t, Random& r) { return 1e30 * (2 * r.uniform() - 1); }},
  };
  for (const auto& [what, column] : columns) {
    const double ll = loglik_with(column, 1);
    std::printf("  with %s: %.4f\n", what.c_str(), ll);
    EXPECT_GT(ll, allowed) << "extra column " << what << ": test LL " << ll << ", without it "
                           << lowest << " .. " << highest;
  }
}

}  // namespace
}  // namespace pbp::trainer
