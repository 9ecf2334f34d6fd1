// `pbp train`: fit a PBP network to a CSV or IDX data set and write the model blob.
#include <chrono>
#include <iostream>

#include "commands.hpp"
#include "model_file.hpp"
#include "output.hpp"
#include "pbp/trainer/atomic_file.hpp"
#include "train_setup.hpp"

namespace pbp::cli {
namespace {

const char* const kUsage =
    "usage: pbp train --data F.csv --out model.pbp [--target NAME|INDEX] [--task T] [--classes C]\n"
    "                 [--algorithm pbp|ebp] [--softmax mean-field|bound|sampled] [--samples S]\n"
    "                 [--hidden 50[,50...]] [--epochs 40] [--seed N]\n"
    "       pbp train --data IMAGES --labels LABELS --out model.pbp ...   (IDX files, e.g.\n"
    "                 Fashion-MNIST from tools/scripts/fetch_fashion_mnist.sh)\n"
    "\n"
    "Trains a Bayesian neural network with Probabilistic Backpropagation and writes its blob\n"
    "atomically. Shows progress on a terminal; prints a short summary. Targets must suit the\n"
    "task (binary 0/1, multiclass 0..C-1, count non-negative integers); a bad one is reported\n"
    "with its file, line and column (IDX: the label's index).\n"
    "\n"
    "  --data F             CSV with a header row and at least 2 data rows, or IDX images\n"
    "                       (told apart by content)\n"
    "  --out model.pbp      the model blob to write\n";

int run(const ParsedOptions& options) {
  trainer::TrainOptions train_options = training_options(options);
  const std::string out = options.required_text("out");
  const trainer::Dataset data = load_training_data(options, train_options);
  trainer::check_destination(out);  // fail before training, not after

  ProgressBar progress("training");
  train_options.on_epoch = [&progress](uint32_t done, uint32_t total, const trainer::Model&) {
    progress.update(done, total);
  };
  const auto start = std::chrono::steady_clock::now();
  trainer::Model model = trainer::train(data, train_options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  progress.finish();
  if (model.metadata.feature_names.empty()) model.metadata.feature_names = data.feature_names;
  if (model.metadata.target_name.empty()) model.metadata.target_name = data.target_name;
  if (model.metadata.training_rows == 0) model.metadata.training_rows = data.rows;

  const size_t bytes = save_model(out, model);
  const std::string task = task_summary(train_options);
  const bool ebp = train_options.algorithm == trainer::Algorithm::ebp;
  std::cout << "trained on " << data.source << ": " << data.rows << " rows, " << data.inputs
            << " inputs, target " << data.target_name << (task.empty() ? "" : " (" + task + ")")
            << "\n"
            << "architecture "
            << architecture(data.inputs, train_options.hidden, output_count(train_options))
            << " (ReLU), " << train_options.epochs << " epochs, seed " << train_options.seed
            << (ebp ? ", EBP (fixed variances and prior)" : "") << "\n"
            << "training took " << fixed(seconds, 3) << " s";
  if (train_options.task == trainer::Task::regression) {
    std::cout << "; noise std " << general(noise_std(model), 6) << " (original units)";
  }
  std::cout << "\nwrote " << out << " (" << bytes << " bytes)\n";
  return 0;
}

}  // namespace

int command_train(const Arguments& args) {
  CommandDefinition command{
      "train", std::string(kUsage) + kTrainingOptionsHelp, {{"data"}, {"out"}}};
  for (const OptionSpec& spec : training_option_specs()) command.options.push_back(spec);
  return run_command(command, args, run);
}

}  // namespace pbp::cli
