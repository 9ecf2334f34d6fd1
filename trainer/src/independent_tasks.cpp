// SPDX-License-Identifier: Apache-2.0
#include "pbp/trainer/independent_tasks.hpp"

#include <exception>
#include <thread>
#include <vector>

namespace pbp::trainer {

void IndependentTasks::run(size_t count, const std::function<void(size_t)>& task) {
  abandoned_ = false;
  std::vector<std::exception_ptr> failures(count);
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < count && !abandoned(); i = next++) {
      try {
        task(i);
      } catch (...) {
        failures[i] = std::current_exception();
        abandoned_ = true;
      }
    }
  };
  {
    std::vector<std::jthread> helpers;
    for (uint32_t t = 1; t < threads_for(count); ++t) helpers.emplace_back(worker);
    worker();
  }
  for (const std::exception_ptr& failure : failures) {
    if (failure) std::rethrow_exception(failure);
  }
}

}  // namespace pbp::trainer
