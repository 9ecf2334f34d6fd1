// The noise level of a regression model, set from rows it was not trained on.
//
// PBP learns the noise precision's Gamma by ADF, which never forgets: the misfit of the first
// epochs stays in its rate b, and so does the Gamma(6, 6) start, worth 12 pseudo-rows of
// variance 1 (standardised). On a low-noise data set that start alone holds the estimate far
// above the truth (energy, 2 x 50: test RMSE 0.51 but 99.7 % of test points inside the 95 %
// intervals). Held-out residuals, with the epistemic variance the model reports for each row,
// give the noise variance that makes its predictive densities fit rows it has not seen.
#pragma once
#include <cstddef>
#include <vector>

namespace pbp::trainer {

// A model's predictions on held-out rows, in standardised target units.
struct HeldOutResiduals {
  std::vector<double> squared_error;  // (y - predictive mean)^2
  std::vector<double> epistemic;      // the model's epistemic variance at that row
  void append(const HeldOutResiduals& other);
  size_t size() const { return squared_error.size(); }
};

// Mean Gaussian log-likelihood of the rows with noise variance `noise`:
// -1/2 (log 2 pi (v_i + noise) + r_i^2 / (v_i + noise)).
double held_out_loglik(const HeldOutResiduals& rows, double noise);

// The noise variance that maximises held_out_loglik, found to a relative 1e-9 within
// [1e-10, 1e4] (standardised units: from a near-exact fit to 100 times the target's variance).
// With zero epistemic variance this is the mean squared error. At least one row.
double calibrated_noise_variance(const HeldOutResiduals& rows);

}  // namespace pbp::trainer
