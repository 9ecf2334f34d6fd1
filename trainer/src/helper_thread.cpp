// SPDX-License-Identifier: Apache-2.0
#include "pbp/trainer/helper_thread.hpp"

#include <chrono>

namespace pbp::trainer {
namespace {

// Spinning answers within a fraction of a microsecond while the caller runs its serial parts;
// past this the waiter yields, so an oversubscribed machine runs whoever has work.
constexpr int kSpinsBeforeYield = 1000;
// An idle helper (between epochs, during evaluation) sleeps in the kernel instead of yielding.
constexpr std::chrono::microseconds kYieldBeforeSleep{2000};
// This many late hand-offs in a row and the caller runs the next kHandOffsAlone alone (a few
// tenths of a second of a wide network's updates), then tries the helper again.
constexpr uint32_t kLateInARow = 8;
constexpr uint32_t kHandOffsAlone = 4096;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace

HelperThread::HelperThread() : thread_([this] { loop(); }) {}

HelperThread::~HelperThread() {
  stop_ = true;
  start();
  thread_.join();
}

uint32_t HelperThread::start() {
  const uint32_t generation = generation_.fetch_add(1, std::memory_order_seq_cst) + 1;
  // seq_cst with the helper's store of sleeping_ then reload of generation_: either it sees the
  // new generation or this sees it asleep.
  if (sleeping_.load(std::memory_order_seq_cst)) generation_.notify_one();
  return generation;
}

bool HelperThread::wait_until_finished(uint32_t generation) const {
  int spin = 0;
  for (; finished_.load(std::memory_order_acquire) != generation; ++spin) {
    if (spin < kSpinsBeforeYield) {
      cpu_relax();
    } else {
      std::this_thread::yield();
    }
  }
  return spin > kSpinsBeforeYield;
}

void HelperThread::note_lateness(bool late) {
  late_in_a_row_ = late ? late_in_a_row_ + 1 : 0;
  if (late_in_a_row_ < kLateInARow) return;
  late_in_a_row_ = 0;
  run_alone_ = kHandOffsAlone;
}

void HelperThread::loop() {
  uint32_t seen = 0;
  for (;;) {
    int spin = 0;
    auto yielding_since = std::chrono::steady_clock::time_point{};
    while (generation_.load(std::memory_order_acquire) == seen) {
      if (spin < kSpinsBeforeYield) {
        ++spin;
        cpu_relax();
        continue;
      }
      const auto now = std::chrono::steady_clock::now();
      if (spin++ == kSpinsBeforeYield) yielding_since = now;
      if (now - yielding_since < kYieldBeforeSleep) {
        std::this_thread::yield();
        continue;
      }
      sleeping_.store(true, std::memory_order_seq_cst);
      if (generation_.load(std::memory_order_seq_cst) == seen) generation_.wait(seen);
      sleeping_.store(false, std::memory_order_relaxed);
    }
    seen = generation_.load(std::memory_order_acquire);
    if (stop_) return;
    invoke_(task_, 1);
    finished_.store(seen, std::memory_order_release);
  }
}

}  // namespace pbp::trainer
