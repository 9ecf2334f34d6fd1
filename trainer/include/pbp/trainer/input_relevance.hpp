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

}  // namespace pbp::trainer
