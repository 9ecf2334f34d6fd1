// SPDX-License-Identifier: Apache-2.0
// The pbp subcommands: one file each (cmd_<name>.cpp). Each takes the arguments after its name
// and returns the process exit code (0 success, 1 runtime failure, 2 usage error).
#pragma once
#include <string>
#include <vector>

#include "host_names.hpp"

namespace pbp::cli {

using Arguments = std::vector<std::string>;

int command_train(const Arguments& args);
int command_predict(const Arguments& args);
int command_eval(const Arguments& args);
int command_crossval(const Arguments& args);
int command_inspect(const Arguments& args);
int command_export_c(const Arguments& args);
int command_quantize(const Arguments& args);
int command_demo(const Arguments& args);
int command_verify(const Arguments& args);
int command_active(const Arguments& args);
int command_learn(const Arguments& args);

}  // namespace pbp::cli
