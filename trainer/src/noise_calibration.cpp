// SPDX-License-Identifier: Apache-2.0
#include "pbp/trainer/noise_calibration.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

#include "pbp/predictive_tail.hpp"

namespace pbp::trainer {
namespace {

// d/d noise of the summed log-likelihood: 1/2 sum a_i (r^2 - v) / v^2 with v = s v_i + noise a_i
// (a_i = 1 for a shared noise).
double slope(const HeldOutResiduals& rows, double noise, double scale) {
  double sum = 0.0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const double v = scale * rows.epistemic[i] + rows.noise_at(i, noise);
    sum += rows.noise_at(i, 1.0) * (rows.squared_error[i] - v) / (v * v);
  }
  return sum;
}

// How finely the noise and the scale are searched: decades between grid points, and the
// refinements' tolerances in decades.
struct Grid {
  double noise_step, noise_tolerance, scale_step, scale_tolerance;
};
constexpr Grid kFine{0.05, 1e-10, 0.1, 1e-4};
// Ten times coarser grids, refined less: for ranking candidates, not for the model kept.
constexpr Grid kCoarse{0.5, 1e-6, 0.5, 1e-2};

template <Grid kGrid>
double noise_variance(const HeldOutResiduals& rows, double epistemic_scale);
template <Grid kGrid>
PredictiveCalibration predictive(const HeldOutResiduals& rows);

}  // namespace

void HeldOutResiduals::append(const HeldOutResiduals& other) {
  squared_error.insert(squared_error.end(), other.squared_error.begin(), other.squared_error.end());
  epistemic.insert(epistemic.end(), other.epistemic.begin(), other.epistemic.end());
  aleatoric.insert(aleatoric.end(), other.aleatoric.begin(), other.aleatoric.end());
}

double predictive_loglik(double error_squared, double variance, uint32_t tail_dof) {
  if (tail_dof == 0) {
    return -0.5 * (std::log(2.0 * std::numbers::pi * variance) + error_squared / variance);
  }
  return outputs::predictive_log_density(error_squared / variance, tail_dof) -
         0.5 * std::log(variance);
}

double held_out_loglik(const HeldOutResiduals& rows, double noise, double epistemic_scale) {
  double sum = 0.0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const double v = epistemic_scale * rows.epistemic[i] + rows.noise_at(i, noise);
    sum += predictive_loglik(rows.squared_error[i], v);
  }
  return sum / static_cast<double>(rows.size());
}

uint32_t calibrated_tail_dof(const HeldOutResiduals& rows, const PredictiveCalibration& fit) {
  if (!rows.aleatoric.empty() || rows.size() == 0) return 0;
  uint32_t best = 0;
  double best_loglik = held_out_loglik(rows, fit.noise_variance, fit.epistemic_scale);
  for (const uint32_t dof : kTailDofs) {
    double sum = 0.0;
    for (size_t i = 0; i < rows.size(); ++i) {
      const double v = fit.epistemic_scale * rows.epistemic[i] + fit.noise_variance;
      sum += predictive_loglik(rows.squared_error[i], v, dof);
    }
    const double loglik = sum / static_cast<double>(rows.size());
    if (loglik > best_loglik) {
      best = dof;
      best_loglik = loglik;
    }
  }
  return best;
}

double calibrated_noise_variance(const HeldOutResiduals& rows, double epistemic_scale) {
  return noise_variance<kFine>(rows, epistemic_scale);
}

PredictiveCalibration calibrate_predictive(const HeldOutResiduals& rows, CalibrationGrid grid) {
  const bool fine = grid == CalibrationGrid::fine;
  if (rows.aleatoric.empty()) return fine ? predictive<kFine>(rows) : predictive<kCoarse>(rows);
  double mean_squared_error = 0.0;
  for (const double e : rows.squared_error) mean_squared_error += e;
  mean_squared_error /= static_cast<double>(std::max<size_t>(rows.size(), 1));
  const int floor_steps = fine ? 6 : 3;  // from 10^-3 to 1 times the mean squared error
  HeldOutResiduals trial = rows;
  PredictiveCalibration best{0.0, 1.0, -INFINITY};
  for (int k = -1; k <= floor_steps; ++k) {
    trial.noise_floor =
        k < 0 ? 0.0 : mean_squared_error * std::pow(10.0, -3.0 + 3.0 * k / floor_steps);
    PredictiveCalibration fit = fine ? predictive<kFine>(trial) : predictive<kCoarse>(trial);
    fit.noise_floor = trial.noise_floor;
    if (fit.loglik > best.loglik) best = fit;
  }
  return best;
}

