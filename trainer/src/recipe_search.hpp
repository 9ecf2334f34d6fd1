// SPDX-License-Identifier: Apache-2.0
// The automatic recipe's search (recipe.cpp's first step): every candidate network and likelihood
// raced over the held-out folds, the best calibrated on the fine grid. Internal to the trainer.
#pragma once
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "pbp/trainer/dataset.hpp"
#include "pbp/trainer/independent_tasks.hpp"
#include "pbp/trainer/model.hpp"
#include "pbp/trainer/recipe.hpp"
#include "pbp/trainer/train.hpp"

namespace pbp::trainer::recipe_detail {

// Progress in epochs over the whole recipe. Trainings may run on two threads; `progress` is called
// on the constructing thread only (as for one thread: the CLI's and Python's Ctrl-C checks are
// there), once per epoch in the order the epochs ended: another thread's at this thread's next
// epoch or at its poll (`report`) while it waits.
class ProgressRelay {
 public:
  ProgressRelay(const std::function<void(const TrainProgress&)>& progress, uint32_t candidates,
                uint64_t total)
      : progress_(progress), caller_(std::this_thread::get_id()) {
    at_.candidates = candidates;
    at_.total = total;
  }
  // An epoch ended: of candidate `candidate` (1-based; 0 the final training).
  void tick(uint32_t epoch, uint32_t candidate, uint32_t epochs);
  void report();                     // on the constructing thread
  void plan_final(uint32_t epochs);  // the total, once the search has chosen (no task running)

 private:
  const std::function<void(const TrainProgress&)>& progress_;
  const std::thread::id caller_;
  std::mutex mutex_;
  TrainProgress at_;
  std::vector<TrainProgress> unreported_;
};

// The search's outcome: the choice (calibrated on the fine grid) and, where the final training goes
// on from it (`keep_models`), the chosen candidate's search model.
struct SearchOutcome {
  RecipeChoice best;
  std::optional<Model> start;
};

// Row indices of fold `f`'s training and held-out parts, from a seeded order of the rows.
std::pair<std::vector<size_t>, std::vector<size_t>> fold_rows(const std::vector<size_t>& order,
                                                              size_t folds, size_t f);

// `options` as the candidates train (their averaging set); `order` the rows' seeded order.
SearchOutcome search_candidates(const Dataset& data, const TrainOptions& options,
                                const std::vector<LikelihoodKind>& likelihoods,
                                const SearchSpace& space, const std::vector<size_t>& order,
                                size_t folds, bool keep_models, IndependentTasks& tasks,
                                ProgressRelay& relay);

}  // namespace pbp::trainer::recipe_detail
