// Cortex-M board glue shared by every board (TensorFlow Lite Micro style porting layer):
// vector table, reset handler, fault handlers, heap for newlib, and the few C++ ABI hooks that
// libstdc++ would otherwise provide (it is not linked: C++ objects link with the C driver).
//
// Console and exit go through semihosting (newlib's librdimon). The reset handler:
//   enables the FPU (when compiled for one), copies .data, zeroes .bss, paints the stack,
//   runs the C++ static constructors (__libc_init_array), calls main(), reports the stack and heap
//   high-water marks and exits with main's return value (which QEMU makes its exit code).
// Any fault prints its cause and ends the run with exit code 128 + exception number
// (131 = HardFault), so a crash fails the test instead of hanging it.
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "semihost.h"

#ifndef PBP_BOARD_NAME
#define PBP_BOARD_NAME "cortex-m"
#endif

// From the linker script (cortex-m.ld).
extern uint32_t __stack_base[], __stack_top[];
extern uint32_t __data_start[], __data_end[], __data_load[];
extern uint32_t __bss_start__[], __bss_end__[];
extern char __heap_start[], __heap_end[];
extern char __ram_start[], __ram_end[];

extern int main(void);
extern void __libc_init_array(void);
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
#else
#define PBP_STACK_GUARD 0u
static void enable_stack_guard(void) {}
static void disable_stack_guard(void) {}
#endif

static const uint32_t kStackPaint = 0x5AA5C33Cu;
static uint32_t* const kStackLimit = __stack_base + PBP_STACK_GUARD / sizeof(uint32_t);
static char* g_brk = __heap_start;
static char* g_brk_max = __heap_start;

static uint32_t stack_bytes_used(void) {
  const uint32_t* p = kStackLimit;
  while (p < __stack_top && *p == kStackPaint) ++p;
  return (uint32_t)((const char*)__stack_top - (const char*)p);
}

void pbp_board_start(void) {
  for (uint32_t *src = __data_load, *dst = __data_start; dst < __data_end;) *dst++ = *src++;
  for (uint32_t* dst = __bss_start__; dst < __bss_end__;) *dst++ = 0;

  // Paint the unused stack so that the high-water mark can be measured at exit.
  uint32_t* sp;
  __asm__ volatile("mov %0, sp" : "=r"(sp));
  for (volatile uint32_t* p = kStackLimit; p < sp - 16;) *p++ = kStackPaint;
  enable_stack_guard();

  initialise_monitor_handles();
  __libc_init_array();
  int status = main();

  const uint32_t stack_size = (uint32_t)((char*)__stack_top - (char*)kStackLimit);
  const uint32_t stack_used = stack_bytes_used();
  printf("[board %s] stack %lu of %lu bytes, heap %lu of %lu bytes\n", PBP_BOARD_NAME,
         (unsigned long)stack_used, (unsigned long)stack_size,
         (unsigned long)(g_brk_max - __heap_start), (unsigned long)(__heap_end - __heap_start));
  if (stack_used + 64 > stack_size) {
    printf("[board %s] FAIL: stack exhausted (less than 64 bytes left)\n", PBP_BOARD_NAME);
    if (status == 0) status = 1;
  }
  exit(status);
}

// newlib's malloc (stdio buffers) grows the heap through _sbrk: [__heap_start, __heap_end).
void* _sbrk(ptrdiff_t increment) {
  if (increment > __heap_end - g_brk || increment < __heap_start - g_brk) {
    errno = ENOMEM;
    return (void*)-1;
  }
  char* previous = g_brk;
  g_brk += increment;
  if (g_brk > g_brk_max) g_brk_max = g_brk;
  return previous;
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

static char* append(char* out, const char* text) {
  while (*text) *out++ = *text++;
  return out;
}

static char* append_hex(char* out, uint32_t value) {
  out = append(out, "0x");
  for (int shift = 28; shift >= 0; shift -= 4) *out++ = "0123456789abcdef"[(value >> shift) & 0xFu];
  return out;
}

static char* append_dec(char* out, uint32_t value) {
  char digits[10];
  int n = 0;
  do {
    digits[n++] = (char)('0' + value % 10u);
    value /= 10u;
  } while (value != 0);
  while (n > 0) *out++ = digits[--n];
  return out;
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
  static char message[256];
  disable_stack_guard();  // the frame may lie in the guard region
  exception &= 0x1FFu;
  char* out = append(message, "\n[board " PBP_BOARD_NAME "] FATAL: ");
  out = append(out, exception_name(exception));
  out = append(out, " (exception ");
  out = append_dec(out, exception);
  out = append(out, ")");
  const char* sp = (const char*)frame;
  if (sp >= __ram_start && sp + 32 <= __ram_end) {
    out = append(out, " pc=");
    out = append_hex(out, frame[6]);
    out = append(out, " lr=");
    out = append_hex(out, frame[5]);
  }
  out = append(out, " sp=");
  out = append_hex(out, (uint32_t)(uintptr_t)frame);
  if (sp < (const char*)kStackLimit + 32) out = append(out, " (stack overflow)");
#if defined(__ARM_ARCH_7M__) || defined(__ARM_ARCH_7EM__)
  out = append(out, " cfsr=");
  out = append_hex(out, *(volatile const uint32_t*)0xE000ED28u);
  out = append(out, " hfsr=");
  out = append_hex(out, *(volatile const uint32_t*)0xE000ED2Cu);
  out = append(out, " bfar=");
  out = append_hex(out, *(volatile const uint32_t*)0xE000ED38u);
#endif
  out = append(out, "\n");
  *out = '\0';
  pbp_semihost_call(PBP_SYS_WRITE0, message);
  pbp_semihost_exit(128u + exception);
}

// --- C runtime and C++ ABI hooks (normally from crti.o / crtbegin.o / libstdc++) ----------------

__attribute__((weak)) void _init(void) {}
__attribute__((weak)) void _fini(void) {}
__attribute__((weak)) void* __dso_handle = 0;

extern int __cxa_atexit(void (*destructor)(void*), void* object, void* dso);
// ARM EABI: static objects with destructors register them through __aeabi_atexit.
__attribute__((weak)) int __aeabi_atexit(void* object, void (*destructor)(void*), void* dso) {
  return __cxa_atexit(destructor, object, dso);
}

static __attribute__((noreturn)) void fatal(const char* what) {
  pbp_semihost_call(PBP_SYS_WRITE0, what);
  pbp_semihost_exit(134);
}

__attribute__((weak)) void __cxa_pure_virtual(void) {
  fatal("[board " PBP_BOARD_NAME "] FATAL: pure virtual call\n");
}
// Deleting destructors of classes with virtual destructors reference operator delete even in
// code that never allocates; the runtime has no heap, so reaching one is a bug.
__attribute__((weak)) void _ZdlPv(void* p) {
  (void)p;
  fatal("[board " PBP_BOARD_NAME "] FATAL: operator delete called\n");
}
__attribute__((weak)) void _ZdlPvj(void* p, unsigned size) {
  (void)p;
  (void)size;
  fatal("[board " PBP_BOARD_NAME "] FATAL: operator delete called\n");
}
