#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The project's test command (the README's, and what CI runs):
#   1. installs what is missing (Debian packages),
#   2. builds and tests the host preset (runtime, trainer, CLI, all host tests, fuzz corpus replay),
#      then the Python module pbp_edge as a wheel installed into a fresh venv, and its tests
#      (pytest, with Debian's /usr/bin/python3),
#   3. builds and runs the same tests (but the sweeps, and the checks of the source tree alone:
#      licence lines, docs' links, the Arduino library) for the baseline CPU (no AVX2/FMA) under AddressSanitizer +
#      UBSan (one build: a tolerance that holds only on this machine's CPU fails there too),
#   4. cross-builds the same host suite for AArch64 Linux and runs it under qemu-aarch64,
#   5. cross-builds the runtime suite and runs it under QEMU on the targets,
#   6. installs the packages and builds projects of a user's against them, and runs
#      targets/DEPLOYING.md's walk-through verbatim (tests/package/check.sh),
#   7. checks the README against the code (tools/scripts/readme_check.py): its quick-start output
#      is what `bash tools/quickstart.sh` prints, its sh and python blocks run, its links resolve,
#   8. checks accuracy on real data: ../shared/datasets, or without it the sets Debian ships
#      (tools/scripts/fetch_datasets.sh); the checks whose data is absent are named at the end.
# PBP_CHECK_SKIP="python asan aarch64 targets package readme accuracy" (any subset; host-asan names the
# same stage) skips stages locally; the skipped stages are named at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
# Every core for the tests (the presets fix no count: Ninja builds on every core already).
export CTEST_PARALLEL_LEVEL="${CTEST_PARALLEL_LEVEL:-$(nproc)}"
stages="python asan aarch64 targets package readme accuracy"
skip=" "
for word in ${PBP_CHECK_SKIP:-}; do
  if [[ " $stages " != *" ${word#host-} "* ]]; then
    echo "check: PBP_CHECK_SKIP names no stage '$word' (stages: $stages)" >&2
    exit 2
  fi
  skip+="${word#host-} "
done
notes=()  # what was not checked, for the summary
stage_times=()  # each stage's wall time and CPU time, for the summary
current=""
cpu_file=$(mktemp)
trap 'rm -f "$cpu_file"' EXIT
cpu=0
cpu_now() {  # sets cpu: the CPU seconds (user + system) of every child that has ended so far
  times >"$cpu_file"  # a builtin, in this shell: a $(times) subshell would count its own children
  cpu=$(awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); s += 60 * t[1] + t[2] } }
    END { printf "%d", s }' "$cpu_file")
}
end_stage() {
  cpu_now
  stage_times+=("$current $((SECONDS - started)) s ($((cpu - cpu_started)) CPU s)")
}
stage() {  # stage <name> <title>
  [ -z "$current" ] || end_stage
  current=$1
  started=$SECONDS
  cpu_now
  cpu_started=$cpu
  printf '\n==== %s ====\n' "$2"
}
skipped_quietly() { [[ "$skip" == *" $1 "* ]]; }
skipped() {
  skipped_quietly "$1" || return 1
  notes+=("stage $1 skipped (PBP_CHECK_SKIP)")
}

stage setup "setup"
bash tools/setup.sh --all

stage host "host: configure, build, test"
cmake --workflow --preset host

if ! skipped python; then
  # The module as a user installs it: a wheel built by pyproject.toml's backend (its own CMake
  # build, build/python-wheel), installed into a fresh venv, its tests run from the venv's folder
  # against the installed module (PBP_EDGE_INSTALLED: never the build folder's); no bytecode or
  # cache in the tree.
  stage python "python: the pbp_edge wheel, installed in a fresh venv, and its tests (pytest)"
  rm -rf build/wheel build/venv-python
  /usr/bin/python3 -m build --wheel --no-isolation --outdir build/wheel .
  /usr/bin/python3 -m venv --system-site-packages build/venv-python
  build/venv-python/bin/python -m pip install --no-index --no-build-isolation build/wheel/pbp_edge-*.whl
  (cd build/venv-python && PYTHONDONTWRITEBYTECODE=1 PBP_EDGE_INSTALLED=1 PBP_CLI="$PWD/../host/bin/pbp" \
    bin/python -m pytest -p no:cacheprovider -q --rootdir=. ../../tests/python)
fi

if ! skipped asan; then
  # The same suite built for the architecture's baseline CPU (no AVX2/FMA tuning, no x86-64-v2/v3
  # default), under the sanitizers: a tolerance that holds only on the CI machine's CPU fails here.
  stage asan "host built for the baseline CPU, under AddressSanitizer and UBSan"
  cmake --workflow --preset host-asan
fi

if ! skipped aarch64; then
  # The whole host suite on another architecture (char unsigned, long double binary128), every
  # test under qemu-aarch64 but the 10^6-point math sweeps (label `sweep`) and the longest training
  # runs (label `heavy`; tests/host/CMakeLists.txt, tests/README.md).
  stage aarch64 "host suite cross-built for AArch64 Linux (qemu-aarch64)"
  cmake --workflow --preset host-aarch64
fi

if ! skipped targets && [ -f targets/presets.txt ]; then
  # Two workflows at a time (a configure step uses one core), each one's output whole when it ends.
  mapfile -t presets < <(grep -v -e '^#' -e '^$' targets/presets.txt)
  again=""
  if ! skipped_quietly aarch64; then
    # aarch64-linux's suite is a subset of host-aarch64's, from the same objects (same toolchain and
    # flags): it ran in the aarch64 stage.
    mapfile -t presets < <(printf '%s\n' "${presets[@]}" | grep -vx aarch64-linux)
    again=" (aarch64-linux's tests ran in the aarch64 stage)"
  fi
  stage targets "targets: ${presets[*]} (QEMU), two at a time$again"
  bash tools/scripts/target_workflows.sh "${presets[@]}"
fi

if ! skipped package; then
  stage package "package: installed, used by projects outside the tree, DEPLOYING.md verbatim"
  bash tests/package/check.sh
fi

if ! skipped readme; then
  # After the host and package stages: the quick start then only fetches the data and runs the demo.
  stage readme "README: the quick start's output, its blocks and links (tools/scripts/readme_check.py)"
  /usr/bin/python3 tools/scripts/readme_check.py
fi

if ! skipped accuracy; then
  stage accuracy "accuracy on real data"
  data=../shared/datasets
  if [ ! -d "$data" ]; then
    data=build/datasets
    echo "accuracy: no ../shared/datasets: the sets Debian ships, in $data"
    bash tools/scripts/fetch_datasets.sh "$data"
  fi
  bash tools/scripts/accuracy_check.sh build/host/bin/pbp "$data" | tee build/accuracy.log
  while IFS= read -r line; do notes+=("accuracy ${line#*SKIPPED: }"); done \
    < <(grep 'SKIPPED:' build/accuracy.log || true)
fi
end_stage
echo
# CPU seconds, unlike wall seconds, hardly change when other work shares the machine.
echo "check: all stages passed in $SECONDS s, $cpu CPU s ($(IFS=,; echo "${stage_times[*]}" | sed 's/,/, /g'))"
if [ ${#notes[@]} -gt 0 ]; then
  echo "check: NOT CHECKED (${#notes[@]}):"
  printf '  %s\n' "${notes[@]}"
fi
