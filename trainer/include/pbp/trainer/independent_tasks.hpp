// SPDX-License-Identifier: Apache-2.0
// Trainings that share nothing (the recipe's candidates of one fold, its final training and the
// distance fit's folds) run on up to two threads. Each task writes only its own results, so the
// models are the same bits whatever the thread count or the order the tasks finish in.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>

namespace pbp::trainer {

class IndependentTasks {
 public:
  explicit IndependentTasks(uint32_t threads) : threads_(threads < 1 ? 1 : threads) {}

  // The threads `run` spreads `count` tasks over (this one included).
  uint32_t threads_for(size_t count) const {
    return count < threads_ ? static_cast<uint32_t>(count < 1 ? 1 : count) : threads_;
  }
  // Runs task(i) for every i < count, in order of i from a shared counter; returns once all
  // have ended. After a task throws, no new task starts and the exception of the lowest such i
  // is rethrown (the one a serial loop would have stopped at).
  void run(size_t count, const std::function<void(size_t)>& task);
  // True once a task of the current run has thrown: a long task may stop early (its result is
  // not used).
  bool abandoned() const { return abandoned_.load(std::memory_order_relaxed); }

 private:
  uint32_t threads_;
  std::atomic<bool> abandoned_{false};
};

}  // namespace pbp::trainer
