/* SPDX-License-Identifier: Apache-2.0 */
/* The int8 Fashion-MNIST blob (fashion_int8.pbp, 973 016 bytes) linked into read-only memory as
 * it is, by the assembler's .incbin: no 5 MB C array to compile. 8-byte aligned for pbp_open.
 * PBP_FASHION_BLOB_PATH is the file's absolute path (CMakeLists.txt). */
#include "fashion_model.h"

__asm__(
    ".section .rodata.fashion_int8,\"a\"\n"
    ".balign 8\n"
    ".global fashion_int8\n"
    "fashion_int8:\n"
    ".incbin \"" PBP_FASHION_BLOB_PATH
    "\"\n"
    ".global fashion_int8_end\n"
    "fashion_int8_end:\n"
    ".previous\n");
