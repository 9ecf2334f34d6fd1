#include <cmath>

#include "likelihoods/likelihoods.hpp"
#include "pbp/math.hpp"

namespace pbp::trainer {

// With x = y m / sqrt(1 + v):  d log Phi(x) / dm = phi/Phi(x) y / sqrt(1 + v),
// d log Phi(x) / dv = -phi/Phi(x) x / (2 (1 + v)). phi/Phi and log Phi come from the stable
// runtime kernels, so neither tail gives 0/0, -inf or NaN.
double ProbitLikelihood::log_z(const double* mean, const double* var, double target, double* d_mean,
                               double* d_var) {
  const double sign = target > 0.5 ? 1.0 : -1.0;
  const double spread = 1.0 + var[0];
  const double inv_scale = 1.0 / std::sqrt(spread);
  const double x = sign * mean[0] * inv_scale;
  const double ratio = math::normal_pdf_over_cdf(x);
  d_mean[0] = ratio * sign * inv_scale;
  d_var[0] = -0.5 * ratio * x / spread;
  return math::log_normal_cdf(x);
}

}  // namespace pbp::trainer
