// SPDX-License-Identifier: Apache-2.0
// The command line parses arguments and prints; the work is the host library's (tools/host),
// whose names its files use unqualified.
#pragma once

namespace pbp::host {}
namespace pbp::cli {
using namespace pbp::host;
}  // namespace pbp::cli
