// SPDX-License-Identifier: Apache-2.0
// train -> predict / eval / crossval on a small generated data set, through the built binary.
#include <sstream>

#include "cli_helpers.hpp"
#include "pbp/pbp.h"

namespace pbp::cli_test {
namespace {

using EndToEnd = CliTest;

const std::vector<std::string> kQuickTraining{"--hidden", "8", "--epochs", "5", "--seed", "3"};

RunResult train(const std::string& data, const std::string& out,
                std::vector<std::string> extra = kQuickTraining) {
  std::vector<std::string> arguments{"train", "--data", data, "--out", out};
  arguments.insert(arguments.end(), extra.begin(), extra.end());
  return run_pbp(arguments);
}

void expect_keys(const std::string& json, const std::vector<std::string>& keys) {
  EXPECT_EQ(json.front(), '{') << json;
  for (const std::string& key : keys) {
    EXPECT_NE(json.find("\"" + key + "\": "), std::string::npos) << key << " missing: " << json;
  }
  EXPECT_EQ(json.find("null"), std::string::npos) << json;
}

TEST_F(EndToEnd, TrainPrintsSummaryAndIsDeterministic) {
  write_file(path("d.csv"), regression_csv(60));
  const RunResult first = train(path("d.csv"), path("a.pbp"));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  // No bar off a terminal; at most plain progress lines, should training take over 5 s here.
  for (size_t at = 0; at < first.err.size();) {
    EXPECT_EQ(first.err.compare(at, 11, "pbp train: "), 0) << first.err;
    const size_t end = first.err.find('\n', at);
    at = end == std::string::npos ? first.err.size() : end + 1;
  }
  EXPECT_NE(first.out.find("60 rows, 2 inputs"), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("2 -> 8 -> 1"), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("noise std"), std::string::npos) << first.out;
  ASSERT_EQ(train(path("d.csv"), path("b.pbp")).exit_code, 0);
  const std::string model = read_file(path("a.pbp"));
  EXPECT_FALSE(model.empty());
  EXPECT_EQ(model, read_file(path("b.pbp")));
  ASSERT_EQ(train(path("d.csv"), path("c.pbp"), {"--hidden", "8", "--epochs", "5", "--seed", "4"})
                .exit_code,
            0);
  EXPECT_NE(model, read_file(path("c.pbp")));
}

TEST_F(EndToEnd, QuotedHeadersCrlfAndTargetByName) {
  // The target first, named with a comma; CRLF line endings; quoted numbers.
  std::string csv = "\"price, k$\",\"size\"\"\",age\r\n";
  for (int i = 0; i < 30; ++i) {
    csv += std::to_string(3 * i + i % 4) + ",\"" + std::to_string(i) + "\"," +
           std::to_string(i % 5) + "\r\n";
  }
  write_file(path("q.csv"), csv);
  const RunResult trained =
      train(path("q.csv"), path("m.pbp"), {"--target", "price, k$", "--epochs", "3"});
  ASSERT_EQ(trained.exit_code, 0) << trained.err;
  EXPECT_NE(trained.out.find("30 rows, 2 inputs, target price, k$"), std::string::npos)
      << trained.out;
  const RunResult by_index =
      train(path("q.csv"), path("i.pbp"), {"--target", "0", "--epochs", "3"});
  ASSERT_EQ(by_index.exit_code, 0) << by_index.err;
  EXPECT_EQ(read_file(path("m.pbp")), read_file(path("i.pbp")));
  // eval finds the target by the model's target name, wherever the column is.
  const RunResult json =
      run_pbp({"eval", "--model", path("m.pbp"), "--data", path("q.csv"), "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  expect_keys(json.out, {"rmse", "loglik", "coverage50", "coverage90", "coverage95"});
}

TEST_F(EndToEnd, FailedModelWriteKeepsPreviousModel) {
  write_file(path("d.csv"), regression_csv(30));
  ASSERT_EQ(train(path("d.csv"), path("m.pbp")).exit_code, 0);
  const std::string previous = read_file(path("m.pbp"));
  std::filesystem::create_directory(path("dir.pbp"));
  const RunResult into_directory = train(path("d.csv"), path("dir.pbp"));
  EXPECT_EQ(into_directory.exit_code, 1);
  EXPECT_NE(into_directory.err.find(path("dir.pbp") + ": cannot write: is a directory"),
            std::string::npos)
      << into_directory.err;
  const RunResult missing_directory = train(path("d.csv"), path("no/such/m.pbp"));
  EXPECT_EQ(missing_directory.exit_code, 1);
  EXPECT_NE(missing_directory.err.find(path("no/such/m.pbp")), std::string::npos);
  if (::geteuid() != 0) {  // root ignores permissions
    std::filesystem::permissions(
        directory_, std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
    EXPECT_EQ(train(path("d.csv"), path("m.pbp"), {"--epochs", "1", "--seed", "9"}).exit_code, 1);
    std::filesystem::permissions(directory_, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::add);
  }
  EXPECT_EQ(read_file(path("m.pbp")), previous);
}

TEST_F(EndToEnd, EvalReportsMetricsAsTextAndJson) {
  write_file(path("d.csv"), regression_csv(80));
  ASSERT_EQ(train(path("d.csv"), path("m.pbp"), {"--hidden", "10", "--epochs", "20"}).exit_code, 0);
  const RunResult json =
      run_pbp({"eval", "--model", path("m.pbp"), "--data", path("d.csv"), "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  expect_keys(json.out, {"rmse", "loglik", "coverage50", "coverage90", "coverage95"});
  EXPECT_EQ(count_lines(json.out), 1u);
  const double rmse = std::stod(json.out.substr(json.out.find("\"rmse\": ") + 8));
  EXPECT_LT(rmse, 2.0);  // the target's std is about 4.4: the network learned something
  const RunResult text = run_pbp({"eval", "--model", path("m.pbp"), "--data", path("d.csv")});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("coverage95"), std::string::npos);
}

TEST_F(EndToEnd, PredictMatchesColumnsByNameOrPosition) {
  write_file(path("d.csv"), regression_csv(40));
  ASSERT_EQ(train(path("d.csv"), path("m.pbp")).exit_code, 0);
  const RunResult with_target =
      run_pbp({"predict", "--model", path("m.pbp"), "--data", path("d.csv")});
  ASSERT_EQ(with_target.exit_code, 0) << with_target.err;
  EXPECT_EQ(with_target.out.substr(0, with_target.out.find('\n')),
            "mean,std,epistemic_std,aleatoric_std,range,range_distance,range_input");
  EXPECT_EQ(count_lines(with_target.out), 41u);

  // Same inputs, reordered columns: by name; other names: by position when asked for.
  std::string reordered = "y,x2,x1\n";
  std::string positional = "first,second\n";
  std::istringstream rows(regression_csv(40));
  std::string line;
  std::getline(rows, line);
  while (std::getline(rows, line)) {
    const size_t a = line.find(','), b = line.rfind(',');
    const std::string x1 = line.substr(0, a), x2 = line.substr(a + 1, b - a - 1);
    reordered += line.substr(b + 1) + "," + x2 + "," + x1 + "\n";
    positional += x1 + "," + x2 + "\n";
  }
  write_file(path("reordered.csv"), reordered);
  write_file(path("positional.csv"), positional);
  for (const char* file : {"reordered.csv", "positional.csv"}) {
    const bool positional = std::string(file) == "positional.csv";
    std::vector<std::string> arguments{"predict", "--model", path("m.pbp"), "--data", path(file)};
    if (positional) arguments.push_back("--by-position");
    const RunResult result = run_pbp(arguments);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(result.out, with_target.out) << file;
  }
  ASSERT_EQ(run_pbp({"predict", "--model", path("m.pbp"), "--data", path("d.csv"), "--out",
                     path("p.csv")})
                .exit_code,
            0);
  EXPECT_EQ(read_file(path("p.csv")), with_target.out);

  write_file(path("narrow.csv"), "only\n1\n");
  const RunResult narrow =
      run_pbp({"predict", "--model", path("m.pbp"), "--data", path("narrow.csv")});
  EXPECT_EQ(narrow.exit_code, 1);
  EXPECT_NE(narrow.err.find(path("narrow.csv") +
                            ":1:1: the header does not name the model's inputs: missing 'x1', "
                            "'x2'; unexpected 'only'"),
            std::string::npos)
      << narrow.err;
  const RunResult narrow_by_position =
      run_pbp({"predict", "--model", path("m.pbp"), "--data", path("narrow.csv"), "--by-position"});
  EXPECT_EQ(narrow_by_position.exit_code, 1);
  EXPECT_NE(
      narrow_by_position.err.find(path("narrow.csv") + ":1:1: the model has 2 inputs (x1,x2)"),
      std::string::npos)
      << narrow_by_position.err;
}

TEST_F(EndToEnd, CorruptBlobFailsWithTheRuntimeStatus) {
  write_file(path("d.csv"), regression_csv(20));
  ASSERT_EQ(train(path("d.csv"), path("m.pbp")).exit_code, 0);
  std::string blob = read_file(path("m.pbp"));
  blob[blob.size() / 2] ^= 0x40;
  write_file(path("m.pbp"), blob);
  for (const char* command : {"eval", "predict"}) {
    const RunResult result = run_pbp({command, "--model", path("m.pbp"), "--data", path("d.csv")});
    EXPECT_EQ(result.exit_code, 1) << command;
    EXPECT_EQ(result.err, std::string("pbp ") + command + ": error: " + path("m.pbp") +
                              ": invalid model blob: " + pbp_status_string(PBP_ERR_CRC_MISMATCH) +
                              " (PBP_ERR_CRC_MISMATCH)\n");
    EXPECT_EQ(result.out, "");
  }
}

TEST_F(EndToEnd, CrossvalRandomAndFileSplits) {
  write_file(path("d.csv"), regression_csv(40));
  const std::vector<std::string> base{
      "crossval", "--data",   path("d.csv"), "--splits", "3", "--test-fraction", "0.25", "--hidden",
      "6",        "--epochs", "4",           "--seed",   "5", "--json"};
  std::vector<std::string> serial = base, parallel = base;
  serial.insert(serial.end(), {"--jobs", "1"});
  parallel.insert(parallel.end(), {"--jobs", "2"});
  const RunResult one = run_pbp(serial);
  const RunResult two = run_pbp(parallel);
  ASSERT_EQ(one.exit_code, 0) << one.err;
  ASSERT_EQ(two.exit_code, 0) << two.err;
  expect_keys(one.out, {"rmse_mean", "rmse_se", "loglik_mean", "loglik_se", "coverage50_mean",
                        "coverage90_mean", "coverage95_mean", "train_seconds_mean",
                        "train_cpu_seconds_mean", "splits", "rmse", "loglik", "coverage50",
                        "coverage90", "coverage95", "train_seconds", "train_cpu_seconds"});
  // Everything but the timings is identical whatever the thread count.
  const auto rmse_part = [](const std::string& json) {
    return json.substr(0, json.find("\"coverage95_mean\""));
  };
  EXPECT_EQ(rmse_part(one.out), rmse_part(two.out));

  std::filesystem::create_directory(path("splits"));
  for (int s = 0; s < 2; ++s) {
    std::string train_rows, test_rows;
    for (int row = 0; row < 40; ++row) {
      (row % 2 == s ? test_rows : train_rows) += std::to_string(row) + "\n";
    }
    write_file(path("splits/index_train_" + std::to_string(s) + ".txt"), train_rows);
    write_file(path("splits/index_test_" + std::to_string(s) + ".txt"), test_rows);
  }
  const RunResult files = run_pbp({"crossval", "--data", path("d.csv"), "--split-files",
                                   path("splits"), "--hidden", "6", "--epochs", "4"});
  ASSERT_EQ(files.exit_code, 0) << files.err;
  EXPECT_NE(files.out.find("(2 splits)"), std::string::npos) << files.out;
}

// crossval's per-split figures are exactly what train + eval give on that split's rows.
TEST_F(EndToEnd, CrossvalMatchesTrainThenEval) {
  std::istringstream rows(regression_csv(30));
  std::string header, line, train_csv, test_csv, train_index, test_index;
  std::getline(rows, header);
  train_csv = test_csv = header + "\n";
  for (int row = 0; std::getline(rows, line); ++row) {
    const bool test = row % 3 == 1;
    (test ? test_csv : train_csv) += line + "\n";
    (test ? test_index : train_index) += std::to_string(row) + "\n";
  }
  write_file(path("d.csv"), regression_csv(30));
  write_file(path("train.csv"), train_csv);
  write_file(path("test.csv"), test_csv);
  std::filesystem::create_directory(path("splits"));
  write_file(path("splits/index_train_0.txt"), train_index);
  write_file(path("splits/index_test_0.txt"), test_index);

  const RunResult crossval = run_pbp({"crossval", "--data", path("d.csv"), "--split-files",
                                      path("splits"), "--hidden", "5", "--epochs", "6", "--json"});
  ASSERT_EQ(crossval.exit_code, 0) << crossval.err;
  ASSERT_EQ(train(path("train.csv"), path("m.pbp"), {"--hidden", "5", "--epochs", "6"}).exit_code,
            0);
  const RunResult eval =
      run_pbp({"eval", "--model", path("m.pbp"), "--data", path("test.csv"), "--json"});
  ASSERT_EQ(eval.exit_code, 0) << eval.err;
  const auto field = [](const std::string& json, const std::string& key) {
    const size_t start = json.find("\"" + key + "\": ") + key.size() + 4;
    return json.substr(start, json.find_first_of(",}", start) - start);
  };
  const std::string split = crossval.out.substr(crossval.out.find("\"splits\""));
  EXPECT_EQ(field(split, "rmse"), field(eval.out, "rmse"));
  EXPECT_EQ(field(split, "loglik"), field(eval.out, "loglik"));
  EXPECT_EQ(field(split, "coverage95"), field(eval.out, "coverage95"));
}

}  // namespace
}  // namespace pbp::cli_test
