// SPDX-License-Identifier: Apache-2.0
// The int8 fallback's search (pbp/host/fallback_search.hpp) on made-up figures.
#include "pbp/host/fallback_search.hpp"

#include <gtest/gtest.h>

#include <map>

namespace pbp::host {
namespace {

using format::Storage;
constexpr Storage kInt8 = Storage::int8, kLog = Storage::int8_log_variance,
                  kHalf = Storage::float16;
const std::vector<std::vector<Storage>> kRungs = {{kInt8, kLog, kHalf}, {kInt8, kLog, kHalf}};
// float16 adds 100 bytes on layer 0, 10 on layer 1; logarithmic codes none
std::size_t added(std::size_t layer, Storage to) {
  return to == kHalf ? (layer == 0 ? 100u : 10u) : 0u;
}

// A table of figures (default: far beyond), counting the assignments measured.
struct Figures {
  std::map<StorageAssignment, double> beyond;
  int measured = 0;
  double operator()(const StorageAssignment& a) {
    ++measured;
    const auto it = beyond.find(a);
    return it == beyond.end() ? 9.0 : it->second;
  }
};

std::size_t weights(std::size_t layer) {
  return layer == 0 ? 50u : 5u;
}
StorageAssignment search(Figures& f, double now) {
  return smallest_assignment_within_goals(
      kRungs, added, weights, [&f](const StorageAssignment& a) { return f(a); }, now);
}

// No single step is within the goals, and layer 0 in float16 comes closest: one step at a time
// would take it and then logarithmic codes for layer 1 (100 bytes). The search keeps the 10-byte
// one.
TEST(FallbackSearch, FindsTheCheapestPairThatNoSingleStepReveals) {
  Figures f;
  f.beyond = {{{kHalf, kInt8}, 1.1}, {{kLog, kInt8}, 3.0},  {{kInt8, kHalf}, 4.0},
              {{kLog, kHalf}, 0.9},  {{kHalf, kHalf}, 0.5}, {{kHalf, kLog}, 0.95}};
  EXPECT_EQ(search(f, 5.0), (StorageAssignment{kLog, kHalf}));
}

// Among those adding no bytes, the one moving fewest weights (layer 1's 5), then the closest;
// nothing beyond them is measured once one is within.
TEST(FallbackSearch, AmongEqualBytesTheFewestWeightsMovedThenTheClosest) {
  Figures f;
  f.beyond = {
      {{kInt8, kLog}, 0.9}, {{kLog, kInt8}, 0.8}, {{kLog, kLog}, 0.6}, {{kInt8, kHalf}, 0.1}};
  EXPECT_EQ(search(f, 2.0), (StorageAssignment{kInt8, kLog}));
  EXPECT_EQ(f.measured, 1);
  Figures g;  // layer 1 alone is not within: layer 0 alone (50 weights) before both (55)
  g.beyond = {{{kInt8, kLog}, 1.2}, {{kLog, kInt8}, 0.8}, {{kLog, kLog}, 0.6}};
  EXPECT_EQ(search(g, 2.0), (StorageAssignment{kLog, kInt8}));
  EXPECT_EQ(g.measured, 2);
}

TEST(FallbackSearch, NoneWithinKeepsTheClosestThenTheFewestBytes) {
  Figures f;
  f.beyond = {{{kHalf, kHalf}, 1.5}, {{kInt8, kHalf}, 1.5}, {{kLog, kLog}, 1.7}};
  EXPECT_EQ(search(f, 2.0), (StorageAssignment{kInt8, kHalf}));
  Figures worse;  // every step further away: the layers stay as they are
  EXPECT_EQ(search(worse, 2.0), (StorageAssignment{kInt8, kInt8}));
  EXPECT_EQ(worse.measured, 8);
}

// One layer at a time (models with more layers than the search above tries): the steps up the
// ladder from a layer's storage, float16 its top.
std::vector<Storage> steps_from(Storage s) {
  if (s == kInt8) return {kLog, kHalf};
  if (s == kLog) return {kHalf};
  return {};
}
std::vector<FallbackMove> greedy(Figures& f, double now) {
  return greedy_moves_within_goals(
      {kInt8, kInt8}, steps_from, added, weights, [&f](const StorageAssignment& a) { return f(a); },
      now);
}

TEST(FallbackSearch, OneLayerAtATimeTakesTheClosestStepThenTheCheapestWithin) {
  Figures f;  // the first test's figures: this search misses the 10-byte pair
  f.beyond = {{{kHalf, kInt8}, 1.1}, {{kLog, kInt8}, 3.0},  {{kInt8, kHalf}, 4.0},
              {{kLog, kHalf}, 0.9},  {{kHalf, kHalf}, 0.5}, {{kHalf, kLog}, 0.95}};
  const std::vector<FallbackMove> moves = greedy(f, 5.0);
  EXPECT_EQ(moves, (std::vector<FallbackMove>{{0, kHalf}, {1, kLog}}));
}

TEST(FallbackSearch, OneLayerAtATimeTiesGoToTheSmallerLayerAndItStopsAtTheTop) {
  Figures f;  // both logarithmic steps within and no bytes: layer 1 has fewer weights
  f.beyond = {{{kLog, kInt8}, 0.5}, {{kInt8, kLog}, 0.7}};
  EXPECT_EQ(greedy(f, 2.0), (std::vector<FallbackMove>{{1, kLog}}));
  Figures never;  // nothing within: up the ladder until no step is left (float16 everywhere)
  const std::vector<FallbackMove> moves = greedy(never, 10.0);
  ASSERT_FALSE(moves.empty());
  StorageAssignment now{kInt8, kInt8};
  for (const FallbackMove& m : moves) now[m.layer] = m.to;
  EXPECT_EQ(now, (StorageAssignment{kHalf, kHalf}));
  EXPECT_EQ(greedy(never, 0.5), std::vector<FallbackMove>{});  // within already: no move
}

}  // namespace
}  // namespace pbp::host
