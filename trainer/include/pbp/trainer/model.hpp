// SPDX-License-Identifier: Apache-2.0
// The trainer's in-memory model: what PBP learns and what the blob writer exports.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "pbp/format.hpp"
#include "pbp/outputs.hpp"
#include "pbp/trainer/likelihood_table.hpp"

namespace pbp::trainer {

// What the network's outputs model (the ADF-extensions paper, Ghosh et al. 2016):
//   regression: one output, Gaussian likelihood with a Gamma-distributed noise precision;
//   binary:     one output, probit likelihood Phi(y z), y in {-1, +1} (CSV labels 0/1);
//   multiclass: C outputs, softmax likelihood (CSV labels 0..C-1);
//   count:      one output, Poisson likelihood with rate exp(z) (CSV labels 0, 1, 2, ...).
// The task is the runtime's (PBP_TASK_*); the blob stores the likelihood, which implies it.
using Task = format::Task;

// A layer's activation (PBP_ACTIVATION_*): ReLU, erf or sign on hidden layers, linear on the last.
using Activation = format::Activation;

// Gamma(a, b) posterior on a precision (shape a, rate b).
struct Gamma {
  double a = 6.0;
  double b = 6.0;
  // The variance 1/precision that the paper's Student-t -> Gaussian approximation uses: b / (a -
  // 1).
  double variance_estimate() const { return outputs::gamma_variance(a, b); }
};

// Gaussian N(mean, variance) on phi = log Var(w), the log of the Laplace input prior's variance
// 2 b^2 (laplace_prior.hpp).
struct LaplaceScale {
  double mean = 0.0;
  double variance = 1.0;
};

// Factorised Gaussian posterior of one dense layer's weights: row-major [outputs][inputs + 1],
// bias weight last in each row. Hidden layers are ReLU, erf or sign, the last layer is linear.
struct Layer {
  uint32_t inputs = 0;
  uint32_t outputs = 0;
  Activation activation = Activation::relu;
  std::vector<double> mean;
  std::vector<double> variance;
  uint32_t row_length() const { return inputs + 1; }
};

// Standardisation fitted on the training set: x' = (x - mean) / std, y' = (y - mean) / std.
// The target is standardised for regression only (other tasks keep mean 0, std 1).
// Each input's training range [input_min, input_max] goes into the blob for the runtime's
// out-of-range report; both are empty for a model read from a blob written before ranges.
struct Standardisation {
  std::vector<double> input_mean;
  std::vector<double> input_std;  // a column constant up to rounding: max(1, |mean|)
  std::vector<double> input_min;
  std::vector<double> input_max;
  double target_mean = 0.0;
  double target_std = 1.0;
};

struct Metadata {
  std::string name;
  std::vector<std::string> feature_names;
  std::string target_name;
  uint64_t training_rows = 0;
  std::string notes;
  // Who wrote the blob this model was read from ("pbp-edge 0.1.0"); write_blob always writes its
  // own version here, whatever this says.
  std::string writer;
};

struct Model {
  Task task = Task::regression;
  // The trainer's likelihood it was trained with (likelihood_table.hpp); automatic: the task's.
  LikelihoodKind likelihood = LikelihoodKind::automatic;
  std::vector<Layer> layers;
  Gamma noise;  // on the noise precision gamma (standardised target units)
  Gamma prior;  // on the prior precision lambda of the weights (with ARD: beyond layer 0)
  // Regression: the factor on the network's epistemic variance in every prediction (the recipe
  // sets it from held-out rows; 1 is PBP as published). A float32 value, as the blob holds it.
  double epistemic_scale = 1.0;
  // ARD (PriorMode::ard) only, else empty: the Gamma on the prior precision of layer 0's weights
  // from each input, then of its bias weights (input_count() + 1 Gammas).
  std::vector<Gamma> input_priors;
  // Laplace input prior (PriorMode::laplace) only: q(phi), the Gaussian posterior of the log of
  // the Laplace prior's variance shared by layer 0's input weights (laplace_prior.hpp).
  std::optional<LaplaceScale> input_laplace_scale;
  Standardisation standardisation;
  // Regression, optional (empty: none): the distance variance (A target_std d)^2 of every
  // prediction (runtime/core/pbp/data_distance.hpp), A and each input's training-value occupancy
  // (format::input_occupancy_section::kWordsPerInput words per input, over the input ranges).
  double distance_scale = 0.0;
  std::vector<uint32_t> input_occupancy;
  // Regression, optional (empty: none): the pair variance (A2 target_std f)^2 of every prediction,
  // f the fraction of its input pairs on a cell no training row occupies (data_distance.hpp), A2
  // and each pair's grid (format::input_pair_occupancy_section, over the input ranges).
  double pair_scale = 0.0;
  std::vector<uint32_t> pair_occupancy;
  // Gaussian regression: 0 for a Gaussian predictive, else a Student-t's degrees of freedom with
  // the same variance (runtime/core/pbp/predictive_tail.hpp; format::predictive_tail_section).
  uint32_t tail_dof = 0;
  Metadata metadata;
  // How the blob stores the layers' weights (write_blob quantises to it; read_blob says what it
  // read, its values already decoded). Prediction in the trainer always uses the values above.
  format::Storage weight_storage = format::Storage::float32;
  // Per layer, where the layers' storage differs (else empty: weight_storage for every layer). An
  // int8 model keeps in float16 a layer whose int8 weights would move its predictions beyond the
  // quantisation goals (`pbp quantize --data`); weight_storage is then the coarsest layer's.
  std::vector<format::Storage> layer_storage;

  format::Storage storage_of(size_t layer) const {
    return layer_storage.empty() ? weight_storage : layer_storage[layer];
  }

  uint32_t input_count() const { return layers.empty() ? 0 : layers.front().inputs; }
  uint32_t output_count() const { return layers.empty() ? 0 : layers.back().outputs; }
};

// A prediction in original target units.
struct Prediction {
  double mean = 0.0;
  double epistemic_variance = 0.0;  // from the weights' uncertainty
  double aleatoric_variance = 0.0;  // noise: b / (a - 1) of the noise Gamma
  double variance() const { return epistemic_variance + aleatoric_variance; }
};

// The network's output moments z_i ~ N(mean[i], variance[i]), i < output_count(), for raw input
// `x`: what each task's predictive distribution (runtime/core/pbp/outputs.hpp) is built from.
struct OutputLayerMoments {
  std::vector<double> mean;
  std::vector<double> variance;
};
OutputLayerMoments output_layer_moments(const Model& model, std::span<const double> x);

// Double-precision prediction through the shared moment templates
// (runtime/core/pbp/moments.hpp). `x` has input_count() raw (unstandardised) values.
Prediction predict(const Model& model, std::span<const double> x);

// Class probabilities of a binary (2 values: p(y=0), p(y=1)) or multiclass model in double, by the
// shared output formulas (runtime/core/pbp/outputs.hpp) that the runtime runs in float.
std::vector<double> predict_class_probabilities(const Model& model, std::span<const double> x);

}  // namespace pbp::trainer
