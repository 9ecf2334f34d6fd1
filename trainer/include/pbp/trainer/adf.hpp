// SPDX-License-Identifier: Apache-2.0
// One assumed-density-filtering step of PBP: forward moment propagation, log Z of eq. 12, its
// exact gradients by reverse mode (supplement section 1), and the updates of eqs. 6, 7, 9, 10.
#pragma once
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

#include "pbp/moments.hpp"
#include "pbp/trainer/activation_jacobian.hpp"
#include "pbp/trainer/helper_thread.hpp"
#include "pbp/trainer/likelihood.hpp"
#include "pbp/trainer/model.hpp"
#include "pbp/trainer/relu_jacobian.hpp"

namespace pbp::trainer {

// The training loops' working copy of one layer. The first layer is input-major
// (trainer::InputMajor, working_layouts.hpp): the weights of input k at [k * stride + j], stride =
// outputs rounded up to kAdfLanes, the bias as input k = inputs; the others are padded rows
// (trainer::PaddedRows): rows of `stride` weights, a multiple of kAdfLanes >= inputs + 1, the bias
// at index `inputs`. Pad weights (mean 0, variance 1) meet only zero inputs or zero gradients, so
// their updates are exact no-ops, and the loops run whole vectors, the bias included, with no
// remainder.
inline constexpr uint32_t kAdfLanes = 4;

inline uint32_t round_up_to_lanes(uint32_t n) {
  return (n + kAdfLanes - 1) / kAdfLanes * kAdfLanes;
}

// Arrays that start on a cache line: a split layer's two threads then write no common line (the
// split is a whole number of lines, and no two arrays share one).
inline constexpr size_t kCacheLine = 64;
template <class T>
struct CacheLineAllocator {
  using value_type = T;
  CacheLineAllocator() = default;
  template <class U>
  CacheLineAllocator(const CacheLineAllocator<U>&) {}
  T* allocate(size_t n) {
    return static_cast<T*>(::operator new (n * sizeof(T), std::align_val_t{kCacheLine}));
  }
  void deallocate(T* p, size_t) { ::operator delete (p, std::align_val_t{kCacheLine}); }
  template <class U>
  bool operator==(const CacheLineAllocator<U>&) const {
    return true;
  }
};
using LineAlignedDoubles = std::vector<double, CacheLineAllocator<double>>;
inline constexpr uint32_t kDoublesPerLine = kCacheLine / sizeof(double);

// Layers with at least this many weights are split in two parts (PaddedLayer::split). A hand-off
// to the helper costs about a microsecond, half a layer of this size some tens: narrow networks
// (Boston's 13-50-1) never start the helper and keep one-part sums.
inline constexpr size_t kSplitLayerWeights = 16384;

struct PaddedLayer {
  uint32_t inputs = 0;
  uint32_t outputs = 0;
  bool input_major = false;
  Activation activation = Activation::relu;  // Layer::activation
  uint32_t stride = 0;
  // 0, or the first unit (a multiple of kDoublesPerLine) of the layer's second part: the units the
  // helper thread takes, and for a layer after the first the rows whose contributions to
  // d log Z / d z are summed apart, then added to the first part's sums. Set by the layer's shape
  // alone, so the model is the same bits whatever the thread count.
  uint32_t split = 0;
  LineAlignedDoubles mean, variance;
  // Position of the weight from input k (k = inputs: the bias) to output j.
  size_t index(uint32_t j, uint32_t k) const {
    return input_major ? size_t{k} * stride + j : size_t{j} * stride + k;
  }
  // Calls f(padded index, row-major index as in Layer::mean) for every weight, pads excluded.
  template <class F>
  void for_each_weight(F f) const {
    const uint32_t row = inputs + 1;
    for (uint32_t j = 0; j < outputs; ++j) {
      for (uint32_t k = 0; k < row; ++k) f(index(j, k), size_t{j} * row + k);
    }
  }
};

// Scratch buffers for one network, allocated once and reused for every update (no allocation
// happens inside an update), and the padded working copy of its weights.
struct AdfWorkspace {
  // threads >= 2: split layers run their two parts on the calling thread and a helper thread.
  explicit AdfWorkspace(const std::vector<Layer>& layers, uint32_t threads = 1);

  // Runs part(0) and part(1) (one per thread with a helper, else one after the other).
  template <class Part>
  void run_parts(Part& part) {
    if (helper) {
      helper->run_pair(part);
    } else {
      part(0);
      part(1);
    }
  }

  // Copies the weights of `layers` (same shapes as at construction) into `weights`, and back.
  void load(const std::vector<Layer>& layers);
  void store(std::vector<Layer>& layers) const;

  std::vector<PaddedLayer> weights;
  // Per layer l, padded to its stride: the moments of its input z (layer 0: the standardised x,
  // variance 0), their second moments m^2 + v, with the bias unit (1, 0, 1) at index inputs and
  // zeros after it. Per layer, padded to the next layer's input stride (pads: zero gradients):
  // the pre-activation moments, and d log Z / d them.
  std::vector<LineAlignedDoubles> z_mean, z_var, z_second;
  std::vector<LineAlignedDoubles> a_mean, a_var;
  std::vector<LineAlignedDoubles> grad_a_mean, grad_a_var;
  // Hidden layers only, padded like a_mean: each unit's standardised mean alpha and the Jacobian
  // of its ReLU moments, stored as separate arrays so the loops over units vectorise.
  std::vector<LineAlignedDoubles> relu_alpha;
  std::vector<LineAlignedDoubles> jac_mean_by_mean, jac_mean_by_var, jac_var_by_mean,
      jac_var_by_var;
  // relu_standardise's results for one layer's units, between the two ReLU loops.
  LineAlignedDoubles relu_sd, relu_cdf, relu_cdf_minus, relu_ratio;
  // Reverse-mode accumulators for d log Z / d input moments of one layer (widest stride); the
  // first layer's d log Z / d a scaled by its LayerScale (a_j, b_j) and a_j^2 - 2 b_j.
  LineAlignedDoubles acc_mean_by_mean, acc_mean_by_var, acc_var;
  LineAlignedDoubles split_acc_mean_by_mean, split_acc_mean_by_var, split_acc_var;  // 2nd part's
  LineAlignedDoubles first_grad_mean, first_grad_var, first_curvature;
  // The first layer's moments before a pass of its backward pass updated them (two inputs').
  LineAlignedDoubles first_saved_mean, first_saved_var;
  size_t padded_weight_count = 0;        // weights in `weights`, pads included
  std::unique_ptr<HelperThread> helper;  // with threads >= 2 and a split layer
};

struct OutputMoments {
  double mean;
  double variance;
};

// Forward pass on the weights held in ws.weights that keeps every intermediate the backward
// pass needs. x is standardised.
OutputMoments forward_loaded(const double* x, AdfWorkspace& ws);

// The same on `layers` (loaded into ws first).
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
