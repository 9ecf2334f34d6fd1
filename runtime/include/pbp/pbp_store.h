/* SPDX-License-Identifier: Apache-2.0 */
/* pbp runtime: keeping what a device learnt across resets and power cuts (C99). Two slots in
 * NOR flash, each a header (magic, sequence number, blob size, blob CRC, header CRC) and a blob;
 * a save writes the slot that is not current and programs its header last, so a slot becomes
 * valid only when its last write lands. Why that survives a cut at any point: DEPLOYING.md §8.
 *
 *   static const pbp_flash flash = {&board, board_read, board_erase, board_program, 4096, 8};
 *   static pbp_store store;
 *   static uint32_t boot_blob[MAX_BLOB / 4], save_blob[MAX_BLOB / 4];
 *   pbp_store_init(&store, &flash, SLOT0, SLOT1, SLOT_BYTES, factory, factory_size);
 *   pbp_store_boot(&store, boot_blob, sizeof boot_blob, &model, &source);  (newest, older, factory)
 *   pbp_learn_init(&learner, &model, state, sizeof state);
 *   ... pbp_learn_update ...
 *   pbp_store_save(&store, &learner, save_blob, sizeof save_blob);         (every N rows)
 *   pbp_store_forget(&store);                                              (back to the factory)
 *
 * Memory: a pbp_store (36 bytes on 32-bit targets), the caller's boot buffer (the opened model and
 * a learner built from it read it in place) and save buffer (the blob being written; a different
 * buffer, as the learner reads its source while writing), each as large as the blob. Code, stack
 * and the bytes written per save: targets/DEPLOYING.md, "Footprint".
 */
#ifndef PBP_PBP_STORE_H
#define PBP_PBP_STORE_H

#include "pbp/pbp.h"
#include "pbp/pbp_learn.h" /* pbp_store_save takes a pbp_learner */

