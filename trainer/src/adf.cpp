// SPDX-License-Identifier: Apache-2.0
#include "pbp/trainer/adf.hpp"

#include <cmath>
#include <type_traits>

#include "pbp/learn/backward.hpp"
#include "pbp/trainer/moment_matching.hpp"

namespace pbp::trainer {

namespace {

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
// returns the weight's WeightStep, which the backward pass applies; gradients flowing to a
// layer's inputs are accumulated from each weight before it changes. The passes return the
// number of steps applied (a local sum, so the loops vectorise). Layer 0 may call the sink twice
// for a weight, with the same arguments (see below). A split layer's parts may call it from two
// threads at once.
//   m_a = c_m sum_k m_w m_z,   v_a = c_v sum_k (v_w (m_z^2 + v_z) + m_w^2 v_z)
// The bias is the input k = inputs with m_z = 1, v_z = 0 (z_second 1): its gradients a * 1 +
// 2 b m_w * 0 = a and b * 1 = b are exact. Layer 0's input is exact (v_z = 0), so its gradients
// are (a m_z, b m_z^2) and its curvature (a m_z)^2 - 2 b m_z^2 = m_z^2 (a^2 - 2 b).

// d log Z / d (m_z, v_z) of layer l's inputs from the sums below, through the ReLU Jacobian, to
// the layer below's d log Z / d (m_a, v_a):
//   d log Z / d m_z = sum_j a_j m_w + 2 m_z sum_j b_j v_w,   d log Z / d v_z = sum_j b_j (v_w +
//   m_w^2).
struct InputGradients {
  const double* mz;
  const double *jmm, *jmv, *jvm, *jvv;
  double *ga_mean, *ga_var;
  InputGradients(AdfWorkspace& ws, size_t l)
      : mz(ws.z_mean[l].data()),
        jmm(ws.jac_mean_by_mean[l - 1].data()),
        jmv(ws.jac_mean_by_var[l - 1].data()),
        jvm(ws.jac_var_by_mean[l - 1].data()),
        jvv(ws.jac_var_by_var[l - 1].data()),
        ga_mean(ws.grad_a_mean[l - 1].data()),
        ga_var(ws.grad_a_var[l - 1].data()) {}
  void set(uint32_t k, double sum_mm, double sum_mv, double sum_v) const {
    learn::unit_gradients(sum_mm, sum_mv, sum_v, mz[k],
                          ReluJacobian{jmm[k], jmv[k], jvm[k], jvv[k]}, &ga_mean[k], &ga_var[k]);
  }
};

// Rows [begin, end) of layer l >= 1: each row's weights stepped, and its contributions to the
// input sums added to acc (the first row starts them) in row order. With kSetInputGradients the
// last row's sums become the layer below's gradients instead (a layer in one part).
template <bool kSetInputGradients, class Sink>
uint64_t backward_rows(AdfWorkspace& ws, size_t l, uint32_t begin, uint32_t end, double* acc_mm,
                       double* acc_mv, double* acc_v, const Sink& sink) {
  PaddedLayer& layer = ws.weights[l];
  const LayerScale<double> scale = layer_scale<double>(layer.inputs);
  // A multiple of kAdfLanes, and visibly so: the vectorised loops then need no remainder.
  const uint32_t stride = layer.stride & ~(kAdfLanes - 1);
  const double* mz = ws.z_mean[l].data();
  const double* vz = ws.z_var[l].data();
  const double* sz = ws.z_second[l].data();
  const InputGradients input(ws, l);
  uint64_t applied = 0;
  auto row = [&](uint32_t j, auto first_row, auto last_row) {
    const double a = ws.grad_a_mean[l][j] * scale.mean;
    const double b = ws.grad_a_var[l][j] * scale.variance;
    double* mw = layer.mean.data() + size_t{j} * stride;
    double* vw = layer.variance.data() + size_t{j} * stride;
    PBP_LOOP_ARRAYS_DISJOINT  // weights, accumulators and workspace never overlap
        for (uint32_t k = 0; k < stride; ++k) {
      const double m = mw[k];
      const double v = vw[k];
      const learn::InputGradientSums<double> terms = learn::input_gradient_terms(a, b, m, v);
      double sum_mm = terms.mean_by_mean, sum_mv = terms.mean_by_var, sum_v = terms.var;
      if constexpr (!decltype(first_row)::value) {
        sum_mm += acc_mm[k];
        sum_mv += acc_mv[k];
        sum_v += acc_v[k];
      }
      if constexpr (kSetInputGradients && decltype(last_row)::value) {
        input.set(k, sum_mm, sum_mv, sum_v);
      } else {
        acc_mm[k] = sum_mm;
        acc_mv[k] = sum_mv;
        acc_v[k] = sum_v;
      }
      const double g_mean = learn::weight_gradient_mean(a, b, m, mz[k], vz[k]);
      const double g_var = learn::weight_gradient_variance(b, sz[k]);
      const WeightStep step =
          sink(m, v, g_mean, g_var, update_curvature(g_mean, g_var), l, size_t{j} * stride + k);
      mw[k] = step.applied ? step.mean : m;
      vw[k] = step.applied ? step.variance : v;
      applied += step.applied;
    }
  };
  const uint32_t last = end - 1;
  if (last == begin) {
    row(begin, std::true_type{}, std::true_type{});
  } else {
    row(begin, std::true_type{}, std::false_type{});
    for (uint32_t j = begin + 1; j < last; ++j) row(j, std::false_type{}, std::false_type{});
    row(last, std::false_type{}, std::true_type{});
  }
  return applied;
}

// Layer l >= 1: its rows in one or two parts (the split's), then the layer below's gradients.
template <class Sink>
uint64_t backward_layer(AdfWorkspace& ws, size_t l, const Sink& sink) {
  const PaddedLayer& layer = ws.weights[l];
  uint64_t applied = 0;
  if (layer.split == 0) {
    applied = backward_rows<true>(ws, l, 0, layer.outputs, ws.acc_mean_by_mean.data(),
                                  ws.acc_mean_by_var.data(), ws.acc_var.data(), sink);
  } else {
    uint64_t part_applied[2] = {0, 0};
    auto part = [&](uint32_t p) {
      part_applied[p] =
          p == 0 ? backward_rows<false>(ws, l, 0, layer.split, ws.acc_mean_by_mean.data(),
                                        ws.acc_mean_by_var.data(), ws.acc_var.data(), sink)
                 : backward_rows<false>(
                       ws, l, layer.split, layer.outputs, ws.split_acc_mean_by_mean.data(),
                       ws.split_acc_mean_by_var.data(), ws.split_acc_var.data(), sink);
    };
    ws.run_parts(part);
    applied = part_applied[0] + part_applied[1];
    // The second part's sums added to the first's: a fixed order, whatever the thread count.
    const InputGradients input(ws, l);
    const uint32_t stride = layer.stride & ~(kAdfLanes - 1);
    const double *mm0 = ws.acc_mean_by_mean.data(), *mv0 = ws.acc_mean_by_var.data(),
                 *v0 = ws.acc_var.data(), *mm1 = ws.split_acc_mean_by_mean.data(),
                 *mv1 = ws.split_acc_mean_by_var.data(), *v1 = ws.split_acc_var.data();
    PBP_LOOP_ARRAYS_DISJOINT  // accumulators and gradients never overlap
        for (uint32_t k = 0; k < stride; ++k) {
      input.set(k, mm0[k] + mm1[k], mv0[k] + mv1[k], v0[k] + v1[k]);
    }
  }
  // The lanes from the bias input on (1 to kAdfLanes of them) are no units: no gradient.
  double* ga_mean = ws.grad_a_mean[l - 1].data();
  double* ga_var = ws.grad_a_var[l - 1].data();
  const uint32_t stride = layer.stride & ~(kAdfLanes - 1);
  for (uint32_t p = 0; p < kAdfLanes; ++p) {  // unrolled, no memset call
    if (layer.inputs + p < stride) ga_mean[layer.inputs + p] = ga_var[layer.inputs + p] = 0.0;
  }
  return applied;
}

// Layer 0, input-major, its units (columns) [begin, end): a_j, b_j and a_j^2 - 2 b_j once per
// output, then passes over the inputs.
template <class Sink>
uint64_t backward_first_layer(AdfWorkspace& ws, uint32_t begin, uint32_t end, const Sink& sink) {
  PaddedLayer& first = ws.weights[0];
  const LayerScale<double> scale = layer_scale<double>(first.inputs);
  const uint32_t stride = first.stride & ~(kAdfLanes - 1);
  // Pointers from `begin` and a count that is visibly whole vectors: no remainder loops.
  const uint32_t units = (end - begin) & ~(kAdfLanes - 1);
  double* ga = ws.first_grad_mean.data() + begin;
  double* gb = ws.first_grad_var.data() + begin;
  double* gc = ws.first_curvature.data() + begin;
  const double* grad_mean = ws.grad_a_mean[0].data() + begin;
  const double* grad_var = ws.grad_a_var[0].data() + begin;
  for (uint32_t j = 0; j < units; ++j) {
    ga[j] = grad_mean[j] * scale.mean;
    gb[j] = grad_var[j] * scale.variance;
    gc[j] = update_curvature(ga[j], gb[j]);
  }
  // One pass over the weights of kRows inputs from k (the per-output factors loaded once for
  // all): every step is written, the old moments saved, and only if a step was not to be applied
  // (rare) are those weights put back. Stores instead of selects: half the vector operations.
  double* saved_mean = ws.first_saved_mean.data() + begin;
  double* saved_var = ws.first_saved_var.data() + begin;
  uint64_t applied = 0;
  auto pass = [&](uint32_t k, auto rows) {
    constexpr uint32_t kRows = decltype(rows)::value;
    const size_t offset = size_t{k} * stride + begin;  // of weight (k, begin)
    double* mw = first.mean.data() + offset;
    double* vw = first.variance.data() + offset;
    double mz[kRows], sz[kRows];  // locals: the stores below cannot change them
    for (uint32_t r = 0; r < kRows; ++r) {
      mz[r] = ws.z_mean[0][k + r];
      sz[r] = ws.z_second[0][k + r];
    }
    auto step_at = [&](uint32_t r, uint32_t j, double m, double v) {
      return sink(m, v, learn::exact_input_gradient_mean(ga[j], mz[r]),
                  learn::weight_gradient_variance(gb[j], sz[r]),
                  learn::exact_input_curvature(gc[j], sz[r]), 0, offset + size_t{r} * stride + j);
    };
    uint64_t applied0 = 0, applied1 = 0;  // a count per row vectorises better than one
    PBP_LOOP_ARRAYS_DISJOINT              // weights and workspace never overlap
        for (uint32_t j = 0; j < units; ++j) {
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
    if (applied0 + applied1 != uint64_t{kRows} * units) {
      for (uint32_t r = 0; r < kRows; ++r) {
        for (uint32_t j = 0; j < units; ++j) {
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

// The whole backward pass; returns the number of steps applied.
template <class Sink>
uint64_t backward(AdfWorkspace& ws, const Sink& sink) {
  uint64_t applied = 0;
  for (size_t l = ws.weights.size(); l-- > 1;) applied += backward_layer(ws, l, sink);
  const PaddedLayer& first = ws.weights[0];
  if (first.split != 0 && ws.helper) {
    uint64_t part_applied[2] = {0, 0};
    auto part = [&](uint32_t p) {
      part_applied[p] = p == 0 ? backward_first_layer(ws, 0, first.split, sink)
                               : backward_first_layer(ws, first.split, first.stride, sink);
    };
    ws.run_parts(part);
    return applied + part_applied[0] + part_applied[1];
  }
  return applied + backward_first_layer(ws, 0, first.stride, sink);
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
