// One assumed-density-filtering step of PBP: forward moment propagation, log Z of eq. 12, its
// exact gradients by reverse mode (supplement section 1), and the updates of eqs. 6, 7, 9, 10.
#pragma once
#include <cstdint>
#include <vector>

#include "pbp/moments.hpp"
#include "pbp/trainer/model.hpp"

namespace pbp::trainer {

// Scratch buffers for one network, allocated once and reused for every update (no allocation
// happens inside an update).
struct AdfWorkspace {
  explicit AdfWorkspace(const std::vector<Layer>& layers);

  // Per layer l: the moments of its input z (layer 0: the standardised x, variance 0), their
  // second moments m^2 + v, the pre-activation moments, and d log Z / d pre-activation moments.
  std::vector<std::vector<double>> z_mean, z_var, z_second;
  std::vector<std::vector<double>> a_mean, a_var;
  std::vector<std::vector<double>> grad_a_mean, grad_a_var;
  std::vector<std::vector<ReluMoments<double>>> relu;  // hidden layers only
  // Reverse-mode accumulators for d log Z / d input moments of one layer.
  std::vector<double> acc_mean_by_mean, acc_mean_by_var, acc_var;
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
  bool noise_rejected = false;    // the noise Gamma update was not a proper Gamma and was undone
};

// Incorporates the likelihood of one (standardised) data point: updates every weight by eqs. 6-7
// (each only if its new variance is positive and finite) and the noise Gamma by eqs. 9-10.
AdfOutcome adf_update(std::vector<Layer>& layers, Gamma& noise, const double* x, double y,
                      AdfWorkspace& ws);

// Derivatives of the ReLU moment map (m_a, v_a) -> (m_z, v_z), of the formulas as relu_moments
// implements them (including the alpha < -30 series branch).
struct ReluJacobian {
  double mean_by_mean, mean_by_var, var_by_mean, var_by_var;
};
ReluJacobian relu_jacobian(const ReluMoments<double>& r, double m, double v);

}  // namespace pbp::trainer
