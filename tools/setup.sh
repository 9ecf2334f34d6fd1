#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what pbp-edge needs on a Debian 12 machine (run as root, or with sudo available).
#   tools/setup.sh          host build: compiler, CMake, GoogleTest, clang (fuzzer), valgrind,
#                           pkg-config (the installed runtime's pbp-runtime.pc), and for the
#                           Python module pbp_edge: Python headers, pybind11, NumPy, pytest,
#                           scikit-learn and pandas (its tests use them), build and venv (its
#                           wheel, built and installed into a fresh venv by tools/check.sh), all
#                           for Debian's /usr/bin/python3
#   tools/setup.sh --all    also the cross toolchains and QEMU (targets/setup.sh)
#   tools/setup.sh --demo   also the Cortex-M toolchain and QEMU that pbp demo's device needs
#   tools/setup.sh --bench  also PyTorch (python3-torch), for the benchmarks' baselines only
#                           (tools/bench/uci.sh --ensemble): pbp-edge never needs it
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
extra=()
[ "${1:-}" != "--bench" ] || extra=(python3-torch)
packages=(build-essential cmake ninja-build ccache g++ libgtest-dev clang libclang-rt-14-dev valgrind binutils pkgconf
          python3-dev python3-pybind11 python3-numpy python3-pytest python3-sklearn python3-pandas
          python3-build python3-venv "${extra[@]+"${extra[@]}"}")

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    echo "setup: need root to install: $*" >&2; return 1; fi
}

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if [ "${1:-}" = "--all" ] && [ -f "$here/../targets/setup.sh" ]; then
  bash "$here/../targets/setup.sh"
elif [ "${1:-}" = "--demo" ] && [ -f "$here/../targets/setup.sh" ]; then
  bash "$here/../targets/setup.sh" --cortex-m
fi
