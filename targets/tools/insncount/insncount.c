/* SPDX-License-Identifier: Apache-2.0 */
/* QEMU TCG plugin: counts executed guest instructions and prints "insns: N" at exit.
 * Adapted from shared/tools/qemu-insncount.c. Plugin API v1 (QEMU 7.2, Debian 12): Debian ships
 * neither plugins nor qemu-plugin.h, so the few declarations needed are written out here.
 * Counting is an inline add per executed translation block, so it is exact and repeatable for
 * bare-metal images (single vCPU). Built by targets/tools/count-instructions.sh (or this folder's
 * CMakeLists.txt); see that script for use. */
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t, tb_trans_cb_t);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb*, enum qemu_plugin_op, void*,
                                              uint64_t);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb*);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t, udata_cb_t, void*);
void qemu_plugin_outs(const char*);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

static uint64_t insn_count;

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb* tb) {
  (void)id;
  qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &insn_count,
                                           qemu_plugin_tb_n_insns(tb));
}

static void at_exit(qemu_plugin_id_t id, void* p) {
  (void)id;
  (void)p;
  char buf[64];
  snprintf(buf, sizeof buf, "insns: %" PRIu64 "\n", insn_count);
  qemu_plugin_outs(buf);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id,
                                                               const qemu_info_t* info, int argc,
                                                               char** argv) {
  (void)info;
  (void)argc;
  (void)argv;
  qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
  qemu_plugin_register_atexit_cb(id, at_exit, NULL);
  return 0;
}
