#include "pbp/trainer/adf.hpp"

#include <algorithm>
#include <cmath>

#include "pbp/trainer/moment_matching.hpp"

namespace pbp::trainer {

namespace {

uint32_t padded_stride(uint32_t inputs) {
  return (inputs + 1 + kAdfLanes - 1) / kAdfLanes * kAdfLanes;
}

}  // namespace

AdfWorkspace::AdfWorkspace(const std::vector<Layer>& layers) {
  const size_t n = layers.size();
  weights.resize(n);
  z_mean.resize(n);
  z_var.resize(n);
  z_second.resize(n);
  a_mean.resize(n);
  a_var.resize(n);
  grad_a_mean.resize(n);
  grad_a_var.resize(n);
  relu_alpha.resize(n);
  jac_mean_by_mean.resize(n);
  jac_mean_by_var.resize(n);
  jac_var_by_mean.resize(n);
  jac_var_by_var.resize(n);
  size_t widest_stride = 0;
  for (size_t l = 0; l < n; ++l) {
    const uint32_t inputs = layers[l].inputs;
    const uint32_t stride = padded_stride(inputs);
    PaddedLayer& w = weights[l];
    w.inputs = inputs;
    w.outputs = layers[l].outputs;
    w.stride = stride;
    w.mean.assign(size_t{w.outputs} * stride, 0.0);      // pads: mean 0
    w.variance.assign(size_t{w.outputs} * stride, 1.0);  // pads: variance 1
    z_mean[l].assign(stride, 0.0);
    z_var[l].assign(stride, 0.0);
    z_second[l].assign(stride, 0.0);
    z_mean[l][inputs] = 1.0;  // the bias unit
    z_second[l][inputs] = 1.0;
    a_mean[l].assign(layers[l].outputs, 0.0);
    a_var[l].assign(layers[l].outputs, 0.0);
    grad_a_mean[l].assign(layers[l].outputs, 0.0);
    grad_a_var[l].assign(layers[l].outputs, 0.0);
    if (l + 1 < n) {
      for (auto* v :
           {&relu_alpha, &jac_mean_by_mean, &jac_mean_by_var, &jac_var_by_mean, &jac_var_by_var}) {
        (*v)[l].assign(layers[l].outputs, 0.0);
      }
    }
    widest_stride = std::max<size_t>(widest_stride, stride);
  }
  acc_mean_by_mean.assign(widest_stride, 0.0);
  acc_mean_by_var.assign(widest_stride, 0.0);
  acc_var.assign(widest_stride, 0.0);
  load(layers);
}

void AdfWorkspace::load(const std::vector<Layer>& layers) {
  for (size_t l = 0; l < weights.size(); ++l) {
    PaddedLayer& w = weights[l];
    const uint32_t row = layers[l].row_length();
    for (uint32_t j = 0; j < w.outputs; ++j) {
      std::copy_n(layers[l].mean.data() + size_t{j} * row, row,
                  w.mean.data() + size_t{j} * w.stride);
      std::copy_n(layers[l].variance.data() + size_t{j} * row, row,
                  w.variance.data() + size_t{j} * w.stride);
    }
  }
}

void AdfWorkspace::store(std::vector<Layer>& layers) const {
  for (size_t l = 0; l < weights.size(); ++l) {
    const PaddedLayer& w = weights[l];
    const uint32_t row = layers[l].row_length();
    for (uint32_t j = 0; j < w.outputs; ++j) {
      std::copy_n(w.mean.data() + size_t{j} * w.stride, row,
                  layers[l].mean.data() + size_t{j} * row);
      std::copy_n(w.variance.data() + size_t{j} * w.stride, row,
                  layers[l].variance.data() + size_t{j} * row);
    }
  }
}

namespace {

// ReLU moments of layer l's units and the Jacobian the backward pass needs (one vectorised loop).
void relu_forward(uint32_t units, AdfWorkspace& ws, size_t l) {
  const double* am = ws.a_mean[l].data();
  const double* av = ws.a_var[l].data();
  double* zm = ws.z_mean[l + 1].data();
  double* zv = ws.z_var[l + 1].data();
  double* zs = ws.z_second[l + 1].data();
  double* alpha = ws.relu_alpha[l].data();
  double* jmm = ws.jac_mean_by_mean[l].data();
  double* jmv = ws.jac_mean_by_var[l].data();
  double* jvm = ws.jac_var_by_mean[l].data();
  double* jvv = ws.jac_var_by_var[l].data();
  PBP_LOOP_ARRAYS_DISJOINT  // the workspace arrays never overlap
      for (uint32_t j = 0; j < units; ++j) {
    const ReluMoments<double> r = relu_moments(am[j], av[j]);
    zm[j] = r.mean;
    zv[j] = r.variance;
    zs[j] = r.mean * r.mean + r.variance;
    alpha[j] = r.alpha;
    const ReluJacobian jac = relu_jacobian(r);
    jmm[j] = jac.mean_by_mean;
    jmv[j] = jac.mean_by_var;
    jvm[j] = jac.var_by_mean;
    jvv[j] = jac.var_by_var;
  }
}

// d log Z / d (pre-activation moments) of layer `below` from the accumulated d log Z / d z.
void relu_backward(uint32_t units, AdfWorkspace& ws, size_t below) {
  const double* mz = ws.z_mean[below + 1].data();
  const double* acc_mm = ws.acc_mean_by_mean.data();
  const double* acc_mv = ws.acc_mean_by_var.data();
  const double* acc_v = ws.acc_var.data();
  const double* jmm = ws.jac_mean_by_mean[below].data();
  const double* jmv = ws.jac_mean_by_var[below].data();
  const double* jvm = ws.jac_var_by_mean[below].data();
  const double* jvv = ws.jac_var_by_var[below].data();
  double* ga_mean = ws.grad_a_mean[below].data();
  double* ga_var = ws.grad_a_var[below].data();
  // d log Z / d m_z = sum_j a_j m_w + 2 m_z sum_j b_j v_w;  d log Z / d v_z = sum_j b_j (v_w +
  // m_w^2)
  PBP_LOOP_ARRAYS_DISJOINT  // the workspace arrays never overlap
      for (uint32_t k = 0; k < units; ++k) {
    const double d_mean = acc_mm[k] + 2.0 * mz[k] * acc_mv[k];
    const double d_var = acc_v[k];
    ga_mean[k] = d_mean * jmm[k] + d_var * jvm[k];
    ga_var[k] = d_mean * jmv[k] + d_var * jvv[k];
  }
}

}  // namespace

namespace {

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
    const PaddedRows layout{layer.stride};
    if (l == 0) {
      linear_moments<double, true>(w, ws.z_mean[l].data(), nullptr, ws.a_mean[l].data(),
                                   ws.a_var[l].data(), layout);
    } else {
      linear_moments<double, false>(w, ws.z_mean[l].data(), ws.z_var[l].data(), ws.a_mean[l].data(),
                                    ws.a_var[l].data(), layout);
    }
    if (l + 1 < n) relu_forward(layer.outputs, ws, l);
  }
  return {ws.a_mean[n - 1][0], ws.a_var[n - 1][0]};
}

