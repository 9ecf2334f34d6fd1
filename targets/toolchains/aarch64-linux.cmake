# SPDX-License-Identifier: Apache-2.0
# AArch64 Linux (glibc, static), tests run under user-mode QEMU. Usage: cmake --preset aarch64-linux
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(PBP_LINUX_TRIPLE aarch64-linux-gnu)
set(PBP_QEMU_USER qemu-aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/linux-common.cmake)
