#!/usr/bin/env bash
# The project's test command (the README's, and what CI runs):
#   1. installs what is missing (Debian packages),
#   2. builds and tests the host preset (runtime, trainer, CLI, all host tests, fuzz corpus replay),
#   3. builds and runs the same tests for the baseline CPU (no AVX2/FMA), then again under
#      AddressSanitizer + UBSan,
#   4. cross-builds the runtime suite and runs it under QEMU on the targets,
#   5. installs the packages and builds projects of a user's against them, and runs
#      targets/DEPLOYING.md's walk-through verbatim (tests/package/check.sh),
#   6. checks accuracy on the real data sets when ../shared/datasets is there.
# Set PBP_CHECK_SKIP="baseline asan targets package accuracy" (any subset) to skip stages locally.
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

if ! skipped targets && [ -f targets/presets.txt ]; then
  while read -r preset; do
    [ -z "$preset" ] || [[ "$preset" == \#* ]] && continue
    stage "target $preset (QEMU)"
    cmake --workflow --preset "$preset"
  done < targets/presets.txt
fi

if ! skipped package; then
  stage "package: installed, used by projects outside the tree, DEPLOYING.md verbatim"
  start=$SECONDS
  bash tests/package/check.sh
  echo "package: $((SECONDS - start)) s"
fi

if ! skipped accuracy && [ -d ../shared/datasets ]; then
  stage "accuracy on real data"
  bash tools/scripts/accuracy_check.sh build/host/bin/pbp ../shared/datasets
fi
echo
echo "check: all stages passed"