namespace {

template <Grid kGrid>
double noise_variance(const HeldOutResiduals& rows, double epistemic_scale) {
  if (rows.size() == 0) throw std::invalid_argument("noise calibration needs held-out rows");
  // With varying epistemic variances the log-likelihood can have more than one local maximum,
  // so the best of a grid (0.05 decades apart when fine) is found first and then refined by
  // bisecting the slope's sign between its neighbours (where the slope is positive left, negative
  // right).
  constexpr double kLowest = -10.0, kHighest = 4.0, kStep = kGrid.noise_step;  // log10 of the noise
  const int steps = static_cast<int>((kHighest - kLowest) / kStep + 0.5);
  int best = 0;
  double best_loglik = -INFINITY;
  for (int k = 0; k <= steps; ++k) {
    const double loglik =
        held_out_loglik(rows, std::pow(10.0, kLowest + kStep * k), epistemic_scale);
    if (loglik > best_loglik) best_loglik = loglik, best = k;
  }
  double low = kLowest + kStep * (best > 0 ? best - 1 : 0);
  double high = kLowest + kStep * (best < steps ? best + 1 : steps);
  if (slope(rows, std::pow(10.0, low), epistemic_scale) <= 0.0 ||
      slope(rows, std::pow(10.0, high), epistemic_scale) >= 0.0) {
    return std::pow(10.0, kLowest + kStep * best);  // at an end of the range
  }
  while (high - low > kGrid.noise_tolerance) {
    const double middle = 0.5 * (low + high);
    (slope(rows, std::pow(10.0, middle), epistemic_scale) > 0.0 ? low : high) = middle;
  }
  return std::pow(10.0, 0.5 * (low + high));
}

template <Grid kGrid>
PredictiveCalibration predictive(const HeldOutResiduals& rows) {
  if (rows.size() == 0) throw std::invalid_argument("noise calibration needs held-out rows");
  auto at = [&](double log_scale) {  // the profile: the best noise at this scale
    const double scale = std::pow(10.0, log_scale);
    const double noise = noise_variance<kGrid>(rows, scale);
    return PredictiveCalibration{noise, scale, held_out_loglik(rows, noise, scale)};
  };
  const double lowest = std::log10(kMinEpistemicScale), highest = std::log10(kMaxEpistemicScale);
  constexpr double kStep = kGrid.scale_step;
  const int steps = static_cast<int>((highest - lowest) / kStep + 0.5);
  int best_step = 0;
  double best_loglik = -INFINITY;
  for (int k = 0; k <= steps; ++k) {
    const double loglik = at(lowest + kStep * k).loglik;
    if (loglik > best_loglik) best_loglik = loglik, best_step = k;
  }
  // Golden-section search of the profile between the best grid point's neighbours.
  double low = lowest + kStep * std::max(best_step - 1, 0);
  double high = lowest + kStep * std::min(best_step + 1, steps);
  const double ratio = 0.5 * (std::sqrt(5.0) - 1.0);
  double left = high - ratio * (high - low), right = low + ratio * (high - low);
  double f_left = at(left).loglik, f_right = at(right).loglik;
  while (high - low > kGrid.scale_tolerance) {
    if (f_left >= f_right) {
      high = right, right = left, f_right = f_left;
      left = high - ratio * (high - low), f_left = at(left).loglik;
    } else {
      low = left, left = right, f_left = f_right;
      right = low + ratio * (high - low), f_right = at(right).loglik;
    }
  }
  const double refined = f_left >= f_right ? left : right;
  const double chosen =
      std::max(f_left, f_right) >= best_loglik ? refined : lowest + kStep * best_step;
  const double scale = static_cast<float>(std::pow(10.0, chosen));
  const double noise = noise_variance<kGrid>(rows, scale);
  return {noise, scale, held_out_loglik(rows, noise, scale)};
}

}  // namespace
}  // namespace pbp::trainer
