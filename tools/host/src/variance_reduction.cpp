// SPDX-License-Identifier: Apache-2.0
#include "pbp/host/variance_reduction.hpp"

#include <cmath>
#include <stdexcept>

#include "pbp/activations.hpp"
#include "pbp/moments.hpp"
#include "pbp/trainer/layer_moments.hpp"

namespace pbp::host {
namespace {

// Weight w's index in the flattened sensitivity vector: layers in order, each row-major.
std::vector<size_t> layer_offsets(const trainer::Model& model) {
  std::vector<size_t> offsets;
  size_t total = 0;
  for (const trainer::Layer& layer : model.layers) {
    offsets.push_back(total);
    total += layer.mean.size();
  }
  offsets.push_back(total);
  return offsets;
}

// A hidden unit's output moments and d m_z / d m_a.
struct UnitMoments {
  double mean, variance, slope;
};
UnitMoments hidden_unit(trainer::Activation activation, double m, double v) {
  return visit_hidden_activation(static_cast<uint32_t>(activation), [&](auto unit) {
    UnitMoments r{0.0, 0.0, 0.0};
    r.slope = decltype(unit)::moments_and_mean_slope(m, v, &r.mean, &r.variance);
    return r;
  });
}

// One row's sensitivities into `out` (weight_count values): the forward moment pass keeps every
// layer's input means and each hidden unit's d m_z / d m_a, then the chain rule runs backwards.
void row_sensitivities(const trainer::Model& model, const std::vector<size_t>& offsets,
                       std::span<const double> x, double* out) {
  const trainer::Standardisation& s = model.standardisation;
  const size_t layer_count = model.layers.size();
  std::vector<std::vector<double>> z_mean(layer_count), slope(layer_count);
  std::vector<double> mean(x.size()), var(x.size(), 0.0);
  for (size_t k = 0; k < x.size(); ++k) mean[k] = (x[k] - s.input_mean[k]) / s.input_std[k];
  for (size_t l = 0; l < layer_count; ++l) {
    const trainer::Layer& layer = model.layers[l];
    z_mean[l] = mean;
    std::vector<double> a_mean(layer.outputs), a_var(layer.outputs);
    trainer::layer_pre_activation_moments(layer, l == 0, mean.data(), var.data(), a_mean.data(),
                                          a_var.data());
    slope[l].assign(layer.outputs, 1.0);
    for (uint32_t j = 0; j < layer.outputs && layer.activation != trainer::Activation::linear;
         ++j) {
      const UnitMoments unit = hidden_unit(layer.activation, a_mean[j], a_var[j]);
      a_mean[j] = unit.mean;
      a_var[j] = unit.variance;
      slope[l][j] = unit.slope;
    }
    mean = std::move(a_mean);
    var = std::move(a_var);
  }
  // delta: d(output mean) / d(layer l's output means), starting from the output's own, 1.
  std::vector<double> delta(1, 1.0);
  for (size_t l = layer_count; l-- > 0;) {
    const trainer::Layer& layer = model.layers[l];
    const double scale = layer_scale<double>(layer.inputs).mean;
    std::vector<double> delta_in(layer.inputs, 0.0);
    for (uint32_t j = 0; j < layer.outputs; ++j) {
      const double dj = delta[j] * slope[l][j] * scale;
      const size_t row = static_cast<size_t>(j) * layer.row_length();
      for (uint32_t k = 0; k <= layer.inputs; ++k) {
        const double input = k < layer.inputs ? z_mean[l][k] : 1.0;
        const size_t w = row + k;
        out[offsets[l] + w] = dj * input * std::sqrt(layer.variance[w]);
        if (k < layer.inputs) delta_in[k] += dj * layer.mean[w];
      }
    }
    delta = std::move(delta_in);
  }
}

}  // namespace

OutputSensitivities output_sensitivities(const trainer::Model& model, const trainer::Dataset& data,
                                         std::span<const size_t> rows) {
  if (model.output_count() != 1) {
    throw std::invalid_argument("output sensitivities need a model with one output");
  }
  const std::vector<size_t> offsets = layer_offsets(model);
  OutputSensitivities result;
  result.rows = rows.size();
  result.weights = offsets.back();
  result.values.assign(result.rows * result.weights, 0.0);
  for (size_t i = 0; i < rows.size(); ++i) {
    row_sensitivities(model, offsets, std::span<const double>(data.row(rows[i]), data.inputs),
                      result.values.data() + i * result.weights);
  }
  return result;
}

std::vector<double> variance_reductions(const trainer::Model& model, const trainer::Dataset& data,
                                        std::span<const size_t> pool) {
  const OutputSensitivities j = output_sensitivities(model, data, pool);
  const size_t p = j.weights;
  // sum_r cov(r, c)^2 = J_c (sum_r J_r^T J_r) J_c^T: one weights x weights matrix for the pool.
  std::vector<double> gram(p * p, 0.0);
  for (size_t r = 0; r < j.rows; ++r) {
    const std::span<const double> jr = j.row(r);
    for (size_t a = 0; a < p; ++a) {
      const double ja = jr[a];
      if (ja == 0.0) continue;
      double* g = gram.data() + a * p;
      for (size_t b = 0; b < p; ++b) g[b] += ja * jr[b];
    }
  }
  const double scale = model.epistemic_scale;
  const double noise = model.noise.variance_estimate();
  std::vector<double> scores(j.rows);
  for (size_t c = 0; c < j.rows; ++c) {
    const std::span<const double> jc = j.row(c);
    double quadratic = 0.0, own = 0.0;
    for (size_t a = 0; a < p; ++a) {
      const double* g = gram.data() + a * p;
      double sum = 0.0;
      for (size_t b = 0; b < p; ++b) sum += g[b] * jc[b];
      quadratic += jc[a] * sum;
      own += jc[a] * jc[a];
    }
    scores[c] = scale * scale * quadratic / (scale * own + noise);
  }
  return scores;
}

size_t largest_variance_reduction(const trainer::Model& model, const trainer::Dataset& data,
                                  std::span<const size_t> pool) {
  const std::vector<double> scores = variance_reductions(model, data, pool);
  size_t best = 0;
  for (size_t c = 1; c < scores.size(); ++c) {
    if (scores[c] > scores[best]) best = c;
  }
  return best;
}

}  // namespace pbp::host
