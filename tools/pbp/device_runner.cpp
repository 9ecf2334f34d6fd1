// SPDX-License-Identifier: Apache-2.0
#include "device_runner.hpp"

#include <cstdio>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "pbp/trainer/atomic_file.hpp"

namespace pbp::cli {

uint32_t float_bits(float value) {
  uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

void write_runner_inputs(const std::string& path, const std::vector<std::vector<float>>& rows) {
  std::vector<uint8_t> bytes;
  for (const std::vector<float>& row : rows) {
    for (float value : row) {
      const uint32_t bits = float_bits(value);
      for (int shift = 0; shift < 32; shift += 8) bytes.push_back(uint8_t(bits >> shift));
    }
  }
  trainer::write_file_atomically(path, bytes);
}

RunnerOutput parse_runner_output(const std::string& text) {
  RunnerOutput result;
  std::vector<OutputBits>& rows = result.rows;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string word;
    size_t index = 0;
    if (line.rfind("[board ", 0) == 0) result.board = line.substr(7, line.find(']') - 7);
    if (!(words >> word) || word != "row") continue;
    if (!(words >> index) || index != rows.size()) {
      throw std::runtime_error("device output: row numbers out of order in '" + line + "'");
    }
    OutputBits outputs;
    while (words >> word) {
      const size_t equals = word.find('=');
      const std::string hex = equals == std::string::npos ? "" : word.substr(equals + 1);
      if (hex.size() != 8 || hex.find_first_not_of("0123456789abcdef") != std::string::npos) {
        throw std::runtime_error("device output: malformed value '" + word + "'");
      }
      outputs[word.substr(0, equals)] = static_cast<uint32_t>(std::stoul(hex, nullptr, 16));
    }
    rows.push_back(std::move(outputs));
  }
  return result;
}

namespace {

std::string shell_quoted(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'') {
      quoted.append("'\\''");
    } else {
      quoted.push_back(c);
    }
  }
  return quoted + "'";
}

}  // namespace

RunnerOutput run_on_device(const std::string& command, const std::string& model_path,
                           const std::string& inputs_path) {
  const std::string line =
      command + " " + shell_quoted(model_path) + " " + shell_quoted(inputs_path) + " 2>&1";
  FILE* pipe = popen(line.c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("cannot run '" + command + "'");
  std::string output;
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) output.append(buffer, n);
  const int status = pclose(pipe);
  RunnerOutput result;
  if (status == 0) result = parse_runner_output(output);
  if (status != 0 || result.rows.empty()) {
    throw std::runtime_error("'" + command + "' failed (status " + std::to_string(status) + "):\n" +
                             output);
  }
  return result;
}

}  // namespace pbp::cli
