#include <cstddef>
#include <stdexcept>
#include <vector>

#include "pbp/moments.hpp"
#include "pbp/trainer/model.hpp"

namespace pbp::trainer {

Prediction predict(const Model& model, std::span<const double> x) {
  if (x.size() != model.input_count()) throw std::invalid_argument("predict: wrong input width");
  const Standardisation& s = model.standardisation;
  std::vector<double> z(x.size());
  for (size_t k = 0; k < x.size(); ++k) z[k] = (x[k] - s.input_mean[k]) / s.input_std[k];

  std::vector<LayerWeights<double>> layers;
  uint32_t max_width = 0;
  for (const Layer& layer : model.layers) {
    layers.push_back({layer.mean.data(), layer.variance.data(), layer.inputs, layer.outputs});
    if (layer.outputs > max_width) max_width = layer.outputs;
  }
  std::vector<double> workspace(network_workspace_elements(max_width));
  double mean = 0.0, var = 0.0;
  network_moments<double>(layers.data(), static_cast<uint32_t>(layers.size()), z.data(),
                          workspace.data(), max_width, &mean, &var);

  Prediction p;
  p.mean = mean * s.target_std + s.target_mean;
  p.epistemic_variance = var * s.target_std * s.target_std;
  p.aleatoric_variance = model.noise.variance_estimate() * s.target_std * s.target_std;
  return p;
}

}  // namespace pbp::trainer
