/* SPDX-License-Identifier: Apache-2.0 */
/* The wide shape's blob linked into read-only memory as it is, by the assembler's .incbin (as the
 * Fashion-MNIST example links its own): PREDICT_COST_WIDE_BLOB, the int8 example's blob or the
 * same model decoded to float32 (predict_cost_targets.sh). 8-byte aligned for pbp_open. */
#include <stdint.h>

__asm__(
    ".section .rodata.wide_blob,\"a\"\n"
    ".balign 8\n"
    ".global wide_blob\n"
    "wide_blob:\n"
    ".incbin \"" PREDICT_COST_WIDE_BLOB
    "\"\n"
    ".global wide_blob_end\n"
    "wide_blob_end:\n"
    ".previous\n");
