// SPDX-License-Identifier: Apache-2.0
// The double pass and its float error bounds (see double_reference.hpp for the invariant).
#include "double_reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "distance_reference.hpp"
#include "interval_reference.hpp"
#include "pbp/float16.hpp"
#include "pbp/format.hpp"

namespace pbp_fuzz {
namespace {

// The float ReLU kernel's own error (a prediction's node steps, activation_relu.hpp: at most
// 8.1e-7 sd on the mean and 2.1e-6 v on the variance, measured over alpha in [-8, 8]; the
// learner's normal_tails_fast: Phi, Phi(-x), phi/Phi within ~5e-6
// relative where they matter, |alpha| <= 13; beyond, its clamped tails are below 1e-37): on the
// mean at most ~5e-6 (|m| + sd), taken x6; on the variance, whose closed form cancels for
// alpha < 0 (at most 3 max(alpha^2 Phi(alpha)) = 0.5 times the tails' error, of v), ~3e-6 v,
// taken x40; plus the clamped tails' 1e-37 |m| sd where alpha is huge.
constexpr double kReluMeanError = 0x1p-15;
constexpr double kReluVarianceError = 0x1p-13;
constexpr double kReluClampedTail = 1e-37;
// math::normal_cdf and math::exp in float: a few ulp, taken as 64 and 8.
constexpr double kCdfError = 64 * kU;
constexpr double kExpError = 8 * kU;
// Sensitivities of the ReLU moments (m_z, v_z) of a ~ N(m, s^2): |d m_z / d m| <= 1,
// d m_z / d s = phi(alpha) <= 1 / sqrt(2 pi), |d v_z / d m| = 2 s (alpha Phi + phi) Phi(-alpha)
// <= 0.43462 s, 0 <= d v_z / d v <= 1 (maxima over alpha, computed numerically).
constexpr double kMeanPerSd = 0.39894228;
constexpr double kVariancePerMean = 0.4347;

double gamma_n(double n) {
  return n * kU / (1.0 - n * kU);
}

// A bound that is itself NaN (0 x inf in an ill-conditioned pass) says nothing: infinite.
double sane(double bound) {
  return std::isnan(bound) ? INFINITY : bound;
}

struct Units {
  std::vector<double> mean, mean_bound, var, var_bound;
  explicit Units(size_t n) : mean(n), mean_bound(n), var(n, 0.0), var_bound(n, 0.0) {}
};

// Weight i of row `row` of a layer tensor in its storage type, exactly (float32, float16, or
// int8 and logarithmic variance codes decoded with their scales: exact in double).
struct StoredWeights {
  const void* data;
  uint32_t storage;
  size_t offset;
  bool variance;  // int8: the variance tensor's layout
  uint32_t rows;
  uint32_t row;
  double operator[](size_t i) const {
    namespace int8 = pbp::format::int8_weights;
    if (storage == PBP_STORAGE_FLOAT16) {
      return pbp::format::half_to_float(static_cast<const uint16_t*>(data)[offset + i]);
    }
    if (pbp::format::has_int8_means(storage)) {
      const uint8_t* bytes = static_cast<const uint8_t*>(data);
      if (variance) {
        return pbp::format::int8_layer_variance<double>(
            storage, pbp::format::load_f32(bytes), bytes[int8::kVarianceCodesOffset + offset + i]);
      }
      const float scale = pbp::format::load_f32(bytes + int8::kScaleSize * row);
      return int8::mean<double>(
          scale, static_cast<int8_t>(bytes[int8::mean_codes_offset(rows) + offset + i]));
    }
    return static_cast<const float*>(data)[offset + i];
  }
};

// Pre-activation moments of one layer (moments.hpp's linear_moments, PackedRows), with bounds.
Units linear(const pbp_layer& layer, const Units& z, bool exact_input) {
  const uint32_t n = layer.inputs;
  const uint32_t row = n + 1;
  const double scale_mean = 1.0 / std::sqrt(static_cast<double>(n) + 1.0);
  const double scale_var = 1.0 / (static_cast<double>(n) + 1.0);
  Units a(layer.outputs);
  // int8 (linear_moments_s8_s16.cpp) rounds A = m_z, B = m_z^2 + v_z and C = v_z to int16 codes,
  // a power-of-two step per vector with its largest (the bias's 1 included for A and B) coded
  // at >= 16383.5 steps: each within max / 32767 (the first layer's B, A's codes squared and
  // shifted, within 3 max / 32767: 2 |x| half a step of A, plus half a step of its own).
  const bool int8 = pbp::format::has_int8_means(layer.storage);
  double step_a = 0.0, step_b = 0.0, step_c = 0.0;
  if (int8) {
    double max_a = 1.0, max_b = 1.0, max_c = 0.0;
    for (uint32_t k = 0; k < n; ++k) {
      const double a_hi = std::fabs(z.mean[k]) + z.mean_bound[k];
      const double c_hi = exact_input ? 0.0 : z.var[k] + z.var_bound[k];
      max_a = std::max(max_a, a_hi);
      max_b = std::max(max_b, (a_hi * a_hi + c_hi) * (1.0 + 4.0 * kU));  // as float rounds it
      max_c = std::max(max_c, c_hi);
    }
    const double margin = 1.0 + 1e-6;
    step_a = margin * max_a / 32767.0;
    step_b = margin * (exact_input ? 3.0 : 1.0) * max_b / 32767.0;
    step_c = margin * max_c / 32767.0;
  }
  for (uint32_t j = 0; j < layer.outputs; ++j) {
    const StoredWeights mw{
        layer.stored_mean, layer.storage, static_cast<size_t>(j) * row, false, layer.outputs, j};
    const StoredWeights vw{
        layer.stored_variance, layer.storage, static_cast<size_t>(j) * row, true, layer.outputs, j};
    double sum = mw[n], magnitude = std::fabs(mw[n]), propagated = 0.0;
    double var_sum = vw[n], var_propagated = 0.0, underflow = 0.0;
    // int8: exact integer sums of the codes, then their conversion and the scales: up to 3 more
    // roundings (6 where the bias's mean is added in float); an underflow (kEta) of a scaled sum
    // comes back multiplied by a scale (s, s^2 or at most the largest code's variance). The codes'
    // rounding: `coded` and `var_coded` below.
    double scale_factor = 0.0;
    // The bias's A code is exact (a power of two step up to 1), or where eA > 0 (steps above 1)
    // its term is added in float: 2 roundings and the addition, in `mean_extra` below.
    double coded = 0.0;
    double var_coded = vw[n] * step_b;  // its B code too, but the first layer's may round
    if (int8) {
      namespace int8_weights = pbp::format::int8_weights;
      const uint8_t* means = static_cast<const uint8_t*>(layer.stored_mean);
      const double s = pbp::format::load_f32(means + int8_weights::kScaleSize * j);
      const float w = pbp::format::load_f32(static_cast<const uint8_t*>(layer.stored_variance));
      const double largest_variance =  // the largest code's variance
          pbp::format::int8_layer_variance<double>(layer.storage, w, 255);
      scale_factor = 1.0 + s + s * s + largest_variance;
    }
    double var_inputs = 0.0;  // sum of v_z and its bound, for the int8 underflow term
    for (uint32_t k = 0; k < n; ++k) {
      const double m = mw[k], v = vw[k], mz = z.mean[k], em = z.mean_bound[k];
      sum += m * mz;
      magnitude += std::fabs(m) * (std::fabs(mz) + em);
      propagated += std::fabs(m) * em;
      const double vz = exact_input ? 0.0 : z.var[k];
      const double ev = exact_input ? 0.0 : z.var_bound[k];
      var_sum += v * (mz * mz + vz) + m * m * vz;
      var_propagated += v * (2.0 * std::fabs(mz) * em + em * em) + (v + m * m) * ev;
      // fl(mz mz) and fl(mw mw) underflow by kEta, then multiplied by vw and vz.
      underflow += kEta * (v + (vz + ev) + 2.0);
      var_inputs += vz + ev;
      if (int8) {
        coded += std::fabs(m) * step_a;
        var_coded += v * step_b + m * m * step_c;
      }
    }
    if (int8) {
      underflow += kEta * scale_factor * (2.0 * n + 4.0) * (1.0 + 16129.0 * var_inputs);
    }
    const double extra = int8 ? 3.0 : 0.0;
    const double mean_extra = extra + (int8 && step_a > 1.0 ? 3.0 : 0.0);
    // Float: n products and n + 1 additions (the bias last), then the scale (2 roundings) and
    // the product with it.
    const double sum_bound = sane(gamma_n(n + 2.0 + mean_extra) * magnitude + propagated + coded +
                                  (2.0 * n + 2) * kEta * (int8 ? scale_factor : 1.0));
    a.mean[j] = sum * scale_mean;
    a.mean_bound[j] = sane(scale_mean * (1 + 4 * kU) * sum_bound +
                           3.01 * kU * scale_mean * std::fabs(sum) + kEta);
    // Each term <= 4 roundings, n + 1 additions of non-negative terms.
    const double var_bound = sane(gamma_n(n + 6.0 + extra) * (var_sum + var_propagated) +
                                  var_propagated + var_coded + underflow + kEta);
    a.var[j] = var_sum * scale_var;
    a.var_bound[j] =
        sane(scale_var * (1 + 3 * kU) * var_bound + 2.01 * kU * scale_var * var_sum + kEta);
  }
  return a;
}

// Moments of max(0, a), a ~ N(m, v), accurate to ~1e-15 of |m| + sd and of v.
void relu_reference(double m, double v, double* mean, double* var) {
  if (!(v > 0.0)) {
    *mean = m > 0.0 ? m : 0.0;
    *var = 0.0;
    return;
  }
  const double s = std::sqrt(v);
  const double a = m / s;
  if (a > 40.0) {  // Phi(-40) ~ 4e-350: nothing of the tail is representable
    *mean = m;
    *var = v;
  } else if (a < -40.0) {
    *mean = 0.0;
    *var = 0.0;
  } else {
    const double cdf = 0.5 * std::erfc(-a / std::sqrt(2.0));
    const double pdf = std::exp(-0.5 * a * a) / std::sqrt(2.0 * M_PI);
    const double g = a * cdf + pdf;                          // m_z / s
    const double h = (a * a + 1.0) * cdf + a * pdf - g * g;  // v_z / v
    *mean = s * g;
    *var = v * std::max(h, 0.0);
  }
}

void relu(Units& u) {
  for (size_t j = 0; j < u.mean.size(); ++j) {
    const double m = u.mean[j], v = u.var[j], em = u.mean_bound[j], ev = u.var_bound[j];
    double mz, vz;
    relu_reference(m, v, &mz, &vz);
    const double s = v > 0.0 ? std::sqrt(v) : 0.0;
    // |sqrt(v_f) - sqrt(v)| <= min(sqrt(|v_f - v|), |v_f - v| / sqrt(v)), plus sqrt's rounding.
    const double ds = (s > 0.0 ? std::min(std::sqrt(ev), ev / s) : std::sqrt(ev)) + kU * s;
    const double s_hi = s + ds, m_hi = std::fabs(m) + em;
    u.mean[j] = mz;
    u.mean_bound[j] = sane(em + kMeanPerSd * ds + kReluMeanError * (m_hi + s_hi) + 4 * kEta);
    u.var[j] = vz;
    u.var_bound[j] = sane(kVariancePerMean * s_hi * em + ev + kReluVarianceError * (v + ev) +
                          kReluClampedTail * m_hi * s_hi + 16 * kEta);
  }
}

// The erf unit 2 Phi(a) - 1 (activation_erf.hpp) by an independent formula, the EP paper's
// (Jylanki et al. 2014, appendix B): with h = m / sqrt(1 + v), rho = v / (1 + v),
//   mean = erf(h / sqrt 2),  var = (2 / pi) int_0^asin(rho) exp(-h^2 / (1 + sin t)) dt,
// by composite Simpson on 2048 and 4096 panels, their difference the reference's own error.
// Propagated input errors by the largest slopes (over all m, v): |d mean / d m| <= 2 phi(0) =
// 0.7979, |d mean / d v| <= max |x| phi(x) = 0.2420, |d var / d m| <= 8 phi(0) / 2 = 1.596,
// |d var / d v| <= 4 (0.121 + 1 / (2 pi)) = 1.12. The float kernel's own error: the mean within
// 32 u; the variance's 16 positive terms within (28 + 12 h^2) u through their exp arguments,
// taken as (64 + 16 h^2) u plus exp's error, and the 16-point rule's truncation, < 1e-26.
void erf_units(Units& u) {
  for (size_t j = 0; j < u.mean.size(); ++j) {
    const double m = u.mean[j], v = u.var[j], em = u.mean_bound[j], ev = u.var_bound[j];
    const double h = m / std::sqrt(1.0 + v);
    const double top = std::asin(v / (1.0 + v));
    auto simpson = [&](int panels) {
      const double step = top / panels;
      double sum = 0.0;
      for (int i = 0; i <= panels; ++i) {
        const double weight = i == 0 || i == panels ? 1.0 : i % 2 == 1 ? 4.0 : 2.0;
        sum += weight * std::exp(-h * h / (1.0 + std::sin(i * step)));
      }
      return sum * step / 3.0 * 2.0 / M_PI;
    };
    const double fine = simpson(4096), coarse = simpson(2048);
    u.mean[j] = std::erf(h / std::sqrt(2.0));
    u.mean_bound[j] = sane(0.7979 * em + 0.2420 * ev + 32 * kU + 4 * kEta);
    u.var[j] = fine;
    u.var_bound[j] = sane(1.596 * em + 1.12 * ev + ((64 + 16 * h * h) * kU + kExpError) * fine +
                          std::fabs(fine - coarse) + 1e-26 + 64 * kEta);
  }
}

// The sign unit (activation_sign.hpp): mean = erf(alpha / sqrt 2) with alpha = m / sqrt(v),
// var = 4 Phi(alpha) Phi(-alpha); v = 0: sign(m) (sign(0) = 0), variance 0. Propagated errors by
// the slopes' bounds over the box v >= v - ev > 0: |d mean / d m| <= 0.7979 / sqrt(v - ev),
// |d mean / d v| <= 0.2420 / (v - ev), and |d var| <= 2 |d mean| + d mean^2; where the box
// reaches v <= 0 the unit can take any value in [-1, 1]. The float kernel's own error: the mean
// within 32 u; the variance within (12 + 4 alpha^2) u relative (alpha's rounding through the
// tails' ratio phi / Phi ~ |alpha|), taken x2.
void sign_units(Units& u) {
  for (size_t j = 0; j < u.mean.size(); ++j) {
    const double m = u.mean[j], v = u.var[j], em = u.mean_bound[j], ev = u.var_bound[j];
    const double low = v - ev;
    if (!(v > 0.0)) {
      u.mean[j] = m > 0.0 ? 1.0 : m < 0.0 ? -1.0 : 0.0;
      u.var[j] = 0.0;
    } else {
      const double alpha = m / std::sqrt(v);
      u.mean[j] = std::erf(alpha / std::sqrt(2.0));
      u.var[j] = std::erfc(-alpha / std::sqrt(2.0)) * std::erfc(alpha / std::sqrt(2.0));
    }
    const double alpha2 = v > 0.0 ? m * m / v : 0.0;
    if (low > 0.0) {
      const double moved = 0.7979 * em / std::sqrt(low) + 0.2420 * ev / low;
      u.mean_bound[j] = sane(moved + 32 * kU + 4 * kEta);
      u.var_bound[j] =
          sane(2 * moved + moved * moved + 2 * (12 + 4 * alpha2) * kU * u.var[j] + 64 * kEta);
    } else if (ev == 0.0 && em < std::fabs(m)) {  // deterministic, and the sign is certain
      u.mean_bound[j] = 0.0;
      u.var_bound[j] = 0.0;
    } else {
      u.mean_bound[j] = 2.0;
      u.var_bound[j] = 1.0;
    }
  }
}

bool within(float actual, double value, double bound) {
  return std::fabs(static_cast<double>(actual) - value) <= bound + 1e-14 * std::fabs(value);
}

const char* report(const char* what, double actual, double value, double bound) {
  std::fprintf(stderr, "double reference: %s: float %.9g, double %.17g, bound %.3g\n", what, actual,
               value, bound);
  return what;
}

}  // namespace

OutputMoments reference_output_moments(const pbp_model& model, const float* input) {
  Units z(model.input_count);
  for (uint32_t k = 0; k < model.input_count; ++k) {
    // Float: (x - mean) then / std, two roundings.
    const double x = (static_cast<double>(input[k]) - model.input_mean[k]) /
                     static_cast<double>(model.input_std[k]);
    z.mean[k] = x;
    z.mean_bound[k] = (2 * kU + kU * kU) * std::fabs(x) + kEta;
  }
  for (uint32_t l = 0; l < model.layer_count; ++l) {
    z = linear(model.layers[l], z, l == 0);
    if (l + 1 == model.layer_count) break;
    if (model.layers[l].activation == PBP_ACTIVATION_ERF) {
      erf_units(z);
    } else if (model.layers[l].activation == PBP_ACTIVATION_SIGN) {
      sign_units(z);
    } else {
      relu(z);
    }
  }
  OutputMoments out;
  out.count = model.output_count;
  out.finite = true;
  for (uint32_t i = 0; i < out.count; ++i) {
    out.nu[i] = {z.mean[i], z.mean_bound[i]};
    out.psi[i] = {z.var[i], z.var_bound[i]};
    out.finite = out.finite && std::isfinite(z.mean[i]) && std::isfinite(z.var[i]);
  }
  return out;
}

const char* check_regression(const pbp_model& model, const float* input, float probability,
                             const pbp_prediction& r) {
  const OutputMoments o = reference_output_moments(model, input);
  if (!o.finite) return report("OK, but the double pass is not finite", r.mean, o.nu[0].value, 0);
  const double nu = o.nu[0].value, e_nu = o.nu[0].bound;
  const double psi = o.psi[0].value, e_psi = o.psi[0].bound;
  const double ts = model.target_std, tm = model.target_mean;
  // Float: fl(fl(nu ts) + tm); fl(fl(s psi) fl(ts ts)) with s the epistemic scale (1 unless the
  // likelihood carries one); fl(fl(b / fl(a - 1)) fl(ts ts)).
  const double mean = nu * ts + tm;
  const double b_mean =
      ts * e_nu * (1 + 2 * kU) + 2.01 * kU * (std::fabs(nu * ts) + std::fabs(mean)) + 2 * kEta;
  const double scale = model.epistemic_scale;
  double epi = scale * psi * ts * ts;
  // fl(s psi) may underflow (kEta, times ts^2), and fl(ts ts) too (kEta times s psi).
  double b_epi = scale * ts * ts * e_psi * (1 + 4 * kU) + 4.01 * kU * epi +
                 (scale * (psi + e_psi) + 1) * kEta + ts * ts * kEta * (1 + kU);
  if (model.input_occupancy != nullptr) {  // plus the distance variance: one more rounding
    const Bounded added = distance_variance_reference(model, input);
    b_epi += added.bound + 1.01 * kU * (epi + added.value + b_epi + added.bound);
    epi += added.value;
  }
  if (model.pair_occupancy != nullptr) {  // plus the pair variance: one more rounding
    const Bounded added = pair_variance_reference(model, input);
    b_epi += added.bound + 1.01 * kU * (epi + added.value + b_epi + added.bound);
    epi += added.value;
  }
  const double alea =
      static_cast<double>(model.noise_b) / (static_cast<double>(model.noise_a) - 1.0) * ts * ts;
  const double ratio = static_cast<double>(model.noise_b) / (model.noise_a - 1.0);
  const double b_alea = 4.01 * kU * alea + (ts * ts + ratio + 1) * kEta;
  const double sum = epi + alea;
  const double b_sum = b_epi + b_alea + 1.01 * kU * (sum + b_epi + b_alea);
  const double sd = std::sqrt(sum);
  const double b_sd = sane((sd > 0 ? std::min(std::sqrt(b_sum), b_sum / sd) : std::sqrt(b_sum)) +
                           1.01 * kU * (sd + std::sqrt(b_sum)));
  const double z =
      reference_half_width((1.0 - static_cast<double>(probability)) * 0.5, model.tail_dof);
  const double half = z * sd;
  const double b_half = z * b_sd + kIntervalError * z * (sd + b_sd) + 1.01 * kU * (half + z * b_sd);
  const double lower = mean - half, upper = mean + half;
  const double b_lower =
      sane(b_mean + b_half + 1.01 * kU * (std::fabs(lower) + b_mean + b_half) + kEta);
  const double b_upper =
      sane(b_mean + b_half + 1.01 * kU * (std::fabs(upper) + b_mean + b_half) + kEta);
  const double values[6] = {mean, epi, alea, sd, lower, upper};
  const double bounds[6] = {sane(b_mean), sane(b_epi), b_alea, b_sd, b_lower, b_upper};
  const float actual[6] = {r.mean, r.epistemic_variance, r.aleatoric_variance, r.std, r.lower,
                           r.upper};
  const char* names[6] = {
      "regression mean", "epistemic variance", "aleatoric variance", "std", "lower", "upper"};
  for (int i = 0; i < 6; ++i) {
    if (!std::isfinite(bounds[i])) continue;  // too ill-conditioned for float to say anything
    if (!std::isfinite(values[i]))
      return report("OK, but the double output is not finite", actual[i], values[i], bounds[i]);
    if (!within(actual[i], values[i], bounds[i]))
      return report(names[i], actual[i], values[i], bounds[i]);
  }
  return nullptr;
}

const char* check_classes(const pbp_model& model, const float* input, const float* probabilities,
                          uint32_t class_count) {
  const OutputMoments o = reference_output_moments(model, input);
  if (!o.finite) return report("OK, but the double pass is not finite", probabilities[0], 0, 0);
  std::vector<double> p(class_count), bound(class_count);
  if (model.task == PBP_TASK_BINARY) {
    const double nu = o.nu[0].value, e_nu = o.nu[0].bound;
    const double psi = o.psi[0].value, e_psi = o.psi[0].bound;
    const double t = nu / std::sqrt(1.0 + psi);
    const double psi_lo = std::max(0.0, psi - e_psi);
    // |1/sqrt(1+a) - 1/sqrt(1+b)| <= |a - b| / (2 (1 + min)^1.5); then 3 roundings.
    double dt = e_nu / std::sqrt(1.0 + psi_lo) +
                (std::fabs(nu) + e_nu) * e_psi / (2.0 * std::pow(1.0 + psi_lo, 1.5));
    dt = sane(dt + 3.01 * kU * (std::fabs(t) + dt));
    p[0] = 0.5 * std::erfc(t / std::sqrt(2.0));
    p[1] = 0.5 * std::erfc(-t / std::sqrt(2.0));
    for (size_t c = 0; c < 2; ++c)
      bound[c] = std::min(1.0, kMeanPerSd * dt) + kCdfError * p[c] + kEta;
  } else {
    // q_c = 1 / (1 + sum_k exp(e_ck)), e_ck = clamp((nu_k - nu_c) / scale_ck, +-80): log q_c
    // moves by at most sum_k |de_ck| =: D_c, log p_c by at most D_c + max D.
    const double k8 = M_PI / 8.0;
    std::vector<double> q(class_count), spread(class_count, 0.0);
    for (uint32_t c = 0; c < class_count; ++c) {
      double denominator = 1.0;
      for (uint32_t k = 0; k < class_count; ++k) {
        if (k == c) continue;
        const double scale = std::sqrt(1.0 + k8 * (o.psi[c].value + o.psi[k].value));
        const double psi_lo =
            std::max(0.0, o.psi[c].value + o.psi[k].value - o.psi[c].bound - o.psi[k].bound);
        const double scale_lo = std::sqrt(1.0 + k8 * psi_lo);
        const double diff = o.nu[k].value - o.nu[c].value;
        const double e = std::clamp(diff / scale, -80.0, 80.0);
        double de = (o.nu[c].bound + o.nu[k].bound) / scale_lo +
                    (std::fabs(diff) + o.nu[c].bound + o.nu[k].bound) * k8 *
                        (o.psi[c].bound + o.psi[k].bound) / (2.0 * scale_lo * scale_lo * scale_lo);
        de += 7.01 * kU * (std::fabs(diff / scale) + de);  // sub, scale (4), division
        spread[c] += sane(de);
        denominator += std::exp(e);
      }
      q[c] = 1.0 / denominator;
    }
    double total = 0.0;
    for (double v : q) total += v;
    const double worst = *std::max_element(spread.begin(), spread.end());
    const double evaluation =
        (2.0 * class_count + 8.0) * kU + kExpError;  // the float softmax's own
    for (uint32_t c = 0; c < class_count; ++c) {
      p[c] = q[c] / total;
      bound[c] = std::min(1.0, sane(p[c] * std::expm1(spread[c] + worst + 2 * evaluation))) +
                 class_count * kEta;
    }
  }
  for (uint32_t c = 0; c < class_count; ++c) {
    if (!within(probabilities[c], p[c], bound[c]))
      return report("class probability", probabilities[c], p[c], bound[c]);
  }
  return nullptr;
}

const char* check_count(const pbp_model& model, const float* input, const pbp_count_result& r) {
  const OutputMoments o = reference_output_moments(model, input);
  if (!o.finite) return report("OK, but the double pass is not finite", r.mean, o.nu[0].value, 0);
  // exp and mu (1 + psi mu) increase with nu and psi: the float result (3 roundings after exp)
  // lies between their values at the ends of the intervals nu +- bound, psi +- bound.
  const double nu = o.nu[0].value, e_nu = o.nu[0].bound;
  const double psi = o.psi[0].value, e_psi = o.psi[0].bound;
  const double mean_lo = std::exp(nu - e_nu) * (1 - kExpError) - kEta;
  const double mean_hi = std::exp(nu + e_nu) * (1 + kExpError) + kEta;
  const double psi_lo = std::max(0.0, psi - e_psi), psi_hi = psi + e_psi;
  const double var_lo =
      std::max(0.0, mean_lo) * (1 + psi_lo * std::max(0.0, mean_lo)) * (1 - 4 * kU) - kEta;
  const double var_hi = mean_hi * (1 + psi_hi * mean_hi) * (1 + 4 * kU) + kEta;
  if (!std::isfinite(mean_lo) || !std::isfinite(var_lo)) {
    return report("OK, but the double count moments overflow throughout the bound", r.mean, mean_lo,
                  0);
  }
  if (!(r.mean >= mean_lo && r.mean <= mean_hi)) {
    return report("count mean", r.mean, std::exp(nu), mean_hi - mean_lo);
  }
  if (!(r.variance >= var_lo && r.variance <= var_hi)) {
    return report("count variance", r.variance, 0.5 * (var_lo + var_hi), var_hi - var_lo);
  }
  return nullptr;
}

}  // namespace pbp_fuzz
