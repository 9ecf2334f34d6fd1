// SPDX-License-Identifier: Apache-2.0
// Random but sane models for the round-trip and agreement tests: weight means ~ N(0,1)/sqrt(n+1),
// variances ~ U[0.001, 0.5], Gammas with a > 1, standardisation of a plausible data set.
#pragma once
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "pbp/trainer/model.hpp"

namespace pbp::test_fixtures {

inline trainer::Model random_model(uint32_t inputs, const std::vector<uint32_t>& hidden,
                                   uint64_t seed,
                                   trainer::Activation activation = trainer::Activation::relu) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> variance(0.001, 0.5);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  trainer::Model model;
  std::vector<uint32_t> widths = hidden;
  widths.push_back(1);
  uint32_t previous = inputs;
  for (size_t l = 0; l < widths.size(); ++l) {
    trainer::Layer layer;
    layer.inputs = previous;
    layer.outputs = widths[l];
    layer.activation = l + 1 < widths.size() ? activation : trainer::Activation::linear;
    const double scale = 1.0 / std::sqrt(previous + 1.0);
    for (uint32_t i = 0; i < layer.outputs * layer.row_length(); ++i) {
      layer.mean.push_back(normal(rng) * scale);
      layer.variance.push_back(variance(rng));
    }
    model.layers.push_back(std::move(layer));
    previous = widths[l];
  }
  model.noise = {1.5 + 20.0 * unit(rng), 0.1 + 5.0 * unit(rng)};
  model.prior = {1.5 + 20.0 * unit(rng), 0.1 + 5.0 * unit(rng)};
  for (uint32_t k = 0; k < inputs; ++k) {
    model.standardisation.input_mean.push_back(10.0 * normal(rng));
    model.standardisation.input_std.push_back(0.1 + 5.0 * unit(rng));
    std::string name = "feature_";  // with UTF-8, a quote and a backslash, for JSON escaping
    name += std::to_string(k);
    name += "\xc3\xa9\"q\\";
    model.metadata.feature_names.push_back(name);
  }
  model.standardisation.target_mean = 30.0 * normal(rng);
  model.standardisation.target_std = 0.5 + 10.0 * unit(rng);
  model.metadata.name = "random-";
  model.metadata.name += std::to_string(seed);
  model.metadata.target_name = std::string("target");
  model.metadata.training_rows = 0x1'0000'0005ull + seed;  // above 2^32: both halves matter
  model.metadata.notes = std::string("free-form\nnotes with a NUL \0 inside", 34);
  return model;
}

// A raw input row around the model's training distribution.
inline std::vector<double> random_row(const trainer::Model& model, std::mt19937_64& rng) {
  std::normal_distribution<double> normal(0.0, 1.5);
  std::vector<double> x;
  for (uint32_t k = 0; k < model.input_count(); ++k) {
    x.push_back(model.standardisation.input_mean[k] +
                normal(rng) * model.standardisation.input_std[k]);
  }
  return x;
}

}  // namespace pbp::test_fixtures
