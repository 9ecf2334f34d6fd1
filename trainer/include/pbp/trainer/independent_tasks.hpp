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
  // Runs task(i) for every i < count and returns once all have ended: task 0 on this thread
  // (callbacks that must run on the caller's thread go there), the others in order of i from a
  // shared counter. While this thread waits for the others, it calls `poll` (may be empty) every
  // few milliseconds: for progress reports that belong on this thread. After a task or `poll`
  // throws, no new task starts and, once all have ended, the exception is rethrown: `poll`'s,
  // else the one of the lowest i (the one a serial loop would have stopped at).
  void run(size_t count, const std::function<void(size_t)>& task,
           const std::function<void()>& poll = {});
  // True once a task or `poll` of the current run has thrown: a long task may stop early (its
  // result is not used).
  bool abandoned() const { return abandoned_.load(std::memory_order_relaxed); }

 private:
  uint32_t threads_;
  std::atomic<bool> abandoned_{false};
};

}  // namespace pbp::trainer
