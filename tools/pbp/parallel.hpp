// SPDX-License-Identifier: Apache-2.0
// Independent tasks (crossval splits, active-learning repeats) spread over threads.
#pragma once
#include <cstddef>
#include <functional>

#include "options.hpp"
#include "output.hpp"

namespace pbp::cli {

// --jobs N: 1 .. 256, default the hardware threads. UsageError when out of range.
size_t jobs_option(const ParsedOptions& options);

// Runs task(i) for every i < count on up to `jobs` threads (this one included), updating
// `progress` as tasks finish, then finishes it. Tasks must store their results by index, so
// nothing depends on timing. After every task has run, rethrows the failure of the lowest index.
void parallel_for(size_t count, size_t jobs, ProgressBar& progress,
                  const std::function<void(size_t)>& task);

}  // namespace pbp::cli
