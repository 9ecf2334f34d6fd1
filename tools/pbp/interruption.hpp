// SPDX-License-Identifier: Apache-2.0
// Ctrl-C during long work (pbp train): the first SIGINT asks the work to stop at its next check,
// which throws Interrupted; run_command then prints one line and exits 130, and nothing half-done
// is written (files are written atomically, after the work). A second Ctrl-C kills at once.
#pragma once
#include <stdexcept>

#include "host_names.hpp"
#include "output.hpp"
#include "pbp/host/progress.hpp"

namespace pbp::cli {

class Interrupted : public std::runtime_error {
 public:
  Interrupted() : std::runtime_error("interrupted") {}
};

// While one lives, SIGINT sets a flag instead of killing the process (the previous handler is
// restored when it goes).
class InterruptionGuard {
 public:
  InterruptionGuard();
  ~InterruptionGuard();
  InterruptionGuard(const InterruptionGuard&) = delete;
  InterruptionGuard& operator=(const InterruptionGuard&) = delete;

 private:
  void* previous_;  // struct sigaction, kept out of this header
};

// Throws Interrupted once SIGINT has arrived under a guard.
void throw_if_interrupted();

// Progress for the host library's long work: stops it at Ctrl-C (throw_if_interrupted), then
// draws `bar`.
Progress interruptible(ProgressBar& bar);

}  // namespace pbp::cli
