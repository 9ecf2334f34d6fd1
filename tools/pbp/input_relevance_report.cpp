// SPDX-License-Identifier: Apache-2.0
#include "input_relevance_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "host_names.hpp"
#include "output.hpp"
#include "pbp/host/prediction_csv.hpp"
#include "pbp/host/stored_weights_report.hpp"

namespace pbp::cli {
namespace {

// Layer 0's weights decoded whatever their storage (a float16 layer has no float pointers).
std::vector<trainer::WeightRelevance> layer0_relevance(const pbp_model& m) {
  const pbp_layer& first = m.layers[0];
  const std::vector<float> mean = layer_values(first, false), variance = layer_values(first, true);
  return trainer::weight_relevance(mean, variance, first.inputs);
}

std::string feature_label(const std::vector<std::string>& names, uint32_t input) {
  return input < names.size() ? names[input] : "input " + std::to_string(input);
}

}  // namespace

std::optional<std::vector<trainer::Gamma>> input_priors(const std::string& path,
                                                        const pbp_model& m) {
  try {
    return trainer::read_input_priors({m.metadata, m.metadata_size}, m.input_count);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(path + ": invalid metadata: " + e.what());
  }
}

std::optional<trainer::LaplaceScale> laplace_scale(const std::string& path, const pbp_model& m) {
  try {
    return trainer::read_laplace_scale({m.metadata, m.metadata_size});
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(path + ": invalid metadata: " + e.what());
  }
}

std::string gamma_json(double a, double b) {
  return JsonObject()
      .add_raw("a", float_text(static_cast<float>(a)))
      .add_raw("b", float_text(static_cast<float>(b)))
      .str();
}

std::string relevance_json(const std::vector<trainer::Gamma>& priors,
                           const std::vector<std::string>& names) {
  std::vector<std::string> items;
  for (const trainer::InputRelevance& r : trainer::input_relevance(priors)) {
    items.push_back(JsonObject()
                        .add_raw("feature", json_string(feature_label(names, r.input)))
                        .add("input", r.input)
                        .add_raw("gamma", gamma_json(r.gamma.a, r.gamma.b))
                        .add("precision_mean", r.precision_mean)
                        .add("prior_variance", r.prior_variance)
                        .add("prior_std", std::sqrt(r.prior_variance))
                        .add("relevance", r.relevance)
                        .str());
  }
  return json_array(items);
}

void print_relevance(const std::vector<trainer::Gamma>& priors,
                     const std::vector<std::string>& names) {
  const std::vector<trainer::InputRelevance> inputs = trainer::input_relevance(priors);
  size_t width = 7;  // "feature"
  for (const trainer::InputRelevance& r : inputs) {
    width = std::max(width, feature_label(names, r.input).size());
  }
  std::printf(
      "input relevance (ARD): E[1/lambda] = b/(a-1) of each input's first-layer weights,\n"
      "  relative to the largest (1 = most relevant)\n");
  std::printf("  %-*s  %9s  %12s  %10s  %12s\n", static_cast<int>(width), "feature", "relevance",
              "E[1/lambda]", "prior std", "E[lambda]");
  auto row = [width](const std::string& label, const std::string& relevance,
                     const trainer::Gamma& g) {
    const double variance = g.variance_estimate();
    std::printf("  %-*s  %9s  %12s  %10s  %12s\n", static_cast<int>(width), label.c_str(),
                relevance.c_str(), general(variance, 6).c_str(),
                general(std::sqrt(variance), 6).c_str(), general(g.a / g.b, 6).c_str());
  };
  for (const trainer::InputRelevance& r : inputs) {
    row(feature_label(names, r.input), general(r.relevance, 4), r.gamma);
  }
  row("(bias)", "", priors.back());
}

std::string laplace_relevance_json(const pbp_model& m, const std::vector<std::string>& names) {
  std::vector<std::string> items;
  for (const trainer::WeightRelevance& r : layer0_relevance(m)) {
    items.push_back(JsonObject()
                        .add_raw("feature", json_string(feature_label(names, r.input)))
                        .add("input", r.input)
                        .add("mean_square_weight", r.mean_square)
                        .add("relevance", r.relevance)
                        .str());
  }
  return json_array(items);
}

void print_laplace_relevance(const pbp_model& m, const trainer::LaplaceScale& scale,
                             const std::vector<std::string>& names) {
  const std::vector<trainer::WeightRelevance> inputs = layer0_relevance(m);
  std::printf(
      "Laplace prior on layer 0's input weights: variance 2b^2 = exp(phi), q(phi) = N(%s, %s):\n"
      "  variance exp(mean) = %s (scale b %s)\n",
      float_text(static_cast<float>(scale.mean)).c_str(),
      float_text(static_cast<float>(scale.variance)).c_str(),
      general(std::exp(scale.mean), 6).c_str(),
      general(std::sqrt(std::exp(scale.mean) / 2), 6).c_str());
  size_t width = 7;  // "feature"
  for (const trainer::WeightRelevance& r : inputs) {
    width = std::max(width, feature_label(names, r.input).size());
  }
  std::printf(
      "input relevance (Laplace): E[w^2] = m^2 + v of each input's first-layer weights, mean\n"
      "  over the hidden units, relative to the largest (1 = most relevant)\n");
  std::printf("  %-*s  %9s  %12s\n", static_cast<int>(width), "feature", "relevance", "E[w^2]");
  for (const trainer::WeightRelevance& r : inputs) {
    std::printf("  %-*s  %9s  %12s\n", static_cast<int>(width),
                feature_label(names, r.input).c_str(), general(r.relevance, 4).c_str(),
                general(r.mean_square, 6).c_str());
  }
}

}  // namespace pbp::cli
