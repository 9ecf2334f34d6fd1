// SPDX-License-Identifier: Apache-2.0
// Issue 12 through the CLI: `pbp train` names the input columns it treats as constant, refuses one
// float32 cannot standardise, and `pbp predict` reports rows outside the training ranges.
#include <sstream>

#include "cli_helpers.hpp"

namespace pbp::cli_test {
namespace {

class Ranges : public CliTest {};

// regression_csv's x1, x2 and y with a column "p" between them: p_at(row index).
template <class Column>
std::string with_column(size_t rows, Column p_at) {
  std::istringstream lines(regression_csv(rows));
  std::string line, out = "x1,x2,p,y\n";
  std::getline(lines, line);
  for (size_t i = 0; std::getline(lines, line); ++i) {
    const size_t last = line.rfind(',');
    out += line.substr(0, last) + "," + p_at(i) + line.substr(last) + "\n";
  }
  return out;
}

TEST_F(Ranges, TrainNamesConstantColumnsAndRefusesUnresolvableOnes) {
  write_file(path("c.csv"), with_column(40, [](size_t) { return std::string("0.998"); }));
  const RunResult constant = run_pbp(
      {"train", "--data", path("c.csv"), "--out", path("c.pbp"), "--hidden", "8", "--epochs", "3"});
  ASSERT_EQ(constant.exit_code, 0) << constant.err;
  EXPECT_NE(constant.err.find("input 'p' (column 3) is constant on the training rows (0.998)"),
            std::string::npos)
      << constant.err;
  EXPECT_EQ(constant.err.find("'x1'"), std::string::npos) << constant.err;

  write_file(path("u.csv"), with_column(40, [](size_t i) {
               return std::to_string(1000000000000 + static_cast<long long>(i % 3));
             }));
  const RunResult refused = run_pbp(
      {"train", "--data", path("u.csv"), "--out", path("u.pbp"), "--hidden", "8", "--epochs", "3"});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("'p' (column 3) varies too little for float32"), std::string::npos)
      << refused.err;
  EXPECT_FALSE(std::filesystem::exists(path("u.pbp")));
}

TEST_F(Ranges, PredictReportsRowsOutsideTheTrainingRanges) {
  write_file(path("d.csv"), regression_csv(40));
  ASSERT_EQ(run_pbp({"train", "--data", path("d.csv"), "--out", path("m.pbp"), "--hidden", "8",
                     "--epochs", "3"})
                .exit_code,
            0);
  // Row 1 inside; row 2 with x2 far above every training x2; row 3 with x1 far below.
  std::istringstream training(regression_csv(40));
  std::string header, first;
  std::getline(training, header);
  std::getline(training, first);
  write_file(path("q.csv"), "x1,x2\n" + first.substr(0, first.rfind(',')) + "\n0,1000\n-1000,0\n");
  const RunResult predicted =
      run_pbp({"predict", "--model", path("m.pbp"), "--data", path("q.csv")});
  ASSERT_EQ(predicted.exit_code, 0) << predicted.err;
  std::istringstream rows(predicted.out);
  std::string line;
  std::vector<std::string> lines;
  while (std::getline(rows, line)) lines.push_back(line);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], "mean,std,epistemic_std,aleatoric_std,range,range_distance,range_input");
  EXPECT_NE(lines[1].find(",inside,0,"), std::string::npos) << lines[1];
  EXPECT_NE(lines[2].find(",outside,"), std::string::npos) << lines[2];
  EXPECT_EQ(lines[2].substr(lines[2].rfind(',') + 1), "x2");
  EXPECT_EQ(lines[3].substr(lines[3].rfind(',') + 1), "x1");
}

}  // namespace
}  // namespace pbp::cli_test
