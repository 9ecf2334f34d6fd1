# SPDX-License-Identifier: Apache-2.0
# QEMU's generic RISC-V board ("virt", RV32) run bare metal (-bios none): RAM at 0x80000000, of
# which memory.ld beside this file makes the first 4 MiB the "flash" and the next 4 MiB the RAM.
# The CPU (with or without F) is the preset's (targets/toolchains/rv32imac.cmake, rv32imafc.cmake).
set(PBP_BOARD_PORT riscv)  # targets/boards/riscv: startup.c, riscv.ld
set(PBP_QEMU_MACHINE virt)
