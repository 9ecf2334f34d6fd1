// SPDX-License-Identifier: Apache-2.0
// The noise level of a regression model, and the scale of its epistemic variance, set from rows
// it was not trained on.
//
// PBP learns the noise precision's Gamma by ADF, which never forgets: the misfit of the first
// epochs stays in its rate b, and so does the Gamma(6, 6) start, worth 12 pseudo-rows of
// variance 1 (standardised). On a low-noise data set that start alone holds the estimate far
// above the truth (energy, 2 x 50: test RMSE 0.51 but 99.7 % of test points inside the 95 %
// intervals). Held-out residuals, with the epistemic variance the model reports for each row,
// give the noise variance that makes its predictive densities fit rows it has not seen.
//
// ADF also counts every row once per epoch, so the weights' posterior variances, and with them
// the epistemic variance, come out too small by a factor that grows with the epochs (held-out
// fits on Boston's standard splits put it at 3 to 8 for 40 to 120 epochs). The same rows measure
// that factor: the predictive N(mean, scale * epistemic + noise) whose two parameters maximise
// their likelihood.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace pbp::trainer {

// A model's predictions on held-out rows, in standardised target units.
struct HeldOutResiduals {
  std::vector<double> squared_error;  // (y - predictive mean)^2
  std::vector<double> epistemic;      // the model's epistemic variance at that row
  // Empty for a shared noise (the Gaussian likelihood). A heteroscedastic model's own noise
  // variance at each row: the calibrated `noise` below is then a factor on it, not a variance,
  // and noise_floor a variance added to every row's.
  std::vector<double> aleatoric;
  double noise_floor = 0.0;
  void append(const HeldOutResiduals& other);
  size_t size() const { return squared_error.size(); }
  double noise_at(size_t i, double noise) const {
    return aleatoric.empty() ? noise : noise * aleatoric[i] + noise_floor;
  }
};

// Mean Gaussian log-likelihood of the rows with noise variance n_i = rows.noise_at(i, noise) and
// the epistemic variance v_i times `epistemic_scale`: -1/2 (log 2 pi (s v_i + n_i) + r_i^2 /
// (s v_i + n_i)).
double held_out_loglik(const HeldOutResiduals& rows, double noise, double epistemic_scale = 1.0);

// One row's log-likelihood under the predictive of variance `variance` at the squared error
// `error_squared`: the Gaussian's (tail_dof 0, -1/2 (log 2 pi v + e^2 / v), its bits as they always
// were) or the Student-t's of that variance (runtime/core/pbp/predictive_tail.hpp). Every
// held-out and test figure of the trainer and the tools goes through it.
double predictive_loglik(double error_squared, double variance, uint32_t tail_dof = 0);

// The noise variance that maximises held_out_loglik at that epistemic scale, found to a relative
// 1e-9 within [1e-10, 1e4] (standardised units: from a near-exact fit to 100 times the target's
// variance). With zero epistemic variance this is the mean squared error. At least one row.
double calibrated_noise_variance(const HeldOutResiduals& rows, double epistemic_scale = 1.0);

struct PredictiveCalibration {
  double noise_variance = 0.0;   // standardised units
  double epistemic_scale = 1.0;  // a float32 value in [kMinEpistemicScale, kMaxEpistemicScale]
  double loglik = 0.0;           // held_out_loglik at both
  double noise_floor = 0.0;      // heteroscedastic rows only (HeldOutResiduals::noise_floor)
};

// The range the epistemic scale is searched in: from a tenth (the posterior far too broad) to a
// hundred times (ADF's over-counting after many epochs); inside the blob's [2^-10, 2^10].
inline constexpr double kMinEpistemicScale = 0.1;
inline constexpr double kMaxEpistemicScale = 100.0;

// The epistemic scale and noise variance that maximise held_out_loglik together: the best scale
// of a grid 0.1 decades apart, each with its calibrated noise, refined by golden-section search
// between its neighbours to 1e-4 decades, then rounded to float32 (the blob's precision) and the
// noise calibrated again at the rounded scale. At least one row.
// `coarse`: grids 0.5 decades apart for both, refined to 1e-6 and 1e-2 decades, about ten
// times cheaper; for ranking candidates (the recipe's search), not for the model kept.
// Heteroscedastic rows (aleatoric set): the same for each noise floor of a grid (none, and the
// rows' mean squared error times 10^-3 .. 1, half a decade apart; coarse: a decade), the best
// kept. The floor carries the mean's misfit the model's own noise misses (yacht: residuals of 0.2
// where the noise head says 0.05).
enum class CalibrationGrid : uint32_t { fine = 0, coarse = 1 };
PredictiveCalibration calibrate_predictive(const HeldOutResiduals& rows,
                                           CalibrationGrid grid = CalibrationGrid::fine);

// The predictive's shape for Gaussian rows calibrated at `fit`: the Student-t of the same
// variances (runtime/core/pbp/predictive_tail.hpp) whose degrees of freedom, of kTailDofs,
// give the rows the highest mean log-likelihood, or 0 (Gaussian) where none beats it. Held-out
// errors are heavier-tailed than a Gaussian on most UCI sets (its 50 % intervals hold 0.57 to 0.69
// of Boston's, concrete's, energy's and yacht's test rows when its 95 % ones hold 0.95).
inline constexpr uint32_t kTailDofs[] = {3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32};
uint32_t calibrated_tail_dof(const HeldOutResiduals& rows, const PredictiveCalibration& fit);

}  // namespace pbp::trainer
