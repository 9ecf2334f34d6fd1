/* SPDX-License-Identifier: Apache-2.0 */
/* The example's flash port: a pbp_flash over RAM that behaves as NOR flash (erase sets 0xFF,
 * program only clears bits), standing in on QEMU for the board's flash driver. */
#ifndef RAM_FLASH_H
#define RAM_FLASH_H

#include "pbp/pbp_store.h"

#define RAM_FLASH_PAGE 1024u /* erase unit */
#define RAM_FLASH_WRITE 8u   /* program unit (a double word, as on many Cortex-M parts) */

/* Erases `bytes` of RAM (a multiple of RAM_FLASH_PAGE, 4-byte aligned) and returns its port. */
pbp_flash ram_flash(uint32_t* memory, uint32_t bytes);

/* Bytes erased and programmed since ram_flash (to report what a save costs). */
extern uint32_t ram_flash_erased, ram_flash_programmed;

#endif /* RAM_FLASH_H */
