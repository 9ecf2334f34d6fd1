#!/usr/bin/env bash
# The project's test command (the README's, and what CI runs):
#   1. installs what is missing (Debian packages),
#   2. builds and tests the host preset (runtime, trainer, CLI, all host tests, fuzz corpus replay),
#   3. builds and runs the same tests for the baseline CPU (no AVX2/FMA), then again under
#      AddressSanitizer + UBSan,
#   4. cross-builds the same host suite for AArch64 Linux and runs it under qemu-aarch64,
#   5. cross-builds the runtime suite and runs it under QEMU on the targets,
#   6. checks accuracy on the real data sets when ../shared/datasets is there.
# Set PBP_CHECK_SKIP="baseline asan aarch64 targets accuracy" (any subset) to skip stages locally.
set -euo pipefail
cd "$(dirname "$0")/.."
skip=" ${PBP_CHECK_SKIP:-} "
stage() { printf '\n==== %s ====\n' "$*"; }
skipped() { [[ "$skip" == *" $1 "* ]]; }

stage "setup"
bash tools/setup.sh --all

stage "host: configure, build, test"
cmake --workflow --preset host

if ! skipped baseline; then
  # The same suite built for the architecture's baseline CPU (no AVX2/FMA tuning, no
  # x86-64-v2/v3 default): a tolerance that holds only on the CI machine's CPU fails here.
  stage "host built for the baseline CPU (PBP_CPU_BASELINE)"
  cmake --workflow --preset host-baseline
fi

if ! skipped asan; then
  stage "host under AddressSanitizer and UBSan"
  cmake --workflow --preset host-asan
fi

if ! skipped aarch64; then
  # The whole host suite on another architecture (char unsigned, long double binary128), every
  # test under qemu-aarch64 but the 10^6-point math sweeps (label `sweep`; README, Quick start).
  stage "host suite cross-built for AArch64 Linux (qemu-aarch64)"
  cmake --workflow --preset host-aarch64
fi

if ! skipped targets && [ -f targets/presets.txt ]; then
  while read -r preset; do
    [ -z "$preset" ] || [[ "$preset" == \#* ]] && continue
    stage "target $preset (QEMU)"
    cmake --workflow --preset "$preset"
  done < targets/presets.txt
fi

if ! skipped accuracy && [ -d ../shared/datasets ]; then
  stage "accuracy on real data"
  bash tools/scripts/accuracy_check.sh build/host/bin/pbp ../shared/datasets
fi
echo
echo "check: all stages passed"
