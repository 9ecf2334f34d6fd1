# SPDX-License-Identifier: Apache-2.0
# Cortex-M0 (ARMv6-M, soft float), 16 KiB RAM.
# Board: targets/boards/microbit (QEMU -M microbit). Usage: cmake --preset cortex-m0
set(PBP_BOARD microbit)
set(PBP_CPU_FLAGS "-mcpu=cortex-m0 -mthumb -mfloat-abi=soft")
include(${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi.cmake)
