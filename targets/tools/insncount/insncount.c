/* SPDX-License-Identifier: Apache-2.0 */
/* QEMU TCG plugin: counts executed guest instructions and prints "insns: N" at exit.
 * Adapted from shared/tools/qemu-insncount.c. Plugin API v1 (QEMU 7.2, Debian 12): Debian ships
 * neither plugins nor qemu-plugin.h, so the few declarations needed are written out here.
 * Counting is an inline add per executed translation block, so it is exact and repeatable for
 * bare-metal images (single vCPU). Built by targets/tools/count-instructions.sh (or this folder's
 * CMakeLists.txt); see that script for use.
 * With the argument mark=<hex address> (`-plugin libinsncount.so,mark=0x1234`), each execution of
 * the instruction at that address also prints "mark: N", the count so far: the difference of
 * two marks is what ran between them (the marked block's own instructions are counted at its
 * start, the same in every mark). targets/cost measures each prediction so.
 * With profile=<path>, each instruction address's execution count is also written to <path> at
 * exit ("<hex address> <count>" lines); targets/tools/function-counts.py sums them by function. */
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
typedef struct {
  const char* target_name;
  int version_min, version_cur;
  bool system_emulation;
  union {
    struct {
      int smp_vcpus, max_vcpus;
    } system;
  };
} qemu_info_t;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 = 0 };
typedef void (*tb_trans_cb_t)(qemu_plugin_id_t, struct qemu_plugin_tb*);
typedef void (*udata_cb_t)(qemu_plugin_id_t, void*);
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS = 0 };
typedef void (*vcpu_udata_cb_t)(unsigned int, void*);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t, tb_trans_cb_t);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb*, enum qemu_plugin_op, void*,
                                              uint64_t);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb*);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t, udata_cb_t, void*);
void qemu_plugin_outs(const char*);
struct qemu_plugin_insn* qemu_plugin_tb_get_insn(const struct qemu_plugin_tb*, size_t);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn*);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn*, vcpu_udata_cb_t,
                                            enum qemu_plugin_cb_flags, void*);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn*, enum qemu_plugin_op,
                                                void*, uint64_t);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

static uint64_t insn_count;
static uint64_t mark_address;
static bool has_mark;

/* profile=: one counter per instruction address, in an open-addressing table (a guest image's
 * code is far below its 2^20 slots). */
#define PROFILE_SLOTS (1u << 20)
static const char* profile_path;
static uint64_t* profile_address;
static uint64_t* profile_count;
static uint64_t* profile_counter(uint64_t address) {
  uint32_t slot = (uint32_t)((address * 0x9E3779B97F4A7C15ull) >> 44) & (PROFILE_SLOTS - 1u);
  while (profile_count[slot] != UINT64_MAX && profile_address[slot] != address) {
    slot = (slot + 1u) & (PROFILE_SLOTS - 1u);
  }
  if (profile_count[slot] == UINT64_MAX) {
    profile_address[slot] = address;
    profile_count[slot] = 0;
  }
  return &profile_count[slot];
}

static void at_mark(unsigned int vcpu, void* p) {
  (void)vcpu;
  (void)p;
  char buf[64];
  snprintf(buf, sizeof buf, "mark: %" PRIu64 "\n", insn_count);
  qemu_plugin_outs(buf);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb* tb) {
  (void)id;
  const size_t n = qemu_plugin_tb_n_insns(tb);
  qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &insn_count, n);
  for (size_t i = 0; (has_mark || profile_path != NULL) && i < n; ++i) {
    struct qemu_plugin_insn* insn = qemu_plugin_tb_get_insn(tb, i);
    if (has_mark && qemu_plugin_insn_vaddr(insn) == mark_address) {
      qemu_plugin_register_vcpu_insn_exec_cb(insn, at_mark, QEMU_PLUGIN_CB_NO_REGS, NULL);
    }
    if (profile_path != NULL) {
      qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64,
                                                 profile_counter(qemu_plugin_insn_vaddr(insn)), 1);
    }
  }
}

static void at_exit(qemu_plugin_id_t id, void* p) {
  (void)id;
  (void)p;
  char buf[64];
  snprintf(buf, sizeof buf, "insns: %" PRIu64 "\n", insn_count);
  qemu_plugin_outs(buf);
  if (profile_path == NULL) return;
  FILE* out = fopen(profile_path, "w");
  if (out == NULL) {
    qemu_plugin_outs("insncount: cannot write the profile\n");
    return;
  }
  for (uint32_t slot = 0; slot < PROFILE_SLOTS; ++slot) {
    if (profile_count[slot] != UINT64_MAX && profile_count[slot] != 0) {
      fprintf(out, "%" PRIx64 " %" PRIu64 "\n", profile_address[slot], profile_count[slot]);
    }
  }
  fclose(out);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id,
                                                               const qemu_info_t* info, int argc,
                                                               char** argv) {
  (void)info;
  for (int i = 0; i < argc; ++i) {
    if (strncmp(argv[i], "mark=", 5) == 0) {
      mark_address = strtoull(argv[i] + 5, NULL, 16);
      has_mark = true;
    } else if (strncmp(argv[i], "profile=", 8) == 0) {
      profile_path = strdup(argv[i] + 8); /* (argv is not ours to keep) */
      profile_address = malloc(PROFILE_SLOTS * sizeof *profile_address);
      profile_count = malloc(PROFILE_SLOTS * sizeof *profile_count);
      if (profile_path == NULL || profile_address == NULL || profile_count == NULL) return 1;
      memset(profile_count, 0xFF, PROFILE_SLOTS * sizeof *profile_count); /* UINT64_MAX: free */
    }
  }
  qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
  qemu_plugin_register_atexit_cb(id, at_exit, NULL);
  return 0;
}
