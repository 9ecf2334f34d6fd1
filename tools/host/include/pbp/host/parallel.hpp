// SPDX-License-Identifier: Apache-2.0
// Independent tasks (crossval splits, active-learning repeats) spread over threads.
#pragma once
#include <cstddef>
#include <functional>

#include "pbp/host/progress.hpp"

namespace pbp::host {

// The default number of jobs: the hardware threads (at least 1).
size_t default_jobs();

// Runs task(i) for every i < count on up to `jobs` threads (this one included), updating
// `progress` (tasks done of `count`) as tasks finish. Tasks must store their results by index, so
// nothing depends on timing. After every task has run, rethrows the failure of the lowest index.
void parallel_for(size_t count, size_t jobs, const Progress& progress,
                  const std::function<void(size_t)>& task);

}  // namespace pbp::host
