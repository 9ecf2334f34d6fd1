// Probabilistic Backpropagation training (regression).
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "pbp/trainer/dataset.hpp"
#include "pbp/trainer/model.hpp"

namespace pbp::trainer {

struct TrainOptions {
  std::vector<uint32_t> hidden{50};  // widths of the ReLU hidden layers
  uint32_t epochs = 40;
  uint64_t seed = 1;
  // Called after every epoch with (epochs done, total); for progress bars and training curves.
  std::function<void(uint32_t, uint32_t, const Model&)> on_epoch;
};

// What happened during training, for reports and tests.
struct TrainReport {
  uint64_t updates = 0;                  // ADF likelihood updates
  uint64_t weight_updates_rejected = 0;  // weights whose update gave a non-positive/NaN variance
  uint64_t prior_factor_updates = 0;     // EP prior-factor refinements attempted
  uint64_t prior_factor_skipped = 0;     // ... skipped (invalid cavity)
};

// Trains a model on `data` (at least 2 rows). Deterministic: the same data and options give a
// bit-identical model.
Model train(const Dataset& data, const TrainOptions& options, TrainReport* report = nullptr);

}  // namespace pbp::trainer
