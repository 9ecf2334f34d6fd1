/* SPDX-License-Identifier: Apache-2.0 */
// ARM semihosting calls (the "Angel" interface that QEMU implements with
// -semihosting-config enable=on): used by the fault handlers, which must not depend on libc state.
#pragma once
#include <stdint.h>

enum {
  PBP_SYS_WRITE0 = 0x04,         // print a NUL-terminated string on the debug console
  PBP_SYS_EXIT = 0x18,           // end the run, r1 = reason (AArch32)
  PBP_SYS_EXIT_EXTENDED = 0x20,  // end the run, r1 -> {reason, exit status}
};
enum {
  PBP_ADP_STOPPED_APPLICATION_EXIT = 0x20026,
  PBP_ADP_STOPPED_RUNTIME_ERROR_UNKNOWN = 0x20023,
};

static inline uint32_t pbp_semihost_call(uint32_t op, const void* arg) {
  register uint32_t r0 __asm__("r0") = op;
  register const void* r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

// Ends the QEMU run with `status` as the process exit code (QEMU supports SYS_EXIT_EXTENDED on
// AArch32; if a debugger does not, the plain SYS_EXIT below still reports an error).
static inline __attribute__((noreturn)) void pbp_semihost_exit(uint32_t status) {
  const uint32_t block[2] = {PBP_ADP_STOPPED_APPLICATION_EXIT, status};
  pbp_semihost_call(PBP_SYS_EXIT_EXTENDED, block);
  pbp_semihost_call(PBP_SYS_EXIT,
                    (const void*)(uintptr_t)(status == 0 ? PBP_ADP_STOPPED_APPLICATION_EXIT
                                                         : PBP_ADP_STOPPED_RUNTIME_ERROR_UNKNOWN));
  for (;;) {
  }
}
