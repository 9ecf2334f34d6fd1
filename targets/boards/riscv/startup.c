/* SPDX-License-Identifier: Apache-2.0 */
// The RISC-V (RV32, machine mode) port of the porting layer (../board.h): reset code, stack
// guard, trap handler, console and exit through semihosting, and picolibc's heap hook.
// ../board.c, shared by every port, runs main and prints the report.
//
// _start sets gp and sp, points mtvec at the trap handler, turns the FPU on (when compiled for
// one), copies .data, zeroes .bss, sets up picolibc's thread-local block (errno), locks a PMP
// region over the bottom of the stack, then calls pbp_board_run. Any trap (an access fault, an
// illegal instruction, ...) prints its cause and ends the run with exit code 128 + mcause
// (133 = load access fault, 135 = store access fault), so a crash fails the test instead of
// hanging it.
#include <stddef.h>
#include <stdint.h>

#include "../board.h"
#include "semihost.h"

// From the linker script (riscv.ld).
extern uint32_t __stack_base[], __stack_top[];
extern uint32_t __data_start[], __data_end[], __data_load[];
extern uint32_t __bss_start[], __bss_end[];
extern char __tls_base[];

extern void _init_tls(void* tls);  // picolibc: copies .tdata, zeroes .tbss
extern void _set_tls(void* tls);   // picolibc: tp = tls

// The CSR instructions: binutils 2.40 wants Zicsr named, GCC 12's -march=rv32imac (which picks
// the multilib) does not name it.
#define PBP_ZICSR ".option push\n.option arch, +zicsr\n"

void _start(void);
void pbp_trap_entry(void);
__attribute__((noreturn, used)) void pbp_board_start(void);
__attribute__((noreturn, used)) void pbp_trap_report(uint32_t mcause, uint32_t sp);

// Naked: no instruction may use the stack, gp or the FPU before they are set up. Placed first in
// flash (riscv.ld), where QEMU's -bios none reset code jumps.
__attribute__((naked, noreturn, section(".text.pbp_start"))) void _start(void) {
  __asm__ volatile(PBP_ZICSR
                   ".option push\n"
                   ".option norelax\n"
                   "la gp, __global_pointer$\n"
                   ".option pop\n"
                   "la sp, __stack_top\n"
                   "la t0, pbp_trap_entry\n"
                   "csrw mtvec, t0\n"
#if defined(__riscv_flen)
                   "li t0, 0x2000\n"  // mstatus.FS = Initial: the FPU is Off after reset
                   "csrs mstatus, t0\n"
                   "csrwi fcsr, 0\n"  // round to nearest, even; no flags
#endif
                   ".option pop\n"
                   "tail pbp_board_start\n");
}

// A PMP region makes the lowest bytes of the stack inaccessible, so that an overflow traps at
// once (below the RAM of the virt board lies the "flash", which would accept the writes).
// Locked, so that it binds machine mode too; a NAPOT region: a power of two >= 8 bytes, aligned
// to its size (riscv.ld aligns __stack_base to it).
#define PBP_STACK_GUARD 256u

static void enable_stack_guard(void) {
  const uint32_t napot = ((uint32_t)(uintptr_t)__stack_base | (PBP_STACK_GUARD / 2u - 1u)) >> 2;
  // pmpcfg0 entry 0: L (locked), A = NAPOT, no R, W or X.
  __asm__ volatile(PBP_ZICSR
                   "csrw pmpaddr0, %0\n"
                   "csrw pmpcfg0, %1\n"
                   ".option pop\n" ::"r"(napot),
                   "r"(0x98u)
                   : "memory");
}

static uint32_t* const kStackLimit = __stack_base + PBP_STACK_GUARD / sizeof(uint32_t);

// --- The porting layer (../board.h) -------------------------------------------------------------

void pbp_board_debug_log(const char* text) {
  pbp_semihost_call(PBP_SYS_WRITE0, text);
}
void pbp_board_exit(uint32_t status) {
  pbp_semihost_exit(status);
}
uint32_t* pbp_board_stack_low(void) {
  return kStackLimit;
}
uint32_t* pbp_board_stack_high(void) {
  return __stack_top;
}
__attribute__((noinline)) uintptr_t pbp_board_stack_pointer(void) {
  uintptr_t sp;
  __asm__ volatile("mv %0, sp" : "=r"(sp));
  return sp;
}

void pbp_board_start(void) {
  for (uint32_t *src = __data_load, *dst = __data_start; dst < __data_end;) *dst++ = *src++;
  for (uint32_t* dst = __bss_start; dst < __bss_end;) *dst++ = 0;
  _init_tls(__tls_base);
  _set_tls(__tls_base);
  enable_stack_guard();
  pbp_board_run();
}

// picolibc's malloc (fopen's buffers) grows the heap through sbrk.
void* sbrk(ptrdiff_t increment) {
  return pbp_board_heap_grow(increment);
}

// --- Traps --------------------------------------------------------------------------------------

// Naked and stack-free until sp is reset: the trap may be a stack overflow. mtvec's direct mode
// needs a 4-byte aligned handler.
__attribute__((naked, noreturn, aligned(4))) void pbp_trap_entry(void) {
  __asm__ volatile(PBP_ZICSR
                   "mv a1, sp\n"
                   "la sp, __stack_top\n"
                   "csrr a0, mcause\n"
                   ".option pop\n"
                   "tail pbp_trap_report\n");
}

static const char* trap_name(uint32_t mcause) {
  switch (mcause) {
    case 0:
      return "InstructionMisaligned";
    case 1:
      return "InstructionAccessFault";
    case 2:
      return "IllegalInstruction";
    case 3:
      return "Breakpoint";
    case 4:
      return "LoadMisaligned";
    case 5:
      return "LoadAccessFault";
    case 6:
      return "StoreMisaligned";
    case 7:
      return "StoreAccessFault";
    case 11:
      return "EnvironmentCall";
    default:
      return (mcause & 0x80000000u) ? "Interrupt" : "Exception";
  }
}

void pbp_trap_report(uint32_t mcause, uint32_t sp) {
  static char details[160];
  uint32_t mepc, mtval;
  __asm__ volatile(PBP_ZICSR "csrr %0, mepc\n.option pop" : "=r"(mepc));
  __asm__ volatile(PBP_ZICSR "csrr %0, mtval\n.option pop" : "=r"(mtval));
  const uint32_t code = mcause & 0x7Fu;
  char* out = pbp_board_append(details, " (mcause ");
  out = pbp_board_append_dec(out, code);
  out = pbp_board_append(out, ") pc=");
  out = pbp_board_append_hex(out, mepc);
  out = pbp_board_append(out, " sp=");
  out = pbp_board_append_hex(out, sp);
  const uintptr_t guard = (uintptr_t)__stack_base, limit = (uintptr_t)kStackLimit;
  if (sp < limit + 32 || (mtval >= guard && mtval < limit)) {
    out = pbp_board_append(out, " (stack overflow)");
  }
  out = pbp_board_append(out, " mtval=");
  out = pbp_board_append_hex(out, mtval);
  *out = '\0';
  pbp_board_fatal(trap_name(mcause), details, 128u + code);
}
