// SPDX-License-Identifier: Apache-2.0
// Running a model blob on a (simulated) device for `pbp demo`: the model_runner firmware example
// (targets/examples/model_runner) reads a blob and float32 input rows and prints the bits of
// every output; this side writes its inputs, runs the command that starts it and reads the bits.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace pbp::cli {

// One row's outputs by name ("mean", "std", ...), as the float bit patterns the device printed.
using OutputBits = std::map<std::string, uint32_t>;

// Writes `rows` as little-endian float32, row after row (the runner's inputs.f32), atomically.
void write_runner_inputs(const std::string& path, const std::vector<std::vector<float>>& rows);

struct RunnerOutput {
  std::vector<OutputBits> rows;
  std::string board;  // from the bare-metal board glue's "[board <name>] ..." line; empty elsewhere
};

// Parses the runner's output: lines "row <i> name=<8 hex digits> ..." in row order; other lines
// are ignored. Throws std::runtime_error on a malformed row line or rows out of order.
RunnerOutput parse_runner_output(const std::string& text);

// Runs `command '<model>' '<inputs>'` through the shell and parses what it prints. Throws
// std::runtime_error with the command's output when it fails or prints no rows.
RunnerOutput run_on_device(const std::string& command, const std::string& model_path,
                           const std::string& inputs_path);

uint32_t float_bits(float value);

}  // namespace pbp::cli
