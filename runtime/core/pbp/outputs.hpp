// SPDX-License-Identifier: Apache-2.0
// Predictive distributions of the regression, binary, multiclass and count tasks (Ghosh, Delle Fave
// & Yedidia 2016, "Assumed density filtering methods for learning Bayesian neural networks") from
// the output moments of one forward pass: output i is z_i ~ N(nu_i, psi_i), independent
// (moments.hpp). The one copy of these formulas: the runtime instantiates them in float
// (pbp_predict, pbp_predict_classes, pbp_predict_count), the trainer in double. Freestanding:
// pbp::math only, no libm, no heap; deterministic (no sampling). Valid inputs: finite nu, finite
// psi >= 0.
#pragma once
#include <stdint.h>

#include "pbp/math.hpp"

namespace pbp::outputs {

// ---------------------------------------------------------------------------------------------
// Regression: Gaussian likelihood whose precision has a Gamma(a, b) posterior, in standardised
// target units. The paper replaces the Student-t predictive by a Gaussian with the noise variance
// b / (a - 1) (also the variance estimate of any Gamma on a precision: the trainer's priors).
template <class T>
inline T gamma_variance(T a, T b) {
  return b / (a - T(1));
}

template <class T>
struct RegressionMoments {
  T mean;                // in target units
  T epistemic_variance;  // scale psi target_std^2: from the weights' uncertainty
  T aleatoric_variance;  // b / (a - 1) target_std^2: the noise
};

// The predictive of output z ~ N(nu, psi) in target units: y = z target_std + target_mean, with
// psi times the model's epistemic scale (1 unless the likelihood is gaussian_epistemic_scaled).
template <class T>
inline RegressionMoments<T> regression_moments(T nu, T psi, T epistemic_scale, T noise_a, T noise_b,
                                               T target_mean, T target_std) {
  const T target_variance = target_std * target_std;
  return {nu * target_std + target_mean, epistemic_scale * psi * target_variance,
          gamma_variance(noise_a, noise_b) * target_variance};
}

// Heteroscedastic regression (PBP_LIKELIHOOD_GAUSSIAN_HETEROSCEDASTIC): output f ~ N(nu_f, psi_f)
// is the mean, g ~ N(nu_g, psi_g) the log noise variance (standardised units), y ~ N(f, e^g). The
// predictive's moments: mean nu_f, epistemic variance psi_f (times the model's scale), aleatoric
// variance E[e^g] = exp(nu_g + psi_g / 2) (the log-normal mean), all in target units.
template <class T>
inline RegressionMoments<T> heteroscedastic_moments(T nu_f, T psi_f, T nu_g, T psi_g,
                                                    T epistemic_scale, T target_mean,
                                                    T target_std) {
  const T target_variance = target_std * target_std;
  return {nu_f * target_std + target_mean, epistemic_scale * psi_f * target_variance,
          math::exp(nu_g + psi_g * T(0.5)) * target_variance};
}

// The regression predictive of a model's output moments (nu, psi: its output_count values):
// the heteroscedastic one for that likelihood, else the Gamma noise's.
template <class T>
inline RegressionMoments<T> regression_predictive(bool heteroscedastic, const T* nu, const T* psi,
                                                  T epistemic_scale, T noise_a, T noise_b,
                                                  T target_mean, T target_std) {
  return heteroscedastic ? heteroscedastic_moments(nu[0], psi[0], nu[1], psi[1], epistemic_scale,
                                                   target_mean, target_std)
                         : regression_moments(nu[0], psi[0], epistemic_scale, noise_a, noise_b,
                                              target_mean, target_std);
}

// ---------------------------------------------------------------------------------------------
// Binary: probit likelihood p(y = 1 | z) = Phi(z). E[Phi(z)] = Phi(nu / sqrt(1 + psi)) exactly.
// Each class comes from its own tail, so the smaller probability keeps its relative precision.
template <class T>
struct BinaryProbabilities {
  T negative;  // p(y = 0)
  T positive;  // p(y = 1)
};

template <class T>
inline BinaryProbabilities<T> binary_probabilities(T nu, T psi) {
  const T t = nu / math::sqrt(T(1) + psi);
  return {math::normal_cdf(-t), math::normal_cdf(t)};
}

// ---------------------------------------------------------------------------------------------
// Multiclass: softmax likelihood. E[softmax(z)_c] has no closed form; we use the mean-field
// approximation (Lu, Ie & Sha 2020, "Mean-field approximation to Gaussian-softmax integral"):
// softmax(z)_c = 1 / (1 + sum_{k != c} exp(-(z_c - z_k))), where z_c - z_k ~ N(nu_c - nu_k,
// psi_c + psi_k); each pairwise logistic term gets the probit-scaled mean of MacKay (1992),
// E[sigmoid(d)] ~ sigmoid(m / sqrt(1 + pi s^2 / 8)) for d ~ N(m, s^2):
//   q_c = 1 / (1 + sum_{k != c} exp(-(nu_c - nu_k) / sqrt(1 + pi/8 (psi_c + psi_k)))),
//   p_c = q_c / sum_k q_k.
// psi = 0 gives the exact softmax; C = 2 gives the classic probit approximation of the
// logistic-normal integral. Unlike scaling each logit by its own variance
// (exp(nu_c / sqrt(1 + pi psi_c / 8)), normalised), it is invariant to shifting every nu by a
// constant, as E[softmax] is. Error against Monte Carlo: tests/host/outputs.
// Cost: C (C - 1) / 2 exponentials.
template <class T>
inline constexpr T kProbitScale = T(0.39269908169872415481);  // pi / 8

// Pairwise exponents are clamped to +-kMaxExponent, so every term and every sum of up to 2^16
// terms is finite in float (e^80 ~ 5.5e34); the clamped terms are below 2e-35 of the others.
template <class T>
inline constexpr T kMaxExponent = T(80);

// The probit scale sqrt(1 + pi/8 (psi_c + psi_k)) that divides nu_c - nu_k above. The trainer's
// mean-field softmax likelihood divides by the same scale.
template <class T>
inline T pairwise_scale(T psi_c, T psi_k) {
  return math::sqrt(T(1) + kProbitScale<T> * (psi_c + psi_k));
}

// p[0 .. count) = the approximation above; count >= 1, p must not alias nu or psi. The result
// sums to 1 up to rounding, every p_c in [0, 1], or holds NaN where an exponent overflowed.
template <class T>
inline void softmax_probabilities(const T* nu, const T* psi, uint32_t count, T* p) {
  for (uint32_t c = 0; c < count; ++c) p[c] = T(1);
  for (uint32_t c = 0; c < count; ++c) {
    for (uint32_t k = c + 1; k < count; ++k) {
      const T scale = pairwise_scale(psi[c], psi[k]);
      T e = (nu[k] - nu[c]) / scale;  // exponent of class k's term in q_c; -e in q_k
      // Clamped; NaN (inf / inf: the difference and the scale both overflowed) passes through to
      // p, which the caller then reports as non-finite rather than guessing a value.
      e = e > kMaxExponent<T> ? kMaxExponent<T> : (e < -kMaxExponent<T> ? -kMaxExponent<T> : e);
      const T term = math::exp(e);
      p[c] += term;
      p[k] += T(1) / term;
    }
  }
  T sum = T(0);
  for (uint32_t c = 0; c < count; ++c) {
    p[c] = T(1) / p[c];
    sum += p[c];
  }
  for (uint32_t c = 0; c < count; ++c) p[c] /= sum;
}

// Index of the largest p (the lowest index on ties); count >= 1.
template <class T>
inline uint32_t argmax(const T* p, uint32_t count) {
  uint32_t best = 0;
  for (uint32_t c = 1; c < count; ++c) best = p[c] > p[best] ? c : best;
  return best;
}

// Predictive entropy -sum p log p in nats (0 log 0 = 0), for probabilities in [0, 1].
template <class T>
inline T entropy(const T* p, uint32_t count) {
  T h = T(0);
  for (uint32_t c = 0; c < count; ++c) {
    if (p[c] > T(0)) h -= p[c] * math::log(p[c]);
  }
  return h;
}

// ---------------------------------------------------------------------------------------------
// Count: Poisson likelihood with rate e^z. The paper approximates the log-normal rate by a Gamma,
// which makes the predictive a negative binomial NB(mean mu = e^nu, scale psi) (its eqs. 21-22):
// r = 1 / psi, p = psi mu / (1 + psi mu), pmf(k) = Gamma(k + r) / (Gamma(r) k!) (1 - p)^r p^k,
// mean mu, variance mu (1 + psi mu), mode floor((1 - psi) mu) if psi < 1 else 0. psi -> 0 is
// the Poisson(mu) limit, which every formula below reaches without dividing by psi.

namespace detail {

// floor(x) for x >= 0 (+inf included) without libm: x >= 2^mantissa is already an integer.
template <class T>
inline T floor_nonnegative(T x) {
  const T big = math::detail::pow2<T>(math::detail::Traits<T>::kMantissaBits);
  if (!(x < big)) return x;
  const T rounded = (x + big) - big;  // round to nearest
  return rounded > x ? rounded - T(1) : rounded;
}

// log(1 + x) / x for x >= 0, 1 at x = 0: log(u) / (u - 1) with u = 1 + x rounded, whose
// rounding error cancels between numerator and denominator (Goldberg 1991, thm. 4).
template <class T>
inline T log1p_over_x(T x) {
  const T u = T(1) + x;
  return u == T(1) ? T(1) : math::log(u) / (u - T(1));
}

}  // namespace detail

template <class T>
struct CountMoments {
  T mean;      // mu = e^nu
  T variance;  // mu (1 + psi mu)
  T mode;      // floor((1 - psi) mu) if psi < 1, else 0
};

// Overflows to +inf for nu > ~88.7 (float) and the variance for mu psi mu > ~3.4e38: the caller
// checks finiteness.
template <class T>
inline CountMoments<T> count_moments(T nu, T psi) {
  const T mean = math::exp(nu);
  const T mode = psi < T(1) ? detail::floor_nonnegative((T(1) - psi) * mean) : T(0);
  return {mean, mean * (T(1) + psi * mean), mode};
}

template <class T>
struct CountInterval {
  T lower;         // smallest k with CDF(k) >= (1 - probability) / 2
  T upper;         // smallest k with CDF(k) >= (1 + probability) / 2
  uint32_t terms;  // pmf terms summed
  bool complete;   // false: max_terms were not enough (lower and upper then meaningless)
};

// The central interval of NB(mean, psi) holding `probability` in (0, 1), from the CDF summed
// term by term from k = 0 with pmf(k + 1) = pmf(k) (k + r) / (k + 1) p, written
// pmf(k) (1 + k psi) / (k + 1) * mean / (1 + psi mean) (no 1/psi), from
// pmf(0) = (1 - p)^r = exp(-mean log(1 + psi mean) / (psi mean)) (-> e^-mean as psi -> 0).
// For large means pmf(0) underflows (float: mean > ~87), so the walk carries pmf(k) = w 2^e with
// an integer exponent e <= 0, rescaled by exact powers of two, and compares against the
// thresholds scaled the same way. Sums are compensated (Kahan). Sums to at most max_terms terms:
// the cost is upper + 1 terms. If rounding leaves the summed CDF short of the upper threshold,
// the walk stops once the remaining tail is provably below 2^-(mantissa - 3) of the sum
// (tail <= pmf(k) rho / (1 - rho), rho bounding the later pmf ratios). Accuracy: the CDF carries
// a relative error of a few (k + |log pmf(0)|) ulp, so a bound can be off by one where the CDF
// is that close to a threshold. Valid for finite mean >= 0, finite psi >= 0.
template <class T>
inline CountInterval<T> count_interval(T mean, T psi, T probability, uint32_t max_terms) {
  using Traits = math::detail::Traits<T>;
  constexpr int kRescaleBits = 32;
  const T kRescaleUp = math::detail::pow2<T>(kRescaleBits);
  const T kRescaleDown = math::detail::pow2<T>(-kRescaleBits);
  const T kTailTolerance = math::detail::pow2<T>(-(Traits::kMantissaBits - 3));
  const T kLn2 = T(0.69314718055994530942);
  const int kMaxScaleBits = Traits::kExponentBias - 1;  // 2^kMaxScaleBits is finite

  CountInterval<T> out{T(0), T(0), 0u, false};
  const T a = psi * mean;
  const T ratio = mean / (T(1) + a);  // f(k) = ratio (1 + k psi) / (k + 1)
  const T p = psi * ratio;            // psi mean / (1 + psi mean): lim f(k) for psi > 0
  const T log_pmf0 = -mean * detail::log1p_over_x(a);  // r log(1 - p)
  // Split pmf(0) = w 2^e with w in (1/2, 1]; beyond -2^30 nothing is reachable in max_terms.
  if (!(log_pmf0 > T(-1073741824))) return out;
  int e = static_cast<int>(log_pmf0 / kLn2);  // truncates towards 0, so e <= 0
  T w = math::exp(log_pmf0 - static_cast<T>(e) * kLn2);

  const T tail = (T(1) - probability) * T(0.5);
  const T targets[2] = {tail, T(1) - tail};
  T scaled[2];  // targets * 2^-e, +inf when that is not representable
  auto rescale_targets = [&]() {
    for (int i = 0; i < 2; ++i) {
      scaled[i] = -e > kMaxScaleBits ? math::infinity<T>() : targets[i] * math::detail::pow2<T>(-e);
    }
  };
  rescale_targets();

  T cdf = T(0);
  T compensation = T(0);
  bool have_lower = false;
  for (uint32_t k = 0; k < max_terms; ++k) {
    const T y = w - compensation;
    const T t = cdf + y;
    compensation = (t - cdf) - y;
    cdf = t;
    const T kf = static_cast<T>(k);
    const T next_ratio = ratio * (T(1) + kf * psi) / (kf + T(1));
    // A bound on every later pmf ratio: f decreases towards p when psi < 1, increases when > 1.
    const T rho = psi < T(1) ? next_ratio : p;
    if (!have_lower && cdf >= scaled[0]) {
      have_lower = true;
      out.lower = kf;
    }
    // Only once the lower bound is found: before it, a negligible tail would mean the sum went
    // badly wrong (w underflowed), and the walk goes on to max_terms instead.
    const bool tail_negligible =
        have_lower && rho < T(1) && w * rho <= kTailTolerance * cdf * (T(1) - rho);
    if (cdf >= scaled[1] || tail_negligible) {
      out.upper = kf;
      out.terms = k + 1;
      out.complete = true;
      return out;
    }
    w *= next_ratio;
    if (w >= kRescaleUp && e <= -kRescaleBits) {
      w *= kRescaleDown;
      cdf *= kRescaleDown;
      compensation *= kRescaleDown;
      e += kRescaleBits;
      rescale_targets();
    }
  }
  out.terms = max_terms;
  return out;
}

}  // namespace pbp::outputs
