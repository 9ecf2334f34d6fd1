// SPDX-License-Identifier: Apache-2.0
#include "pbp/trainer/independent_tasks.hpp"

#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace pbp::trainer {
namespace {

// How often a waiting caller polls: Ctrl-C and progress within a fraction of a second.
constexpr std::chrono::milliseconds kPollPeriod{20};

}  // namespace

void IndependentTasks::run(size_t count, const std::function<void(size_t)>& task,
                           const std::function<void()>& poll) {
  abandoned_ = false;
  std::vector<std::exception_ptr> failures(count);
  std::atomic<size_t> next{1};  // task 0 is this thread's
  std::mutex mutex;
  std::condition_variable ended;
  // Counted before any helper starts: a helper's decrement (under the mutex) meets no increment.
  const size_t helpers_started = threads_for(count) - 1;
  size_t helpers_running = helpers_started;
  auto attempt = [&](size_t i) {
    try {
      task(i);
    } catch (...) {
      failures[i] = std::current_exception();
      abandoned_ = true;
    }
  };
  // A task once taken is run: every task below a failing one has run.
  auto worker = [&] {
    while (!abandoned()) {
      const size_t i = next++;
      if (i >= count) return;
      attempt(i);
    }
  };
  std::exception_ptr poll_failure;
  {
    std::vector<std::jthread> helpers;
    for (size_t t = 0; t < helpers_started; ++t) {
      helpers.emplace_back([&] {
        worker();
        const std::lock_guard lock(mutex);
        --helpers_running;
        ended.notify_one();
      });
    }
    if (count > 0) attempt(0);
    worker();
    std::unique_lock lock(mutex);
    while (!ended.wait_for(lock, kPollPeriod, [&] { return helpers_running == 0; })) {
      if (!poll || poll_failure) continue;
      lock.unlock();
      try {
        poll();
      } catch (...) {
        poll_failure = std::current_exception();
        abandoned_ = true;
      }
      lock.lock();
    }
  }
  if (poll_failure) std::rethrow_exception(poll_failure);
  for (const std::exception_ptr& failure : failures) {
    if (failure) std::rethrow_exception(failure);
  }
}

}  // namespace pbp::trainer
