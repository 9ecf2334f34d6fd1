// SPDX-License-Identifier: Apache-2.0
// The command line's usage and input errors: exit codes and one-line messages naming the spot.
#include <functional>

#include "cli_helpers.hpp"
#include "test_paths.hpp"

namespace pbp::cli_test {
namespace {

using Errors = CliTest;

// Expects exit code `code` and exactly one line on stderr containing `fragment`.
TEST_F(Errors, HelpAndVersion) {
  const RunResult help = run_pbp({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("usage: pbp <command>"), std::string::npos);
  const RunResult version = run_pbp({"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out.rfind("pbp ", 0), 0u);
  for (const char* command : {"train", "predict", "eval", "crossval"}) {
    const RunResult result = run_pbp({command, "--help"});
    EXPECT_EQ(result.exit_code, 0) << command;
    EXPECT_NE(result.out.find(std::string("usage: pbp ") + command), std::string::npos);
  }
}

TEST_F(Errors, UnknownCommandOrOption) {
  expect_one_line_error(run_pbp({"frobnicate"}), 2,
                        "unknown command 'frobnicate' (see 'pbp --help')");
  expect_one_line_error(run_pbp({"--frobnicate"}), 2, "unknown option '--frobnicate'");
  expect_one_line_error(run_pbp({}), 2, "missing command");
  expect_one_line_error(run_pbp({"train", "--data", "x.csv", "--out", "m", "--bogus", "1"}), 2,
                        "pbp train: unknown option '--bogus' (see 'pbp train --help')");
  expect_one_line_error(run_pbp({"eval", "stray"}), 2, "unexpected argument 'stray'");
  expect_one_line_error(run_pbp({"train", "--data"}), 2, "--data needs a value");
  expect_one_line_error(run_pbp({"train", "--out", "m"}), 2, "missing required option --data");
  expect_one_line_error(run_pbp({"train", "--data", "x", "--out", "m", "--epochs", "ten"}), 2,
                        "--epochs");
  for (const char* threads : {"0", "3"}) {
    expect_one_line_error(run_pbp({"train", "--data", "x", "--out", "m", "--threads", threads}), 2,
                          "--threads must be 1 or 2");
  }
  expect_one_line_error(run_pbp({"train", "--data", "x", "--out", "m", "--hidden", "50,,2"}), 2,
                        "--hidden");
  expect_one_line_error(run_pbp({"crossval", "--data", "x"}), 2, "--splits");
  expect_one_line_error(run_pbp({"crossval", "--data", "x", "--splits", "2", "--jobs", "0"}), 2,
                        "--jobs");
}

// A network the runtime cannot hold is refused by the host library's check before the data is
// read (the missing file "x" is never opened), let alone trained on: 16 hidden layers used to
// train, then fail in write_blob. Python's fit gives the same words (tests/python/test_errors.py).
TEST_F(Errors, NetworksTheRuntimeCannotHoldAreRefusedBeforeTraining) {
  const std::string sixteen = "5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5";
  for (const char* command : {"train", "crossval", "active"}) {
    std::vector<std::string> args{command, "--hidden", sixteen};
    for (const char* option : {"--data", "--pool"}) {
      if ((std::string(option) == "--pool") == (std::string(command) == "active")) {
        args.insert(args.end(), {option, "x"});
      }
    }
    if (std::string(command) == "train") args.insert(args.end(), {"--out", "m"});
    if (std::string(command) == "crossval") args.insert(args.end(), {"--splits", "2"});
    expect_one_line_error(run_pbp(args), 2,
                          "pbp " + std::string(command) +
                              ": hidden has 16 layers: the runtime takes at most 15 (see 'pbp " +
                              command + " --help')");
  }
  expect_one_line_error(run_pbp({"train", "--data", "x", "--out", "m", "--hidden", "50,70000"}), 2,
                        "pbp train: hidden layer widths must be in 1..65535, got 70000");
  expect_one_line_error(
      run_pbp({"train", "--data", "x", "--out", "m", "--hidden", "5,5,5,5,5,5,5,5,5,5,5,5,5,5,5"}),
      1, "x");  // 15 hidden layers pass the check: the missing file is what fails
}

// A count option's message gives its range whatever is wrong with the value: `--epochs -3` used
// to say "expects a non-negative integer", though 0 is refused too.
TEST_F(Errors, CountOptionsStateTheirRange) {
  for (const char* epochs : {"-3", "0", "ten", "1000001"}) {
    expect_one_line_error(
        run_pbp({"train", "--data", "x", "--out", "m", "--epochs", epochs}), 2,
        "pbp train: --epochs must be between 1 and 1000000, got '" + std::string(epochs) + "'");
  }
  expect_one_line_error(run_pbp({"train", "--data", "x", "--out", "m", "--threads", "-1"}), 2,
                        "--threads must be 1 or 2, got '-1'");
  expect_one_line_error(run_pbp({"crossval", "--data", "x", "--splits", "-2"}), 2,
                        "--splits must be between 1 and 10000, got '-2'");
  expect_one_line_error(run_pbp({"active", "--pool", "x", "--repeats", "-1"}), 2,
                        "--repeats must be between 1 and");
}

TEST_F(Errors, MissingFile) {
  const std::string missing = path("absent.csv");
  expect_one_line_error(run_pbp({"train", "--data", missing, "--out", path("m.pbp")}), 1,
                        missing + ": cannot open file");
  EXPECT_FALSE(std::filesystem::exists(path("m.pbp")));
}

// Trains on `csv` and checks that the error names `location` ("file:line:column").
void expect_bad_training_data(const std::string& file, const std::string& csv,
                              const std::string& location, const std::string& message = "",
                              const std::vector<std::string>& extra = {}) {
  write_file(file, csv);
  std::vector<std::string> arguments{"train", "--data", file, "--out", file + ".pbp"};
  arguments.insert(arguments.end(), extra.begin(), extra.end());
  const RunResult result = run_pbp(arguments);
  expect_one_line_error(result, 1, "pbp train: error: " + file + ":" + location + ": " + message);
  EXPECT_FALSE(std::filesystem::exists(file + ".pbp"));
}

TEST_F(Errors, BadCsvCellsNameFileLineAndColumn) {
  expect_bad_training_data(path("ragged.csv"), "a,b,c\n1,2,3\n4,5\n6,7,8\n", "3:3",
                           "expected 3 fields");
  expect_bad_training_data(path("text.csv"), "a,b,c\n1,2,3\n4,five,6\n", "3:2",
                           "not a finite number: 'five' (column 'b')");
  expect_bad_training_data(path("nan.csv"), "a,b\n1,2\r\n3,NaN\r\n", "3:2", "not a finite number");
  expect_bad_training_data(path("inf.csv"), "a,b\n1,2\n-inf,4\n5,6\n", "3:1", "not a finite");
  expect_bad_training_data(path("empty.csv"), "", "1:1", "empty file");
  expect_bad_training_data(path("one.csv"), "a,b\n1,2\n", "2:1", "need at least 2 data rows");
  expect_bad_training_data(path("target.csv"), "a,b\n1,2\n3,4\n", "1:1", "no target column 'price'",
                           {"--target", "price"});
  expect_bad_training_data(path("quote.csv"), "a,b\n1,2\n3,\"4\n", "3:2", "unterminated");
}

TEST_F(Errors, PredictAndEvalReportBadData) {
  const std::string model = path("absent.pbp");
  expect_one_line_error(run_pbp({"predict", "--model", model, "--data", path("x.csv")}), 1, model);
  write_file(path("garbage.pbp"), "this is not a model blob at all, just some text....");
  write_file(path("d.csv"), "a,b\n1,2\n");
  const RunResult garbage =
      run_pbp({"eval", "--model", path("garbage.pbp"), "--data", path("d.csv")});
  expect_one_line_error(garbage, 1, path("garbage.pbp") + ": invalid model blob: ");
}

// inspect and export-c read a model as predict and eval do, and say so in the same words (they
// printed "pbp inspect: m.pbp: invalid blob: PBP_ERR_... (...)" and "...: cannot open").
TEST_F(Errors, EveryCommandReportsABadModelTheSameWay) {
  const std::string truncated = pbp::test_paths::source_dir() + "/tests/fuzz/corpus/truncated.pbp";
  const std::string absent = path("absent.pbp");
  const std::string data = path("d.csv");
  write_file(data, "a,b\n1,2\n");
  using Arguments = std::vector<std::string>;
  const std::vector<std::pair<std::string, std::function<Arguments(const std::string&)>>> commands{
      {"predict",
       [&](const std::string& m) {
         return Arguments{"--model", m, "--data", data};
       }},
      {"eval",
       [&](const std::string& m) {
         return Arguments{"--model", m, "--data", data};
       }},
      {"inspect", [](const std::string& m) { return Arguments{m}; }},
      {"export-c",
       [&](const std::string& m) {
         return Arguments{m, "--name", "m", "--out-dir", path("out")};
       }},
  };
  const std::vector<std::pair<std::string, std::string>> models{
      {truncated,
       ": invalid model blob: blob size differs from the size in its header (truncated?) "
       "(PBP_ERR_SIZE_MISMATCH)"},
      {absent, ": cannot open model: No such file or directory"}};
  for (const auto& [command, arguments_for] : commands) {
    for (const auto& [model, message] : models) {
      Arguments arguments{command};
      for (const std::string& argument : arguments_for(model)) arguments.push_back(argument);
      expect_one_line_error(run_pbp(arguments), 1,
                            "pbp " + command + ": error: " + model + message);
    }
  }
  EXPECT_FALSE(std::filesystem::exists(path("out")));
}

TEST_F(Errors, SplitFilesErrors) {
  write_file(path("d.csv"), regression_csv(10));
  std::filesystem::create_directory(path("splits"));
  write_file(path("splits/index_train_0.txt"), "0\n1\n2\n3\n4\n5\n6\n");
  write_file(path("splits/index_test_0.txt"), "7\n8\n99\n");
  expect_one_line_error(
      run_pbp({"crossval", "--data", path("d.csv"), "--split-files", path("splits")}), 1,
      path("splits/index_test_0.txt") + ":3:1: row index 99 is out of range");
  expect_one_line_error(
      run_pbp({"crossval", "--data", path("d.csv"), "--split-files", path("nowhere")}), 1,
      path("nowhere"));
}

// A check that only one split's training rows fail names that split: split 1 trains on the
// column's two extremes (std 2.4e19), the whole column passes (6.5e18).
TEST_F(Errors, CrossvalNamesTheSplitThatFailed) {
  std::string csv = "a,b,y\n1,2,3e19\n2,3,-3e19\n";
  for (int i = 0; i < 40; ++i) csv += std::to_string(i % 7) + "," + std::to_string(i % 5) + ",0\n";
  write_file(path("d.csv"), csv);
  std::filesystem::create_directory(path("splits"));
  std::string rows;
  for (int i = 2; i < 30; ++i) rows += std::to_string(i) + "\n";
  write_file(path("splits/index_train_0.txt"), rows);
  write_file(path("splits/index_test_0.txt"), "30\n31\n");
  write_file(path("splits/index_train_1.txt"), "0\n1\n2\n");
  write_file(path("splits/index_test_1.txt"), "30\n31\n");
  expect_one_line_error(
      run_pbp({"crossval", "--data", path("d.csv"), "--split-files", path("splits"), "--recipe",
               "paper", "--hidden", "5", "--epochs", "2"}),
      1, "pbp crossval: error: split 1: target column 'y' has std 2.44949e+19");
}

}  // namespace
}  // namespace pbp::cli_test
