// SPDX-License-Identifier: Apache-2.0
#include "pbp/host/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace pbp::host {

size_t default_jobs() {
  return std::max(1u, std::thread::hardware_concurrency());
}

void parallel_for(size_t count, size_t jobs, const Progress& progress,
                  const std::function<void(size_t)>& task) {
  std::vector<std::exception_ptr> failures(count);
  std::atomic<size_t> next{0};
  std::atomic<size_t> finished{0};
  std::mutex progress_mutex;
  report_progress(progress, 0, count);
  auto worker = [&] {
    for (size_t i = next++; i < count; i = next++) {
      try {
        task(i);
      } catch (...) {
        failures[i] = std::current_exception();
      }
      const std::lock_guard lock(progress_mutex);
      report_progress(progress, ++finished, count);
    }
  };
  {
    std::vector<std::jthread> threads;
    for (size_t t = 1; t < std::min(jobs, count); ++t) threads.emplace_back(worker);
    worker();
  }
  for (const std::exception_ptr& failure : failures) {
    if (failure) std::rethrow_exception(failure);
  }
}

}  // namespace pbp::host
