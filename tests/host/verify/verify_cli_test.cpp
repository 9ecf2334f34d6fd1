// SPDX-License-Identifier: Apache-2.0
// `pbp verify` through the built binary: trained models of every task pass, with or without the
// target column; a tolerance no float computation meets fails with exit code 1 and names the
// output; usage errors exit with 2.
#include <cmath>
#include <sstream>

#include "cli_helpers.hpp"

namespace pbp::cli_test {
namespace {

using VerifyCommand = CliTest;

// Three classes by which third of [0, 3) x1 + x2 / 4 falls in.
std::string multiclass_csv(size_t rows) {
  std::ostringstream csv;
  csv << "x1,x2,label\n";
  for (size_t i = 0; i < rows; ++i) {
    const double x1 = static_cast<double>(i % 6) / 2.0, x2 = static_cast<double>((i * 7) % 5);
    csv << x1 << "," << x2 << "," << static_cast<int>(x1 + x2 / 4.0) % 3 << "\n";
  }
  return csv.str();
}

// Counts growing with x1: round(e^(1 + x1 / 2) + (i mod 3)).
std::string count_csv(size_t rows) {
  std::ostringstream csv;
  csv << "x1,x2,events\n";
  for (size_t i = 0; i < rows; ++i) {
    const double x1 = static_cast<double>(i % 9) - 4.0, x2 = static_cast<double>(i % 4);
    csv << x1 << "," << x2 << "," << std::lround(std::exp(1.0 + x1 / 2.0) + (i % 3)) << "\n";
  }
  return csv.str();
}

void train(const std::string& data, const std::string& out, const std::string& task) {
  const RunResult trained = run_pbp({"train", "--data", data, "--out", out, "--task", task,
                                     "--hidden", "8", "--epochs", "5", "--seed", "2"});
  ASSERT_EQ(trained.exit_code, 0) << trained.err;
}

TEST_F(VerifyCommand, EveryTaskPasses) {
  const struct {
    const char* task;
    std::string csv;
    std::vector<std::string> outputs;
  } cases[] = {{"regression",
                regression_csv(80),
                {"mean", "std", "epistemic_std", "aleatoric_std", "lower", "upper"}},
               {"binary", binary_csv(80), {"p0", "p1", "entropy"}},
               {"multiclass", multiclass_csv(80), {"p0", "p1", "p2", "entropy"}},
               {"count", count_csv(80), {"mean", "variance", "mode", "lower", "upper"}}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.task);
    const std::string data = path(std::string(c.task) + ".csv");
    const std::string model = path(std::string(c.task) + ".pbp");
    write_file(data, c.csv);
    train(data, model, c.task);
    const RunResult text = run_pbp({"verify", "--model", model, "--data", data});
    EXPECT_EQ(text.exit_code, 0) << text.out << text.err;
    EXPECT_NE(text.out.find(": 80 rows, " + std::to_string(c.outputs.size()) + " outputs per row"),
              std::string::npos)
        << text.out;
    for (const std::string& output : c.outputs) {
      EXPECT_NE(text.out.find("\n" + output + " "), std::string::npos) << output << text.out;
    }
    EXPECT_NE(text.out.find("tolerance 1e-05: PASS\n"), std::string::npos) << text.out;
    const RunResult json = run_pbp({"verify", "--model", model, "--data", data, "--json"});
    EXPECT_EQ(json.exit_code, 0) << json.err;
    EXPECT_NE(json.out.find("\"rows\": 80, \"task\": \"" + std::string(c.task) + "\""),
              std::string::npos)
        << json.out;
    EXPECT_NE(json.out.find("\"pass\": true"), std::string::npos) << json.out;
  }
}

TEST_F(VerifyCommand, TargetColumnMayBeAbsent) {
  write_file(path("d.csv"), regression_csv(40));
  train(path("d.csv"), path("m.pbp"), "regression");
  std::istringstream full(regression_csv(40));
  std::string inputs_only, line;
  while (std::getline(full, line)) inputs_only += line.substr(0, line.rfind(',')) + "\n";
  write_file(path("x.csv"), inputs_only);
  const RunResult with_target =
      run_pbp({"verify", "--model", path("m.pbp"), "--data", path("d.csv"), "--json"});
  const RunResult without =
      run_pbp({"verify", "--model", path("m.pbp"), "--data", path("x.csv"), "--json"});
  EXPECT_EQ(with_target.exit_code, 0) << with_target.err;
  EXPECT_EQ(without.exit_code, 0) << without.err;
  EXPECT_EQ(with_target.out, without.out);  // the same inputs, so the same comparison
}

TEST_F(VerifyCommand, FailsAboveTheToleranceAndNamesTheOutput) {
  write_file(path("d.csv"), regression_csv(40));
  train(path("d.csv"), path("m.pbp"), "regression");
  const RunResult text = run_pbp(
      {"verify", "--model", path("m.pbp"), "--data", path("d.csv"), "--tolerance", "1e-12"});
  EXPECT_EQ(text.exit_code, 1) << text.err;
  EXPECT_NE(text.out.find("tolerance 1e-12: FAIL\n"), std::string::npos) << text.out;
  const size_t named = text.out.find("largest difference ");
  ASSERT_NE(named, std::string::npos) << text.out;
  EXPECT_NE(text.out.find(" at row ", named), std::string::npos) << text.out;
  const RunResult json = run_pbp({"verify", "--model", path("m.pbp"), "--data", path("d.csv"),
                                  "--tolerance", "1e-12", "--json"});
  EXPECT_EQ(json.exit_code, 1);
  EXPECT_NE(json.out.find("\"pass\": false"), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("\"line\": "), std::string::npos) << json.out;
}

TEST_F(VerifyCommand, Errors) {
  write_file(path("d.csv"), regression_csv(10));
  write_file(path("bad.pbp"), "PBPM not really a model");
  const auto expect_error = [](const RunResult& result, int code, const std::string& fragment) {
    EXPECT_EQ(result.exit_code, code) << result.err;
    EXPECT_EQ(count_lines(result.err), 1u) << result.err;
    EXPECT_NE(result.err.find(fragment), std::string::npos) << result.err;
  };
  expect_error(run_pbp({"verify", "--data", path("d.csv")}), 2,
               "pbp verify: missing required option --model");
  expect_error(run_pbp({"verify", "--model", path("bad.pbp"), "--data", path("d.csv"),
                        "--tolerance", "small"}),
               2, "--tolerance expects a number");
  expect_error(
      run_pbp({"verify", "--model", path("bad.pbp"), "--data", path("d.csv"), "--tolerance", "-1"}),
      2, "--tolerance must be a non-negative number");
  expect_error(run_pbp({"verify", "--model", path("bad.pbp"), "--data", path("d.csv")}), 1,
               "invalid model blob");
}

}  // namespace
}  // namespace pbp::cli_test
