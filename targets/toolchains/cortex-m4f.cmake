# SPDX-License-Identifier: Apache-2.0
# Cortex-M4F (ARMv7E-M, single-precision FPU, hard-float ABI).
# Board: targets/boards/mps2-an386 (QEMU -M mps2-an386). Usage: cmake --preset cortex-m4f
set(PBP_BOARD mps2-an386)
set(PBP_CPU_FLAGS "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -mfp16-format=ieee")
include(${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi.cmake)
