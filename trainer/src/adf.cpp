#include "pbp/trainer/adf.hpp"

#include <algorithm>
#include <cmath>

#include "pbp/trainer/moment_matching.hpp"

namespace pbp::trainer {

AdfWorkspace::AdfWorkspace(const std::vector<Layer>& layers) {
  const size_t n = layers.size();
  z_mean.resize(n);
  z_var.resize(n);
  z_second.resize(n);
  a_mean.resize(n);
  a_var.resize(n);
  grad_a_mean.resize(n);
  grad_a_var.resize(n);
  relu.resize(n);
  size_t widest_input = 0;
  for (size_t l = 0; l < n; ++l) {
    z_mean[l].assign(layers[l].inputs, 0.0);
    z_var[l].assign(layers[l].inputs, 0.0);
    z_second[l].assign(layers[l].inputs, 0.0);
    a_mean[l].assign(layers[l].outputs, 0.0);
    a_var[l].assign(layers[l].outputs, 0.0);
    grad_a_mean[l].assign(layers[l].outputs, 0.0);
    grad_a_var[l].assign(layers[l].outputs, 0.0);
    if (l + 1 < n) relu[l].resize(layers[l].outputs);
    widest_input = std::max<size_t>(widest_input, layers[l].inputs);
  }
  acc_mean_by_mean.assign(widest_input, 0.0);
  acc_mean_by_var.assign(widest_input, 0.0);
  acc_var.assign(widest_input, 0.0);
}

OutputMoments forward_with_cache(const std::vector<Layer>& layers, const double* x,
                                 AdfWorkspace& ws) {
  const size_t n = layers.size();
  for (uint32_t k = 0; k < layers[0].inputs; ++k) {
    ws.z_mean[0][k] = x[k];
    ws.z_second[0][k] = x[k] * x[k];
  }
  for (size_t l = 0; l < n; ++l) {
    const Layer& layer = layers[l];
    const LayerWeights<double> w{layer.mean.data(), layer.variance.data(), layer.inputs,
                                 layer.outputs};
    if (l == 0) {
      linear_moments<double, true>(w, ws.z_mean[l].data(), nullptr, ws.a_mean[l].data(),
                                   ws.a_var[l].data());
    } else {
      linear_moments<double, false>(w, ws.z_mean[l].data(), ws.z_var[l].data(), ws.a_mean[l].data(),
                                    ws.a_var[l].data());
    }
    if (l + 1 < n) {
      for (uint32_t j = 0; j < layer.outputs; ++j) {
        const ReluMoments<double> r = relu_moments(ws.a_mean[l][j], ws.a_var[l][j]);
        ws.relu[l][j] = r;
        ws.z_mean[l + 1][j] = r.mean;
        ws.z_var[l + 1][j] = r.variance;
        ws.z_second[l + 1][j] = r.mean * r.mean + r.variance;
      }
    }
  }
  return {ws.a_mean[n - 1][0], ws.a_var[n - 1][0]};
}

namespace {

// Reverse mode from d log Z / d (m_L, v_L) to every weight. `sink(mean, var, g_mean, g_var, l, i)`
// receives each weight (by reference) with its gradient; gradients flowing to a layer's inputs
// are accumulated from the weights before the sink may change them.
//   m_a = c_m sum_k m_w m_z,   v_a = c_v sum_k (v_w (m_z^2 + v_z) + m_w^2 v_z)
template <class Sink>
void backward(std::vector<Layer>& layers, AdfWorkspace& ws, Sink&& sink) {
  for (size_t l = layers.size(); l-- > 0;) {
    Layer& layer = layers[l];
    const LayerScale<double> scale = layer_scale<double>(layer.inputs);
    const uint32_t inputs = layer.inputs;
    const uint32_t row = layer.row_length();
    const double* mz = ws.z_mean[l].data();
    const double* vz = ws.z_var[l].data();
    const double* sz = ws.z_second[l].data();
    const bool propagate = l > 0;
    double* acc_mm = ws.acc_mean_by_mean.data();
    double* acc_mv = ws.acc_mean_by_var.data();
    double* acc_v = ws.acc_var.data();
    if (propagate) {
      std::fill_n(acc_mm, inputs, 0.0);
      std::fill_n(acc_mv, inputs, 0.0);
      std::fill_n(acc_v, inputs, 0.0);
    }
    for (uint32_t j = 0; j < layer.outputs; ++j) {
      const double a = ws.grad_a_mean[l][j] * scale.mean;
      const double b = ws.grad_a_var[l][j] * scale.variance;
      double* mw = layer.mean.data() + size_t{j} * row;
      double* vw = layer.variance.data() + size_t{j} * row;
      if (propagate) {
        for (uint32_t k = 0; k < inputs; ++k) {
          acc_mm[k] += a * mw[k];
          acc_mv[k] += b * vw[k];
          acc_v[k] += b * (vw[k] + mw[k] * mw[k]);
        }
      }
      for (uint32_t k = 0; k < inputs; ++k) {
        const double g_mean = a * mz[k] + 2.0 * b * mw[k] * vz[k];
        const double g_var = b * sz[k];
        sink(mw[k], vw[k], g_mean, g_var, l, size_t{j} * row + k);
      }
      sink(mw[inputs], vw[inputs], a, b, l, size_t{j} * row + inputs);  // bias: m_z 1, v_z 0
    }
    if (!propagate) break;
    // d log Z / d m_z = sum_j a_j m_w + 2 m_z sum_j b_j v_w;  d log Z / d v_z = sum_j b_j (v_w +
    // m_w^2)
    const std::vector<Layer>::size_type below = l - 1;
    for (uint32_t k = 0; k < inputs; ++k) {
      const double d_mean = acc_mm[k] + 2.0 * mz[k] * acc_mv[k];
      const double d_var = acc_v[k];
      const ReluMoments<double>& r = ws.relu[below][k];
      const ReluJacobian jac = relu_jacobian(r, ws.a_mean[below][k], ws.a_var[below][k]);
      ws.grad_a_mean[below][k] = d_mean * jac.mean_by_mean + d_var * jac.var_by_mean;
      ws.grad_a_var[below][k] = d_mean * jac.mean_by_var + d_var * jac.var_by_var;
    }
  }
}

}  // namespace

double log_z(const std::vector<Layer>& layers, const double* x, double y, double noise_variance,
             AdfWorkspace& ws) {
  const OutputMoments out = forward_with_cache(layers, x, ws);
  return gaussian_log_z(y, out.mean, out.variance + noise_variance).value;
}

double log_z_with_gradients(const std::vector<Layer>& layers, const double* x, double y,
                            double noise_variance, AdfWorkspace& ws, WeightGradients& out) {
  const OutputMoments f = forward_with_cache(layers, x, ws);
  const GaussianLogZ lz = gaussian_log_z(y, f.mean, f.variance + noise_variance);
  ws.grad_a_mean.back()[0] = lz.d_mean;
  ws.grad_a_var.back()[0] = lz.d_variance;
  out.d_mean.resize(layers.size());
  out.d_variance.resize(layers.size());
  for (size_t l = 0; l < layers.size(); ++l) {
    out.d_mean[l].assign(layers[l].mean.size(), 0.0);
    out.d_variance[l].assign(layers[l].variance.size(), 0.0);
  }
  std::vector<Layer> scratch = layers;  // backward() takes mutable weights; this sink reads only
  backward(scratch, ws, [&](double&, double&, double g_mean, double g_var, size_t l, size_t i) {
    out.d_mean[l][i] = g_mean;
    out.d_variance[l][i] = g_var;
  });
  return lz.value;
}

AdfOutcome adf_update(std::vector<Layer>& layers, Gamma& noise, const double* x, double y,
                      AdfWorkspace& ws) {
  const OutputMoments f = forward_with_cache(layers, x, ws);
  const EvidenceTriple z = gaussian_evidence_triple(y, f.mean, f.variance, noise);
  const GaussianLogZ lz = gaussian_log_z(y, f.mean, f.variance + noise.variance_estimate());
  ws.grad_a_mean.back()[0] = lz.d_mean;
  ws.grad_a_var.back()[0] = lz.d_variance;

  AdfOutcome outcome;
  outcome.log_z = z.log_z;
  uint32_t rejected = 0;
  backward(layers, ws, [&](double& m, double& v, double g_mean, double g_var, size_t, size_t) {
    const GaussianMoments next = gaussian_update(m, v, g_mean, g_var);
    if (usable_update(next)) {
      m = next.mean;
      v = next.variance;
    } else {
      ++rejected;
    }
  });
  outcome.rejected_weights = rejected;
  if (const std::optional<Gamma> next = gamma_update(noise, z.log_z, z.log_z1, z.log_z2)) {
    noise = *next;
  } else {
    outcome.noise_rejected = true;
  }
  return outcome;
}

}  // namespace pbp::trainer
