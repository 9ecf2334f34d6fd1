// SPDX-License-Identifier: Apache-2.0
// Power-of-two unit scales before int8 rounding (int8_unit_scales.hpp).
#include "pbp/trainer/int8_unit_scales.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "pbp/format.hpp"
#include "pbp/moments.hpp"
#include "pbp/trainer/blob.hpp"
#include "pbp/trainer/layer_moments.hpp"

namespace pbp::trainer {
namespace {

constexpr double kCodeRange =
    double(format::int8_weights::kVarianceCodeMax) * double(format::int8_weights::kVarianceCodeMax);

bool rescalable(const Model& model, size_t l) {
  return l + 1 < model.layers.size() && model.layers[l].activation == Activation::relu;
}

// Each hidden unit's root mean square sqrt(E[z^2]) over the rows: its size in the next layer's
// code vectors.
std::vector<std::vector<double>> unit_root_mean_squares(const Model& model,
                                                        std::span<const double> inputs,
                                                        size_t rows) {
  std::vector<std::vector<double>> rms(model.layers.size());
  RowMoments z = exact_input_moments(model, {inputs.begin(), inputs.end()}, rows);
  for (size_t l = 0; l < model.layers.size(); ++l) {
    z = layer_output_moments(model.layers[l], l == 0, z);
    rms[l].assign(z.width, 0.0);
    for (size_t i = 0; i < z.mean.size(); ++i) {
      rms[l][i % z.width] += z.mean[i] * z.mean[i] + z.var[i];
    }
    for (double& x : rms[l]) x = std::sqrt(x / static_cast<double>(rows));
  }
  return rms;
}

// The outputs' pre-activation moments, row after row.
RowMoments output_moments(const Model& model, std::span<const double> inputs, size_t rows) {
  RowMoments z = exact_input_moments(model, {inputs.begin(), inputs.end()}, rows);
  for (size_t l = 0; l < model.layers.size(); ++l) {
    z = layer_output_moments(model.layers[l], l == 0, z);
  }
  return z;
}

// How far the codes (the variances', and the means' too if `means`) move the outputs of `model`
// from `reference` (the float model's), over the rows and outputs: the mean of |log variance
// ratio| + |mean difference| / predictive std (the noise's too for regression).
double code_error(Model model, std::span<const double> inputs, size_t rows,
                  const RowMoments& reference, bool means) {
  for (Layer& layer : model.layers) {
    Layer decoded = int8_decoded(layer);
    layer.variance = std::move(decoded.variance);
    if (means) layer.mean = std::move(decoded.mean);
  }
  const RowMoments coded = output_moments(model, inputs, rows);
  const double noise = model.task == Task::regression ? model.noise.variance_estimate() : 0.0;
  double sum = 0.0;
  for (size_t i = 0; i < coded.var.size(); ++i) {
    const double v = reference.var[i], spread = model.epistemic_scale * v + noise;
    if (coded.var[i] > 0.0 && v > 0.0) sum += std::fabs(std::log(coded.var[i] / v));
    if (spread > 0.0) sum += std::fabs(coded.mean[i] - reference.mean[i]) / std::sqrt(spread);
  }
  return sum / static_cast<double>(coded.var.size());
}

// Unit j after layer l times 2^e: its row of layer l, and 2^-e its column of layer l + 1.
void rescale_unit(Model& model, size_t l, uint32_t j, int e) {
  Layer& layer = model.layers[l];
  Layer& next = model.layers[l + 1];
  const size_t n = layer.row_length(), n_next = next.row_length();
  for (size_t k = 0; k < n; ++k) {
    layer.mean[j * n + k] = std::ldexp(layer.mean[j * n + k], e);
    layer.variance[j * n + k] = std::ldexp(layer.variance[j * n + k], 2 * e);
  }
  for (uint32_t i = 0; i < next.outputs; ++i) {
    next.mean[i * n_next + j] = std::ldexp(next.mean[i * n_next + j], -e);
    next.variance[i * n_next + j] = std::ldexp(next.variance[i * n_next + j], -2 * e);
  }
}

// The exponents unit j after layer l may take in `scaled` (the model at the current exponents),
// so that the precision of the means and of the unit codes is kept:
// - its outgoing means may not grow past the largest other mean of their row (the row's scale);
// - its root mean square stays within 2^kUnitCodeHeadroom of the largest other unit's (the int16
//   unit codes have 15 bits; a unit whose outgoing means carry almost nothing may shrink further).
struct UnitBounds {
  int lowest = -kInt8UnitExponentLimit, highest = kInt8UnitExponentLimit;
};

// Whether each unit after layer l carries anything through its outgoing means: its root mean
// square times its largest outgoing |mean| above 1e-3 of the layer's largest such product.
std::vector<bool> carrying_units(const Model& model, const std::vector<double>& rms, size_t l) {
  const Layer& next = model.layers[l + 1];
  const size_t columns = next.row_length();
  std::vector<double> carry(model.layers[l].outputs, 0.0);
  for (uint32_t k = 0; k < carry.size(); ++k) {
    for (uint32_t i = 0; i < next.outputs; ++i) {
      carry[k] = std::max(carry[k], rms[k] * std::fabs(next.mean[i * columns + k]));
    }
  }
  const double largest = carry.empty() ? 0.0 : *std::max_element(carry.begin(), carry.end());
  std::vector<bool> carrying;
  for (const double c : carry) carrying.push_back(c > 1e-3 * largest);
  return carrying;
}

UnitBounds unit_bounds(const Model& scaled, const UnitExponents& exponents,
                       const std::vector<double>& rms, bool carrying, size_t l, uint32_t j) {
  constexpr int kUnitCodeHeadroom = 6;
  const Layer& next = scaled.layers[l + 1];
  const size_t columns = next.row_length();
  double others = 0.0;
  for (uint32_t k = 0; k < rms.size(); ++k) {
    if (k != j) others = std::max(others, std::ldexp(rms[k], exponents[l][k]));
  }
  UnitBounds b;
  const int current = exponents[l][j];
  const auto log2_ratio = [](double a, double b) {
    return a > 0.0 && b > 0.0 ? static_cast<int>(std::floor(std::log2(a / b))) : 0;
  };
  if (rms[j] > 0.0 && others > 0.0) {
    // Bounds on growing and on shrinking: a unit already beyond one keeps its own size.
    b.highest = std::min(b.highest, std::max(0, kUnitCodeHeadroom + log2_ratio(others, rms[j])));
    if (carrying) {
      b.lowest = std::max(b.lowest, std::min(0, -kUnitCodeHeadroom - log2_ratio(rms[j], others)));
    }
  }
  for (uint32_t i = 0; i < next.outputs; ++i) {
    double row_others = 0.0;
    for (size_t k = 0; k < columns; ++k) {
      if (k != j) row_others = std::max(row_others, std::fabs(next.mean[i * columns + k]));
    }
    const double m = std::fabs(next.mean[i * columns + j]);
    if (m > 0.0 && row_others > 0.0) {  // m 2^(current - e) <= row_others
      b.lowest = std::max(b.lowest, std::min(current, current - log2_ratio(row_others, m)));
    }
  }
  return b;
}

// Where unit j after layer l has its largest variances in `scaled`, in its row of layer l and
// its column of layer l + 1: each as a fraction of its layer's largest.
struct UnitCodes {
  double row = 0.0, column = 0.0;
};

UnitCodes unit_codes(const Model& scaled, size_t l, uint32_t j) {
  const Layer& layer = scaled.layers[l];
  const Layer& next = scaled.layers[l + 1];
  const size_t n = layer.row_length(), n_next = next.row_length();
  UnitCodes c;
  for (size_t k = 0; k < n; ++k) c.row = std::max(c.row, layer.variance[j * n + k]);
  for (uint32_t i = 0; i < next.outputs; ++i) {
    c.column = std::max(c.column, next.variance[i * n_next + j]);
  }
  c.row /= *std::max_element(layer.variance.begin(), layer.variance.end());
  c.column /= *std::max_element(next.variance.begin(), next.variance.end());
  return c;
}

// A move may not take the unit's largest variances, in either layer, below code 16 (3 % of
// rounding) when they were above it, nor lower where they were below: on rows unlike the training
// rows, where the unit switches on, they are what matters.
bool keeps_its_codes(const UnitCodes& before, const UnitCodes& after) {
  constexpr double kLeast = 16.0 * 16.0 / kCodeRange;
  const auto kept = [&](double b, double a) { return a >= std::min(b, kLeast); };
  return kept(before.row, after.row) && kept(before.column, after.column);
}

}  // namespace

UnitExponents int8_unit_exponents(const Model& model, std::span<const double> inputs, size_t rows) {
  UnitExponents exponents(model.layers.size());
  for (size_t l = 0; l < model.layers.size(); ++l) exponents[l].assign(model.layers[l].outputs, 0);
  if (model.layers.size() < 2 || rows == 0) return exponents;
  const size_t width = model.layers[0].inputs;
  if (inputs.size() != rows * width) {
    throw std::invalid_argument("int8 unit scales: the rows do not match the model's inputs");
  }
  // The search's cost: one pass over the weights per search row, candidate, unit and sweep.
  size_t weights = 0, units = 0;
  for (size_t l = 0; l < model.layers.size(); ++l) {
    weights += model.layers[l].mean.size();
    if (rescalable(model, l)) units += model.layers[l].outputs;
  }
  constexpr size_t kCandidates = 2 * kInt8UnitSearchStep;
  const double per_row = double(weights) * double(units) * kCandidates * kInt8UnitSearchSweeps;
  const size_t affordable =
      static_cast<size_t>(std::min(double(rows), kInt8UnitSearchBudget / per_row));
  const size_t search_rows = std::min(affordable, kInt8UnitSearchRows);
  if (units == 0 || search_rows < kInt8UnitSearchMinRows) return exponents;
  std::vector<double> search;
  for (size_t i = 0; i < search_rows; ++i) {
    const size_t r = i * rows / search_rows;
    search.insert(search.end(), inputs.begin() + static_cast<std::ptrdiff_t>(r * width),
                  inputs.begin() + static_cast<std::ptrdiff_t>((r + 1) * width));
  }
  const std::vector<std::vector<double>> rms = unit_root_mean_squares(model, search, search_rows);
  const RowMoments reference = output_moments(model, search, search_rows);
  std::vector<std::vector<bool>> carries(model.layers.size());
  for (size_t l = 0; l + 1 < model.layers.size(); ++l)
    carries[l] = carrying_units(model, rms[l], l);
  Model scaled = model;
  // Only where the variances' codes alone move the outputs' variances by kInt8UnitSearchGate:
  // elsewhere a move could only trade the means' precision for nothing.
  if (code_error(scaled, search, search_rows, reference, false) < kInt8UnitSearchGate) {
    return exponents;
  }
  double error = code_error(scaled, search, search_rows, reference, true);
  for (size_t sweep = 0; sweep < kInt8UnitSearchSweeps; ++sweep) {
    bool moved = false;
    for (size_t l = 0; l + 1 < model.layers.size(); ++l) {
      if (!rescalable(model, l)) continue;
      const std::vector<bool>& carrying = carries[l];
      for (uint32_t j = 0; j < model.layers[l].outputs; ++j) {
        const UnitBounds bounds = unit_bounds(scaled, exponents, rms[l], carrying[j], l, j);
        const int current = exponents[l][j];
        int best = current;
        const UnitCodes codes = unit_codes(scaled, l, j);
        for (int e = current - kInt8UnitSearchStep; e <= current + kInt8UnitSearchStep; ++e) {
          if (e == current || e < bounds.lowest || e > bounds.highest) continue;
          rescale_unit(scaled, l, j, e - current);
          const double candidate = keeps_its_codes(codes, unit_codes(scaled, l, j))
                                       ? code_error(scaled, search, search_rows, reference, true)
                                       : error;
          rescale_unit(scaled, l, j, current - e);
          if (candidate < error * (1.0 - 1e-9)) best = e, error = candidate;
        }
        if (best == current) continue;
        rescale_unit(scaled, l, j, best - current);
        exponents[l][j] = best;
        moved = true;
      }
    }
    if (!moved) break;
  }
  return exponents;
}

void rescale_units(Model& model, const UnitExponents& exponents) {
  for (size_t l = 0; l + 1 < model.layers.size() && l < exponents.size(); ++l) {
    for (uint32_t j = 0; j < model.layers[l].outputs && j < exponents[l].size(); ++j) {
      if (exponents[l][j] != 0) rescale_unit(model, l, j, exponents[l][j]);
    }
  }
}

UnitExponents unit_exponents_between(const Model& original, const Model& rescaled) {
  UnitExponents exponents(original.layers.size());
  for (size_t l = 0; l < original.layers.size(); ++l) {
    exponents[l].assign(original.layers[l].outputs, 0);
  }
  if (rescaled.layers.size() != original.layers.size()) return exponents;
  for (size_t l = 0; l + 1 < original.layers.size(); ++l) {
    const Layer& a = original.layers[l];
    const Layer& b = rescaled.layers[l];
    if (b.mean.size() != a.mean.size()) return exponents;
    const size_t n = a.row_length();
    double largest_variance = 0.0;
    for (const double v : b.variance) largest_variance = std::max(largest_variance, v);
    for (uint32_t j = 0; j < a.outputs; ++j) {
      // log2 of rescaled / original over the row's weights on large codes (a mean of 16 steps or
      // more, a variance code of 16 or more: ratios within 15 % of 2^e), at the input exponents
      // found so far; their median (the rounding's compensation and clipping move a few means
      // further).
      double row_largest = 0.0;
      for (size_t k = 0; k < n; ++k) {
        row_largest = std::max(row_largest, std::fabs(b.mean[j * n + k]));
      }
      std::vector<double> log_ratios;
      for (size_t k = 0; k < n; ++k) {
        const int input_exponent = l > 0 && k + 1 < n ? exponents[l - 1][k] : 0;
        const double m = std::ldexp(a.mean[j * n + k], -input_exponent);
        const double v = std::ldexp(a.variance[j * n + k], -2 * input_exponent);
        const double mb = b.mean[j * n + k], vb = b.variance[j * n + k];
        if (m != 0.0 && mb * m > 0.0 && std::fabs(mb) >= row_largest / 8.0) {
          log_ratios.push_back(std::log2(mb / m));
        }
        if (v > 0.0 && vb >= largest_variance / 256.0) {
          log_ratios.push_back(0.5 * std::log2(vb / v));
        }
      }
      if (log_ratios.empty()) continue;
      std::nth_element(log_ratios.begin(), log_ratios.begin() + log_ratios.size() / 2,
                       log_ratios.end());
      exponents[l][j] = static_cast<int>(std::lround(log_ratios[log_ratios.size() / 2]));
    }
  }
  return exponents;
}

}  // namespace pbp::trainer
