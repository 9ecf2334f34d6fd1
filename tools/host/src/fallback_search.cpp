// SPDX-License-Identifier: Apache-2.0
// The fallback's searches over storage assignments (fallback_search.hpp).
#include "pbp/host/fallback_search.hpp"

#include <algorithm>
#include <utility>

namespace pbp::host {

StorageAssignment smallest_assignment_within_goals(
    const std::vector<std::vector<format::Storage>>& rungs, const AddedBytes& added_bytes,
    const LayerWeights& weights, const BeyondGoals& beyond, double beyond_now) {
  const std::size_t layers = rungs.size();
  std::size_t assignments = 1;
  StorageAssignment best(layers);
  for (std::size_t l = 0; l < layers; ++l) {
    assignments *= rungs[l].size();
    best[l] = rungs[l].front();
  }
  struct Trial {
    std::size_t bytes = 0, moved = 0;  // added bytes, weights off their first rung
    StorageAssignment storage;
  };
  std::vector<Trial> trials;
  for (std::size_t index = 1; index < assignments; ++index) {  // 0: every layer as it is
    Trial trial{0, 0, StorageAssignment(layers)};
    for (std::size_t l = 0, rest = index; l < layers; rest /= rungs[l].size(), ++l) {
      trial.storage[l] = rungs[l][rest % rungs[l].size()];
      trial.bytes += added_bytes(l, trial.storage[l]);
      if (rest % rungs[l].size() != 0) trial.moved += weights(l);
    }
    trials.push_back(std::move(trial));
  }
  std::stable_sort(trials.begin(), trials.end(), [](const Trial& a, const Trial& b) {
    return a.bytes != b.bytes ? a.bytes < b.bytes : a.moved < b.moved;
  });
  double best_beyond = beyond_now;
  std::size_t best_bytes = 0, best_moved = 0;
  for (const Trial& trial : trials) {
    const bool best_within = best_beyond <= 1.0;
    // in this order nothing after a within one is better but at the same bytes and weights
    if (best_within && (trial.bytes != best_bytes || trial.moved != best_moved)) break;
    const double b = beyond(trial.storage);
    const bool within = b <= 1.0;
    const bool better = within != best_within ? within
                        : within              ? b < best_beyond
                                 : (b != best_beyond ? b < best_beyond : trial.bytes < best_bytes);
    if (better) {
      best = trial.storage;
      best_beyond = b;
      best_bytes = trial.bytes;
      best_moved = trial.moved;
    }
  }
  return best;
}

std::vector<FallbackMove> greedy_moves_within_goals(
    StorageAssignment start,
    const std::function<std::vector<format::Storage>(format::Storage)>& steps_from,
    const AddedBytes& added_bytes, const LayerWeights& weights, const BeyondGoals& beyond,
    double beyond_now) {
  std::vector<FallbackMove> moves;
  StorageAssignment now = std::move(start);
  while (beyond_now > 1.0) {
    bool found = false;
    FallbackMove best_move;
    double best = 0.0;
    const auto better = [&](double b, const FallbackMove& m) {
      if (!found) return true;
      if (b <= 1.0 && best <= 1.0) {
        const std::size_t bytes = added_bytes(m.layer, m.to);
        const std::size_t best_bytes = added_bytes(best_move.layer, best_move.to);
        if (bytes != best_bytes) return bytes < best_bytes;
        return weights(m.layer) < weights(best_move.layer);
      }
      return b < best;
    };
    for (std::size_t l = 0; l < now.size(); ++l) {
      for (const format::Storage to : steps_from(now[l])) {
        StorageAssignment trial = now;
        trial[l] = to;
        const double b = beyond(trial);
        if (better(b, {l, to})) {
          found = true;
          best_move = {l, to};
          best = b;
        }
      }
    }
    if (!found) break;  // every layer at the ladder's top already
    moves.push_back(best_move);
    now[best_move.layer] = best_move.to;
    beyond_now = best;
  }
  return moves;
}

}  // namespace pbp::host
