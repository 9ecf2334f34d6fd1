// SPDX-License-Identifier: Apache-2.0
// `pbp quantize IN.pbp --storage float16|int8 --out OUT.pbp`: the same model with its layers'
// weights in another storage type (runtime/FORMAT.md), written atomically, with what that cost.
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "interruption.hpp"
#include "options.hpp"
#include "output.hpp"
#include "pbp/host/input_columns.hpp"
#include "pbp/host/model_file.hpp"
#include "pbp/host/quantise.hpp"
#include "pbp/pbp.hpp"
#include "pbp/trainer/atomic_file.hpp"
#include "pbp/trainer/blob.hpp"
#include "pbp/trainer/option_names.hpp"
#include "quantisation_report.hpp"
#include "train_setup.hpp"

namespace pbp::cli {
namespace {

// The storage types' names come from their table (pbp/storage_types.hpp).
std::string usage() {
  const std::string storage = trainer::option_alternatives(trainer::kStorageNames);
  return "usage: pbp quantize IN.pbp --storage " + storage +
         " --out OUT.pbp\n"
         "                    [--data TRAIN [--fallback auto|float16|none]]\n"
         "\n"
         "Rewrites a model blob with its layers' weight means and variances in another storage "
         "type\n"
         "(runtime/FORMAT.md): float16 takes 4 bytes per weight instead of 8, each value rounded "
         "to\n"
         "the nearest half (relative error <= 2^-11 for |w| >= 2^-14); int8 about 2 (a mean is s "
         "q,\n"
         "q in -127..127 with a scale s per row; a variance w u^2, u in 1..255 with one scale w "
         "per\n"
         "layer); int8-logvar the same size, with the same means and a variance about t 2^(c/8),\n"
         "c in 0..255, for layers whose variances span more than 255^2 : 1. Gammas, "
         "standardisation\n"
         "and metadata are kept as they are. Writes OUT atomically and prints the sizes and the\n"
         "largest rounding error of the means and variances. The result is byte for byte what\n"
         "'pbp train --storage " +
         storage +
         "' writes for the same training run\n"
         "(int8: given --data with the training rows).\n"
         "\n"
         "  --storage S    " +
         trainer::option_choices(trainer::kStorageNames) +
         "\n"
         "                 (float32 decodes a quantised blob's values into float32)\n"
         "  --out F        the blob to write\n"
         "  --data F       int8: the model's training rows (a CSV with its inputs, or IDX "
         "images).\n"
         "                 The layers are then rounded in order, each first moved to make up for\n"
         "                 the rounding of those before it, and each row's means one at a time, "
         "each\n"
         "                 rounding error spread over the row's later weights so that the layer's\n"
         "                 sums over these rows change least (GPTQ's rounding; at most 4096 rows,\n"
         "                 evenly spaced). Before that, each ReLU unit's weights in and out may "
         "be\n"
         "                 scaled by powers of two that change no prediction, so that the layers'\n"
         "                 variances fit their codes (the largest change is then measured against\n"
         "                 the rescaled model);\n"
         "                 without it, each to the nearest code. 'pbp train --storage int8' does "
         "this\n"
         "                 with its training rows. Use training rows only: the rounding is fitted "
         "to "
         "them.\n"
         "  --by-position  match --data's CSV columns to the inputs by position (a model without\n"
         "                 feature names needs it)\n"
         "  --fallback F   int8 with --data, while the int8 weights would move the predictions on\n"
         "                 these rows by more than 0.01 nats (mean KL) or the epistemic std by "
         "more\n"
         "                 than 2 % (median): auto (default) moves layers from int8 to "
         "logarithmic\n"
         "                 variance codes (no bigger) or to float16: of every mix (up to four\n"
         "                 layers; more, one layer at a time), the one within both adding fewest\n"
         "                 bytes, then moving fewest weights, then the closest; if none is "
         "within,\n"
         "                 the closest); float16 only the moves to float16; none keeps every "
         "layer\n"
         "                 int8 (and warns).\n";
}

// The largest |quantised - original| over a kind of weight, absolute and relative to |original|.
struct ErrorSummary {
  double absolute = 0.0;
  double relative = 0.0;
  void add(double original, double quantised) {
    const double error = std::fabs(quantised - original);
    absolute = std::fmax(absolute, error);
    if (original != 0.0) relative = std::fmax(relative, error / std::fabs(original));
  }
};

int run(const std::string& path, const ParsedOptions& options) {
  const format::Storage storage = parse_weight_storage(options.required_text("storage"));
  const std::string out = options.required_text("out");
  const std::vector<uint8_t> bytes = read_model_file(path);
  const LoadedModel loaded = LoadedModel::open(bytes, path);
  const Int8Fallback fallback = parse_int8_fallback(options.text("fallback"));
  const bool int8 = format::has_int8_means(static_cast<uint32_t>(storage));
  if (options.text("fallback") && !options.text("data")) {
    throw UsageError("--fallback applies to --storage int8 with --data");
  }
  std::optional<ModelRows> rows;
  if (options.text("data")) {
    if (!int8) throw UsageError("--data applies to --storage int8 or int8-logvar");
    rows = load_model_rows(options, loaded.description(), false);
  }
  trainer::check_destination(out);
  ProgressBar fallback_progress("int8 fallback", "storage mixes measured");
  const QuantisedBlob quantised = quantise_blob(bytes, storage, rows ? &*rows : nullptr, fallback,
                                                interruptible(fallback_progress));
  fallback_progress.finish();
  const trainer::Model& original = quantised.original;
  const trainer::Model& rescaled = quantised.rescaled;
  const std::vector<uint8_t>& blob = quantised.blob;
  const trainer::Model written = trainer::read_blob(blob);
  ErrorSummary means, variances;
  for (size_t l = 0; l < original.layers.size(); ++l) {
    for (size_t i = 0; i < original.layers[l].mean.size(); ++i) {
      means.add(rescaled.layers[l].mean[i], written.layers[l].mean[i]);
      variances.add(rescaled.layers[l].variance[i], written.layers[l].variance[i]);
    }
  }
  trainer::write_file_atomically(out, blob);
  const double weights = loaded.runtime().view().weight_count;
  std::printf("%s: %zu bytes (%s per weight), weights %s\n", path.c_str(), bytes.size(),
              general(static_cast<double>(bytes.size()) / weights, 4).c_str(),
              storage_text(original.weight_storage));
  std::printf("wrote %s: %zu bytes (%s per weight), weights %s\n", out.c_str(), blob.size(),
              general(static_cast<double>(blob.size()) / weights, 4).c_str(),
              storage_text(storage));
  std::printf("largest change: means %s (relative %s), variances %s (relative %s)\n",
              general(means.absolute, 3).c_str(), general(means.relative, 3).c_str(),
              general(variances.absolute, 3).c_str(), general(variances.relative, 3).c_str());
  if (quantised.fallback_searched) {
    report_fallback_layers(quantised.fallback_steps, quantised.model);
    report_quantisation_fidelity(bytes, blob, *rows, storage_text(storage), "quantize");
  }
  return 0;
}

}  // namespace

int command_quantize(const Arguments& args) {
  const CommandDefinition command{
      "quantize",
      usage(),
      {{"storage", true}, {"out", true}, {"data"}, {"fallback"}, {"by-position", false}}};
  // The model path is the one positional argument (the first that is no option's value).
  Arguments options;
  std::vector<std::string> paths;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& argument = args[i];
    if (argument.rfind("-", 0) != 0) {
      paths.push_back(argument);
      continue;
    }
    options.push_back(argument);
    const bool takes_value = argument == "--storage" || argument == "--out" ||
                             argument == "--data" || argument == "--fallback";
    if (takes_value && i + 1 < args.size()) options.push_back(args[++i]);
  }
  return run_command(command, options, [&](const ParsedOptions& parsed) {
    if (paths.size() != 1) throw UsageError("expected exactly one model file");
    return run(paths[0], parsed);
  });
}

}  // namespace pbp::cli
