# SPDX-License-Identifier: Apache-2.0
# Cortex-M33 (Armv8-M Mainline, single-precision FPU fpv5-sp-d16, hard-float ABI, DSP extension).
# Board: targets/boards/mps2-an505 (QEMU -M mps2-an505). Usage: cmake --preset cortex-m33
set(PBP_BOARD mps2-an505)
set(PBP_CPU_FLAGS "-mcpu=cortex-m33 -mthumb -mfloat-abi=hard -mfpu=fpv5-sp-d16 -mfp16-format=ieee")
include(${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi.cmake)
