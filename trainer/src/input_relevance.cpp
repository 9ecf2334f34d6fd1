// SPDX-License-Identifier: Apache-2.0
#include "pbp/trainer/input_relevance.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "pbp/format.hpp"
#include "pbp/model_view.hpp"

namespace pbp::trainer {
namespace {

namespace fmt = pbp::format;

bool valid_gamma(float a, float b) {
  return a > 1.0f && b > 0.0f && a - a == 0.0f && b - b == 0.0f;  // finite: Inf - Inf is NaN
}

}  // namespace

std::vector<InputRelevance> input_relevance(std::span<const Gamma> input_priors) {
  std::vector<InputRelevance> inputs;
  if (input_priors.empty()) return inputs;
  double largest = 0.0;
  for (uint32_t k = 0; k + 1 < input_priors.size(); ++k) {
    InputRelevance r;
    r.input = k;
    r.gamma = input_priors[k];
    r.precision_mean = r.gamma.a / r.gamma.b;
    r.prior_variance = r.gamma.variance_estimate();
    largest = std::max(largest, r.prior_variance);
    inputs.push_back(r);
  }
  for (InputRelevance& r : inputs) r.relevance = r.prior_variance / largest;
  std::stable_sort(
      inputs.begin(), inputs.end(),
      [](const InputRelevance& x, const InputRelevance& y) { return x.relevance > y.relevance; });
  return inputs;
}

std::vector<uint8_t> encode_input_priors(std::span<const Gamma> input_priors) {
  std::vector<uint8_t> value(input_priors.size() * fmt::input_prior_record::kSize);
  for (size_t k = 0; k < input_priors.size(); ++k) {
    const float a = static_cast<float>(input_priors[k].a);
    const float b = static_cast<float>(input_priors[k].b);
    if (!valid_gamma(a, b)) {
      throw std::invalid_argument("input prior " + std::to_string(k) +
                                  " is not a Gamma with finite a > 1 and b > 0 in float32");
    }
    uint8_t* record = value.data() + k * fmt::input_prior_record::kSize;
    fmt::store_f32(record + fmt::input_prior_record::kA, a);
    fmt::store_f32(record + fmt::input_prior_record::kB, b);
  }
  return value;
}

std::vector<Gamma> decode_input_priors(std::span<const uint8_t> value, uint32_t input_count) {
  const uint64_t records = uint64_t{input_count} + 1;
  if (value.size() != records * fmt::input_prior_record::kSize) {
    throw std::runtime_error(
        "input_prior_precision holds " + std::to_string(value.size()) + " bytes, not " +
        std::to_string(records * fmt::input_prior_record::kSize) + " (a and b for each of " +
        std::to_string(input_count) + " inputs and the bias)");
  }
  std::vector<Gamma> priors;
  for (uint64_t k = 0; k < records; ++k) {
    const uint8_t* record = value.data() + k * fmt::input_prior_record::kSize;
    const float a = fmt::load_f32(record + fmt::input_prior_record::kA);
    const float b = fmt::load_f32(record + fmt::input_prior_record::kB);
    if (!valid_gamma(a, b)) {
      throw std::runtime_error("input_prior_precision record " + std::to_string(k) +
                               " is not a Gamma with finite a > 1 and b > 0");
    }
    priors.push_back(Gamma{a, b});
  }
  return priors;
}

namespace {

// The value of the one entry with `key` in a metadata section, if any; throws std::runtime_error
// if an entry does not fit or the key appears twice.
std::optional<std::span<const uint8_t>> find_entry(std::span<const uint8_t> metadata,
                                                   fmt::MetadataKey key, const char* name) {
  std::optional<std::span<const uint8_t>> found;
  if (metadata.size() > UINT32_MAX) throw std::runtime_error("a metadata section over 4 GiB");
  const auto size = static_cast<uint32_t>(metadata.size());
  model_view::MetadataEntry entry;
  for (uint32_t offset = 0; offset < size;) {
    if (!model_view::next_metadata_entry(metadata.data(), size, &offset, &entry)) {
      throw std::runtime_error("a metadata entry does not fit in its section");
    }
    if (entry.key != static_cast<uint32_t>(key)) continue;
    if (found) throw std::runtime_error(std::string(name) + " appears twice");
    found = std::span<const uint8_t>(entry.value, entry.length);
  }
  return found;
}

bool finite(float x) {
  return x - x == 0.0f;
}

}  // namespace

std::vector<WeightRelevance> weight_relevance(std::span<const float> mean,
                                              std::span<const float> variance, uint32_t inputs) {
  const size_t row = size_t{inputs} + 1;
  if (mean.size() != variance.size() || mean.size() % row != 0 || mean.empty()) {
    throw std::invalid_argument("weight_relevance: layer 0's sizes do not match its inputs");
  }
  const size_t units = mean.size() / row;
  std::vector<WeightRelevance> result(inputs);
  double largest = 0.0;
  for (uint32_t k = 0; k < inputs; ++k) {
    double sum = 0.0;
    for (size_t unit = 0; unit < units; ++unit) {
      const double m = mean[unit * row + k];
      sum += m * m + static_cast<double>(variance[unit * row + k]);
    }
    result[k] = {k, sum / static_cast<double>(units), 0.0};
    largest = std::max(largest, result[k].mean_square);
  }
  for (WeightRelevance& r : result) r.relevance = largest > 0.0 ? r.mean_square / largest : 0.0;
  std::stable_sort(
      result.begin(), result.end(),
      [](const WeightRelevance& x, const WeightRelevance& y) { return x.relevance > y.relevance; });
  return result;
}

std::vector<uint8_t> encode_laplace_scale(const LaplaceScale& scale) {
  const float mean = static_cast<float>(scale.mean);
  const float variance = static_cast<float>(scale.variance);
  if (!(finite(mean) && finite(variance) && variance > 0.0f)) {
    throw std::invalid_argument(
        "the Laplace prior's scale is not a finite mean and a finite variance > 0 in float32");
  }
  std::vector<uint8_t> value(fmt::laplace_scale_record::kSize);
  fmt::store_f32(value.data() + fmt::laplace_scale_record::kMean, mean);
  fmt::store_f32(value.data() + fmt::laplace_scale_record::kVariance, variance);
  return value;
}

LaplaceScale decode_laplace_scale(std::span<const uint8_t> value) {
  if (value.size() != fmt::laplace_scale_record::kSize) {
    throw std::runtime_error("input_laplace_scale holds " + std::to_string(value.size()) +
                             " bytes, not 8 (the mean and variance of q(phi))");
  }
  const float mean = fmt::load_f32(value.data() + fmt::laplace_scale_record::kMean);
  const float variance = fmt::load_f32(value.data() + fmt::laplace_scale_record::kVariance);
  if (!(finite(mean) && finite(variance) && variance > 0.0f)) {
    throw std::runtime_error("input_laplace_scale is not a finite mean and variance > 0");
  }
  return {mean, variance};
}

std::optional<LaplaceScale> read_laplace_scale(std::span<const uint8_t> metadata) {
  const auto value =
      find_entry(metadata, fmt::MetadataKey::input_laplace_scale, "input_laplace_scale");
  if (!value) return std::nullopt;
  return decode_laplace_scale(*value);
}

std::optional<std::vector<Gamma>> read_input_priors(std::span<const uint8_t> metadata,
                                                    uint32_t input_count) {
  const auto value =
      find_entry(metadata, fmt::MetadataKey::input_prior_precision, "input_prior_precision");
  if (!value) return std::nullopt;
  return decode_input_priors(*value, input_count);
}

}  // namespace pbp::trainer
