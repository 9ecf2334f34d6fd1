/* SPDX-License-Identifier: Apache-2.0 */
// RISC-V semihosting calls (the Arm "Angel" operations behind the RISC-V semihosting trap, which
// QEMU implements with -semihosting-config enable=on): used by the porting layer's console and
// exit, which must not depend on libc state.
#pragma once
#include <stdint.h>

enum {
  PBP_SYS_WRITE0 = 0x04,         // print a NUL-terminated string on the debug console
  PBP_SYS_EXIT = 0x18,           // end the run, a1 = reason (RV32)
  PBP_SYS_EXIT_EXTENDED = 0x20,  // end the run, a1 -> {reason, exit status}
};
enum {
  PBP_ADP_STOPPED_APPLICATION_EXIT = 0x20026,
  PBP_ADP_STOPPED_RUNTIME_ERROR_UNKNOWN = 0x20023,
};

// The trap is an ebreak between two marker instructions, all three uncompressed and on one page.
static inline uint32_t pbp_semihost_call(uint32_t op, const void* arg) {
  register uint32_t a0 __asm__("a0") = op;
  register const void* a1 __asm__("a1") = arg;
  __asm__ volatile(
      ".option push\n"
      ".option norvc\n"
      ".balign 16\n"
      "slli zero, zero, 0x1f\n"
      "ebreak\n"
      "srai zero, zero, 7\n"
      ".option pop\n"
      : "+r"(a0)
      : "r"(a1)
      : "memory");
  return a0;
}

// Ends the QEMU run with `status` as the process exit code (SYS_EXIT_EXTENDED; a debugger
// without it still sees an error through the plain SYS_EXIT).
static inline __attribute__((noreturn)) void pbp_semihost_exit(uint32_t status) {
  const uint32_t block[2] = {PBP_ADP_STOPPED_APPLICATION_EXIT, status};
  pbp_semihost_call(PBP_SYS_EXIT_EXTENDED, block);
  pbp_semihost_call(PBP_SYS_EXIT,
                    (const void*)(uintptr_t)(status == 0 ? PBP_ADP_STOPPED_APPLICATION_EXIT
                                                         : PBP_ADP_STOPPED_RUNTIME_ERROR_UNKNOWN));
  for (;;) {
  }
}
