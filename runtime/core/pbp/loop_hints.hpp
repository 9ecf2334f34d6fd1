// SPDX-License-Identifier: Apache-2.0
// Compiler hints for the elementwise loops of the runtime and the trainer.
#pragma once

// "These arrays never overlap" for a loop, for GCC's vectoriser (clang has no GCC ivdep, and its
// own hint warns wherever it cannot vectorise: left out).
#if defined(__GNUC__) && !defined(__clang__)
#define PBP_LOOP_ARRAYS_DISJOINT _Pragma("GCC ivdep")
#else
#define PBP_LOOP_ARRAYS_DISJOINT
#endif
