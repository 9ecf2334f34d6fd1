# SPDX-License-Identifier: Apache-2.0
# Cortex-M55 (Armv8.1-M Mainline, double-precision FPU and the M-profile Vector Extension with
# floating point, hard-float ABI). MVE's float lanes are IEEE single precision with the scalar
# unit's rounding, and -ffp-contract=off keeps GCC from fusing them, so the bits match the other
# targets (the golden vectors check it). Board: targets/boards/mps3-an547 (QEMU -M mps3-an547).
# Usage: cmake --preset cortex-m55
set(PBP_BOARD mps3-an547)
set(PBP_CPU_FLAGS "-mcpu=cortex-m55 -mthumb -mfloat-abi=hard -mfp16-format=ieee")
include(${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi.cmake)
