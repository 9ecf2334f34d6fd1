// SPDX-License-Identifier: Apache-2.0
// Compiler hints for the elementwise loops of the runtime and the trainer, and for the helpers
// those loops call.
#pragma once

// "These arrays never overlap" for a loop, for GCC's vectoriser (clang has no GCC ivdep, and its
// own hint warns wherever it cannot vectorise: left out).
#if defined(__GNUC__) && !defined(__clang__)
#define PBP_LOOP_ARRAYS_DISJOINT _Pragma("GCC ivdep")
#else
#define PBP_LOOP_ARRAYS_DISJOINT
#endif

// A helper several callers share: size builds (-Os, __OPTIMIZE_SIZE__, the device install) keep
// one out-of-line copy; speed builds inline it, so that the loops calling it vectorise.
#if defined(__OPTIMIZE_SIZE__)
#define PBP_SIZE_NOINLINE __attribute__((noinline))
#else
#define PBP_SIZE_NOINLINE
#endif
