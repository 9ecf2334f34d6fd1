# SPDX-License-Identifier: Apache-2.0
# ARMv7-A Linux, hard-float ABI (Debian armhf: VFPv3-D16, Thumb-2), glibc, static; tests run under
# user-mode QEMU. Usage: cmake --preset armv7hf-linux
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR armv7l)
set(PBP_LINUX_TRIPLE arm-linux-gnueabihf)
set(PBP_QEMU_USER qemu-arm)
include(${CMAKE_CURRENT_LIST_DIR}/linux-common.cmake)