// Reverse mode from d log Z / d (m_L, v_L) to every weight of ws.weights. `sink(mean, var, g_mean,
// g_var, l, i)` receives each weight (by reference, i its index in the padded layer) with its
// gradient, pads included (their gradients are exact zeros); gradients flowing to a layer's
// inputs are accumulated from each weight before the sink may change it.
//   m_a = c_m sum_k m_w m_z,   v_a = c_v sum_k (v_w (m_z^2 + v_z) + m_w^2 v_z)
// The bias is the input k = inputs with m_z = 1, v_z = 0 (z_second 1): its gradients a * 1 +
// 2 b m_w * 0 = a and b * 1 = b are exact. Layer 0's input is exact (v_z = 0), so its g_mean is
// a * m_z alone.
template <class Sink>
void backward(AdfWorkspace& ws, Sink&& sink) {
  for (size_t l = ws.weights.size(); l-- > 0;) {
    PaddedLayer& layer = ws.weights[l];
    const LayerScale<double> scale = layer_scale<double>(layer.inputs);
    // A multiple of kAdfLanes, and visibly so: the vectorised loops then need no remainder.
    const uint32_t stride = layer.stride & ~(kAdfLanes - 1);
    const double* mz = ws.z_mean[l].data();
    const double* vz = ws.z_var[l].data();
    const double* sz = ws.z_second[l].data();
    const double* grad_a_mean = ws.grad_a_mean[l].data();
    const double* grad_a_var = ws.grad_a_var[l].data();
    double* mean = layer.mean.data();
    double* variance = layer.variance.data();
    if (l == 0) {
      for (uint32_t j = 0; j < layer.outputs; ++j) {
        const double a = grad_a_mean[j] * scale.mean;
        const double b = grad_a_var[j] * scale.variance;
        double* mw = mean + size_t{j} * stride;
        double* vw = variance + size_t{j} * stride;
        PBP_LOOP_ARRAYS_DISJOINT  // weights and workspace never overlap
            for (uint32_t k = 0; k < stride; ++k) {
          sink(mw[k], vw[k], a * mz[k], b * sz[k], l, size_t{j} * stride + k);
        }
      }
      break;
    }
    double* acc_mm = ws.acc_mean_by_mean.data();
    double* acc_mv = ws.acc_mean_by_var.data();
    double* acc_v = ws.acc_var.data();
    std::fill_n(acc_mm, stride, 0.0);
    std::fill_n(acc_mv, stride, 0.0);
    std::fill_n(acc_v, stride, 0.0);
    for (uint32_t j = 0; j < layer.outputs; ++j) {
      const double a = grad_a_mean[j] * scale.mean;
      const double b = grad_a_var[j] * scale.variance;
      double* mw = mean + size_t{j} * stride;
      double* vw = variance + size_t{j} * stride;
      PBP_LOOP_ARRAYS_DISJOINT  // weights, accumulators and workspace never overlap
          for (uint32_t k = 0; k < stride; ++k) {
        const double m = mw[k];
        const double v = vw[k];
        acc_mm[k] += a * m;
        acc_mv[k] += b * v;
        acc_v[k] += b * (v + m * m);
        sink(mw[k], vw[k], a * mz[k] + 2.0 * b * m * vz[k], b * sz[k], l, size_t{j} * stride + k);
      }
    }
    relu_backward(layer.inputs, ws, l - 1);
  }
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
  // This sink reads only: the weights in ws stay as loaded.
  backward(ws, [&](double&, double&, double g_mean, double g_var, size_t l, size_t i) {
    const uint32_t stride = ws.weights[l].stride;
    const size_t j = i / stride, k = i % stride;
    if (k > layers[l].inputs) return;  // a pad
    out.d_mean[l][j * layers[l].row_length() + k] = g_mean;
    out.d_variance[l][j * layers[l].row_length() + k] = g_var;
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
  uint64_t rejected = 0;  // 64-bit like the double lanes' masks: the count vectorises cheaply
  // Selects rather than branches, so the update loops vectorise. Pads always pass (0, 1).
  if (update == WeightUpdate::mean_and_variance) {
    backward(ws, [&](double& m, double& v, double g_mean, double g_var, size_t, size_t) {
      const GaussianMoments next = gaussian_update(m, v, g_mean, g_var);
      const bool usable = usable_update(next);
      m = usable ? next.mean : m;
      v = usable ? next.variance : v;
      rejected += usable ? 0 : 1;
    });
  } else {
    backward(ws, [&](double& m, double& v, double g_mean, double, size_t, size_t) {
      const double next = gaussian_update(m, v, g_mean, 0.0).mean;  // eq. 6 only
      const bool usable = next < INFINITY && next > -INFINITY;
      m = usable ? next : m;
      rejected += usable ? 0 : 1;
    });
  }
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
