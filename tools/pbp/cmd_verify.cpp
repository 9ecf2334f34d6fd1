// SPDX-License-Identifier: Apache-2.0
// `pbp verify`: the runtime (float, as a device runs the blob) against the trainer (double, on the
// blob's weights) on every row of a data file; fails above a tolerance.
#include <cstdio>
#include <iostream>
#include <optional>
#include <stdexcept>

#include "commands.hpp"
#include "options.hpp"
#include "output.hpp"
#include "pbp/host/input_columns.hpp"
#include "pbp/host/model_file.hpp"
#include "pbp/host/verification.hpp"
#include "pbp/trainer/blob.hpp"
#include "pbp/trainer/int8_unit_scales.hpp"
#include "train_setup.hpp"

namespace pbp::cli {
namespace {

constexpr double kDefaultTolerance = 1e-5;
// With --reference: the quantisation's stated tolerance, the largest difference its rounding of
// the weights is accepted to cause (measured, not a bound: Boston 13-50-1 on its 506 rows, float16
// 7.5e-4 and int8 3.7e-2, both in the 95 % interval's lower end; digits 64-50-10 on its 1 797
// rows, float16 5.6e-4 and int8 1.2e-2, in the entropy).
constexpr double kFloat16Tolerance = 5e-3;
constexpr double kInt8Tolerance = 5e-2;
// An int8 blob against its own decoded weights: the runtime's int8 kernel rounds each layer's
// unit moments to int16 codes (a power-of-two scale per vector, so an absolute error of up to
// 2^-15 of the vector's largest), far more than float rounding (measured, not a bound: Boston
// 13-50-1 on its 506 rows 5.1e-4, digits 64-50-1 (regression on the label) on its 1 797
// rows 3.4e-4, both in the 95 % interval's lower end).
constexpr double kInt8ActivationTolerance = 5e-3;

const char* const kUsage =
    "usage: pbp verify --model M.pbp --data F [--tolerance 1e-5] [--reference ORIGINAL.pbp]\n"
    "                  [--json] [--by-position]\n"
    "\n"
    "Reads the blob twice: with the runtime (float32, the code a device runs) and as the\n"
    "trainer's double-precision model (the same float32 weights, widened). Predicts every row\n"
    "of F with both (inputs rounded to float32 for both) and compares every output of the task:\n"
    "  regression   mean, std, epistemic_std, aleatoric_std, lower, upper (95 % interval)\n"
    "  binary       p0, p1, entropy;   multiclass: p0 .. p<C-1>, entropy\n"
    "  count        mean, variance, mode, lower, upper (95 % interval)\n"
    "The difference of an output is |runtime - trainer| / max(|trainer|, floor): relative, but\n"
    "never on a scale below the floor, so values near zero do not blow it up. The floor is the\n"
    "trainer's total predictive std for regression outputs, 1 otherwise (probabilities and\n"
    "entropy: an absolute difference). A count's mode and interval bounds are whole numbers\n"
    "that jump where the continuous mean, psi or CDF crosses a threshold: one agrees (0) when\n"
    "the trainer gives the runtime's value for some mean and psi within the tolerance of its\n"
    "own (relative) and an interval probability within max(tolerance, 4 (k + |log pmf(0)|)\n"
    "float32 ulps) of 0.95, the accuracy runtime/core/pbp/outputs.hpp documents for the\n"
    "float CDF summed up to k; otherwise its difference is as above.\n"
    "Prints the largest difference per output and overall (row and output), then PASS or\n"
    "FAIL. Exit code: 0 when every difference is <= the tolerance, 1 above it (or on a bad\n"
    "file), 2 on a usage error.\n"
    "Data columns are matched as 'pbp predict' does (by the model's feature names, or with\n"
    "--by-position by position, which a model without them needs); the target column may be\n"
    "present or not.\n"
    "\n"
    "  --model M.pbp     the model blob\n"
    "  --data F          CSV with a header row, or IDX images\n"
    "  --tolerance T     the largest difference that passes (default: 1e-5, 5e-3 for an int8\n"
    "                    blob, whose kernel rounds unit moments to int16; with --reference\n"
    "                    the quantisation's: 5e-3 for float16, 5e-2 for int8 weights)\n"
    "  --reference F     a quantised M against its float32 original F: the trainer side uses\n"
    "                    F's weights (M must be F quantised: 'pbp quantize F' writes M), so the\n"
    "                    differences are what quantisation changed, plus float rounding\n"
    "  --by-position     match CSV input columns by position, not by feature name\n"
    "  --json            print one JSON object: {\"rows\", \"task\", \"tolerance\",\n"
    "                    \"max_difference\", \"output\", \"row\" (0-based data row), \"line\" "
    "(CSV\n"
    "                    line, when known), \"runtime\", \"trainer\", \"pass\", \"outputs\": "
    "[{\"output\",\n"
    "                    \"max_difference\", \"row\", \"runtime\", \"trainer\"}, ...]}\n";

// "row 17 (line 19)" for CSV rows, "row 17" otherwise.
std::string row_text(const ModelRows& rows, size_t row) {
  std::string text = "row " + std::to_string(row);
  if (row < rows.lines.size()) text += " (line " + std::to_string(rows.lines[row]) + ")";
  return text;
}

std::string comparison_json(const WorstOutput& worst) {
  return JsonObject()
      .add_raw("output", json_string(worst.comparison.output))
      .add("max_difference", worst.comparison.difference)
      .add("row", static_cast<double>(worst.row))
      .add("runtime", worst.comparison.runtime)
      .add("trainer", worst.comparison.trainer)
      .str();
}

void print_json(const VerifyReport& report, const ModelRows& rows, trainer::Task task,
                double tolerance, bool pass) {
  const WorstOutput& worst = report.worst();
  JsonObject json;
  json.add("rows", static_cast<double>(report.rows))
      .add_raw("task", json_string(trainer::task_name(task)))
      .add("tolerance", tolerance)
      .add("max_difference", worst.comparison.difference)
      .add_raw("output", json_string(worst.comparison.output))
      .add("row", static_cast<double>(worst.row));
  if (worst.row < rows.lines.size()) json.add("line", static_cast<double>(rows.lines[worst.row]));
  std::vector<std::string> outputs;
  for (const WorstOutput& output : report.outputs) outputs.push_back(comparison_json(output));
  json.add("runtime", worst.comparison.runtime)
      .add("trainer", worst.comparison.trainer)
      .add_raw("pass", pass ? "true" : "false")
      .add_raw("outputs", json_array(outputs));
  std::cout << json.str() << "\n";
}

void print_text(const VerifyReport& report, const ModelRows& rows, const std::string& model,
                trainer::Task task, double tolerance, bool pass) {
  std::string text = "verified " + model + " (" + trainer::task_name(task) + ") on " +
                     rows.data.source + ": " + std::to_string(report.rows) + " rows, " +
                     std::to_string(report.outputs.size()) + " outputs per row\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-14s %-12s %-8s %-16s %s\n", "output", "largest diff", "row",
                "runtime", "trainer");
  text += line;
  for (const WorstOutput& output : report.outputs) {
    const OutputComparison& c = output.comparison;
    std::snprintf(line, sizeof line, "%-14s %-12.3g %-8zu %-16.9g %.17g\n", c.output.c_str(),
                  c.difference, output.row, c.runtime, c.trainer);
    text += line;
  }
  const WorstOutput& worst = report.worst();
  text += "largest difference " + general(worst.comparison.difference, 3) + ": " +
          worst.comparison.output + " at " + row_text(rows, worst.row) + "\n";
  text += "tolerance " + general(tolerance, 3) + ": " + (pass ? "PASS" : "FAIL") + "\n";
  std::cout << text;
}

// The float32 original of the quantised `blob` (--reference): refused unless quantising it to the
// blob's storage type gives exactly `blob` (int8: with the means rounded any way onto the same
// grid and the units rescaled, as --data does), so every difference comes from the quantisation.
trainer::Model original_of(const std::vector<uint8_t>& blob, const std::string& path,
                           const std::string& original_path) {
  const std::vector<uint8_t> original_blob = read_model_file(original_path);
  LoadedModel::open(original_blob, original_path);  // a bad blob fails as every command reports it
  trainer::Model original = trainer::read_blob(original_blob);
  const trainer::Model decoded = trainer::read_blob(blob);
  const format::Storage storage = decoded.weight_storage;
  if (original.weight_storage != format::Storage::float32) {
    throw std::runtime_error(original_path + ": --reference needs a float32 blob, this one has " +
                             storage_text(original.weight_storage) + " weights");
  }
  trainer::Model quantised = original;
  quantised.weight_storage = storage;
  quantised.layer_storage = decoded.layer_storage;  // an int8 model's float16 layers
  if (storage == format::Storage::int8) {  // the blob's own means: same bytes iff only they differ
    // and its units' power-of-two scales (int8_unit_scales.hpp), which change no prediction
    trainer::rescale_units(quantised, trainer::unit_exponents_between(original, decoded));
    for (size_t l = 0; l < quantised.layers.size() && l < decoded.layers.size(); ++l) {
      if (decoded.layers[l].mean.size() == quantised.layers[l].mean.size()) {
        quantised.layers[l].mean = decoded.layers[l].mean;
      }
    }
  }
  if (storage == format::Storage::float32 || trainer::write_blob(quantised) != blob) {
    throw std::runtime_error(path + " is not " + original_path + " quantised to " +
                             storage_text(storage) + " ('pbp quantize " + original_path +
                             " --storage " + storage_text(storage) + "' writes something else)");
  }
  return original;
}

int run(const ParsedOptions& options) {
  // A usage error before any file is read.
  if (!(options.real("tolerance", 0.0) >= 0.0)) {
    throw UsageError("--tolerance must be a non-negative number");
  }
  const std::string path = options.required_text("model");
  const std::vector<uint8_t> blob = read_model_file(path);
  const LoadedModel runtime = LoadedModel::open(blob, path);
  const std::optional<std::string> original_path = options.text("reference");
  const trainer::Model reference =
      original_path ? original_of(blob, path, *original_path) : trainer::read_blob(blob);
  const bool int8 = trainer::read_blob(blob).weight_storage == format::Storage::int8;
  const double stated = !original_path ? (int8 ? kInt8ActivationTolerance : kDefaultTolerance)
                        : int8         ? kInt8Tolerance
                                       : kFloat16Tolerance;
  const double tolerance = options.real("tolerance", stated);
  const ModelRows rows = load_model_rows(options, runtime.description(), false);
  if (rows.data.rows == 0) throw std::runtime_error(rows.data.source + ": no rows to verify");

  const VerifyReport report = verify_rows(runtime, reference, rows, tolerance);
  const bool pass = report.worst().comparison.difference <= tolerance;
  if (options.has("json")) {
    print_json(report, rows, reference.task, tolerance, pass);
  } else {
    if (original_path) {
      std::cout << "against " << *original_path << ", the float32 original of " << path
                << " (quantisation tolerance " << general(stated, 3) << ")\n";
    }
    print_text(report, rows, path, reference.task, tolerance, pass);
  }
  return pass ? 0 : 1;
}

}  // namespace

int command_verify(const Arguments& args) {
  const CommandDefinition command{
      "verify",
      kUsage,
      {{"model"}, {"data"}, {"tolerance"}, {"reference"}, {"json", false}, {"by-position", false}}};
  return run_command(command, args, run);
}

}  // namespace pbp::cli
