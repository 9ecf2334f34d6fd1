// SPDX-License-Identifier: Apache-2.0
// Regression with input-dependent noise: two outputs, f (the mean) and g (the log noise variance,
// standardised units), y ~ N(f, e^g). With f ~ N(m_f, v_f) and g ~ N(m_g, v_g) from the forward
// pass, f integrates in closed form and g by Gauss-Hermite quadrature on 32 fixed nodes:
//   Z = int N(y | m_f, v_f + e^g) N(g | m_g, v_g) dg ~ sum_k w_k N(y | m_f, s_k),
//   g_k = m_g + sqrt(2 v_g) x_k,  s_k = v_f + e^{g_k},  r = y - m_f.
// The derivatives are those of this sum exactly (so finite differences check them to rounding),
// with p_k = w_k N(y | m_f, s_k) / Z and h_k = (r^2 / s_k^2 - 1 / s_k) / 2 = d log N / d s_k:
//   d log Z / d m_f = sum p_k r / s_k,          d log Z / d v_f = sum p_k h_k,
//   d log Z / d m_g = sum p_k h_k e^{g_k},      d log Z / d v_g = sum p_k h_k e^{g_k} x_k / sqrt(2
//   v_g).
// No noise Gamma: the Gaussian likelihood's Gamma posterior on a shared precision has no
// counterpart here; g's output weights (its bias: the average log noise) learn the noise by the
// same ADF update as every other weight.
#include <algorithm>
#include <cmath>

#include "likelihoods/likelihoods.hpp"

namespace pbp::trainer {
namespace {

// Gauss-Hermite nodes x_k >= 0 and weights w_k / sqrt(pi) (they sum to 1/2 on this half) of the
// 32-point rule, exact for polynomials of degree 63 in g; computed to 45 digits by Newton's method
// on the orthonormal Hermite recurrence, ascending. Its accuracy falls where a point's noise
// posterior lies far out in N(g | m_g, v_g): an outlier 30 noise sd out (m_g = -4, v_g = 1,
// y - m_f = 4, v_f = 1e-4) is off by 1e-4 nats (20 nodes: 8e-3), against 1e-9 near the data.
constexpr int kHalfNodes = 16;
constexpr double kNodes[kHalfNodes] = {
    0.19484074156939932, 0.5849787654359324, 0.9765004635896828, 1.3703764109528718,
    1.7676541094632017,  2.169499183606112,  2.5772495377323175, 2.992490825002374,
    3.417167492818571,   3.853755485471445,  4.305547953351199,  4.777164503502596,
    5.2755509865158805,  5.812225949515914,  6.409498149269661,  7.125813909830727};
constexpr double kWeights[kHalfNodes] = {
    0.2117055698804793,     0.15653899375759844,   0.08534480827208075,    0.03410984772609205,
    0.009903461702320591,   0.0020620510513078847, 0.0003025570258170625,  3.05598030608963e-05,
    2.0596221039534287e-06, 8.881290713105896e-08, 2.3125184120742405e-09, 3.347501239801207e-11,
    2.3780648557778086e-13, 6.755290223670119e-16, 5.208449591960861e-19,  4.1246074890182694e-23};
constexpr int kNodeCount = 2 * kHalfNodes;

// Keeps e^g and s^2 finite, and s away from 0 where r^2 / s^2 would overflow (far beyond any
// standardised noise a network learns).
constexpr double kMaxLogNoise = 300.0;
constexpr double kMinVariance = 1e-100;
constexpr double kMinLogNoiseVariance = 1e-300;  // v_g: its derivative divides by sqrt(2 v_g)

class HeteroscedasticLikelihood final : public Likelihood {
 public:
  uint32_t outputs() const override { return 2; }
  double log_z(const double* mean, const double* var, double target, double* d_mean,
               double* d_var) override {
    const double r = target - mean[0];
    const double v_f = std::max(var[0], 0.0);
    const double v_g = std::max(var[1], kMinLogNoiseVariance);
    const double spread = std::sqrt(2.0 * v_g);
    double log_term[kNodeCount], noise[kNodeCount], s[kNodeCount], x[kNodeCount];
    double largest = -INFINITY;
    for (int k = 0; k < kNodeCount; ++k) {
      x[k] = k < kHalfNodes ? -kNodes[k] : kNodes[k - kHalfNodes];
      const double w = kWeights[k < kHalfNodes ? k : k - kHalfNodes];
      const double g = std::min(mean[1] + spread * x[k], kMaxLogNoise);
      noise[k] = std::exp(g);
      s[k] = std::max(v_f + noise[k], kMinVariance);
      log_term[k] = std::log(w) - 0.5 * std::log(2.0 * M_PI * s[k]) - 0.5 * r * r / s[k];
      largest = std::max(largest, log_term[k]);
    }
    double z = 0.0;
    for (int k = 0; k < kNodeCount; ++k) z += std::exp(log_term[k] - largest);
    double dm_f = 0.0, dv_f = 0.0, dm_g = 0.0, dv_g = 0.0;
    for (int k = 0; k < kNodeCount; ++k) {
      const double p = std::exp(log_term[k] - largest) / z;
      const double h = 0.5 * (r * r / (s[k] * s[k]) - 1.0 / s[k]);
      dm_f += p * r / s[k];
      dv_f += p * h;
      dm_g += p * h * noise[k];
      dv_g += p * h * noise[k] * x[k];
    }
    d_mean[0] = dm_f;
    d_var[0] = dv_f;
    d_mean[1] = dm_g;
    d_var[1] = dv_g / spread;
    return largest + std::log(z);
  }
};

}  // namespace

std::unique_ptr<Likelihood> make_heteroscedastic_likelihood(const LikelihoodContext&) {
  return std::make_unique<HeteroscedasticLikelihood>();
}

}  // namespace pbp::trainer
