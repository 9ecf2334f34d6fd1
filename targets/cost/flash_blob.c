/* SPDX-License-Identifier: Apache-2.0 */
/* target_cost_flash's blob (COST_FLASH_BLOB, a path) linked into flash as it is by the
 * assembler's .incbin, 8-byte aligned for pbp_open: for a board whose RAM cannot hold it. */
__asm__(
    ".section .rodata.cost_flash_blob,\"a\"\n"
    ".balign 8\n"
    ".global cost_flash_blob\n"
    "cost_flash_blob:\n"
    ".incbin \"" COST_FLASH_BLOB
    "\"\n"
    ".global cost_flash_blob_end\n"
    "cost_flash_blob_end:\n"
    ".previous\n");
