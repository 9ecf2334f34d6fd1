// SPDX-License-Identifier: Apache-2.0
// Matching a data file's columns to a model's inputs (predict, eval, verify): by the model's
// feature names, an error naming the missing and unexpected columns when the header lacks one,
// by position only with --by-position.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "cli_helpers.hpp"

namespace pbp::cli_test {
namespace {

using InputColumns = CliTest;

constexpr int kInputs = 7;

// y = sum_k (k + 1) x_k with x_k = sin(row + k): the 7-input case of the issue.
struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;

  std::string csv(const std::vector<size_t>& columns) const {
    std::string text;
    for (size_t c = 0; c < columns.size(); ++c) text += (c ? "," : "") + header[columns[c]];
    text += "\n";
    for (const auto& row : rows) {
      for (size_t c = 0; c < columns.size(); ++c) text += (c ? "," : "") + row[columns[c]];
      text += "\n";
    }
    return text;
  }
};

Table seven_inputs(size_t count) {
  Table table;
  for (int k = 0; k < kInputs; ++k) table.header.push_back("x" + std::to_string(k + 1));
  table.header.push_back("y");
  for (size_t i = 0; i < count; ++i) {
    std::vector<std::string> row;
    double y = 0;
    for (int k = 0; k < kInputs; ++k) {
      const double x = std::sin(static_cast<double>(i) + k);
      y += (k + 1) * x;
      row.push_back(std::to_string(x));
    }
    row.push_back(std::to_string(y));
    table.rows.push_back(row);
  }
  return table;
}

class SevenInputModel : public InputColumns {
 protected:
  void SetUp() override {
    InputColumns::SetUp();
    table_ = seven_inputs(40);
    write_file(path("d.csv"), table_.csv({0, 1, 2, 3, 4, 5, 6, 7}));
    const RunResult trained = run_pbp({"train", "--data", path("d.csv"), "--out", path("m.pbp"),
                                       "--hidden", "8", "--epochs", "5", "--seed", "3"});
    ASSERT_EQ(trained.exit_code, 0) << trained.err;
  }
  RunResult run(const std::string& command, const std::string& file,
                std::vector<std::string> extra = {}) {
    std::vector<std::string> arguments{command, "--model", path("m.pbp"), "--data", path(file)};
    arguments.insert(arguments.end(), extra.begin(), extra.end());
    return run_pbp(arguments);
  }
  Table table_;
};

// One input column removed, so the target sits where an input was: every command refuses it and
// says which input is missing (positional matching used to read y as x7, exit 0).
TEST_F(SevenInputModel, MissingInputColumnIsAnErrorNamingIt) {
  write_file(path("missing.csv"), table_.csv({0, 1, 2, 4, 5, 6, 7}));  // no x4
  for (const char* command : {"predict", "eval", "verify"}) {
    const RunResult result = run(command, "missing.csv");
    EXPECT_EQ(result.exit_code, 1) << command << ": " << result.out;
    EXPECT_EQ(result.out, "") << command;
    EXPECT_NE(result.err.find(path("missing.csv") +
                              ":1:1: the header does not name the model's inputs: missing 'x4'"),
              std::string::npos)
        << command << ": " << result.err;
    EXPECT_EQ(result.err.find("unexpected"), std::string::npos) << command << ": " << result.err;
  }
}

// The columns reordered and one renamed: the error names the missing input and the column that
// is not one.
TEST_F(SevenInputModel, RenamedColumnIsNamedAsUnexpected) {
  Table renamed = table_;
  renamed.header[2] = "x3_renamed";
  write_file(path("renamed.csv"), renamed.csv({7, 6, 5, 4, 3, 2, 1, 0}));
  for (const char* command : {"predict", "eval", "verify"}) {
    const RunResult result = run(command, "renamed.csv");
    EXPECT_EQ(result.exit_code, 1) << command << ": " << result.out;
    EXPECT_NE(result.err.find("missing 'x3'; unexpected 'x3_renamed' (--by-position"),
              std::string::npos)
        << command << ": " << result.err;
  }
}

// Reordered columns with every name present: matched by name, the same predictions. With
// --by-position, a header of other names is read positionally, as asked.
TEST_F(SevenInputModel, ByNameReordersAndByPositionIgnoresTheHeader) {
  const RunResult reference = run("predict", "d.csv");
  ASSERT_EQ(reference.exit_code, 0) << reference.err;
  write_file(path("reordered.csv"), table_.csv({7, 3, 1, 0, 6, 2, 5, 4}));
  const RunResult reordered = run("predict", "reordered.csv");
  ASSERT_EQ(reordered.exit_code, 0) << reordered.err;
  EXPECT_EQ(reordered.out, reference.out);

  Table anonymous = table_;
  for (int k = 0; k < kInputs; ++k) anonymous.header[k] = "c" + std::to_string(k);
  write_file(path("anonymous.csv"), anonymous.csv({0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(run("predict", "anonymous.csv").exit_code, 1);
  const RunResult by_position = run("predict", "anonymous.csv", {"--by-position"});
  ASSERT_EQ(by_position.exit_code, 0) << by_position.err;
  EXPECT_EQ(by_position.out, reference.out);
  for (const char* command : {"eval", "verify"}) {
    EXPECT_EQ(run(command, "anonymous.csv").exit_code, 1) << command;
    const RunResult result = run(command, "anonymous.csv", {"--by-position"});
    EXPECT_EQ(result.exit_code, 0) << command << ": " << result.err;
  }
}

// --inputs-f32 writes what the runtime is given for each row, for run-on-device.sh and the
// model_runner firmware (nothing documented produced that file): the columns in model order
// whatever the CSV's order, each cell rounded to float32, little-endian.
TEST_F(SevenInputModel, InputsAsFloat32InModelOrder) {
  write_file(path("reordered.csv"), table_.csv({7, 3, 1, 0, 6, 2, 5, 4}));
  const RunResult result = run("predict", "reordered.csv", {"--inputs-f32", path("rows.f32")});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string bytes = read_file(path("rows.f32"));
  ASSERT_EQ(bytes.size(), table_.rows.size() * kInputs * 4);
  for (size_t row = 0; row < table_.rows.size(); ++row) {
    for (int k = 0; k < kInputs; ++k) {
      const size_t at = (row * kInputs + static_cast<size_t>(k)) * 4;
      uint32_t bits = 0;
      for (int b = 3; b >= 0; --b) bits = bits << 8 | static_cast<uint8_t>(bytes[at + b]);
      const float expected = static_cast<float>(std::stod(table_.rows[row][k]));
      uint32_t expected_bits = 0;
      std::memcpy(&expected_bits, &expected, 4);
      EXPECT_EQ(bits, expected_bits) << "row " << row << ", x" << k + 1;
    }
  }
  // A bad row writes neither output.
  write_file(path("bad.csv"), table_.csv({0, 1, 2, 3, 4, 5, 6, 7}) + "1,2,3\n");
  const RunResult bad = run("predict", "bad.csv", {"--inputs-f32", path("bad.f32")});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_FALSE(std::filesystem::exists(path("bad.f32")));
}

}  // namespace
}  // namespace pbp::cli_test
