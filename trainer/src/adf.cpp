#include "pbp/trainer/adf.hpp"

#include <cmath>
#include <type_traits>

#include "pbp/trainer/moment_matching.hpp"

namespace pbp::trainer {

namespace {

// ReLU moments of layer l's units and the Jacobian the backward pass needs, in two vectorised
// loops over whole vectors (relu_standardise, then relu_moments_from with the ratio branch's
// gamma and Jacobian: two dependency chains half as long as one), then the rare units in the
// series branch (alpha < -30) recomputed one by one. The lanes past `units` then restore the
// next layer's bias unit and pads.
// Flattened: everything the loops call must be inlined for them to vectorise.
[[gnu::flatten]] void relu_forward(uint32_t units, AdfWorkspace& ws, size_t l) {
  const uint32_t padded = round_up_to_lanes(units);
  const double* am = ws.a_mean[l].data();
  const double* av = ws.a_var[l].data();
  double* zm = ws.z_mean[l + 1].data();
  double* zv = ws.z_var[l + 1].data();
  double* zs = ws.z_second[l + 1].data();
  double* alpha = ws.relu_alpha[l].data();
  double* sd = ws.relu_sd.data();
  double* cdf = ws.relu_cdf.data();
  double* cdf_minus = ws.relu_cdf_minus.data();
  double* ratio = ws.relu_ratio.data();
  PBP_LOOP_ARRAYS_DISJOINT  // the workspace arrays never overlap
      for (uint32_t j = 0; j < padded; ++j) {
    const ReluStandardised<double> s = relu_standardise(am[j], av[j]);
    sd[j] = s.sd;
    alpha[j] = s.alpha;
    cdf[j] = s.tails.cdf;
    cdf_minus[j] = s.tails.cdf_minus;
    ratio[j] = s.tails.pdf_over_cdf;
  }
  double* jmm = ws.jac_mean_by_mean[l].data();
  double* jmv = ws.jac_mean_by_var[l].data();
  double* jvm = ws.jac_var_by_mean[l].data();
  double* jvv = ws.jac_var_by_var[l].data();
  auto store = [&](uint32_t j, const ReluMoments<double>& r, const ReluJacobian& jac) {
    zm[j] = r.mean;
    zv[j] = r.variance;
    zs[j] = r.mean * r.mean + r.variance;
    jmm[j] = jac.mean_by_mean;
    jmv[j] = jac.mean_by_var;
    jvm[j] = jac.var_by_mean;
    jvv[j] = jac.var_by_var;
  };
  uint64_t in_series = 0;
  PBP_LOOP_ARRAYS_DISJOINT  // the workspace arrays never overlap
      for (uint32_t j = 0; j < padded; ++j) {
    const math::NormalTails<double> tails{cdf[j], cdf_minus[j], ratio[j]};
    const ReluMoments<double> r =
        relu_moments_from<double, true>(am[j], av[j], sd[j], alpha[j], tails);
    store(j, r, relu_jacobian_ratio(r));
    in_series += relu_in_series_branch(alpha[j]) ? 1 : 0;
  }
  for (uint32_t j = 0; in_series != 0 && j < units; ++j) {
    if (!relu_in_series_branch(alpha[j])) continue;
    const ReluMoments<double> r = relu_moments(am[j], av[j]);
    store(j, r, relu_jacobian_series(r));
  }
  // The lanes past `units` (fewer than kAdfLanes; unrolled, no memset call): the next layer's
  // bias unit, then zeros.
  for (uint32_t p = 0; p + 1 < kAdfLanes; ++p) {
    const uint32_t j = units + p;
    if (j < padded) {
      zm[j] = zs[j] = p == 0 ? 1.0 : 0.0;
      zv[j] = 0.0;
    }
  }
}

OutputMoments forward_loaded(const double* x, AdfWorkspace& ws) {
  const size_t n = ws.weights.size();
  for (uint32_t k = 0; k < ws.weights[0].inputs; ++k) {
    ws.z_mean[0][k] = x[k];
    ws.z_second[0][k] = x[k] * x[k];
  }
  for (size_t l = 0; l < n; ++l) {
    const PaddedLayer& layer = ws.weights[l];
    const LayerWeights<double> w{layer.mean.data(), layer.variance.data(), layer.inputs,
                                 layer.outputs};
    if (l == 0) {  // input-major; the network's inputs are exact
      linear_moments<double, true>(w, ws.z_mean[l].data(), nullptr, ws.a_mean[l].data(),
                                   ws.a_var[l].data(), InputMajor{layer.stride});
    } else {
      linear_moments<double, false>(w, ws.z_mean[l].data(), ws.z_var[l].data(), ws.a_mean[l].data(),
                                    ws.a_var[l].data(), PaddedRows{layer.stride});
    }
    if (l + 1 < n) relu_forward(layer.outputs, ws, l);
  }
  return {ws.a_mean[n - 1][0], ws.a_var[n - 1][0]};
}

// What a backward pass's sink returns for one weight: its proposed new moments, and 1 if they
// are to be applied (else 0: the weight keeps its moments).
struct WeightStep {
  double mean;
  double variance;
  uint64_t applied;
};

// Reverse mode from d log Z / d (m_L, v_L) to every weight of ws.weights. `sink(mean, var, g_mean,
// g_var, curvature, l, i)` receives each weight (i its index in the padded layer) with its
// gradient and eq. 7's curvature term, pads included (their gradients are exact zeros), and
// returns the weight's WeightStep, which backward applies; gradients flowing to a layer's inputs
// are accumulated from each weight before it changes. backward returns the number of steps
// applied (a local sum, so the loops vectorise). Layer 0 may call the sink twice for a weight,
// with the same arguments (see below).
//   m_a = c_m sum_k m_w m_z,   v_a = c_v sum_k (v_w (m_z^2 + v_z) + m_w^2 v_z)
// The bias is the input k = inputs with m_z = 1, v_z = 0 (z_second 1): its gradients a * 1 +
// 2 b m_w * 0 = a and b * 1 = b are exact. Layer 0's input is exact (v_z = 0), so its gradients
// are (a m_z, b m_z^2) and its curvature (a m_z)^2 - 2 b m_z^2 = m_z^2 (a^2 - 2 b).
template <class Sink>
uint64_t backward(AdfWorkspace& ws, Sink&& sink) {
  uint64_t applied = 0;
  for (size_t l = ws.weights.size(); l-- > 1;) {
    PaddedLayer& layer = ws.weights[l];
    const LayerScale<double> scale = layer_scale<double>(layer.inputs);
    // A multiple of kAdfLanes, and visibly so: the vectorised loops then need no remainder.
    const uint32_t stride = layer.stride & ~(kAdfLanes - 1);
    const double* mz = ws.z_mean[l].data();
    const double* vz = ws.z_var[l].data();
    const double* sz = ws.z_second[l].data();
    double* acc_mm = ws.acc_mean_by_mean.data();
    double* acc_mv = ws.acc_mean_by_var.data();
    double* acc_v = ws.acc_var.data();
    const size_t below = l - 1;
    const double* jmm = ws.jac_mean_by_mean[below].data();
    const double* jmv = ws.jac_mean_by_var[below].data();
    const double* jvm = ws.jac_var_by_mean[below].data();
    const double* jvv = ws.jac_var_by_var[below].data();
    double* ga_mean = ws.grad_a_mean[below].data();
    double* ga_var = ws.grad_a_var[below].data();
    // Row j's contributions to d log Z / d z, summed over the rows in order: the first row
    // starts the sums, the last turns them into the layer below's d log Z / d (m_a, v_a):
    //   d log Z / d m_z = sum_j a_j m_w + 2 m_z sum_j b_j v_w,
    //   d log Z / d v_z = sum_j b_j (v_w + m_w^2), then the ReLU Jacobian.
    auto row = [&](uint32_t j, auto first_row, auto last_row) {
      const double a = ws.grad_a_mean[l][j] * scale.mean;
      const double b = ws.grad_a_var[l][j] * scale.variance;
      double* mw = layer.mean.data() + size_t{j} * stride;
      double* vw = layer.variance.data() + size_t{j} * stride;
      PBP_LOOP_ARRAYS_DISJOINT  // weights, accumulators and workspace never overlap
          for (uint32_t k = 0; k < stride; ++k) {
        const double m = mw[k];
        const double v = vw[k];
        double sum_mm = a * m, sum_mv = b * v, sum_v = b * (v + m * m);
        if constexpr (!decltype(first_row)::value) {
          sum_mm += acc_mm[k];
          sum_mv += acc_mv[k];
          sum_v += acc_v[k];
        }
        if constexpr (decltype(last_row)::value) {
          const double d_mean = sum_mm + 2.0 * mz[k] * sum_mv;
          ga_mean[k] = d_mean * jmm[k] + sum_v * jvm[k];
          ga_var[k] = d_mean * jmv[k] + sum_v * jvv[k];
        } else {
          acc_mm[k] = sum_mm;
          acc_mv[k] = sum_mv;
          acc_v[k] = sum_v;
        }
        const double g_mean = a * mz[k] + 2.0 * b * m * vz[k];
        const double g_var = b * sz[k];
        const WeightStep step =
            sink(m, v, g_mean, g_var, update_curvature(g_mean, g_var), l, size_t{j} * stride + k);
        mw[k] = step.applied ? step.mean : m;
        vw[k] = step.applied ? step.variance : v;
        applied += step.applied;
      }
    };
    const uint32_t last = layer.outputs - 1;
    if (last == 0) {
      row(0, std::true_type{}, std::true_type{});
    } else {
      row(0, std::true_type{}, std::false_type{});
      for (uint32_t j = 1; j < last; ++j) row(j, std::false_type{}, std::false_type{});
      row(last, std::false_type{}, std::true_type{});
    }
    // The lanes from the bias input on (1 to kAdfLanes of them) are no units: no gradient.
    for (uint32_t p = 0; p < kAdfLanes; ++p) {  // unrolled, no memset call
      if (layer.inputs + p < stride) ga_mean[layer.inputs + p] = ga_var[layer.inputs + p] = 0.0;
    }
  }
  // Layer 0, input-major: a_j, b_j and a_j^2 - 2 b_j once per output, then passes over inputs.
  PaddedLayer& first = ws.weights[0];
  const LayerScale<double> scale = layer_scale<double>(first.inputs);
  const uint32_t stride = first.stride & ~(kAdfLanes - 1);
  double* ga = ws.first_grad_mean.data();
  double* gb = ws.first_grad_var.data();
  double* gc = ws.first_curvature.data();
  for (uint32_t j = 0; j < stride; ++j) {
    ga[j] = ws.grad_a_mean[0][j] * scale.mean;
    gb[j] = ws.grad_a_var[0][j] * scale.variance;
    gc[j] = update_curvature(ga[j], gb[j]);
  }
  // One pass over the weights of kRows inputs from k (the per-output factors loaded once for
  // all): every step is written, the old moments saved, and only if a step was not to be applied
  // (rare) are those weights put back. Stores instead of selects: half the vector operations.
  double* saved_mean = ws.first_saved_mean.data();
  double* saved_var = ws.first_saved_var.data();
  auto pass = [&](uint32_t k, auto rows) {
    constexpr uint32_t kRows = decltype(rows)::value;
    double* mw = first.mean.data() + size_t{k} * stride;
    double* vw = first.variance.data() + size_t{k} * stride;
    double mz[kRows], sz[kRows];  // locals: the stores below cannot change them
    for (uint32_t r = 0; r < kRows; ++r) {
      mz[r] = ws.z_mean[0][k + r];
      sz[r] = ws.z_second[0][k + r];
    }
    auto step_at = [&](uint32_t r, uint32_t j, double m, double v) {
      return sink(m, v, ga[j] * mz[r], gb[j] * sz[r], gc[j] * sz[r], 0, size_t{k + r} * stride + j);
    };
    uint64_t applied0 = 0, applied1 = 0;  // a count per row vectorises better than one
    PBP_LOOP_ARRAYS_DISJOINT              // weights and workspace never overlap
        for (uint32_t j = 0; j < stride; ++j) {
      for (uint32_t r = 0; r < kRows; ++r) {
        const size_t i = size_t{r} * stride + j;
        const double m = mw[i], v = vw[i];
        saved_mean[i] = m;
        saved_var[i] = v;
        const WeightStep step = step_at(r, j, m, v);
        mw[i] = step.mean;
        vw[i] = step.variance;
        (r == 0 ? applied0 : applied1) += step.applied;
      }
    }
    if (applied0 + applied1 != uint64_t{kRows} * stride) {
      for (uint32_t r = 0; r < kRows; ++r) {
        for (uint32_t j = 0; j < stride; ++j) {
          const size_t i = size_t{r} * stride + j;
          if (step_at(r, j, saved_mean[i], saved_var[i]).applied) continue;
          mw[i] = saved_mean[i];
          vw[i] = saved_var[i];
        }
      }
    }
    applied += applied0 + applied1;
  };
  const uint32_t terms = first.inputs + 1;
  uint32_t k = 0;
  for (; k + 2 <= terms; k += 2) pass(k, std::integral_constant<uint32_t, 2>{});
  if (k < terms) pass(k, std::integral_constant<uint32_t, 1>{});
  return applied;
}

}  // namespace

OutputMoments forward_with_cache(const std::vector<Layer>& layers, const double* x,
                                 AdfWorkspace& ws) {
  ws.load(layers);
  return forward_loaded(x, ws);
}

double log_z(const std::vector<Layer>& layers, const double* x, double y, double noise_variance,
             AdfWorkspace& ws) {
  const OutputMoments out = forward_with_cache(layers, x, ws);
  return gaussian_log_z(y, out.mean, out.variance + noise_variance).value;
}

namespace {

// Reverse mode from the gradients already in ws.grad_a_*.back() to `out` (no update).
void collect_gradients(const std::vector<Layer>& layers, AdfWorkspace& ws, WeightGradients& out) {
  out.d_mean.resize(layers.size());
  out.d_variance.resize(layers.size());
  for (size_t l = 0; l < layers.size(); ++l) {
    out.d_mean[l].assign(layers[l].mean.size(), 0.0);
    out.d_variance[l].assign(layers[l].variance.size(), 0.0);
  }
  // This sink changes no weight: the weights in ws stay as loaded.
  backward(ws, [&](double m, double v, double g_mean, double g_var, double, size_t l, size_t i) {
    const PaddedLayer& w = ws.weights[l];
    const size_t major = i / w.stride, minor = i % w.stride;
    const size_t j = w.input_major ? minor : major, k = w.input_major ? major : minor;
    if (j < w.outputs && k <= w.inputs) {  // not a pad
      out.d_mean[l][j * layers[l].row_length() + k] = g_mean;
      out.d_variance[l][j * layers[l].row_length() + k] = g_var;
    }
    return WeightStep{m, v, 1};
  });
}

}  // namespace

double log_z_with_gradients(const std::vector<Layer>& layers, const double* x, double y,
                            double noise_variance, AdfWorkspace& ws, WeightGradients& out) {
  const OutputMoments f = forward_with_cache(layers, x, ws);
  const GaussianLogZ lz = gaussian_log_z(y, f.mean, f.variance + noise_variance);
  ws.grad_a_mean.back()[0] = lz.d_mean;
  ws.grad_a_var.back()[0] = lz.d_variance;
  collect_gradients(layers, ws, out);
  return lz.value;
}

double log_z_with_gradients(const std::vector<Layer>& layers, const double* x, double target,
                            Likelihood& likelihood, AdfWorkspace& ws, WeightGradients& out) {
  forward_with_cache(layers, x, ws);
  const double value = likelihood.log_z(ws.a_mean.back().data(), ws.a_var.back().data(), target,
                                        ws.grad_a_mean.back().data(), ws.grad_a_var.back().data());
  collect_gradients(layers, ws, out);
  return value;
}

AdfOutcome adf_update_loaded(Likelihood& likelihood, const double* x, double target,
                             AdfWorkspace& ws, WeightUpdate update) {
  forward_loaded(x, ws);
  const double* out_mean = ws.a_mean.back().data();
  const double* out_var = ws.a_var.back().data();
  AdfOutcome outcome;
  outcome.log_z = likelihood.log_z(out_mean, out_var, target, ws.grad_a_mean.back().data(),
                                   ws.grad_a_var.back().data());
  // Branch-free steps, so the update loops vectorise; backward applies the usable ones. Pads
  // always pass (0, 1). The count is 64-bit like the double lanes' masks: it vectorises cheaply.
  uint64_t applied = 0;
  if (update == WeightUpdate::mean_and_variance) {
    applied = backward(
        ws, [](double m, double v, double g_mean, double, double curvature, size_t, size_t) {
          const GaussianMoments next = gaussian_update_with_curvature(m, v, g_mean, curvature);
          return WeightStep{next.mean, next.variance, usable_update(next)};
        });
  } else {
    applied = backward(ws, [](double m, double v, double g_mean, double, double, size_t, size_t) {
      const double next = gaussian_update(m, v, g_mean, 0.0).mean;  // eq. 6 only
      return WeightStep{next, v, next < INFINITY && next > -INFINITY};
    });
  }
  const uint64_t rejected = ws.padded_weight_count - applied;
  outcome.rejected_weights = static_cast<uint32_t>(rejected);
  // The backward pass changed only weights: the output moments are still the update's.
  likelihood.after_update(out_mean, out_var, target);
  return outcome;
}

AdfOutcome adf_update(std::vector<Layer>& layers, Likelihood& likelihood, const double* x,
                      double target, AdfWorkspace& ws, WeightUpdate update) {
  ws.load(layers);
  const AdfOutcome outcome = adf_update_loaded(likelihood, x, target, ws, update);
  ws.store(layers);
  return outcome;
}

}  // namespace pbp::trainer
