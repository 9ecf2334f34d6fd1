// SPDX-License-Identifier: Apache-2.0
// How an active-learning repeat divides the rows: disjoint parts that cover the data, and with
// --score-on pool no test row anywhere, the scored rows taken from the same split's pool.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <vector>

#include "pbp/host/active_split.hpp"

namespace pbp::host {
namespace {

std::set<size_t> as_set(const std::vector<size_t>& rows) {
  return {rows.begin(), rows.end()};
}

bool disjoint(const std::set<size_t>& a, const std::set<size_t>& b) {
  return std::none_of(a.begin(), a.end(), [&](size_t row) { return b.count(row) != 0; });
}

TEST(ActiveSplit, PartsAreDisjointAndCoverTheRows) {
  for (const bool on_pool : {false, true}) {
    const RepeatSplit split = split_repeat(300, 20, 100, on_pool, 7, 3);
    EXPECT_EQ(split.training.size(), 20u);
    EXPECT_EQ(split.scored.size(), 100u);
    EXPECT_EQ(split.pool.size(), on_pool ? 80u : 180u);
    const auto training = as_set(split.training), scored = as_set(split.scored),
               pool = as_set(split.pool);
    EXPECT_TRUE(disjoint(training, scored));
    EXPECT_TRUE(disjoint(training, pool));
    EXPECT_TRUE(disjoint(scored, pool));
    EXPECT_EQ(training.size() + scored.size() + pool.size() + (on_pool ? 100u : 0u), 300u);
  }
}

TEST(ActiveSplit, ScoringOnThePoolNeverTouchesATestRow) {
  for (size_t repeat = 0; repeat < 20; ++repeat) {
    const RepeatSplit test = split_repeat(500, 20, 100, false, 1, repeat);
    const RepeatSplit dev = split_repeat(500, 20, 100, true, 1, repeat);
    // The same repeat: the same training rows and seeds, so only what is scored differs.
    EXPECT_EQ(dev.training, test.training);
    EXPECT_EQ(dev.training_seed, test.training_seed);
    EXPECT_EQ(dev.pick_seed, test.pick_seed);
    const auto test_rows = as_set(test.scored);
    EXPECT_TRUE(disjoint(test_rows, as_set(dev.scored))) << repeat;
    EXPECT_TRUE(disjoint(test_rows, as_set(dev.pool))) << repeat;
    const auto test_pool = as_set(test.pool);
    for (const size_t row : dev.scored) EXPECT_EQ(test_pool.count(row), 1u) << row;
  }
}

TEST(ActiveSplit, RepeatsDependOnTheSeedAndTheirIndexOnly) {
  const RepeatSplit a = split_repeat(200, 10, 50, false, 5, 4);
  EXPECT_EQ(split_repeat(200, 10, 50, false, 5, 4).scored, a.scored);
  EXPECT_NE(split_repeat(200, 10, 50, false, 5, 5).scored, a.scored);
  EXPECT_NE(split_repeat(200, 10, 50, false, 6, 4).scored, a.scored);
}

}  // namespace
}  // namespace pbp::host
