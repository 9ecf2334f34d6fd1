// SPDX-License-Identifier: Apache-2.0
// A crash must end the run with a failure, not hang it (bare metal: fault handler; Linux: SIGSEGV).
#include <stdint.h>

#include "harness.hpp"

PBP_TEST(bad_pointer_read) {
#if defined(__linux__)
  volatile uintptr_t address = 16;  // the null page
#elif defined(__arm__)  // unmapped on every QEMU Cortex-M board: below the vendor system region
  volatile uintptr_t address = 0xEFFFFFF0u;  // (AN547's DDR reaches 0xDFFFFFFF)
#else                   // above the RAM of RISC-V virt
  volatile uintptr_t address = 0xDFFFFFF0u;
#endif
  volatile uint32_t value = *reinterpret_cast<volatile uint32_t*>(address);
  PBP_CHECK(value == 0xFFFFFFFFu);
}
