// SPDX-License-Identifier: Apache-2.0
// Hand-built models behind the committed test blobs (tests/runtime/blobs/tiny_blob.h and the
// fuzz seed corpus). Plain formulas, no RNG: the bytes must be the same on every machine.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "pbp/trainer/model.hpp"

namespace pbp::test_fixtures {

// A weight pattern in [-0.5, 0.5] and a variance pattern in [0.01, 0.2].
inline double pattern_mean(uint32_t layer, uint32_t i) {
  return static_cast<double>(static_cast<int>((i * 7u + layer * 3u) % 11u) - 5) / 10.0;
}
inline double pattern_variance(uint32_t layer, uint32_t i) {
  return static_cast<double>((i * 5u + layer) % 20u + 1u) / 100.0;
}

// A network inputs -> hidden... -> 1 with pattern weights.
inline trainer::Model pattern_model(uint32_t inputs, const std::vector<uint32_t>& hidden,
                                    trainer::Activation activation = trainer::Activation::relu) {
  trainer::Model model;
  uint32_t previous = inputs;
  std::vector<uint32_t> widths = hidden;
  widths.push_back(1);
  for (uint32_t l = 0; l < widths.size(); ++l) {
    trainer::Layer layer;
    layer.inputs = previous;
    layer.outputs = widths[l];
    layer.activation = l + 1 < widths.size() ? activation : trainer::Activation::linear;
    for (uint32_t i = 0; i < layer.outputs * layer.row_length(); ++i) {
      layer.mean.push_back(pattern_mean(l, i));
      layer.variance.push_back(pattern_variance(l, i));
    }
    model.layers.push_back(layer);
    previous = widths[l];
  }
  model.noise = {6.5, 3.25};
  model.prior = {7.0, 5.5};
  for (uint32_t k = 0; k < inputs; ++k) {
    model.standardisation.input_mean.push_back(0.25 * k - 1.0);
    model.standardisation.input_std.push_back(0.5 + 0.25 * k);
  }
  model.standardisation.target_mean = 20.5;
  model.standardisation.target_std = 4.0;
  return model;
}

// 2 inputs -> 3 ReLU -> 1, with every metadata field and the inputs' training ranges: the blob
// the portable tests edit. Input means -1 and -0.75, stds 0.5 and 0.75.
inline trainer::Model tiny_model() {
  trainer::Model model = pattern_model(2, {3});
  model.standardisation.input_min = {-2.0, -2.5};
  model.standardisation.input_max = {0.5, 1.0};
  // Move-assigned std::strings: assigning literals trips GCC 12's -Wrestrict false positive.
  model.metadata.name = std::string("tiny");
  model.metadata.feature_names = {"a", "bc"};
  model.metadata.target_name = std::string("y");
  model.metadata.training_rows = 10;
  model.metadata.notes = std::string("n");
  return model;
}

// Inputs at which the portable predict test compares the runtime with the trainer's predict.
inline const std::vector<std::vector<double>>& tiny_inputs() {
  static const std::vector<std::vector<double>> inputs = {
      {0.0, 0.0}, {-1.0, -0.75}, {1.5, -2.0}, {-3.0, 4.0}, {10.0, 0.125}};
  return inputs;
}

}  // namespace pbp::test_fixtures
