# SPDX-License-Identifier: Apache-2.0
# Cortex-M7 (ARMv7E-M, double-precision FPU fpv5-d16, hard-float ABI).
# Board: targets/boards/mps2-an500 (QEMU -M mps2-an500). Usage: cmake --preset cortex-m7
set(PBP_BOARD mps2-an500)
set(PBP_CPU_FLAGS "-mcpu=cortex-m7 -mthumb -mfloat-abi=hard -mfpu=fpv5-d16 -mfp16-format=ieee")
include(${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi.cmake)
