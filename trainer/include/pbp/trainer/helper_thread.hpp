// SPDX-License-Identifier: Apache-2.0
// A persistent second thread for the ADF update's wide layers: the caller hands it one part of a
// task and runs the other itself, without creating a thread or taking a lock per task.
#pragma once
#include <atomic>
#include <cstdint>
#include <thread>

namespace pbp::trainer {

class HelperThread {
 public:
  HelperThread();
  ~HelperThread();
  HelperThread(const HelperThread&) = delete;
  HelperThread& operator=(const HelperThread&) = delete;

  // Runs task(1) on the helper and task(0) on the calling thread; returns when both are done
  // (everything the helper wrote is then visible). `task` must not throw, and its parts must be
  // independent: when the helper keeps arriving late (a busy machine that deschedules it), the
  // caller runs both parts itself for a while, which then beats waiting.
  template <class Task>
  void run_pair(Task& task) {
    if (run_alone_ > 0) {
      --run_alone_;
      task(0);
      task(1);
      return;
    }
    task_ = &task;
    invoke_ = [](void* t, uint32_t part) { (*static_cast<Task*>(t))(part); };
    const uint32_t generation = start();
    task(0);
    note_lateness(wait_until_finished(generation));
  }

 private:
  uint32_t start();
  // Returns whether the caller had to yield (the helper was late).
  bool wait_until_finished(uint32_t generation) const;
  void note_lateness(bool late);
  void loop();

  uint32_t late_in_a_row_ = 0;  // caller's thread only
  uint32_t run_alone_ = 0;      // hand-offs left that the caller runs alone

  // The caller bumps generation_ to hand over a task; the helper stores the generation it
  // finished in finished_. Separate cache lines: each is written by one thread only.
  alignas(64) std::atomic<uint32_t> generation_{0};
  alignas(64) std::atomic<uint32_t> finished_{0};
  std::atomic<bool> sleeping_{false};  // the helper waits in the kernel: the caller must notify
  void* task_ = nullptr;
  void (*invoke_)(void*, uint32_t) = nullptr;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace pbp::trainer
