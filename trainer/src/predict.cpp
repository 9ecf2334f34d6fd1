// SPDX-License-Identifier: Apache-2.0
#include <cstddef>
#include <stdexcept>
#include <vector>

#include "pbp/data_distance.hpp"
#include "pbp/moments.hpp"
#include "pbp/outputs.hpp"
#include "pbp/trainer/distance_variance.hpp"
#include "pbp/trainer/model.hpp"
#include "pbp/trainer/working_layouts.hpp"

namespace pbp::trainer {

OutputLayerMoments output_layer_moments(const Model& model, std::span<const double> x) {
  if (x.size() != model.input_count()) throw std::invalid_argument("predict: wrong input width");
  const Standardisation& s = model.standardisation;
  std::vector<double> z(x.size());
  for (size_t k = 0; k < x.size(); ++k) z[k] = (x[k] - s.input_mean[k]) / s.input_std[k];
  std::vector<VectorisedRows> layers;
  std::vector<uint32_t> activations;
  uint32_t max_width = 0;
  for (const Layer& layer : model.layers) {
    layers.push_back({{layer.mean.data(), layer.variance.data(), layer.inputs, layer.outputs},
                      layer.inputs,
                      layer.outputs});
    activations.push_back(static_cast<uint32_t>(layer.activation));
    if (layer.outputs > max_width) max_width = layer.outputs;
  }
  std::vector<double> workspace(network_workspace_elements(max_width));
  OutputLayerMoments out{std::vector<double>(model.output_count()),
                         std::vector<double>(model.output_count())};
  // The trainer's vectorised sums (working_layouts.hpp), found for VectorisedRows by
  // argument-dependent lookup.
  network_moments_from<double>([&layers](uint32_t l) { return layers[l]; },
                               [&activations](uint32_t l) { return activations[l]; },
                               static_cast<uint32_t>(layers.size()), z.data(), workspace.data(),
                               max_width, out.mean.data(), out.variance.data());
  return out;
}

Prediction predict(const Model& model, std::span<const double> x) {
  const auto [mean, var] = output_layer_moments(model, x);
  const Standardisation& s = model.standardisation;
  // The blob likelihood's predictive (likelihood_table.hpp), the one the device runs.
  const outputs::RegressionMoments<double> moments = regression_predictive<double, true>(
      blob_likelihood(model.likelihood, model.task, model.epistemic_scale != 1.0), mean.data(),
      var.data(),
      {model.epistemic_scale, model.noise.a, model.noise.b, s.target_mean, s.target_std});
  Prediction p;
  p.mean = moments.mean;
  p.epistemic_variance = moments.epistemic_variance;
  p.aleatoric_variance = moments.aleatoric_variance;
  if (!model.input_occupancy.empty()) {
    const double d =
        distance::row_distance(x.data(), s.input_min.data(), s.input_max.data(), s.input_std.data(),
                               model.input_occupancy.data(), model.input_count());
    p.epistemic_variance += distance::distance_variance(model.distance_scale, d, s.target_std);
  }
  if (!model.pair_occupancy.empty()) {
    const double f = pair_novelty(x, s, model.pair_occupancy.data());
    p.epistemic_variance += distance::distance_variance(model.pair_scale, f, s.target_std);
  }
  return p;
}

std::vector<double> predict_class_probabilities(const Model& model, std::span<const double> x) {
  const auto [mean, var] = output_layer_moments(model, x);
  if (model.task == Task::binary) {
    const outputs::BinaryProbabilities<double> b = outputs::binary_probabilities(mean[0], var[0]);
    return {b.negative, b.positive};
  }
  if (model.task != Task::multiclass) {
    throw std::invalid_argument("predict_class_probabilities: not a classification model");
  }
  std::vector<double> p(mean.size());
  outputs::softmax_probabilities<double>(mean.data(), var.data(),
                                         static_cast<uint32_t>(mean.size()), p.data());
  return p;
}

}  // namespace pbp::trainer
