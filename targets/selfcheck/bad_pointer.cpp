// SPDX-License-Identifier: Apache-2.0
// A crash must end the run with a failure, not hang it (bare metal: fault handler; Linux: SIGSEGV).
#include <stdint.h>

#include "harness.hpp"

PBP_TEST(bad_pointer_read) {
#if defined(__linux__)
  volatile uintptr_t address = 16;  // the null page
#else  // unmapped in QEMU: Cortex-M's external device region; above the RAM of RISC-V virt
  volatile uintptr_t address = 0xDFFFFFF0u;
#endif
  volatile uint32_t value = *reinterpret_cast<volatile uint32_t*>(address);
  PBP_CHECK(value == 0xFFFFFFFFu);
}
