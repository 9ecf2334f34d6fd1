// SPDX-License-Identifier: Apache-2.0
// The pbp command line: dispatches to one subcommand per file (cmd_<name>.cpp).
#include <cstring>
#include <iostream>
#include <string>

#include "commands.hpp"
#include "pbp/pbp_version.h"

namespace {

constexpr const char* kUsage =
    "usage: pbp <command> [options]   (pbp <command> --help for its options)\n"
    "\n"
    "Probabilistic Backpropagation: Bayesian neural networks for small devices.\n"
    "\n"
    "commands:\n"
    "  demo       train a toy model and Boston, run them on the host and a simulated device\n"
    "  train      train a model on a CSV or IDX data set and write its blob\n"
    "  predict    predictive distribution for each row (mean and std, or class probabilities)\n"
    "  eval       test metrics on labelled data (RMSE/coverage, accuracy/ECE, count MAD)\n"
    "  crossval   the paper's protocol: train and test on repeated splits\n"
    "  inspect    describe a model blob\n"
    "  export-c   write a model blob as a C source file\n"
    "  quantize   rewrite a model blob with float16 or int8 weights (4 or about 2 bytes a weight)\n"
    "  learn      learn from new labelled rows as a device does (the runtime's float update)\n"
    "  verify     check the runtime against the trainer on every row of a data file\n"
    "  active     the paper's active learning: variance-picked vs random additions\n"
    "\n"
    "  --help     show this help\n"
    "  --version  show the version\n";

struct Command {
  const char* name;
  int (*run)(const pbp::cli::Arguments&);
};

constexpr Command kCommands[] = {
    {"train", pbp::cli::command_train},     {"predict", pbp::cli::command_predict},
    {"eval", pbp::cli::command_eval},       {"crossval", pbp::cli::command_crossval},
    {"inspect", pbp::cli::command_inspect}, {"export-c", pbp::cli::command_export_c},
    {"demo", pbp::cli::command_demo},       {"verify", pbp::cli::command_verify},
    {"active", pbp::cli::command_active},   {"quantize", pbp::cli::command_quantize},
    {"learn", pbp::cli::command_learn},
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "pbp: missing command (see 'pbp --help')\n";
    return 2;
  }
  const std::string first = argv[1];
  if (first == "--help" || first == "-h" || first == "help") {
    std::cout << kUsage;
    return 0;
  }
  if (first == "--version") {
    std::cout << "pbp " << PBP_VERSION_STRING << "\n";
    return 0;
  }
  for (const Command& command : kCommands) {
    if (first == command.name) return command.run(pbp::cli::Arguments(argv + 2, argv + argc));
  }
  if (first.rfind("-", 0) == 0) {
    std::cerr << "pbp: unknown option '" << first << "' (see 'pbp --help')\n";
  } else {
    std::cerr << "pbp: unknown command '" << first << "' (see 'pbp --help')\n";
  }
  return 2;
}
