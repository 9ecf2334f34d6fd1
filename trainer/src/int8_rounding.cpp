// SPDX-License-Identifier: Apache-2.0
// Data-aware int8 rounding (int8_rounding.hpp).
#include "pbp/trainer/int8_rounding.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

#include "pbp/moments.hpp"
#include "pbp/trainer/int8_unit_scales.hpp"
#include "pbp/trainer/layer_moments.hpp"
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

// Adds E[z z'^T] of one row's input units (the bias unit 1 last) to `sum` (n x n): the means'
// product, and on the diagonal sqrt(v v'), the covariance of z and z' when they share their
// noise (v itself where z = z').
void add_cross_moments(std::vector<double>& sum, size_t n, const double* mean, const double* var,
                       const double* other_mean, const double* other_var) {
  for (size_t i = 0; i < n; ++i) {
    const double zi = i + 1 < n ? mean[i] : 1.0;
    for (size_t j = 0; j < n; ++j) sum[i * n + j] += zi * (j + 1 < n ? other_mean[j] : 1.0);
    if (i + 1 < n) sum[i * n + i] += var == other_var ? var[i] : std::sqrt(var[i] * other_var[i]);
  }
}

// A little damping (1 % of the mean diagonal), added to second moments h (n x n) and returned:
// inputs constant on the training rows make them singular, and no correction should lean on
// directions the data barely spans.
double damp(std::vector<double>& h, size_t n) {
  double diagonal = 0.0;
  for (size_t i = 0; i < n; ++i) diagonal += h[i * n + i];
  const double damping = 0.01 * diagonal / static_cast<double>(n) + 1e-12;
  for (size_t i = 0; i < n; ++i) h[i * n + i] += damping;
  return damping;
}

// The row scale (float32, as the writer stores it) whose grid loses least of the row's sums by
// the diagonal estimate sum_k h_kk e_k^2: e_k the clipping of a mean beyond +-127 steps, or a
// rounding's s^2 / 12 within. From the row's largest / 127 down by quarter octaves: a mean far
// larger than the rest on an input that is almost always 0 (a unit the training rows hardly
// use) would otherwise take every other mean's precision.
double row_scale(const double* w, size_t top, const std::vector<double>& h, size_t n) {
  constexpr double kCodeMax = format::int8_weights::kMeanCodeMax;
  const auto as_scale = [](double x) {
    return static_cast<double>(std::max(static_cast<float>(x), std::numeric_limits<float>::min()));
  };
  const double largest = std::fabs(w[top]) / kCodeMax;
  double best = as_scale(largest), best_error = std::numeric_limits<double>::infinity();
  for (int step = 0; step <= 48; ++step) {
    const double scale = as_scale(largest * std::exp2(-0.25 * step));
    double error = 0.0;
    for (size_t k = 0; k < n; ++k) {
      const double clipped = std::fabs(w[k]) - kCodeMax * scale;
      error += h[k * n + k] * (clipped > 0.5 * scale ? clipped * clipped : scale * scale / 12.0);
    }
    if (error < best_error) best = scale, best_error = error;
  }
  return best;
}

