# SPDX-License-Identifier: Apache-2.0
# Arm MPS3 AN547 (Cortex-M55, Armv8.1-M Mainline with MVE and TrustZone) under QEMU. Memory map
# and stack size: memory.ld beside this file.
set(PBP_BOARD_PORT cortex-m)  # targets/boards/cortex-m: startup.c, cortex-m.ld
set(PBP_QEMU_MACHINE mps3-an547)
