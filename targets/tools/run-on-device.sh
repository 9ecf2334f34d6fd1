#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs a model blob on a simulated device: the model_runner firmware example
# (targets/examples/model_runner) under QEMU prints every output's float bits, one line per input
# row, which `pbp demo --device` compares with the host runtime's.
#   targets/tools/run-on-device.sh [--preset cortex-m4f] MODEL.pbp ROWS.csv
#   targets/tools/run-on-device.sh [--preset cortex-m4f] MODEL.pbp INPUTS.f32
#   targets/tools/run-on-device.sh [--preset cortex-m4f] --build-only
# ROWS.csv: a header and data rows, matched to the model's inputs as `pbp predict` matches them
# (by feature name; a target column may be present), converted by the host tool ($PBP, default
# build/host/bin/pbp): `pbp predict --inputs-f32`. INPUTS.f32: little-endian float32 rows, what
# that writes. The firmware is configured and built first when needed (build/<preset>, from
# CMakePresets.json; bash targets/setup.sh installs the toolchains).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
preset=cortex-m4f
if [[ ${1:-} == --preset ]]; then
  preset=${2:?--preset needs a value}
  shift 2
fi
build_only=0
if [[ ${1:-} == --build-only && $# -eq 1 ]]; then
  build_only=1
elif [[ $# -ne 2 ]]; then
  echo "usage: $0 [--preset PRESET] (MODEL.pbp ROWS.csv | MODEL.pbp INPUTS.f32 | --build-only)" >&2
  exit 2
fi
build=$root/build/$preset
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log=$work/build.log
# Configured every time (about a second): a build folder from before the firmware example
# existed has no rule for it, and make does not regenerate for an unknown target.
if ! (cd "$root" && cmake --preset "$preset") >"$log" 2>&1 ||
  ! cmake --build "$build" --target example_model_runner >>"$log" 2>&1; then
  cat "$log" >&2
  echo "run-on-device.sh: building the $preset firmware failed" >&2
  exit 1
fi
[[ $build_only == 1 ]] && exit 0
inputs=$2
if [[ $inputs == *.csv ]]; then
  pbp=${PBP:-$root/build/host/bin/pbp}
  if [[ ! -x $pbp ]]; then
    echo "run-on-device.sh: reading a CSV needs the host pbp tool ($pbp): build it with" \
      "'cmake --preset host && cmake --build --preset host --target pbp', or set PBP" >&2
    exit 1
  fi
  "$pbp" predict --model "$1" --data "$inputs" --out "$work/host.csv" \
    --inputs-f32 "$work/inputs.f32" >/dev/null
  inputs=$work/inputs.f32
fi
sh "$build/run-model-runner.sh" "$1" "$inputs"
