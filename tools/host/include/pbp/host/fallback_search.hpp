// SPDX-License-Identifier: Apache-2.0
// The int8 fallback's searches over storage assignments (quantisation_fidelity.cpp's
// fall_back_within_goals), apart from how a blob is measured, so tests can give them figures.
// `beyond(assignment)` is how far that blob is beyond the goals (<= 1: within both),
// `added_bytes(l, to)` what layer l in `to` adds to the blob.
#pragma once
#include <cstddef>
#include <functional>
#include <vector>

#include "pbp/format.hpp"

namespace pbp::host {

using StorageAssignment = std::vector<format::Storage>;  // one storage type per layer
using BeyondGoals = std::function<double(const StorageAssignment&)>;
using AddedBytes = std::function<std::size_t(std::size_t, format::Storage)>;
using LayerWeights = std::function<std::size_t(std::size_t)>;  // weights of layer l
struct FallbackMove {
  std::size_t layer = 0;
  format::Storage to = format::Storage::float16;
  bool operator==(const FallbackMove&) const = default;
};

// Every assignment of rungs[l] (rungs[l][0] is layer l as it is) to the layers but the all-first
// one (`beyond_now` its figure), tried in order of the bytes they add: the one with the fewest
// bytes within the goals, ties to the fewest `weights(l)` moved off their first rung (each rung up
// costs instructions), then to the lowest beyond; if none is within, the lowest beyond, ties to
// the fewest bytes; the all-first one where none is better. Once one is within, measures only
// those adding the same bytes and moving the same weights.
StorageAssignment smallest_assignment_within_goals(
    const std::vector<std::vector<format::Storage>>& rungs, const AddedBytes& added_bytes,
    const LayerWeights& weights, const BeyondGoals& beyond, double beyond_now);

// One layer at a time from `start` (figure `beyond_now`), each step to any of `steps_from(its
// storage)`: of the steps that bring the blob within the goals, the one adding the fewest bytes
// (ties: the fewest `weights(l)`); if none does, the one with the lowest beyond; until within or
// no step is left. The moves in the order taken.
std::vector<FallbackMove> greedy_moves_within_goals(
    StorageAssignment start,
    const std::function<std::vector<format::Storage>(format::Storage)>& steps_from,
    const AddedBytes& added_bytes, const LayerWeights& weights, const BeyondGoals& beyond,
    double beyond_now);

}  // namespace pbp::host
