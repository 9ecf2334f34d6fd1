// One assumed-density-filtering step of PBP: forward moment propagation, log Z of eq. 12, its
// exact gradients by reverse mode (supplement section 1), and the updates of eqs. 6, 7, 9, 10.
#pragma once
#include <cstdint>
#include <vector>

#include "pbp/moments.hpp"
#include "pbp/trainer/likelihood.hpp"
#include "pbp/trainer/model.hpp"
#include "pbp/trainer/relu_jacobian.hpp"

namespace pbp::trainer {

// The training loops' working copy of one layer. The first layer is input-major
// (pbp::InputMajor): the weights of input k at [k * stride + j], stride = outputs rounded up to
// kAdfLanes, the bias as input k = inputs; the others are padded rows (pbp::PaddedRows): rows of
// `stride` weights, a multiple of kAdfLanes >= inputs + 1, the bias at index `inputs`. Pad
// weights (mean 0, variance 1) meet only zero inputs or zero gradients, so their updates are
// exact no-ops, and the loops run whole vectors, the bias included, with no remainder.
inline constexpr uint32_t kAdfLanes = 4;

inline uint32_t round_up_to_lanes(uint32_t n) {
  return (n + kAdfLanes - 1) / kAdfLanes * kAdfLanes;
}

struct PaddedLayer {
  uint32_t inputs = 0;
  uint32_t outputs = 0;
  bool input_major = false;
  uint32_t stride = 0;
  std::vector<double> mean, variance;
  // Position of the weight from input k (k = inputs: the bias) to output j.
  size_t index(uint32_t j, uint32_t k) const {
    return input_major ? size_t{k} * stride + j : size_t{j} * stride + k;
  }
};

// Scratch buffers for one network, allocated once and reused for every update (no allocation
// happens inside an update), and the padded working copy of its weights.
struct AdfWorkspace {
  explicit AdfWorkspace(const std::vector<Layer>& layers);

  // Copies the weights of `layers` (same shapes as at construction) into `weights`, and back.
  void load(const std::vector<Layer>& layers);
  void store(std::vector<Layer>& layers) const;

  std::vector<PaddedLayer> weights;
  // Per layer l, padded to its stride: the moments of its input z (layer 0: the standardised x,
  // variance 0), their second moments m^2 + v, with the bias unit (1, 0, 1) at index inputs and
  // zeros after it. Per layer, padded to the next layer's input stride (pads: zero gradients):
  // the pre-activation moments, and d log Z / d them.
  std::vector<std::vector<double>> z_mean, z_var, z_second;
  std::vector<std::vector<double>> a_mean, a_var;
  std::vector<std::vector<double>> grad_a_mean, grad_a_var;
  // Hidden layers only, padded like a_mean: each unit's standardised mean alpha and the Jacobian
  // of its ReLU moments, stored as separate arrays so the loops over units vectorise.
  std::vector<std::vector<double>> relu_alpha;
  std::vector<std::vector<double>> jac_mean_by_mean, jac_mean_by_var, jac_var_by_mean,
      jac_var_by_var;
  // relu_standardise's results for one layer's units, between the two ReLU loops.
  std::vector<double> relu_sd, relu_cdf, relu_cdf_minus, relu_ratio;
  // Reverse-mode accumulators for d log Z / d input moments of one layer (widest stride); the
  // first layer's d log Z / d a scaled by its LayerScale (a_j, b_j) and a_j^2 - 2 b_j.
  std::vector<double> acc_mean_by_mean, acc_mean_by_var, acc_var;
  std::vector<double> first_grad_mean, first_grad_var, first_curvature;
  // The first layer's moments before a pass of its backward pass updated them (two inputs').
  std::vector<double> first_saved_mean, first_saved_var;
  size_t padded_weight_count = 0;  // weights in `weights`, pads included
};

struct OutputMoments {
  double mean;
  double variance;
};

// Forward pass that keeps every intermediate the backward pass needs. x is standardised.
OutputMoments forward_with_cache(const std::vector<Layer>& layers, const double* x,
                                 AdfWorkspace& ws);

// d log Z / d (mean, variance) of every weight, laid out like Layer::mean / Layer::variance.
struct WeightGradients {
  std::vector<std::vector<double>> d_mean;
  std::vector<std::vector<double>> d_variance;
};

// log Z = log N(y | m_L, v_L + noise_variance) and its gradients with respect to every weight
// mean and variance (no update). For tests and diagnostics.
double log_z_with_gradients(const std::vector<Layer>& layers, const double* x, double y,
                            double noise_variance, AdfWorkspace& ws, WeightGradients& out);

// log Z alone (forward pass only).
double log_z(const std::vector<Layer>& layers, const double* x, double y, double noise_variance,
             AdfWorkspace& ws);

struct AdfOutcome {
  double log_z = 0.0;
  uint32_t rejected_weights = 0;  // updates undone because the new variance was unusable
};

// How a factor's Gaussian updates are applied: PBP moment-matches mean and variance (eqs. 6-7);
// EBP, the ADF-extensions paper's baseline, updates the means only (eq. 6, variances fixed).
enum class WeightUpdate { mean_and_variance, mean_only };

// Incorporates one data point's likelihood: forward pass, log Z and its output gradients from
// `likelihood`, reverse mode to every weight, eqs. 6-7 on each weight (applied only if the new
// variance is positive and finite), then likelihood.after_update (the noise Gamma of eqs. 9-10
// for regression). `target` as Likelihood::log_z takes it; x standardised.
AdfOutcome adf_update(std::vector<Layer>& layers, Likelihood& likelihood, const double* x,
                      double target, AdfWorkspace& ws,
                      WeightUpdate update = WeightUpdate::mean_and_variance);

// The same on the weights held in ws.weights (see AdfWorkspace::load/store): the training loop's
// form, which copies no weights.
AdfOutcome adf_update_loaded(Likelihood& likelihood, const double* x, double target,
                             AdfWorkspace& ws,
                             WeightUpdate update = WeightUpdate::mean_and_variance);

// log Z of any likelihood and its gradients with respect to every weight (no update).
double log_z_with_gradients(const std::vector<Layer>& layers, const double* x, double target,
                            Likelihood& likelihood, AdfWorkspace& ws, WeightGradients& out);

}  // namespace pbp::trainer
