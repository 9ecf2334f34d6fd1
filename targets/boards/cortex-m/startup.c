/* SPDX-License-Identifier: Apache-2.0 */
// The Cortex-M port of the porting layer (../board.h): vector table, reset handler, stack guard,
// fault handlers, console and exit through semihosting (newlib's librdimon) and newlib's heap
// hook. ../board.c, shared by every port, runs main and prints the report.
//
// The reset handler enables the FPU (when compiled for one), copies .data, zeroes .bss, enables
// the stack guard and the semihosting console, then calls pbp_board_run. Any fault prints its
// cause and ends the run with exit code 128 + exception number (131 = HardFault), so a crash
// fails the test instead of hanging it.
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../board.h"
#include "semihost.h"

// From the linker script (cortex-m.ld).
extern uint32_t __stack_base[], __stack_top[];
extern uint32_t __data_start[], __data_end[], __data_load[];
extern uint32_t __bss_start__[], __bss_end__[];
extern char __ram_start[], __ram_end[];

extern void initialise_monitor_handles(void);  // librdimon: opens the semihosting console

void Reset_Handler(void);
void pbp_fault_entry(void);
__attribute__((noreturn, used)) void pbp_board_start(void);
__attribute__((noreturn, used)) void pbp_fault_report(uint32_t exception, const uint32_t* frame);

// Exceptions 1..15; external interrupts are never enabled by the tests.
__attribute__((section(".isr_vector"), used)) void (*const pbp_vector_table[16])(void) = {
    (void (*)(void))__stack_top,  // initial main stack pointer
    Reset_Handler,
    pbp_fault_entry,  // NMI
    pbp_fault_entry,  // HardFault
    pbp_fault_entry,  // MemManage
    pbp_fault_entry,  // BusFault
    pbp_fault_entry,  // UsageFault
    0,
    0,
    0,
    0,
    pbp_fault_entry,  // SVCall
    pbp_fault_entry,  // DebugMonitor
    0,
    pbp_fault_entry,  // PendSV
    pbp_fault_entry,  // SysTick
};

// Naked: no instruction may touch the FPU before CPACR grants access.
__attribute__((naked, noreturn)) void Reset_Handler(void) {
  __asm__ volatile(
#if defined(__ARM_FP)
      "ldr r0, =0xE000ED88\n"  // CPACR: full access to CP10 and CP11
      "ldr r1, [r0]\n"
      "ldr r2, =0x00F00000\n"
      "orrs r1, r1, r2\n"
      "str r1, [r0]\n"
      "dsb\n"
      "isb\n"
#endif
      "ldr r0, =__stack_top\n"
      "mov sp, r0\n"
      "bl pbp_board_start\n"
      ".ltorg\n");
}

// ARMv7-M: an MPU region makes the lowest bytes of the stack inaccessible, so that an overflow
// faults at once (on the MPS2 boards the addresses below RAM silently accept writes). ARMv6-M has
// no MPU here, but on the micro:bit nothing is mapped below RAM, so an overflow faults anyway.
#if defined(__ARM_ARCH_7M__) || defined(__ARM_ARCH_7EM__)
// The guard is an MPU region: a power of two >= 32 bytes; cortex-m.ld aligns __stack_base to it.
#define PBP_STACK_GUARD 256u
#define PBP_MPU_TYPE (*(volatile uint32_t*)0xE000ED90u)
#define PBP_MPU_CTRL (*(volatile uint32_t*)0xE000ED94u)
#define PBP_MPU_RNR (*(volatile uint32_t*)0xE000ED98u)
#define PBP_MPU_RBAR (*(volatile uint32_t*)0xE000ED9Cu)
#define PBP_MPU_RASR (*(volatile uint32_t*)0xE000EDA0u)

static void enable_stack_guard(void) {
  if (((PBP_MPU_TYPE >> 8) & 0xFFu) == 0) return;  // no MPU regions
  PBP_MPU_RNR = 0;
  PBP_MPU_RBAR = (uint32_t)(uintptr_t)__stack_base;
  // XN, AP = 000 (no access, even privileged), SIZE = log2(PBP_STACK_GUARD) - 1, ENABLE.
  PBP_MPU_RASR = (1u << 28) | ((uint32_t)(__builtin_ctz(PBP_STACK_GUARD) - 1) << 1) | 1u;
  PBP_MPU_CTRL = (1u << 2) | 1u;  // PRIVDEFENA: the default memory map elsewhere; ENABLE
  __asm__ volatile(
      "dsb\n"
      "isb\n" ::
          : "memory");
}

