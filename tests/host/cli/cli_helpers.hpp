// SPDX-License-Identifier: Apache-2.0
// Running the pbp binary as a subprocess on files in a per-test temporary directory.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "test_paths.hpp"

namespace pbp::cli_test {

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs `pbp <arguments>` (each argument shell-quoted) with stdin from /dev/null.
RunResult run_pbp(const std::vector<std::string>& arguments);

std::string read_file(const std::filesystem::path& path);
void write_file(const std::filesystem::path& path, const std::string& text);

// A small regression set: y = 2 x1 - x2 + 0.5 sin(7 i) (deterministic), with a header.
std::string regression_csv(size_t rows, const std::string& header = "x1,x2,y");

// An IDX file (MNIST format): magic 00 00 08 <rank>, big-endian dims, then the bytes.
std::string idx_file(const std::vector<uint32_t>& dims, const std::vector<uint8_t>& values);

// A small binary classification set: label = x1 + x2 > 4 (rows alternate around the boundary).
std::string binary_csv(size_t rows);

// Each test gets a fresh directory, removed afterwards.
class CliTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;
  std::string path(const std::string& name) const { return (directory_ / name).string(); }
  std::filesystem::path directory_;
};

size_t count_lines(const std::string& text);

// The command failed with <code> and one line on stderr that contains <fragment>.
void expect_one_line_error(const RunResult& result, int code, const std::string& fragment);

// The fuzz corpus's committed blobs.
inline const std::string kCorpus = pbp::test_paths::source_dir() + "/tests/fuzz/corpus/";

}  // namespace pbp::cli_test
