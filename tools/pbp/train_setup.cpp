// SPDX-License-Identifier: Apache-2.0
#include "train_setup.hpp"

#include <algorithm>
#include <cmath>
#include <thread>

#include "host_names.hpp"
#include "output.hpp"
#include "pbp/host/parallel.hpp"
#include "pbp/trainer/likelihood.hpp"
#include "pbp/trainer/option_names.hpp"

namespace pbp::cli {
namespace {

constexpr uint64_t kMaxSamples = 100'000;

trainer::Task task_option(const ParsedOptions& options) {
  const auto text = options.text("task");
  if (!text) return trainer::Task::regression;
  const auto task = trainer::parse_task(*text);
  if (!task) {
    throw UsageError("--task expects regression, binary, multiclass or count, got '" + *text + "'");
  }
  return *task;
}

// The value of option `name` from its table (trainer/option_names.hpp), or `fallback` if absent.
template <class Value, size_t N>
Value named_option(const ParsedOptions& options, const std::string& name,
                   const trainer::OptionName<Value> (&names)[N], Value fallback) {
  const auto text = options.text(name);
  if (!text) return fallback;
  const auto value = trainer::parse_option_name(names, *text);
  if (!value) {
    throw UsageError("--" + name + " expects " + trainer::option_choices(names) + ", got '" +
                     *text + "'");
  }
  return *value;
}

// --softmax, --samples: only for multiclass; --samples alone means --softmax sampled.
void softmax_options(const ParsedOptions& options, trainer::TrainOptions& train) {
  const auto softmax = options.text("softmax");
  if ((softmax || options.has("samples")) && train.task != trainer::Task::multiclass) {
    throw UsageError("--softmax and --samples go with --task multiclass");
  }
  const auto approximation =
      named_option(options, "softmax", trainer::kSoftmaxNames, train.softmax);
  if (options.has("samples")) {
    if (softmax && *softmax != "sampled") throw UsageError("--samples goes with --softmax sampled");
    train.samples =
        static_cast<uint32_t>(options.integer_between("samples", train.samples, 1, kMaxSamples));
  }
  train.softmax = options.has("samples") ? trainer::SoftmaxApproximation::sampled : approximation;
}

}  // namespace

std::vector<OptionSpec> training_option_specs() {
  return {{"labels"},     {"target"},     {"task"},
          {"classes"},    {"algorithm"},  {"prior"},
          {"softmax"},    {"samples"},    {"hidden"},
          {"epochs"},     {"seed"},       {"threads"},
          {"inference"},  {"averaging"},  {"recipe"},
          {"activation"}, {"likelihood"}, {"distance-variance"}};
}

const char* const kTrainingOptionsHelp =
    "  --labels L           the IDX labels file when --data is IDX images (MNIST format,\n"
    "                       uncompressed; raw pixel values are the inputs)\n"
    "  --target NAME|INDEX  CSV target column by header name or 0-based index (default: last)\n"
    "  --task T             regression (default), binary (labels 0/1), multiclass (labels\n"
    "                       0..C-1) or count (non-negative integers: a negative-binomial\n"
    "                       predictive, from a Poisson likelihood with a Gaussian log rate)\n"
    "  --classes C          multiclass: the number of classes (default: 1 + the largest label)\n"
    "  --likelihood L       the task's likelihood, from the trainer's table (an unknown name\n"
    "                       lists them); default: the task's first (regression: gaussian)\n"
    "  --algorithm A        pbp (default) or ebp (expectation backpropagation: variances and\n"
    "                       prior fixed)\n"
    "  --prior P            learned (EP refinement of the prior precision) or fixed (kept at\n"
    "                       its prior mean); default (auto): learned for regression and\n"
    "                       count, fixed for binary, multiclass and the heteroscedastic\n"
    "                       likelihood, where learning it is unstable;\n"
    "                       or ard: learned, with one prior precision per input on its\n"
    "                       first-layer weights (pbp inspect shows each input's relevance);\n"
    "                       or laplace: the EP paper's sparsity-promoting Laplace prior on\n"
    "                       the first layer's input weights, their common variance learned\n"
    "                       by EP as a Gaussian on its log (one site per weight); deeper\n"
    "                       weights keep the learned Gaussian prior\n"
    "  --inference I        adf (default: PBP's assumed density filtering, every epoch counts\n"
    "                       the data again) or sep (stochastic EP: one averaged factor, the\n"
    "                       data counted once however many epochs run; broader posteriors)\n"
    "  --averaging A        on: each epoch's model is the average of the posterior over the\n"
    "                       epoch's updates; off: the posterior the epoch ends on (default,\n"
    "                       auto: on for multiclass, off for the other tasks)\n"
    "  --softmax S          multiclass: mean-field (default; the approximation of E[softmax]\n"
    "                       that predictions use), bound (the paper's log bound) or sampled\n"
    "  --samples S          multiclass: draws per update of the sampled softmax (default: 10;\n"
    "                       implies --softmax sampled)\n"
    "  --recipe R           regression: auto (default) chooses the network (1 x 50 or 2 x 50),\n"
    "                       the epochs (10 to 200) and the noise level from held-out parts of\n"
    "                       the training rows, then trains on all of them; paper: PBP as\n"
    "                       published, 1 x 50 (or --hidden) for 40 epochs (or --epochs)\n"
    "  --distance-variance on|off  with --recipe auto: on (default) widens each prediction by\n"
    "                       (A target_std d)^2, d its distance from the training values in\n"
    "                       training stds, and by (A2 target_std f)^2, f the fraction of its\n"
    "                       input pairs in a combination no training row has (2 to 32\n"
    "                       inputs); A, then A2, fitted on held-out gap and tail folds of the\n"
    "                       training rows (one training per fold: 2 x inputs trainings)\n"
    "  --hidden W[,W...]    widths of the hidden layers (default: 50; with --recipe auto,\n"
    "                       the only network it tries)\n"
    "  --activation A       of every hidden layer: relu (default), erf (erf(a/sqrt 2) =\n"
    "                       2 Phi(a) - 1, the EP paper's probit unit) or sign\n"
    "  --epochs N           passes over the training data (default: 40; with --recipe auto,\n"
    "                       the only length it tries)\n"
    "  --seed N             random seed; equal seeds give identical models (default: 1)\n"
    "  --threads N          1 or 2 threads per training update: wide layers (16 384 weights\n"
    "                       or more) are split in two; with --recipe auto, also two of its\n"
    "                       independent trainings at once; the model is the same either way\n"
    "                       (default: 2 if the machine has 2 hardware threads)\n";

trainer::TrainOptions training_options(const ParsedOptions& options) {
  trainer::TrainOptions train;
  train.hidden = options.width_list("hidden", train.hidden);
  train.activation =
      named_option(options, "activation", trainer::kActivationNames, train.activation);
  train.epochs =
      static_cast<uint32_t>(options.integer_between("epochs", train.epochs, 1, 1'000'000));
  train.seed = options.unsigned_integer("seed", train.seed);
  train.task = task_option(options);
  if (options.has("classes")) {
    if (train.task != trainer::Task::multiclass) {
      throw UsageError("--classes goes with --task multiclass");
    }
    train.classes =
        static_cast<uint32_t>(options.integer_between("classes", 0, 2, trainer::kMaxClasses));
  }
  train.likelihood =
      named_option(options, "likelihood", trainer::kLikelihoodNames, train.likelihood);
  train.algorithm = named_option(options, "algorithm", trainer::kAlgorithmNames, train.algorithm);
  train.prior = named_option(options, "prior", trainer::kPriorNames, train.prior);
  train.inference = named_option(options, "inference", trainer::kInferenceNames, train.inference);
  train.averaging = named_option(options, "averaging", trainer::kAveragingNames, train.averaging);
  check_training_options(train, RecipeSettings{});  // the network and the combinations
  softmax_options(options, train);
  train.threads = static_cast<uint32_t>(options.integer_between(
      "threads", std::min(2u, std::max(1u, std::thread::hardware_concurrency())), 1, 2));
  return train;
}

RecipeSettings recipe_settings(const ParsedOptions& options, const trainer::TrainOptions& train) {
  const trainer::Recipe recipe =
      named_option(options, "recipe", trainer::kRecipeNames, trainer::Recipe::automatic);
  if (options.has("recipe") && recipe == trainer::Recipe::automatic &&
      train.task != trainer::Task::regression) {
    throw UsageError("--recipe auto goes with --task regression");
  }
  std::optional<bool> distance_variance;
  if (const auto text = options.text("distance-variance")) {
    if (*text != "on" && *text != "off") {
      throw UsageError("--distance-variance expects on or off, got '" + *text + "'");
    }
    distance_variance = *text == "on";
  }
  RecipeSettings settings = host::recipe_settings(
      recipe, options.has("hidden") ? std::optional(train.hidden) : std::nullopt,
      options.has("epochs") ? std::optional(train.epochs) : std::nullopt, train.task,
      distance_variance);
  return settings;
}

std::string recipe_summary(const trainer::RecipeChoice& choice, const trainer::Model& model) {
  if (choice.epochs == 0) return "";
  std::string network;  // as --hidden takes it
  for (const uint32_t width : choice.hidden) {
    network += (network.empty() ? "" : ",") + std::to_string(width);
  }
  return "recipe auto chose --hidden " + network + ", " + std::to_string(choice.epochs) +
         " epochs, noise std " + general(noise_std(model), 6) + " and epistemic variance x " +
         general(model.epistemic_scale, 4) + " from " + std::to_string(choice.held_out_rows) +
         " held-out rows (" + std::to_string(choice.folds) +
         (choice.folds == 1 ? " fold)" : " folds)") +
         (model.input_occupancy.empty()
              ? ""
              : ", distance variance scale " + general(model.distance_scale, 4)) +
         (model.pair_occupancy.empty() ? ""
                                       : ", pair variance scale " + general(model.pair_scale, 4)) +
         (model.tail_dof == 0 ? ""
                              : ", Student-t predictive with " + std::to_string(model.tail_dof) +
                                    " degrees of freedom");
}

trainer::Dataset load_training_data(const ParsedOptions& options, trainer::TrainOptions& train) {
  return host::load_training_data(
      DataFiles{options.required_text("data"), options.text("labels"), options.text("target")},
      train);
}

ModelRows load_model_rows(const ParsedOptions& options, const ModelDescription& model,
                          bool labelled) {
  return host::load_model_rows(
      DataFiles{options.required_text("data"), options.text("labels"), options.text("target"),
                "--labels", options.has("by-position")},
      model, labelled);
}

size_t jobs_option(const ParsedOptions& options) {
  return static_cast<size_t>(options.integer_between("jobs", default_jobs(), 1, 256));
}

std::string architecture(size_t inputs, const std::vector<uint32_t>& hidden, size_t outputs) {
  std::string text = std::to_string(inputs);
  for (const uint32_t width : hidden) text += " -> " + std::to_string(width);
  return text + " -> " + std::to_string(outputs);
}

size_t output_count(const trainer::TrainOptions& train) {
  if (train.task == trainer::Task::multiclass) return train.classes;
  trainer::Gamma noise;  // the likelihood's width, from its table line (likelihood_table.hpp)
  return trainer::make_likelihood(train, 0, &noise, 0)->outputs();
}

std::string task_summary(const trainer::TrainOptions& train) {
  switch (train.task) {
    case trainer::Task::regression:
      return "";
    case trainer::Task::binary:
      return "binary, probit likelihood";
    case trainer::Task::multiclass: {
      const std::string softmax =
          train.softmax == trainer::SoftmaxApproximation::sampled
              ? "sampled (" + std::to_string(train.samples) + " draws)"
              : (train.softmax == trainer::SoftmaxApproximation::log_bound ? "log bound"
                                                                           : "mean-field");
      return "multiclass, " + std::to_string(train.classes) + " classes, softmax " + softmax;
    }
    case trainer::Task::count:
      return "count, negative-binomial predictive";
  }
  return "";
}

double noise_std(const trainer::Model& model) {
  return std::sqrt(model.noise.variance_estimate()) * model.standardisation.target_std;
}

}  // namespace pbp::cli