void round_layer_means(Layer& layer, std::vector<double> h) {
  namespace int8 = format::int8_weights;
  const double code_max = int8::kMeanCodeMax;
  const size_t n = layer.row_length();
  const std::vector<double> raw = h;
  damp(h, n);
  const std::vector<double> u = upper_factor_of_inverse(h, n);
  for (uint32_t j = 0; j < layer.outputs; ++j) {
    double* w = layer.mean.data() + j * n;
    size_t top = 0;
    for (size_t k = 1; k < n; ++k) top = std::fabs(w[k]) > std::fabs(w[top]) ? k : top;
    if (w[top] == 0.0) continue;  // all zero: on the grid already
    // The scale the writer computes (largest / 127 in float32, at least float's least normal);
    // the largest weight keeps code +-127 whatever the compensation did to it, so the row's
    // largest stays what the scale says and the writer stores these codes.
    const double scale = row_scale(w, top, raw, n);
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

// The layer's means m moved to where its sums over the rounded inputs z' best match the float
// model's: m' = argmin E[(m^T z - m'^T z')^2] + lambda |m' - m|^2 = (H + lambda)^-1 (G + lambda) m
// (the damping as damp's), m itself where the inputs did not change (G = H).
void correct_for_rounded_inputs(Layer& layer, const std::vector<double>& h,
                                const std::vector<double>& g) {
  const size_t n = layer.row_length();
  std::vector<double> inverse = h;
  const double lambda = damp(inverse, n);
  if (!invert_spd(inverse, n)) {
    throw std::runtime_error("int8 rounding: second moments not positive definite");
  }
  std::vector<double> target(n);
  for (uint32_t j = 0; j < layer.outputs; ++j) {
    double* m = layer.mean.data() + j * n;
    for (size_t p = 0; p < n; ++p) {
      double sum = lambda * m[p];
      for (size_t q = 0; q < n; ++q) sum += g[p * n + q] * m[q];
      target[p] = sum;
    }
    for (size_t p = 0; p < n; ++p) {
      double sum = 0.0;
      for (size_t q = 0; q < n; ++q) sum += inverse[p * n + q] * target[q];
      m[p] = sum;
    }
  }
}

}  // namespace

std::vector<std::vector<double>> layer_input_second_moments(const Model& model,
                                                            std::span<const double> inputs,
                                                            size_t rows) {
  std::vector<std::vector<double>> h(model.layers.size());
  if (model.layers.empty()) return h;
  RowMoments z =
      exact_input_moments(model, std::vector<double>(inputs.begin(), inputs.end()), rows);
  for (size_t l = 0; l < model.layers.size(); ++l) {
    const size_t n = model.layers[l].row_length();
    h[l].assign(n * n, 0.0);
    for (size_t r = 0; r < rows; ++r) {
      const double* mean = z.mean.data() + r * z.width;
      const double* var = z.var.data() + r * z.width;
      add_cross_moments(h[l], n, mean, var, mean, var);
    }
    for (double& x : h[l]) x /= static_cast<double>(rows);
    if (l + 1 < model.layers.size()) z = layer_output_moments(model.layers[l], l == 0, z);
  }
  return h;
}

void round_means_to_int8_grid(Model& model,
                              const std::vector<std::vector<double>>& second_moments) {
  for (size_t l = 0; l < model.layers.size(); ++l) {
    round_layer_means(model.layers[l], second_moments.at(l));
  }
}

namespace {

// The rows of `training_rows` the rounding uses (int8_rounding_rows), standardised as the model's
// inputs, row-major.
std::vector<double> standardised_rounding_rows(const Model& model, const Dataset& training_rows) {
  const Standardisation& s = model.standardisation;
  const size_t inputs = training_rows.inputs;
  if (model.layers.empty() || inputs != model.layers[0].inputs || training_rows.rows == 0) {
    throw std::invalid_argument("int8 rounding: the rows do not match the model's inputs");
  }
  std::vector<double> x;
  for (const size_t r : int8_rounding_rows(training_rows.rows)) {
    for (size_t i = 0; i < inputs; ++i) {
      x.push_back((training_rows.row(r)[i] - s.input_mean[i]) / s.input_std[i]);
    }
  }
  return x;
}

// round_means_to_int8_grid on the rows standardised_rounding_rows gives.
void round_means_on_rows(Model& model, std::vector<double> x) {
  const size_t rows = x.size() / model.layers[0].inputs;
  // Layer by layer, each layer's means first corrected for the rounding of the layers before it
  // (GPTQ's sequential order): H = E[z' z'^T] over the rounded model's input units z', and
  // G = E[z' z^T] with the float model's z. Both advance one layer at a time.
  const Model original = model;
  RowMoments float_inputs = exact_input_moments(model, std::move(x), rows);
  RowMoments rounded_inputs;  // before the first layer is rounded: float_inputs
  for (size_t l = 0; l < model.layers.size(); ++l) {
    Layer& layer = model.layers[l];
    const size_t n = layer.row_length();
    const RowMoments& z = float_inputs;
    const RowMoments& rounded = l == 0 ? float_inputs : rounded_inputs;
    std::vector<double> h(n * n, 0.0), g(n * n, 0.0);
    for (size_t r = 0; r < rows; ++r) {
      const double* mean = rounded.mean.data() + r * rounded.width;
      const double* var = rounded.var.data() + r * rounded.width;
      add_cross_moments(h, n, mean, var, mean, var);
      if (l > 0) {
        add_cross_moments(g, n, mean, var, z.mean.data() + r * z.width, z.var.data() + r * z.width);
      }
    }
    for (size_t i = 0; i < n * n; ++i) {
      h[i] /= static_cast<double>(rows);
      g[i] /= static_cast<double>(rows);
    }
    if (l > 0) correct_for_rounded_inputs(layer, h, g);
    round_layer_means(layer, h);
    if (l + 1 == model.layers.size()) break;
    RowMoments next_rounded = layer_output_moments(layer, l == 0, rounded);
    float_inputs = layer_output_moments(original.layers[l], l == 0, z);
    rounded_inputs = std::move(next_rounded);
  }
}

}  // namespace

void round_means_to_int8_grid(Model& model, const Dataset& training_rows) {
  round_means_on_rows(model, standardised_rounding_rows(model, training_rows));
}

UnitExponents rescale_and_round_for_int8(Model& model, const Dataset& training_rows) {
  std::vector<double> x = standardised_rounding_rows(model, training_rows);
  const UnitExponents exponents = int8_unit_exponents(model, x, x.size() / model.layers[0].inputs);
  rescale_units(model, exponents);
  round_means_on_rows(model, std::move(x));
  return exponents;
}

std::vector<size_t> int8_rounding_rows(size_t rows) {
  const size_t stride = (rows + kInt8RoundingRows - 1) / kInt8RoundingRows;
  std::vector<size_t> used;
  for (size_t r = 0; r < rows; r += stride) used.push_back(r);
  return used;
}

}  // namespace pbp::trainer
