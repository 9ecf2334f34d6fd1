# SPDX-License-Identifier: Apache-2.0
# RV32IMAFC (single-precision FPU, hard-float ilp32f ABI), machine mode.
# Board: targets/boards/virt-rv32 (QEMU -M virt, a CPU with F and without D). Usage: cmake --preset rv32imafc
set(PBP_BOARD virt-rv32)
set(PBP_CPU_FLAGS "-march=rv32imafc -mabi=ilp32f")
set(PBP_QEMU_CPU "rv32,d=off")
include(${CMAKE_CURRENT_LIST_DIR}/riscv32-elf.cmake)
