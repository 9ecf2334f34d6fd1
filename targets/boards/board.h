/* SPDX-License-Identifier: Apache-2.0 */
/* The porting layer: what a bare-metal board gives the programs that run on it (tests/runtime,
 * targets/examples, targets/selfcheck) and the host scripts that judge them. TensorFlow Lite
 * Micro's debug_log.h is the model: this header is the contract, each port implements it in one
 * file (cortex-m/startup.c, riscv/startup.c) and board.c, written once, does the rest.
 *
 * What the host sees (run_example.cmake, selfcheck/expect.cmake, size-report.sh rely on it):
 *   - output: printf reaches the host's stdout (the port's libc console: semihosting in QEMU);
 *   - exit status: main's return value becomes the emulator's exit status. A fault prints
 *     "[board NAME] FATAL: <cause> ..." and exits with 128 + the cause's number (an exception
 *     or trap code), "(stack overflow)" in the message when the stack ran out;
 *   - every line the board itself prints starts with PBP_BOARD_LINE_PREFIX, so that an example's
 *     expected output leaves them out. After main: "[board NAME] stack N of M bytes, heap N of M
 *     bytes" (high-water marks); fewer than PBP_BOARD_STACK_MARGIN bytes left fails the run.
 *
 * A port (one per CPU family) provides, besides the functions below, its reset code (which sets
 * up the C environment, a stack guard that faults when it can, and calls pbp_board_run), fault
 * handlers (pbp_board_fatal), its libc's heap hook (calling pbp_board_heap_grow) and a linker
 * script that defines __heap_start and __heap_end. A board is a folder using one port:
 * board.cmake (the port, the emulator) and memory.ld (flash, RAM, stack size). */
#ifndef PBP_TARGETS_BOARD_H
#define PBP_TARGETS_BOARD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef PBP_BOARD_NAME
#define PBP_BOARD_NAME "unnamed"  // targets/cmake/pbp-board.cmake passes the board's folder name
#endif
#define PBP_BOARD_LINE_PREFIX "[board "
// Written over the free stack; a word that no longer holds it has been used.
#define PBP_BOARD_STACK_PAINT 0x5AA5C33Cu
// A run that leaves less stack than this unused fails (the stack guard catches only overflows).
#define PBP_BOARD_STACK_MARGIN 64u

// --- Implemented by each port --------------------------------------------------------------------

// Writes a NUL-terminated string to the host's console without libc (safe in a fault handler).
void pbp_board_debug_log(const char* text);
// Ends the run without libc; the emulator exits with `status`.
__attribute__((noreturn)) void pbp_board_exit(uint32_t status);
// The stack a program may use and paint: [low, high), low above any guard region.
uint32_t* pbp_board_stack_low(void);
uint32_t* pbp_board_stack_high(void);
// The stack pointer (word-aligned) in the calling function: everything below it is free.
uintptr_t pbp_board_stack_pointer(void);

// --- Provided by board.c, for every port ---------------------------------------------------------

// Paints the stack from pbp_board_stack_low() to just below the caller's frame; returns the mark
// that pbp_board_stack_used() measures from: the caller's stack pointer.
uintptr_t pbp_board_stack_paint(void);
// Bytes of stack used below `mark` since pbp_board_stack_paint() returned it.
uint32_t pbp_board_stack_used(uintptr_t mark);
// Called by the port's reset code once RAM is initialised: paints the stack, runs the C++ static
// constructors and main, prints the stack and heap report and exits with main's status.
__attribute__((noreturn)) void pbp_board_run(void);
// The heap break for the libc's sbrk: [__heap_start, __heap_end), high-water mark kept.
void* pbp_board_heap_grow(ptrdiff_t increment);
// Prints "\n[board NAME] FATAL: <what><details>\n" and exits with `status`, without libc.
__attribute__((noreturn)) void pbp_board_fatal(const char* what, const char* details,
                                               uint32_t status);
// Fault-safe text for the details: each appends to `out` and returns the new end.
char* pbp_board_append(char* out, const char* text);
char* pbp_board_append_hex(char* out, uint32_t value);  // 0x%08x
char* pbp_board_append_dec(char* out, uint32_t value);

#ifdef __cplusplus
}
#endif

#endif  // PBP_TARGETS_BOARD_H
