// SPDX-License-Identifier: Apache-2.0
// Probabilistic Backpropagation training.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "pbp/trainer/dataset.hpp"
#include "pbp/trainer/likelihood_table.hpp"
#include "pbp/trainer/model.hpp"

namespace pbp::trainer {

// PBP learns means and variances of every weight and the prior precision; EBP (expectation
// backpropagation, the paper's baseline) keeps the variances and the prior fixed.
enum class Algorithm : uint32_t { pbp = 0, ebp = 1 };

// How the multiclass softmax's log Z is approximated: the log bound (eqs. 14-15), the
// reparameterised stochastic estimate of its gradient with `samples` draws (eqs. 16-18), or the
// mean-field approximation of E[softmax] that the predictions use (runtime outputs.hpp; the
// default). The bound's d log Z / d v = -softmax(m + v/2) / 2 is negative on every point, however
// well classified, so every update shrinks the output variances, if need be by switching hidden
// units off, and the network predicts underconfidently (Fashion-MNIST 784-400-400-10, 10 000
// images, 4 epochs: ECE 0.054 against 0.015; from the paper's starting means the second hidden
// layer's mean activity fell to 0.08, against 0.29).
enum class SoftmaxApproximation : uint32_t { log_bound = 0, sampled = 1, mean_field = 2 };

// Where the weight means start. PBP (section 3.5) perturbs them from 0 by eps ~ N(0, 1/(n+1)), n
// the layer's inputs (`paper`). Every pre-activation is divided by sqrt(n+1) already, so the
// means' signal then shrinks by sqrt(n+1) per layer and the weight variances (1.2) drown it: the
// output hardly depends on the input and the means' gradients vanish. `unit` starts them at
// eps ~ N(0, 1), the scale that division is made for (Fashion-MNIST 784-400-400-10, 10 000
// images, 4 epochs: accuracy 0.733 paper, 0.854 unit). `automatic`: unit for multiclass, paper
// for the other tasks, where unit measured no better (Boston 2 x 50 RMSE 2.90 vs 2.85, breast
// cancer log-likelihood -0.070 vs -0.061).
enum class InitialMeans : uint32_t { automatic = 0, paper = 1, unit = 2 };

// Whether EP refines the weights' prior factors and the prior precision lambda after every epoch
// (PBP) or keeps them at the prior. `automatic` learns it for regression (not the
// heteroscedastic likelihood, see train.cpp) and counts only.
// Binary: with a probit likelihood nothing fixes the output's scale, so on (nearly) separable
// data the evidence keeps favouring larger weights, the learned prior variance follows them, and
// both grow without bound (breast cancer, 1 x 50: accuracy 0.944 learned vs 0.970 fixed).
// Multiclass: one lambda shared by every weight is set by the wide first layer, whose weights
// each learn little per point, so their cavities are broad and noisy (Fashion-MNIST,
// 784-400-400-10, 10 000 images: the prior variance goes from 1.2 to 105 in one sweep and the
// output variances to 1e5; digits, 64-50-10: accuracy 0.969 learned, 0.974 fixed). `ard` learns
// it with one Gamma per input on layer 0's weights from that input (automatic relevance
// determination, Jylanki et al. 2014), one for layer 0's bias weights, and the shared one for
// every deeper weight (Model::input_priors), with damped EP updates (prior.hpp). `laplace` puts
// the sparsity-promoting Laplace prior of the same paper on layer 0's input weights, with one
// common scale learned by EP (laplace_prior.hpp, Model::input_laplace_scale), damped as ARD is;
// layer 0's bias and every deeper weight keep the shared Gaussian prior and its Gamma.
enum class PriorMode : uint32_t { automatic = 0, learned = 1, fixed = 2, ard = 3, laplace = 4 };

// How the likelihood factors meet q: ADF, PBP's assumed density filtering, multiplies every
// point's factor into q again on every pass, so E epochs count the data E times and q grows more
// confident with each epoch; SEP (stochastic EP, averaged_sites.hpp) keeps one averaged factor, so
// q counts each point once however many epochs run. SEP is the better-founded posterior, but the
// mean-field one it converges to is broad: Fashion-MNIST 784-400-400-10, 8 epochs, accuracy
// 0.859 and underconfident (mean confidence 0.842), against ADF's 0.888.
enum class Inference : uint32_t { adf = 0, sep = 1 };

// Whether each epoch's model is the average of q over the epoch's updates (iterate_average.hpp)
// or the q it ends on. `automatic`: averaged for multiclass, where it was measured (Fashion-MNIST:
// accuracy +0.006, ECE -0.004 at 10 epochs); the last q for the other tasks, whose figures and
// per-update cost (Boston: a pass over every weight per update) are kept as they were.
enum class IterateAveraging : uint32_t { automatic = 0, on = 1, off = 2 };

struct TrainOptions {
  std::vector<uint32_t> hidden{50};          // widths of the hidden layers
  Activation activation = Activation::relu;  // of every hidden layer: relu, erf or sign
  uint32_t epochs = 40;
  uint64_t seed = 1;
  Task task = Task::regression;
  uint32_t classes = 0;  // multiclass: number of classes C; 0 = 1 + the largest label seen
  Algorithm algorithm = Algorithm::pbp;
  PriorMode prior = PriorMode::automatic;
  // A line of likelihood_table.hpp for `task`; automatic: the task's first (regression: gaussian).
  LikelihoodKind likelihood = LikelihoodKind::automatic;
  SoftmaxApproximation softmax = SoftmaxApproximation::mean_field;
  uint32_t samples = 10;  // draws per update for SoftmaxApproximation::sampled
  InitialMeans initial_means = InitialMeans::automatic;
  Inference inference = Inference::adf;
  IterateAveraging averaging = IterateAveraging::automatic;
  // Threads per ADF update (1 or 2: wide layers are split in two parts, see AdfWorkspace); the
  // automatic recipe runs two of its independent trainings at once instead (recipe.hpp). The
  // model is the same bits whatever the count.
  uint32_t threads = 1;
  // Not null: training goes on from this model (its layers, prior and noise Gammas, and its
  // standardisation, which the layers' units are in; the input ranges are the data's) instead of
  // a random start, its prior factors started at the prior (the recipe's final training from the
  // search's model). It must have the network that `hidden` and the data's inputs make.
  const Model* start = nullptr;
  // Called after every epoch with (epochs done, total); for progress bars and training curves.
  std::function<void(uint32_t, uint32_t, const Model&)> on_epoch;
  // Called after on_epoch with the epochs done; true ends the training there (the model is that
  // epoch's): the recipe's search stops a candidate that cannot win.
  std::function<bool(uint32_t)> stop_after;
};

// What happened during training, for reports and tests.
struct TrainReport {
  uint64_t updates = 0;                  // ADF likelihood updates
  uint64_t weight_updates_rejected = 0;  // weights whose update gave a non-positive/NaN variance
  uint64_t prior_factor_updates = 0;     // EP prior-factor refinements attempted
  uint64_t prior_factor_skipped = 0;     // ... skipped (invalid cavity)
  // Input columns constant up to rounding on the training rows (fit_standardisation): they
  // contribute nothing to the model.
  std::vector<size_t> constant_inputs;
};

// Trains a model on `data` (at least 2 rows). Deterministic: the same data and options give a
// bit-identical model. Throws std::invalid_argument for bad options or targets, and for an input
// column that float32 cannot standardise on the device (fit_standardisation).
Model train(const Dataset& data, const TrainOptions& options, TrainReport* report = nullptr);

}  // namespace pbp::trainer
