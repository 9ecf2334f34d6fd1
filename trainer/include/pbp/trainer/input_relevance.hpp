// SPDX-License-Identifier: Apache-2.0
// Input relevance learned by the ARD prior (PriorMode::ard): each input's Gamma on the prior
// precision of its layer-0 weights, and the blob's metadata entry that carries them
// (MetadataKey::input_prior_precision, runtime/FORMAT.md).
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "pbp/trainer/model.hpp"

namespace pbp::trainer {

struct InputRelevance {
  uint32_t input = 0;           // column index
  Gamma gamma;                  // on the prior precision lambda of the input's layer-0 weights
  double precision_mean = 0.0;  // E[lambda] = a / b
  double prior_variance = 0.0;  // E[1/lambda] = b / (a - 1): how large its weights may grow
  double relevance = 0.0;       // prior_variance over the largest input's: 1 = most relevant
};

// One entry per input of `input_priors` (Model::input_priors: the inputs' Gammas, then the bias
// column's, which is left out), most relevant first, ties in input order.
std::vector<InputRelevance> input_relevance(std::span<const Gamma> input_priors);

// The metadata value of `input_priors` as float32 records (format::input_prior_record). Throws
// std::invalid_argument unless every a > 1 and b > 0 is finite after rounding to float32.
std::vector<uint8_t> encode_input_priors(std::span<const Gamma> input_priors);

// The value of one input_prior_precision entry: input_count + 1 records. Throws
// std::runtime_error for another length or a record that is not a Gamma with a > 1, b > 0.
std::vector<Gamma> decode_input_priors(std::span<const uint8_t> value, uint32_t input_count);

// The input_prior_precision entry of a blob's metadata section (`metadata` as pbp_open found it):
// empty if there is none; throws std::runtime_error if an entry does not fit, the entry appears
// twice, or it does not hold input_count + 1 valid records.
std::optional<std::vector<Gamma>> read_input_priors(std::span<const uint8_t> metadata,
                                                    uint32_t input_count);

// Input relevance of a Laplace input-prior model (PriorMode::laplace), whose one common scale
// says nothing per input: each input's layer-0 weights' mean square E[w^2] = m^2 + v, averaged
// over the hidden units (the prior pulls an unused input's means and variances toward 0).
struct WeightRelevance {
  uint32_t input = 0;
  double mean_square = 0.0;  // E[w^2] averaged over the hidden units
  double relevance = 0.0;    // mean_square over the largest input's: 1 = most relevant
};

// From layer 0's means and variances (row-major outputs x (inputs + 1), bias last), most relevant
// first, ties in input order. Throws std::invalid_argument if the sizes do not match.
std::vector<WeightRelevance> weight_relevance(std::span<const float> mean,
                                              std::span<const float> variance, uint32_t inputs);

// The metadata value of a Laplace model's q(phi) (format::laplace_scale_record). Throws
// std::invalid_argument unless the mean is finite and the variance finite and > 0 in float32.
std::vector<uint8_t> encode_laplace_scale(const LaplaceScale& scale);

// The value of one input_laplace_scale entry; throws std::runtime_error for another length or
// values encode_laplace_scale would refuse.
LaplaceScale decode_laplace_scale(std::span<const uint8_t> value);

// The input_laplace_scale entry of a blob's metadata section: empty if there is none; throws
// std::runtime_error as read_input_priors does.
std::optional<LaplaceScale> read_laplace_scale(std::span<const uint8_t> metadata);

}  // namespace pbp::trainer
