// SPDX-License-Identifier: Apache-2.0
// Where long work stands, for a front end to show: `done` of `total` steps. It may throw to stop
// the work (the command line's Ctrl-C, Python's KeyboardInterrupt); an empty one is not called.
#pragma once
#include <cstdint>
#include <functional>

namespace pbp::host {

using Progress = std::function<void(uint64_t done, uint64_t total)>;

inline void report_progress(const Progress& progress, uint64_t done, uint64_t total) {
  if (progress) progress(done, total);
}

}  // namespace pbp::host
