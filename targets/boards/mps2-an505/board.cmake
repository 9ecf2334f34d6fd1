# SPDX-License-Identifier: Apache-2.0
# Arm MPS2 AN505 (Cortex-M33, Armv8-M Mainline with TrustZone) under QEMU. Memory map and stack
# size: memory.ld beside this file.
set(PBP_BOARD_PORT cortex-m)  # targets/boards/cortex-m: startup.c, cortex-m.ld
set(PBP_QEMU_MACHINE mps2-an505)
