# SPDX-License-Identifier: Apache-2.0
# RV32IMAC (no FPU: soft float, ilp32 ABI), machine mode.
# Board: targets/boards/virt-rv32 (QEMU -M virt, a CPU without F and D). Usage: cmake --preset rv32imac
set(PBP_BOARD virt-rv32)
set(PBP_CPU_FLAGS "-march=rv32imac -mabi=ilp32")
set(PBP_QEMU_CPU "rv32,f=off,d=off")
include(${CMAKE_CURRENT_LIST_DIR}/riscv32-elf.cmake)
