// Issue 12 through the CLI: `pbp train` names the input columns it treats as constant and refuses
// one float32 cannot standardise.
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

}  // namespace
}  // namespace pbp::cli_test