#ifdef __cplusplus
extern "C" {
#endif

/* A slot's header region: the header (20 bytes) padded to this, the blob after it. */
#define PBP_STORE_HEADER_BYTES 64u
/* The largest write granularity the store programs (a power of two up to this). */
#define PBP_STORE_MAX_WRITE_SIZE 64u
/* Bytes of a slot that holds a blob of `blob_bytes`: the header and the blob, in whole pages. */
#define PBP_STORE_SLOT_BYTES(blob_bytes, page_size) \
  ((((PBP_STORE_HEADER_BYTES + (blob_bytes)) + (page_size)-1u) / (page_size)) * (page_size))
/* store->current when no slot holds a model that opens (the factory blob is in use). */
#define PBP_STORE_NO_SLOT 0xFFFFFFFFu

/* The board's flash, one small file per port. Offsets are the driver's (e.g. from the start of
 * the flash). Each function returns 0 when the operation completed, anything else on failure.
 * NOR semantics are assumed: erase sets a page's bytes to 0xFF, program only clears bits, and a
 * cut during either leaves the bytes being worked on in any state. */
typedef struct pbp_flash {
  void* context; /* passed back to every function */
  int (*read)(void* context, uint32_t offset, void* out, uint32_t size);
  int (*erase_page)(void* context, uint32_t offset); /* offset: a page start */
  /* offset and size: multiples of write_size; the range never crosses a page boundary */
  int (*program)(void* context, uint32_t offset, const void* data, uint32_t size);
  uint32_t page_size;  /* erase unit, a multiple of write_size */
  uint32_t write_size; /* program unit: a power of two, 1 .. PBP_STORE_MAX_WRITE_SIZE */
} pbp_flash;

/* Where pbp_store_boot found the model. */
typedef enum pbp_store_source {
  PBP_STORE_FACTORY = 0, /* no slot holds a model that opens: the factory blob */
  PBP_STORE_NEWEST = 1,  /* the slot with the newest sequence number */
  PBP_STORE_OLDER = 2,   /* the newest slot did not open (a save cut short, or worn): the other */
  PBP_STORE_SOURCE_FORCE_32_BITS = 0x7fffffff
} pbp_store_source;

/* Two slots and the factory blob. Read the fields freely; change none. */
typedef struct pbp_store {
  const pbp_flash* flash;
  uint32_t slot_offset[2]; /* page-aligned, not overlapping */
  uint32_t slot_bytes;     /* each slot, whole pages */
  const void* factory_blob;
  size_t factory_size;
  uint32_t current;  /* the slot booted from or last saved, or PBP_STORE_NO_SLOT */
  uint32_t sequence; /* its sequence number; a save writes sequence + 1 (mod 2^32) */
  uint32_t store_marker;
} pbp_store;

/* Checks the geometry and fills `store`; touches no flash. Errors: PBP_ERR_NULL_ARGUMENT,
 * PBP_ERR_STORE_LAYOUT (write size not a power of two up to PBP_STORE_MAX_WRITE_SIZE, page size
 * not a multiple of it, a slot not page-aligned, not whole pages, smaller than a header and the
 * smallest blob, or overlapping the other). The factory blob is opened by pbp_store_boot. */
pbp_status pbp_store_init(pbp_store* store, const pbp_flash* flash, uint32_t slot0_offset,
                          uint32_t slot1_offset, uint32_t slot_bytes, const void* factory_blob,
                          size_t factory_size);

/* Opens the model to start from: the slot with the newest sequence number (serial-number
 * arithmetic, so it wraps) whose header and blob check out and whose blob opens, read into
 * `buffer` (4-byte aligned); else the other slot; else the factory blob, opened in place.
 * `*source` says which. Errors: PBP_ERR_NULL_ARGUMENT, PBP_ERR_MODEL_NOT_OPEN (store not
 * initialised), PBP_ERR_MISALIGNED_POINTER, PBP_ERR_BUFFER_TOO_SMALL (a valid slot holds a blob
 * larger than `capacity`: nothing is opened rather than silently fall back), PBP_ERR_FLASH (a
 * read failed), or pbp_open's status for a factory blob that does not open. */
pbp_status pbp_store_boot(pbp_store* store, void* buffer, size_t capacity, pbp_model* model,
                          pbp_store_source* source);

/* Persists a blob that opens: programs it into the slot that is not current (erased first,
 * header page first), reads back what landed and compares it byte for byte, then programs the
 * header, reads it back, and only then makes that slot current. On any error the current slot
 * and what boot returns are unchanged. Errors: PBP_ERR_NULL_ARGUMENT, PBP_ERR_MODEL_NOT_OPEN,
 * PBP_ERR_MISALIGNED_POINTER, pbp_open's status for `blob`, PBP_ERR_BAD_LEARN_CHECK (its
 * learn_check section, which pbp_open skips, is one pbp_learn_init refuses),
 * PBP_ERR_BUFFER_TOO_SMALL (the blob does not fit a slot), PBP_ERR_FLASH, PBP_ERR_FLASH_VERIFY
 * (read back differs: a worn slot). */
pbp_status pbp_store_save_blob(pbp_store* store, const void* blob, size_t size);

/* pbp_store_save_blob of the learner's model, written first into `scratch` (4-byte aligned,
 * `capacity` >= learner->blob_bytes; not the buffer the learner's source blob is in) with
 * pbp_learn_write_blob. Errors: those of both. */
pbp_status pbp_store_save(pbp_store* store, const pbp_learner* learner, void* scratch,
                          size_t capacity);

/* Back to the factory blob: erases the older slot's header page, then the current one's, so a
 * cut leaves either what was current or nothing. Errors: PBP_ERR_NULL_ARGUMENT,
 * PBP_ERR_MODEL_NOT_OPEN, PBP_ERR_FLASH. */
pbp_status pbp_store_forget(pbp_store* store);

#ifdef __cplusplus
}
#endif

#endif /* PBP_PBP_STORE_H */
