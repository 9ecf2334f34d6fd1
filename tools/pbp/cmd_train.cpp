// SPDX-License-Identifier: Apache-2.0
// `pbp train`: fit a PBP network to a CSV or IDX data set and write the model blob.
#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>

#include "commands.hpp"
#include "interruption.hpp"
#include "output.hpp"
#include "pbp/activations.hpp"
#include "pbp/host/input_columns.hpp"
#include "pbp/host/model_file.hpp"
#include "pbp/host/quantise.hpp"
#include "pbp/trainer/atomic_file.hpp"
#include "pbp/trainer/blob.hpp"
#include "pbp/trainer/option_names.hpp"
#include "pbp/trainer/standardisation.hpp"
#include "quantisation_report.hpp"
#include "train_setup.hpp"
#include "training_curve.hpp"

namespace pbp::cli {
namespace {

const char* activation_label(trainer::Activation activation) {
  const auto id = static_cast<uint32_t>(activation);
  return id == PBP_ACTIVATION_RELU ? "ReLU" : hidden_activation_name(id);  // activations.hpp
}

// The activations' and storage types' names come from their tables (pbp/activations.hpp,
// pbp/storage_types.hpp).
std::string usage() {
  return "usage: pbp train --data F.csv --out model.pbp [--target NAME|INDEX] [--task T] "
         "[--classes C]\n"
         "                 [--likelihood L]\n"
         "                 [--algorithm pbp|ebp] [--softmax mean-field|bound|sampled] [--samples "
         "S]\n"
         "                 [--hidden 50[,50...]] [--activation " +
         trainer::option_alternatives(trainer::kActivationNames) +
         "] [--epochs 40]\n"
         "                 [--seed N] [--storage " +
         trainer::option_alternatives(trainer::kStorageNames) +
         " [--fallback auto|...]]\n"
         "                 [--curve PLOT.svg [--test T.csv | --test IMAGES --test-labels L]]\n"
         "       pbp train --data IMAGES --labels LABELS --out model.pbp ...   (IDX files, e.g.\n"
         "                 Fashion-MNIST from tools/scripts/fetch_fashion_mnist.sh)\n"
         "\n"
         "Trains a Bayesian neural network with Probabilistic Backpropagation and writes its blob\n"
         "atomically. Shows progress (a bar on a terminal, else a line on stderr every 5 s,\n"
         "PBP_PROGRESS_SECONDS); Ctrl-C stops it with status 130 and writes nothing. Prints a "
         "short\n"
         "summary. Targets must suit the\n"
         "task (binary 0/1, multiclass 0..C-1, count non-negative integers); a bad one is "
         "reported\n"
         "with its file, line and column (IDX: the label's index).\n"
         "\n"
         "  --data F             CSV with a header row and at least 2 data rows, or IDX images\n"
         "                       (told apart by content)\n"
         "  --out model.pbp      the model blob to write\n"
         "  --storage S          the weights' storage in the blob: float32 (default, 8 bytes per\n"
         "                       weight), float16 (4 bytes) or int8 (about 2); as 'pbp quantize'\n"
         "                       would make it from the float32 blob (int8: with --data, the "
         "means\n"
         "                       rounded to keep the layers' sums over the training rows);\n"
         "                       int8-logvar: int8 with logarithmic variance codes in every layer\n"
         "  --fallback F         int8, while its weights would move the predictions on the "
         "training\n"
         "                       rows by more than 0.01 nats (mean KL) or the epistemic std by\n"
         "                       more than 2 % (median): auto (default) moves layers to\n"
         "                       logarithmic variance codes (no bigger) or float16, the mix "
         "within\n"
         "                       both adding fewest bytes; float16 only to float16; none keeps\n"
         "                       every layer int8 (and warns). As 'pbp quantize --fallback'.\n"
         "  --curve PLOT.svg     also write training curves as SVG: after every epoch the model "
         "is\n"
         "                       scored as 'pbp eval' would (RMSE, accuracy or count MAD, and the\n"
         "                       mean log-likelihood) on the training set, and on --test if "
         "given;\n"
         "                       prints those figures, one line per epoch and data set. Costs one\n"
         "                       prediction pass over those rows per epoch; the model is the same\n"
         "                       as without --curve\n"
         "  --test T             held-out rows for --curve: a CSV with the training data's "
         "columns\n"
         "                       (matched by name), or IDX images with\n"
         "  --test-labels L      their labels\n";
}

// What a model trained on `data` with `train` will look like to `pbp eval`: for --test.
ModelDescription planned_model(const trainer::Dataset& data, const trainer::TrainOptions& train) {
  ModelDescription model;
  model.task = train.task;
  model.inputs = data.inputs;
  model.outputs = output_count(train);
  model.feature_names = data.feature_names;
  model.target_name = data.target_name;
  return model;
}

// The curve's data sets: the training rows, and the --test rows (loaded now, to fail early).
std::optional<TrainingCurve> curve_for(const ParsedOptions& options, const trainer::Dataset& data,
                                       const trainer::TrainOptions& train) {
  if (!options.has("curve")) {
    if (options.has("test") || options.has("test-labels")) {
      throw UsageError("--test and --test-labels go with --curve");
    }
    return std::nullopt;
  }
  trainer::check_destination(options.required_text("curve"));
  TrainingCurve curve(train.task);
  curve.add_data_set("training set", model_rows(data));
  if (const auto test = options.text("test")) {
    const DataFiles files{*test, options.text("test-labels"), options.text("target"),
                          "--test-labels"};
    curve.add_data_set("test set (" + std::filesystem::path(*test).filename().string() + ")",
                       load_model_rows(files, planned_model(data, train), true));
  } else if (options.has("test-labels")) {
    throw UsageError("--test-labels goes with --test");
  }
  return curve;
}

// One line per epoch and data set: the figures the plot shows, for reading off exact values.
void print_curve_summary(const TrainingCurve& curve, const std::string& path) {
  const size_t epochs = curve.data_sets().front().epochs.size();
  for (size_t e = 0; e < epochs; ++e) {
    for (const TrainingCurve::DataSet& data_set : curve.data_sets()) {
      std::cout << "after epoch " << e + 1 << ", " << data_set.label << ":";
      for (const Metric& metric : data_set.epochs[e]) {
        std::cout << (&metric == &data_set.epochs[e].front() ? " " : ", ") << metric.key << " "
                  << general(metric.value, 6);
      }
      std::cout << "\n";
    }
  }
  std::cout << "wrote " << path << " (training curves)\n";
}

// Where training stands, in the user's terms: the recipe's candidates, then the chosen network.
std::string progress_detail(const trainer::TrainProgress& at) {
  const std::string epoch =
      "epoch " + std::to_string(at.epoch) + " of " + std::to_string(at.epochs);
  if (at.candidate > 0) {
    return "candidate " + std::to_string(at.candidate) + " of " + std::to_string(at.candidates) +
           ", " + epoch;
  }
  return at.candidates > 0 ? "the chosen network, " + epoch : epoch;
}

int run(const ParsedOptions& options) {
  trainer::TrainOptions train_options = training_options(options);
  const std::string out = options.required_text("out");
  const format::Storage storage = parse_weight_storage(options.text("storage").value_or("float32"));
  const Int8Fallback fallback = parse_int8_fallback(options.text("fallback"));
  const bool int8 = format::has_int8_means(static_cast<uint32_t>(storage));
  if (options.text("fallback") && !int8) {
    throw UsageError("--fallback applies to --storage int8 or int8-logvar");
  }
  const RecipeSettings recipe = recipe_settings(options, train_options);
  const trainer::Dataset data = load_training_data(options, train_options);
  check_training_data(data, train_options);
  trainer::check_destination(out);  // fail before training, not after
  std::optional<TrainingCurve> curve = curve_for(options, data, train_options);

  const InterruptionGuard interruption;  // Ctrl-C: stop at the next epoch, write nothing
  ProgressBar progress("pbp train", "epochs");
  train_options.on_epoch = [&curve](uint32_t done, uint32_t, const trainer::Model& model) {
    throw_if_interrupted();
    if (curve) curve->record(done, model);
  };
  const auto start = std::chrono::steady_clock::now();
  trainer::RecipeChoice choice;
  trainer::TrainReport report;
  trainer::Model model = trainer::train_with_recipe(
      data, train_options, recipe.recipe, recipe.space, &choice,
      [&progress](const trainer::TrainProgress& at) {
        throw_if_interrupted();  // every epoch of the search too, not only the final training's
        progress.update(at.done, at.total, progress_detail(at));
      },
      &report);
  if (choice.epochs > 0) {
    train_options.hidden = choice.hidden;
    train_options.epochs = choice.epochs;
  }
  const double curve_seconds = curve ? curve->seconds() : 0.0;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() -
      curve_seconds;
  progress.finish();
  for (const size_t column : report.constant_inputs) {
    std::cerr << "pbp train: input " << trainer::input_column_label(data, column)
              << " is constant on the training rows ("
              << general(model.standardisation.input_mean[column], 6)
              << "): it contributes nothing to the model\n";
  }
  if (model.metadata.feature_names.empty()) model.metadata.feature_names = data.feature_names;
  if (model.metadata.target_name.empty()) model.metadata.target_name = data.target_name;
  if (model.metadata.training_rows == 0) model.metadata.training_rows = data.rows;
  // int8: the units rescaled and the means rounded to keep the layers' sums over the training
  // rows (int8_rounding.hpp), from the float32 blob's values, so that `pbp quantize --data` of
  // that blob gives these bytes.
  std::vector<uint8_t> float32_blob;
  std::vector<uint8_t> written;
  std::vector<LayerFallback> fallback_steps;
  if (int8) {
    float32_blob = trainer::write_blob(model);
    const ModelRows rows = model_rows(data);
    ProgressBar fallback_progress("int8 fallback", "storage mixes measured");
    QuantisedBlob quantised =
        quantise_blob(float32_blob, storage, &rows, fallback, interruptible(fallback_progress));
    fallback_progress.finish();
    model = std::move(quantised.model);
    fallback_steps = std::move(quantised.fallback_steps);
    written = std::move(quantised.blob);
    trainer::write_file_atomically(out, written);
  } else {
    model.weight_storage = storage;
    written = save_model(out, model);
  }
  const size_t bytes = written.size();
  const std::string task = task_summary(train_options);
  const bool ebp = train_options.algorithm == trainer::Algorithm::ebp;
  std::cout << "trained on " << data.source << ": " << data.rows << " rows, " << data.inputs
            << " inputs, target " << data.target_name << (task.empty() ? "" : " (" + task + ")")
            << "\n"
            << "architecture "
            << architecture(data.inputs, train_options.hidden, output_count(train_options)) << " ("
            << activation_label(train_options.activation) << "), " << train_options.epochs
            << " epochs, seed " << train_options.seed
            << (ebp ? ", EBP (fixed variances and prior)" : "") << "\n"
            << "training took " << fixed(seconds, 3) << " s"
            << (curve ? " (+ " + fixed(curve_seconds, 3) + " s scoring the curve)" : "");
  if (model.likelihood == trainer::LikelihoodKind::heteroscedastic) {
    std::cout << "; noise per input (the network's second output)";
  } else if (train_options.task == trainer::Task::regression) {
    std::cout << "; noise std " << general(noise_std(model), 6) << " (original units)";
  }
  std::cout << "\n";
  if (const std::string chosen = recipe_summary(choice, model); !chosen.empty()) {
    std::cout << chosen << "\n";
  }
  std::cout << "wrote " << out << " (" << bytes << " bytes)\n";
  if (!float32_blob.empty()) {
    std::cout.flush();
    report_fallback_layers(fallback_steps, model);
    report_quantisation_fidelity(float32_blob, written, model_rows(data), storage_text(storage),
                                 "train");
  }
  if (curve) {
    const std::string path = options.required_text("curve");
    std::string shape =
        architecture(data.inputs, train_options.hidden, output_count(train_options));
    for (size_t at = shape.find("->"); at != std::string::npos; at = shape.find("->", at)) {
      shape.replace(at, 2, "\u2192");  // an arrow reads better in a figure
    }
    curve->write(path, "Training curves: " +
                           std::filesystem::path(data.source).filename().string() + ", " + shape);
    print_curve_summary(*curve, path);
  }
  return 0;
}

}  // namespace

int command_train(const Arguments& args) {
  CommandDefinition command{
      "train",
      usage() + kTrainingOptionsHelp,
      {{"data"}, {"out"}, {"curve"}, {"test"}, {"test-labels"}, {"storage"}, {"fallback"}}};
  for (const OptionSpec& spec : training_option_specs()) command.options.push_back(spec);
  return run_command(command, args, run);
}

}  // namespace pbp::cli
