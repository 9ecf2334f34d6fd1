// SPDX-License-Identifier: Apache-2.0
// `pbp inspect --target NAME`: will the model fit that target, and how fast will it predict?
// Flash, RAM and stack from the target's board and its measured build; instructions per
// prediction from a per-target linear cost formula fitted to QEMU counts (target_cost_table.inc,
// written by tools/bench/target_cost.py fit).
#pragma once
#include <string>
#include <vector>

#include "pbp/pbp.h"

namespace pbp::cli {

// The targets the table knows (targets/presets.txt), in its order.
std::vector<std::string> cost_target_names();

// The text report (several lines) and the JSON object of `model` on `target`; UsageError for a
// target the table does not know.
void print_target_report(const pbp_model& model, const std::string& target);
std::string target_report_json(const pbp_model& model, const std::string& target);

}  // namespace pbp::cli
