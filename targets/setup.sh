#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the cross toolchains and QEMU needed by the target presets (Debian 12 packages only).
# Idempotent: packages already installed are skipped, and nothing is downloaded when all are present.
#
#   targets/setup.sh            Cortex-M and RV32 bare metal + AArch64/ARMv7 Linux + QEMU
#   targets/setup.sh --riscv    also the RISC-V 64 Linux cross compiler (~+60 MB, optional)
#   targets/setup.sh --cortex-m only what the Cortex-M firmware needs (pbp demo's device)
#   targets/setup.sh --check    only report what is missing (exit 1 if anything is)
set -euo pipefail

packages=(
  # Cortex-M bare metal. libstdc++-arm-none-eabi-dev brings only the C++ headers (<cstdint>,
  # <type_traits>, ...); the library itself is not needed: C++ objects link with the C driver.
  gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-dev picolibc-arm-none-eabi
  qemu-system-arm
  # RV32 bare metal (rv32imac, rv32imafc): GCC for riscv64-unknown-elf (multilib, rv32 included),
  # picolibc built for it (semihosting crt0 and I/O), and qemu-system-riscv32 from qemu-system-misc.
  gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf qemu-system-misc
  # Linux targets under user-mode QEMU; googletest's sources for the host suite built for AArch64
  # (preset host-aarch64: GoogleTest is compiled with the cross compiler, no multiarch needed).
  qemu-user g++-aarch64-linux-gnu g++-arm-linux-gnueabihf googletest
  # Tools used by targets/tools (plugin build, size report).
  gcc make cmake
  # The Arduino build tool, for the Arduino library's check (targets/arduino/check.sh).
  arduino-builder
)
check_only=0
for arg in "$@"; do
  case "$arg" in
    --riscv) packages+=(g++-riscv64-linux-gnu) ;;
    --cortex-m)
      packages=(gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-dev qemu-system-arm
        cmake make)
      ;;
    --check) check_only=1 ;;
    -h | --help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup.sh: all target packages are installed"
  exit 0
fi
echo "setup.sh: missing: ${missing[*]}"
[ "$check_only" = 1 ] && exit 1

sudo=""
if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
# Waits for another apt or dpkg run (a shared machine, unattended upgrades) instead of failing.
$sudo apt-get -o DPkg::Lock::Timeout=600 update -qq
$sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}"
echo "setup.sh: installed ${missing[*]}"