static void disable_stack_guard(void) {
  PBP_MPU_CTRL = 0;
  __asm__ volatile(
      "dsb\n"
      "isb\n" ::
          : "memory");
}
#elif defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__)
// Armv8-M Mainline: the main stack's limit register faults (STKOF) on any push below
// __stack_base, whatever memory lies there; no bytes are given up to a guard region.
#define PBP_STACK_GUARD 0u
static void enable_stack_guard(void) {
  __asm__ volatile("msr msplim, %0" ::"r"(__stack_base) : "memory");
}

static void disable_stack_guard(void) {
  __asm__ volatile("msr msplim, %0" ::"r"(0) : "memory");
}
#else
#define PBP_STACK_GUARD 0u
static void enable_stack_guard(void) {}
static void disable_stack_guard(void) {}
#endif

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
  __asm__ volatile("mov %0, sp" : "=r"(sp));
  return sp;
}

void pbp_board_start(void) {
  for (uint32_t *src = __data_load, *dst = __data_start; dst < __data_end;) *dst++ = *src++;
  for (uint32_t* dst = __bss_start__; dst < __bss_end__;) *dst++ = 0;
  enable_stack_guard();
  initialise_monitor_handles();
  pbp_board_run();
}

// newlib's malloc (stdio buffers) grows the heap through _sbrk.
void* _sbrk(ptrdiff_t increment) {
  return pbp_board_heap_grow(increment);
}

// --- Faults -------------------------------------------------------------------------------------

// Naked and stack-free until SP is reset: the fault may be a stack overflow.
__attribute__((naked, noreturn)) void pbp_fault_entry(void) {
  __asm__ volatile(
      "mrs r0, ipsr\n"
      "mov r1, sp\n"
      "ldr r2, =__stack_top\n"
      "mov sp, r2\n"
      "bl pbp_fault_report\n"
      ".ltorg\n");
}

static const char* exception_name(uint32_t exception) {
  switch (exception) {
    case 2:
      return "NMI";
    case 3:
      return "HardFault";
    case 4:
      return "MemManage";
    case 5:
      return "BusFault";
    case 6:
      return "UsageFault";
    case 11:
      return "SVCall";
    case 12:
      return "DebugMonitor";
    case 14:
      return "PendSV";
    case 15:
      return "SysTick";
    default:
      return "exception";
  }
}

void pbp_fault_report(uint32_t exception, const uint32_t* frame) {
  static char details[160];
  disable_stack_guard();  // the frame may lie in the guard region
  exception &= 0x1FFu;
  char* out = pbp_board_append(details, " (exception ");
  out = pbp_board_append_dec(out, exception);
  out = pbp_board_append(out, ")");
  const char* sp = (const char*)frame;
  if (sp >= __ram_start && sp + 32 <= __ram_end) {
    out = pbp_board_append(out, " pc=");
    out = pbp_board_append_hex(out, frame[6]);
    out = pbp_board_append(out, " lr=");
    out = pbp_board_append_hex(out, frame[5]);
  }
  out = pbp_board_append(out, " sp=");
  out = pbp_board_append_hex(out, (uint32_t)(uintptr_t)frame);
  bool overflow = sp < (const char*)kStackLimit + 32;
#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__)
  // The limit check faults before the push, so SP may still be well above the limit: UFSR.STKOF.
  overflow = overflow || (*(volatile const uint32_t*)0xE000ED28u & (1u << 20)) != 0;
#endif
  if (overflow) out = pbp_board_append(out, " (stack overflow)");
#if defined(__ARM_ARCH_7M__) || defined(__ARM_ARCH_7EM__) || defined(__ARM_ARCH_8M_MAIN__) || \
    defined(__ARM_ARCH_8_1M_MAIN__)
  out = pbp_board_append(out, " cfsr=");
  out = pbp_board_append_hex(out, *(volatile const uint32_t*)0xE000ED28u);
  out = pbp_board_append(out, " hfsr=");
  out = pbp_board_append_hex(out, *(volatile const uint32_t*)0xE000ED2Cu);
  out = pbp_board_append(out, " bfar=");
  out = pbp_board_append_hex(out, *(volatile const uint32_t*)0xE000ED38u);
#endif
  *out = '\0';
  pbp_board_fatal(exception_name(exception), details, 128u + exception);
}

// --- C++ ABI hook of the ARM EABI (the others are in ../board.c) --------------------------------

extern int __cxa_atexit(void (*destructor)(void*), void* object, void* dso);
// Static objects with destructors register them through __aeabi_atexit.
__attribute__((weak)) int __aeabi_atexit(void* object, void (*destructor)(void*), void* dso) {
  return __cxa_atexit(destructor, object, dso);
}
