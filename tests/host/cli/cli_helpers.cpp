// SPDX-License-Identifier: Apache-2.0
#include "cli_helpers.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "test_paths.hpp"

namespace pbp::cli_test {
namespace {

// Appends rather than using "x" + str, which trips GCC 12's false -Wrestrict warning.
std::string shell_quote(const std::string& text) {
  std::string quoted(1, '\'');
  for (const char c : text) {
    if (c == '\'') {
      quoted.append("'\\''");
    } else {
      quoted.push_back(c);
    }
  }
  quoted.push_back('\'');
  return quoted;
}

}  // namespace

RunResult run_pbp(const std::vector<std::string>& arguments) {
  const std::filesystem::path scratch =
      std::filesystem::temp_directory_path() / ("pbp_cli_run_" + std::to_string(::getpid()));
  const std::string out_file = scratch.string() + ".out";
  const std::string err_file = scratch.string() + ".err";
  std::string command = shell_quote(pbp::test_paths::cli_command());
  for (const std::string& argument : arguments) command.append(" ").append(shell_quote(argument));
  command.append(" </dev/null >").append(shell_quote(out_file));
  command.append(" 2>").append(shell_quote(err_file));
  const int status = std::system(command.c_str());
  RunResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = read_file(out_file);
  result.err = read_file(err_file);
  std::filesystem::remove(out_file);
  std::filesystem::remove(err_file);
  return result;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string regression_csv(size_t rows, const std::string& header) {
  std::ostringstream csv;
  csv << header << "\n";
  for (size_t i = 0; i < rows; ++i) {
    const double x1 = static_cast<double>(i % 7) - 3.0;
    const double x2 = static_cast<double>((i * 5) % 11) / 4.0;
    const double y = 2.0 * x1 - x2 + 0.5 * std::sin(7.0 * static_cast<double>(i));
    csv << x1 << "," << x2 << "," << y << "\n";
  }
  return csv.str();
}

std::string idx_file(const std::vector<uint32_t>& dims, const std::vector<uint8_t>& values) {
  std::string bytes{'\0', '\0', '\x08', static_cast<char>(dims.size())};
  for (const uint32_t d : dims) {
    for (int shift = 24; shift >= 0; shift -= 8) bytes += static_cast<char>(d >> shift & 0xFF);
  }
  return bytes.append(values.begin(), values.end());
}

std::string binary_csv(size_t rows) {
  std::ostringstream csv;
  csv << "x1,x2,label\n";
  for (size_t i = 0; i < rows; ++i) {
    const double x1 = static_cast<double>(i % 5), x2 = static_cast<double>((i * 3) % 7) / 2.0;
    csv << x1 << "," << x2 << "," << (x1 + x2 > 4.0 ? 1 : 0) << "\n";
  }
  return csv.str();
}

void CliTest::SetUp() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  directory_ = std::filesystem::temp_directory_path() /
               ("pbp_cli_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(directory_);
  std::filesystem::create_directories(directory_);
}

void CliTest::TearDown() {
  std::filesystem::permissions(directory_, std::filesystem::perms::owner_all,
                               std::filesystem::perm_options::add);
  std::filesystem::remove_all(directory_);
}

size_t count_lines(const std::string& text) {
  size_t lines = 0;
  for (const char c : text) lines += c == '\n';
  return lines;
}

void expect_one_line_error(const RunResult& result, int code, const std::string& fragment) {
  EXPECT_EQ(result.exit_code, code) << result.err;
  EXPECT_EQ(count_lines(result.err), 1u) << result.err;
  EXPECT_NE(result.err.find(fragment), std::string::npos)
      << "expected '" << fragment << "' in: " << result.err;
}

}  // namespace pbp::cli_test
