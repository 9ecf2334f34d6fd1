// SPDX-License-Identifier: Apache-2.0
// The ADF update's forward pass: moments of every layer's pre-activations and hidden units'
// outputs (ReLU, erf or sign), kept for the backward pass (adf.cpp). Split layers compute their two
// parts' units on two threads.
#include <algorithm>

#include "pbp/trainer/adf.hpp"
#include "pbp/trainer/working_layouts.hpp"

namespace pbp::trainer {
namespace {

// relu_sd, relu_alpha and the tails at alpha (activation_relu.hpp's stages), stored between the loops.
struct ReluStandardised {
  double sd;
  double alpha;
  math::NormalTails<double> tails;
};
inline ReluStandardised relu_standardise(double m, double v) {
  const double sd = relu_sd(v);
  const double alpha = relu_alpha(m, sd);
  return {sd, alpha, pbp::detail::relu_tails(alpha)};
}

// ReLU moments of layer l's units [begin, end) (whole vectors) and the Jacobian the backward
// pass needs, in two vectorised loops (relu_standardise, then relu_moments_from with the ratio
// branch's gamma and Jacobian: two dependency chains half as long as one), then the rare units
// in the series branch (alpha < -30) recomputed one by one. The part that ends the layer then
// restores the lanes past `units`: the next layer's bias unit and pads.
// Flattened: everything the loops call must be inlined for them to vectorise.
[[gnu::flatten]] void relu_forward(uint32_t units, AdfWorkspace& ws, size_t l, uint32_t begin,
                                   uint32_t end) {
  const uint32_t padded = round_up_to_lanes(units);
  // Pointers from `begin` and a count that is visibly whole vectors: no remainder loops.
  const uint32_t count = (end - begin) & ~(kAdfLanes - 1);
  const double* am = ws.a_mean[l].data() + begin;
  const double* av = ws.a_var[l].data() + begin;
  double* zm = ws.z_mean[l + 1].data() + begin;
  double* zv = ws.z_var[l + 1].data() + begin;
  double* zs = ws.z_second[l + 1].data() + begin;
  double* alpha = ws.relu_alpha[l].data() + begin;
  double* sd = ws.relu_sd.data() + begin;
  double* cdf = ws.relu_cdf.data() + begin;
  double* cdf_minus = ws.relu_cdf_minus.data() + begin;
  double* ratio = ws.relu_ratio.data() + begin;
  PBP_LOOP_ARRAYS_DISJOINT  // the workspace arrays never overlap
      for (uint32_t j = 0; j < count; ++j) {
    const ReluStandardised s = relu_standardise(am[j], av[j]);
    sd[j] = s.sd;
    alpha[j] = s.alpha;
    cdf[j] = s.tails.cdf;
    cdf_minus[j] = s.tails.cdf_minus;
    ratio[j] = s.tails.pdf_over_cdf;
  }
  double* jmm = ws.jac_mean_by_mean[l].data() + begin;
  double* jmv = ws.jac_mean_by_var[l].data() + begin;
  double* jvm = ws.jac_var_by_mean[l].data() + begin;
  double* jvv = ws.jac_var_by_var[l].data() + begin;
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
      for (uint32_t j = 0; j < count; ++j) {
    const math::NormalTails<double> tails{cdf[j], cdf_minus[j], ratio[j]};
    const ReluMoments<double> r =
        relu_moments_from<double, true>(am[j], av[j], sd[j], alpha[j], tails);
    store(j, r, relu_jacobian_ratio(r));
    in_series += relu_in_series_branch(alpha[j]) ? 1 : 0;
  }
  const uint32_t part_units = std::min(end, units) - begin;
  for (uint32_t j = 0; in_series != 0 && j < part_units; ++j) {
    if (!relu_in_series_branch(alpha[j])) continue;
    const ReluMoments<double> r = relu_moments(am[j], av[j]);
    store(j, r, relu_jacobian_series(r));
  }
  if (end != padded) return;
  // The lanes past `units` (fewer than kAdfLanes; unrolled, no memset call): the next layer's
  // bias unit, then zeros.
  for (uint32_t p = 0; p + 1 < kAdfLanes; ++p) {
    const uint32_t j = units + p - begin;
    if (j + begin < padded) {
      zm[j] = zs[j] = p == 0 ? 1.0 : 0.0;
      zv[j] = 0.0;
    }
  }
}

// A smooth activation's moments of layer l's units [begin, end) and their Jacobians, unit by
// unit (not vectorised: these activations are options, ReLU the default), then the lanes past
// `units` as relu_forward leaves them, their Jacobians zero.
template <class Unit>
void smooth_forward(uint32_t units, AdfWorkspace& ws, size_t l, uint32_t begin, uint32_t end) {
  const uint32_t padded = round_up_to_lanes(units);
  for (uint32_t j = begin; j < end; ++j) {
    double mean = 0.0, var = 0.0, second = 0.0;
    ReluJacobian jac{0.0, 0.0, 0.0, 0.0};
    if (j < units) {
      jac = Unit::moments_and_jacobian(ws.a_mean[l][j], ws.a_var[l][j], &mean, &var);
      second = mean * mean + var;
    } else if (j == units) {  // the next layer's bias unit
      mean = second = 1.0;
    }
    if (j < padded) {
      ws.z_mean[l + 1][j] = mean;
      ws.z_var[l + 1][j] = var;
      ws.z_second[l + 1][j] = second;
    }
    ws.jac_mean_by_mean[l][j] = jac.mean_by_mean;
    ws.jac_mean_by_var[l][j] = jac.mean_by_var;
    ws.jac_var_by_mean[l][j] = jac.var_by_mean;
    ws.jac_var_by_var[l][j] = jac.var_by_var;
  }
}

// Layer l's units [begin, end) (a multiple of kAdfLanes, or the padded end): pre-activation
// moments, then the hidden units' for a hidden layer.
void layer_forward(AdfWorkspace& ws, size_t l, uint32_t begin, uint32_t end) {
  const PaddedLayer& layer = ws.weights[l];
  double* am = ws.a_mean[l].data() + begin;
  double* av = ws.a_var[l].data() + begin;
  if (l == 0) {  // input-major: the units are columns; the network's inputs are exact
    const LayerWeights<double> w{layer.mean.data() + begin, layer.variance.data() + begin,
                                 layer.inputs, end - begin};
    trainer::linear_moments<double, true>(
        w, ws.z_mean[0].data(), nullptr, am, av,
        InputMajor{layer.stride, (end - begin) & ~(kAdfLanes - 1)});
  } else {  // the units are rows
    const size_t first = size_t{begin} * layer.stride;
    const LayerWeights<double> w{layer.mean.data() + first, layer.variance.data() + first,
                                 layer.inputs, std::min(end, layer.outputs) - begin};
    trainer::linear_moments<double, false>(w, ws.z_mean[l].data(), ws.z_var[l].data(), am, av,
                                           PaddedRows{layer.stride});
  }
  if (l + 1 == ws.weights.size()) return;
  // The activation table (pbp/activations.hpp): ReLU takes its vectorised loops, the others
  // smooth_forward.
  visit_hidden_activation(static_cast<uint32_t>(layer.activation), [&](auto unit) {
    using Unit = decltype(unit);
    if constexpr (Unit::kId == ReluActivation::kId) {
      relu_forward(layer.outputs, ws, l, begin, end);
    } else {
      smooth_forward<Unit>(layer.outputs, ws, l, begin, end);
    }
  });
}

}  // namespace

// Flattened: the whole-layer calls then see begin = 0, as the loops did before layers were split.
[[gnu::flatten]] OutputMoments forward_loaded(const double* x, AdfWorkspace& ws) {
  const size_t n = ws.weights.size();
  for (uint32_t k = 0; k < ws.weights[0].inputs; ++k) {
    ws.z_mean[0][k] = x[k];
    ws.z_second[0][k] = x[k] * x[k];
  }
  for (size_t l = 0; l < n; ++l) {
    const PaddedLayer& layer = ws.weights[l];
    const uint32_t end = round_up_to_lanes(layer.outputs);
    if (layer.split != 0 && ws.helper) {
      auto part = [&ws, l, end, split = layer.split](uint32_t p) {
        layer_forward(ws, l, p == 0 ? 0 : split, p == 0 ? split : end);
      };
      ws.run_parts(part);
    } else {  // one thread: the whole layer at once (the same values, unit by unit)
      layer_forward(ws, l, 0, end);
    }
  }
  return {ws.a_mean[n - 1][0], ws.a_var[n - 1][0]};
}

}  // namespace pbp::trainer
