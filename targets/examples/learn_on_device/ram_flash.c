/* SPDX-License-Identifier: Apache-2.0 */
/* A board port of pbp_store is this file with the three functions calling the flash driver. */
#include "ram_flash.h"

#include <string.h>

static uint8_t* flash_bytes;
static uint32_t flash_size;
uint32_t ram_flash_erased, ram_flash_programmed;

static int in_range(uint32_t offset, uint32_t size) {
  return offset <= flash_size && size <= flash_size - offset;
}

static int flash_read(void* context, uint32_t offset, void* out, uint32_t size) {
  (void)context;
  if (!in_range(offset, size)) return -1;
  memcpy(out, flash_bytes + offset, size);
  return 0;
}

static int flash_erase_page(void* context, uint32_t offset) {
  (void)context;
  if (offset % RAM_FLASH_PAGE != 0 || !in_range(offset, RAM_FLASH_PAGE)) return -1;
  memset(flash_bytes + offset, 0xFF, RAM_FLASH_PAGE);
  ram_flash_erased += RAM_FLASH_PAGE;
  return 0;
}

static int flash_program(void* context, uint32_t offset, const void* data, uint32_t size) {
  const uint8_t* from = (const uint8_t*)data;
  (void)context;
  if (offset % RAM_FLASH_WRITE != 0 || size % RAM_FLASH_WRITE != 0 || !in_range(offset, size))
    return -1;
  for (uint32_t i = 0; i < size; ++i) flash_bytes[offset + i] &= from[i]; /* clears bits only */
  ram_flash_programmed += size;
  return 0;
}

pbp_flash ram_flash(uint32_t* memory, uint32_t bytes) {
  pbp_flash flash = {NULL,          flash_read,     flash_erase_page,
                     flash_program, RAM_FLASH_PAGE, RAM_FLASH_WRITE};
  flash_bytes = (uint8_t*)memory;
  flash_size = bytes;
  memset(flash_bytes, 0xFF, bytes);
  ram_flash_erased = ram_flash_programmed = 0;
  return flash;
}
