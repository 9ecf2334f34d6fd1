// SPDX-License-Identifier: Apache-2.0
#include "pbp/trainer/train.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>

#include "pbp/trainer/adf.hpp"
#include "pbp/trainer/averaged_sites.hpp"
#include "pbp/trainer/iterate_average.hpp"
#include "pbp/trainer/laplace_prior.hpp"
#include "pbp/trainer/likelihood.hpp"
#include "pbp/trainer/option_names.hpp"
#include "pbp/trainer/prior.hpp"
#include "pbp/trainer/random.hpp"
#include "pbp/trainer/standardisation.hpp"

namespace pbp::trainer {
namespace {

// Weight means eps / sqrt(n_in + 1) (paper) or eps (unit) with eps ~ N(0, 1); variances b/(a-1)
// of the prior Gamma.
std::vector<Layer> initial_layers(uint32_t inputs, const std::vector<uint32_t>& hidden,
                                  uint32_t outputs, Activation activation, const Gamma& prior,
                                  Random& random, bool unit_means) {
  std::vector<uint32_t> widths{inputs};
  widths.insert(widths.end(), hidden.begin(), hidden.end());
  widths.push_back(outputs);
  std::vector<Layer> layers;
  for (size_t l = 0; l + 1 < widths.size(); ++l) {
    Layer layer;
    layer.inputs = widths[l];
    layer.outputs = widths[l + 1];
    layer.activation = l + 2 < widths.size() ? activation : Activation::linear;
    const size_t count = size_t{layer.outputs} * layer.row_length();
    const double scale =
        unit_means ? 1.0 : 1.0 / std::sqrt(static_cast<double>(layer.inputs) + 1.0);
    layer.mean.resize(count);
    for (double& m : layer.mean) m = random.normal() * scale;
    layer.variance.assign(count, prior.variance_estimate());
    layers.push_back(std::move(layer));
  }
  return layers;
}

// Checks the targets against the task (binary 0/1, class indices, non-negative integer counts)
// and returns the number of classes (multiclass) or 0.
uint32_t check_targets(const Dataset& data, const TrainOptions& options) {
  if (options.task == Task::regression) return 0;
  uint32_t largest = 0;
  for (size_t i = 0; i < data.rows; ++i) {
    const double y = data.y[i];
    const bool whole = y >= 0.0 && y == std::floor(y) && y < 4294967296.0;
    const bool valid = options.task == Task::binary ? (y == 0.0 || y == 1.0) : whole;
    if (!valid) {
      throw std::invalid_argument("row " + std::to_string(i + 1) + ": target " + std::to_string(y) +
                                  " is not a valid " +
                                  (options.task == Task::binary       ? "binary label (0 or 1)"
                                   : options.task == Task::multiclass ? "class index"
                                                                      : "count"));
    }
    largest = std::max(largest, static_cast<uint32_t>(y));
  }
  if (options.task != Task::multiclass) return 0;
  const uint32_t classes = options.classes ? options.classes : largest + 1;
  if (largest >= classes) {
    throw std::invalid_argument("class index " + std::to_string(largest) + " needs --classes > " +
                                std::to_string(largest));
  }
  if (classes < 2) throw std::invalid_argument("multiclass training needs at least 2 classes");
  return classes;
}

}  // namespace

Model train(const Dataset& data, const TrainOptions& options, TrainReport* report) {
  if (data.rows < 2) throw std::invalid_argument("training needs at least 2 rows");
  if (data.inputs < 1) throw std::invalid_argument("training needs at least 1 input column");
  for (uint32_t width : options.hidden) {
    if (width < 1) throw std::invalid_argument("hidden layer widths must be at least 1");
  }
  if (!is_hidden_activation(static_cast<uint32_t>(options.activation))) {
    throw std::invalid_argument("the hidden activation must be " +
                                option_choices(kActivationNames));
  }
  if (options.prior == PriorMode::ard && options.algorithm == Algorithm::ebp) {
    throw std::invalid_argument("the ARD prior needs PBP: EBP keeps the prior fixed");
  }
  if (options.prior == PriorMode::laplace && options.algorithm == Algorithm::ebp) {
    throw std::invalid_argument("the Laplace prior needs PBP: EBP keeps the prior fixed");
  }
  if (options.inference == Inference::sep && options.algorithm == Algorithm::ebp) {
    throw std::invalid_argument("SEP needs PBP: EBP keeps the variances fixed");
  }

  const uint32_t classes = check_targets(data, options);
  if (options.task == Task::regression) check_regression_target(data);

  Model model;
  model.task = options.task;
  model.likelihood = resolve_likelihood(options.likelihood, options.task);
  // Its own stream (for the sampled softmax), so the weights' initialisation does not depend on it.
  const std::unique_ptr<Likelihood> likelihood =
      make_likelihood(options, classes, &model.noise, options.seed ^ 0x5DEECE66Dull);
  const uint32_t outputs = likelihood->outputs();
  FittedStandardisation fitted = fit_standardisation(data);
  model.standardisation = std::move(fitted.standardisation);
  if (options.start) {  // the start's units; the ranges stay this data's
    const Standardisation& units = options.start->standardisation;
    model.standardisation.input_mean = units.input_mean;
    model.standardisation.input_std = units.input_std;
    model.standardisation.target_mean = units.target_mean;
    model.standardisation.target_std = units.target_std;
  }
  if (options.task != Task::regression) {  // labels and counts are modelled as they are
    model.standardisation.target_mean = 0.0;
    model.standardisation.target_std = 1.0;
  }
  model.metadata.feature_names = data.feature_names;
  model.metadata.target_name = data.target_name;
  model.metadata.training_rows = data.rows;
  const Standardisation& s = model.standardisation;

  std::vector<double> x(data.x.size());
  std::vector<double> y(data.rows);
  for (size_t i = 0; i < data.rows; ++i) {
    for (size_t k = 0; k < data.inputs; ++k) {
      x[i * data.inputs + k] = (data.x[i * data.inputs + k] - s.input_mean[k]) / s.input_std[k];
    }
    y[i] = (data.y[i] - s.target_mean) / s.target_std;
  }

  Random random(options.seed);
  const bool unit_means =
      options.initial_means == InitialMeans::unit ||
      (options.initial_means == InitialMeans::automatic && options.task == Task::multiclass);
  model.layers = initial_layers(static_cast<uint32_t>(data.inputs), options.hidden, outputs,
                                options.activation, model.prior, random, unit_means);
  if (options.start) {
    const std::vector<Layer>& from = options.start->layers;
    const bool same_shape = from.size() == model.layers.size() &&
                            std::equal(from.begin(), from.end(), model.layers.begin(),
                                       [](const Layer& a, const Layer& b) {
                                         return a.inputs == b.inputs && a.outputs == b.outputs &&
                                                a.activation == b.activation &&
                                                a.mean.size() == b.mean.size() &&
                                                a.variance.size() == b.variance.size();
                                       });
    if (!same_shape)
      throw std::invalid_argument("the start model's network differs from the options'");
    model.layers = from;
    model.prior = options.start->prior;
    model.noise = options.start->noise;
  }
  const bool ard = options.prior == PriorMode::ard;
  const bool laplace = options.prior == PriorMode::laplace;
  const bool ebp = options.algorithm == Algorithm::ebp;
  // Not for the heteroscedastic likelihood: its g weights grow without bound, and with them the
  // learned prior variance (yacht, 1 x 50, 40 epochs: 304; 2 of 5 splits' predictions overflow).
  const bool learn_prior =
      !ebp && (options.prior == PriorMode::learned || ard || laplace ||
               (options.prior == PriorMode::automatic &&
                model.likelihood != LikelihoodKind::heteroscedastic &&
                (options.task == Task::regression || options.task == Task::count)));
  // The random start is not data: kept out of every cavity, or the EP sweeps read it as data,
  // amplified where the data has hardly shrunk the variances (small data: the prior Gamma ran
  // away). Unit-scale means start the factors; a slight perturbation is kept in q as its own
  // site (see FactorStart). A fixed prior has no sweeps: its factors (SEP's prior sites) stay
  // the reference's.
  // A start model's prior factors are taken to be the prior itself (its sites are not kept).
  const FactorStart factor_start = options.start ? FactorStart::zero_mean
                                   : unit_means  ? FactorStart::initial_means
                                   : learn_prior ? FactorStart::start_site
                                                 : FactorStart::zero_mean;
  PriorFactors factors = initial_prior_factors(model.layers, model.prior, factor_start);
  const PriorGroups groups = ard       ? input_prior_groups(model.layers)
                             : laplace ? laplace_prior_groups(model.layers)
                                       : shared_prior_groups(model.layers);
  std::vector<Gamma> priors(groups.count, model.prior);  // group 0 is model.prior
  if (ard) model.input_priors.assign(priors.begin() + 1, priors.end());
  // The Laplace weights start as every other weight: q(phi)'s mean is the shared prior's log
  // variance, the variance their factors start with (initial_prior_factors).
  std::optional<LaplacePrior> laplace_prior;
  if (laplace) {
    laplace_prior = initial_laplace_prior(model.layers.front(), model.prior.variance_estimate());
    model.input_laplace_scale = laplace_prior->q;
  }
  const double damping = ard || laplace ? kArdDamping : kUndamped;
  AdfWorkspace workspace(model.layers, options.threads);
  const WeightUpdate update = ebp ? WeightUpdate::mean_only : WeightUpdate::mean_and_variance;
  const bool sep = options.inference == Inference::sep;
  PaddedPriorSites prior_sites;
  if (sep) prior_sites = pad_prior_sites(workspace, factors);
  const size_t removal_period = updates_per_site_removal(data.rows);
  const double removed_fraction =
      static_cast<double>(removal_period) / static_cast<double>(data.rows);
  const Gamma noise_prior = model.noise;
  const bool averaging =
      options.averaging == IterateAveraging::on ||
      (options.averaging == IterateAveraging::automatic && options.task == Task::multiclass);
  std::optional<IterateAverage> average;
  if (averaging) average.emplace(workspace);
  const size_t average_period = updates_per_averaged_iterate(data.rows);
  std::vector<size_t> order(data.rows);
  std::iota(order.begin(), order.end(), size_t{0});

  TrainReport local;
  local.constant_inputs = std::move(fitted.constant_inputs);
  for (uint32_t epoch = 0; epoch < options.epochs; ++epoch) {
    random.shuffle(order);
    // The updates run on the workspace's padded copy of the weights (see AdfWorkspace); the
    // prior refinement and on_epoch see model.layers.
    if (average) average->clear();
    for (size_t n = 0; n < order.size(); ++n) {
      const size_t i = order[n];
      if (average && n > 0 && n % average_period == 0) average->add(workspace);
      if (sep && n % removal_period == 0) {  // the cavity of the next removal_period updates
        remove_averaged_sites(workspace, prior_sites, removed_fraction);
        if (options.task == Task::regression) {
          remove_averaged_sites(model.noise, noise_prior, removed_fraction);
        }
      }
      const AdfOutcome outcome =
          adf_update_loaded(*likelihood, x.data() + i * data.inputs, y[i], workspace, update);
      local.weight_updates_rejected += outcome.rejected_weights;
      ++local.updates;
    }
    if (average) average->add(workspace);  // the epoch's last q
    workspace.store(model.layers);
    if (learn_prior) {
      PriorRefinement refined = refine_prior(model.layers, priors, groups, factors, damping);
      if (laplace_prior) {
        refine_laplace_prior(model.layers.front(), factors.front(), *laplace_prior, damping,
                             refined);
        model.input_laplace_scale = laplace_prior->q;
      }
      model.prior = priors[0];
      if (ard) model.input_priors.assign(priors.begin() + 1, priors.end());
      workspace.load(model.layers);
      if (sep) prior_sites = pad_prior_sites(workspace, factors);
      local.prior_factor_updates += refined.attempted;
      local.prior_factor_skipped += refined.skipped;
    }
    // The epoch's model is the average; training goes on from the last q, still in workspace
    // (model.layers is stored from it again before the next refinement).
    if (average) average->store(workspace, model.layers);
    if (options.on_epoch) options.on_epoch(epoch + 1, options.epochs, model);
    if (options.stop_after && options.stop_after(epoch + 1)) break;
  }
  if (report) *report = local;
  return model;
}

}  // namespace pbp::trainer
