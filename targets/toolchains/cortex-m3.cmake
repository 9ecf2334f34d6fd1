# SPDX-License-Identifier: Apache-2.0
# Cortex-M3 (ARMv7-M, soft float).
# Board: targets/boards/mps2-an385 (QEMU -M mps2-an385). Usage: cmake --preset cortex-m3
set(PBP_BOARD mps2-an385)
set(PBP_CPU_FLAGS "-mcpu=cortex-m3 -mthumb -mfloat-abi=soft")
include(${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi.cmake)
