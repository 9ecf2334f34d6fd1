/* SPDX-License-Identifier: Apache-2.0 */
// The part of the porting layer written once for every port (board.h): the run around main with
// its stack and heap report, stack painting, the heap break, fault messages and the few C++ ABI
// hooks that libstdc++ would otherwise provide (it is not linked: C++ objects link with the C
// driver).
#include "board.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

extern int main(void);
extern void __libc_init_array(void);  // newlib and picolibc: .preinit_array and .init_array

// From the port's linker script.
extern char __heap_start[], __heap_end[];

static char* g_brk = __heap_start;
static char* g_brk_max = __heap_start;

uintptr_t pbp_board_stack_paint(void) {
  const uintptr_t sp = pbp_board_stack_pointer();
  // 16 words of slack below this frame: the loop itself never stores below the stack pointer.
  for (volatile uint32_t* p = pbp_board_stack_low(); (uintptr_t)(p + 16) < sp;) {
    *p++ = PBP_BOARD_STACK_PAINT;
  }
  return (uintptr_t)__builtin_dwarf_cfa();  // the caller's stack pointer: its calls start there
}

uint32_t pbp_board_stack_used(uintptr_t mark) {
  const uint32_t* p = pbp_board_stack_low();
  while ((uintptr_t)p < mark && *p == PBP_BOARD_STACK_PAINT) ++p;
  return (uint32_t)(mark - (uintptr_t)p);
}

void pbp_board_run(void) {
  pbp_board_stack_paint();
  __libc_init_array();
  int status = main();

  const uintptr_t high = (uintptr_t)pbp_board_stack_high();
  const uint32_t stack_size = (uint32_t)(high - (uintptr_t)pbp_board_stack_low());
  const uint32_t stack_used = pbp_board_stack_used(high);
  printf(PBP_BOARD_LINE_PREFIX "%s] stack %lu of %lu bytes, heap %lu of %lu bytes\n",
         PBP_BOARD_NAME, (unsigned long)stack_used, (unsigned long)stack_size,
         (unsigned long)(g_brk_max - __heap_start), (unsigned long)(__heap_end - __heap_start));
  if (stack_used + PBP_BOARD_STACK_MARGIN > stack_size) {
    printf(PBP_BOARD_LINE_PREFIX "%s] FAIL: stack exhausted (less than %u bytes left)\n",
           PBP_BOARD_NAME, PBP_BOARD_STACK_MARGIN);
    if (status == 0) status = 1;
  }
  exit(status);  // the libc's exit: flushes stdio, then ends the run through the port
}

void* pbp_board_heap_grow(ptrdiff_t increment) {
  if (increment > __heap_end - g_brk || increment < __heap_start - g_brk) {
    errno = ENOMEM;
    return (void*)-1;
  }
  char* previous = g_brk;
  g_brk += increment;
  if (g_brk > g_brk_max) g_brk_max = g_brk;
  return previous;
}

// --- Fault messages, without libc (its state may be what broke) ---------------------------------

char* pbp_board_append(char* out, const char* text) {
  while (*text) *out++ = *text++;
  return out;
}

char* pbp_board_append_hex(char* out, uint32_t value) {
  out = pbp_board_append(out, "0x");
  for (int shift = 28; shift >= 0; shift -= 4) *out++ = "0123456789abcdef"[(value >> shift) & 0xFu];
  return out;
}

char* pbp_board_append_dec(char* out, uint32_t value) {
  char digits[10];
  int n = 0;
  do {
    digits[n++] = (char)('0' + value % 10u);
    value /= 10u;
  } while (value != 0);
  while (n > 0) *out++ = digits[--n];
  return out;
}

void pbp_board_fatal(const char* what, const char* details, uint32_t status) {
  pbp_board_debug_log("\n" PBP_BOARD_LINE_PREFIX PBP_BOARD_NAME "] FATAL: ");
  pbp_board_debug_log(what);
  pbp_board_debug_log(details);
  pbp_board_debug_log("\n");
  pbp_board_exit(status);
}

// --- C runtime and C++ ABI hooks (normally from crti.o / crtbegin.o / libstdc++) ----------------

__attribute__((weak)) void _init(void) {}
__attribute__((weak)) void _fini(void) {}
__attribute__((weak)) void* __dso_handle = 0;

__attribute__((weak)) void __cxa_pure_virtual(void) {
  pbp_board_fatal("pure virtual call", "", 134);
}
// Deleting destructors of classes with virtual destructors reference operator delete even in
// code that never allocates; the runtime has no heap, so reaching one is a bug.
__attribute__((weak)) void _ZdlPv(void* p) {
  (void)p;
  pbp_board_fatal("operator delete called", "", 134);
}
__attribute__((weak)) void _ZdlPvj(void* p, unsigned size) {
  (void)p;
  (void)size;
  pbp_board_fatal("operator delete called", "", 134);
}
