// Data-aware int8 rounding (int8_rounding.hpp).
#include "pbp/trainer/int8_rounding.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "pbp/moments.hpp"
#include "pbp/trainer/spd_matrix.hpp"

namespace pbp::trainer {
namespace {

// The upper Cholesky factor U of h^-1 (h^-1 = U^T U): row a of U / U_aa is how the rounding error
// of weight a spreads over the later weights (GPTQ).
std::vector<double> upper_factor_of_inverse(std::vector<double> h, size_t n) {
  std::vector<double> u;
  if (!invert_spd(h, n) || !upper_cholesky(h, n, u)) {
    throw std::runtime_error("int8 rounding: second moments not positive definite");
  }
  return u;
}

}  // namespace

std::vector<std::vector<double>> layer_input_second_moments(const Model& model,
                                                            std::span<const double> inputs,
                                                            size_t rows) {
  std::vector<std::vector<double>> h(model.layers.size());
  if (model.layers.empty()) return h;
  if (inputs.size() != rows * model.layers[0].inputs || rows == 0) {
    throw std::invalid_argument("int8 rounding: the rows do not match the model's inputs");
  }
  for (size_t l = 0; l < model.layers.size(); ++l) {
    const size_t n = model.layers[l].row_length();
    h[l].assign(n * n, 0.0);
  }
  std::vector<double> mean, var, next_mean, next_var;
  for (size_t r = 0; r < rows; ++r) {
    mean.assign(inputs.begin() + static_cast<std::ptrdiff_t>(r * model.layers[0].inputs),
                inputs.begin() + static_cast<std::ptrdiff_t>((r + 1) * model.layers[0].inputs));
    var.assign(mean.size(), 0.0);
    for (size_t l = 0; l < model.layers.size(); ++l) {
      const Layer& layer = model.layers[l];
      const size_t n = layer.row_length();
      std::vector<double>& hl = h[l];
      for (size_t i = 0; i < n; ++i) {
        const double zi = i < layer.inputs ? mean[i] : 1.0;
        for (size_t j = 0; j < n; ++j) hl[i * n + j] += zi * (j < layer.inputs ? mean[j] : 1.0);
        if (i < layer.inputs) hl[i * n + i] += var[i];
      }
      if (l + 1 == model.layers.size()) break;
      next_mean.assign(layer.outputs, 0.0);
      next_var.assign(layer.outputs, 0.0);
      const LayerWeights<double> w{layer.mean.data(), layer.variance.data(), layer.inputs,
                                   layer.outputs};
      if (l == 0) {
        linear_moments<double, true>(w, mean.data(), nullptr, next_mean.data(), next_var.data());
      } else {
        linear_moments<double, false>(w, mean.data(), var.data(), next_mean.data(),
                                      next_var.data());
      }
      activation_moments_inplace(static_cast<uint32_t>(layer.activation), layer.outputs,
                                 next_mean.data(), next_var.data());
      mean.swap(next_mean);
      var.swap(next_var);
    }
  }
  for (std::vector<double>& hl : h) {
    for (double& x : hl) x /= static_cast<double>(rows);
  }
  return h;
}

void round_means_to_int8_grid(Model& model,
                              const std::vector<std::vector<double>>& second_moments) {
  namespace int8 = format::int8_weights;
  const double code_max = int8::kMeanCodeMax;
  for (size_t l = 0; l < model.layers.size(); ++l) {
    Layer& layer = model.layers[l];
    const size_t n = layer.row_length();
    std::vector<double> h = second_moments.at(l);
    // A little damping (1 % of the mean diagonal): inputs constant on the training rows make H
    // singular, and the compensation should not lean on directions the data barely spans.
    double diagonal = 0.0;
    for (size_t i = 0; i < n; ++i) diagonal += h[i * n + i];
    const double damping = 0.01 * diagonal / static_cast<double>(n) + 1e-12;
    for (size_t i = 0; i < n; ++i) h[i * n + i] += damping;
    const std::vector<double> u = upper_factor_of_inverse(h, n);
    for (uint32_t j = 0; j < layer.outputs; ++j) {
      double* w = layer.mean.data() + j * n;
      size_t top = 0;
      for (size_t k = 1; k < n; ++k) top = std::fabs(w[k]) > std::fabs(w[top]) ? k : top;
      if (w[top] == 0.0) continue;  // all zero: on the grid already
      // The scale the writer computes (largest / 127 in float32, at least float's least normal);
      // the largest weight keeps code +-127 whatever the compensation did to it, so the row's
      // largest stays what the scale says and the writer stores these codes.
      const double scale = std::max(static_cast<float>(std::fabs(w[top]) / code_max),
                                    std::numeric_limits<float>::min());
      const double top_code = w[top] < 0.0 ? -code_max : code_max;
      for (size_t a = 0; a < n; ++a) {
        const double q =
            a == top ? top_code : std::clamp(std::nearbyint(w[a] / scale), -code_max, code_max);
        const double error = (w[a] - q * scale) / u[a * n + a];
        w[a] = q * scale;
        for (size_t b = a + 1; b < n; ++b) w[b] -= error * u[a * n + b];
      }
    }
  }
}

void round_means_to_int8_grid(Model& model, const Dataset& training_rows) {
  // From the float32 values a blob holds, so that `pbp train --storage int8` and `pbp quantize
  // --data` of the float32 blob start from the same means.
  for (Layer& layer : model.layers) {
    for (double& m : layer.mean) m = static_cast<float>(m);
  }
  const Standardisation& s = model.standardisation;
  const size_t inputs = training_rows.inputs;
  if (model.layers.empty() || inputs != model.layers[0].inputs || training_rows.rows == 0) {
    throw std::invalid_argument("int8 rounding: the rows do not match the model's inputs");
  }
  const size_t stride = (training_rows.rows + kInt8RoundingRows - 1) / kInt8RoundingRows;
  std::vector<double> x;
  size_t rows = 0;
  for (size_t r = 0; r < training_rows.rows; r += stride, ++rows) {
    for (size_t i = 0; i < inputs; ++i) {
      x.push_back((training_rows.row(r)[i] - s.input_mean[i]) / s.input_std[i]);
    }
  }
  round_means_to_int8_grid(model, layer_input_second_moments(model, x, rows));
}

}  // namespace pbp::trainer
