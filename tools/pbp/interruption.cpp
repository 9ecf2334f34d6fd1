// SPDX-License-Identifier: Apache-2.0
#include "interruption.hpp"

#include <csignal>

namespace pbp::cli {
namespace {

volatile std::sig_atomic_t g_interrupted = 0;

extern "C" void on_interrupt(int) {
  g_interrupted = 1;
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C is not ignored while the work winds down
}

}  // namespace

InterruptionGuard::InterruptionGuard() : previous_(new struct sigaction) {
  struct sigaction action = {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, static_cast<struct sigaction*>(previous_));
}

InterruptionGuard::~InterruptionGuard() {
  auto* previous = static_cast<struct sigaction*>(previous_);
  sigaction(SIGINT, previous, nullptr);
  delete previous;
}

void throw_if_interrupted() {
  if (g_interrupted != 0) throw Interrupted();
}

Progress interruptible(ProgressBar& bar) {
  return [&bar](uint64_t done, uint64_t total) {
    throw_if_interrupted();
    bar.update(done, total);
  };
}

}  // namespace pbp::cli
