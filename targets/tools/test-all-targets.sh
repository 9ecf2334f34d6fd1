#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Configures, builds and tests every target preset (or the given ones), then prints one summary line
# per preset: result, test counts and wall times. Logs: build/<preset>/test-all.log.
#
#   targets/tools/test-all-targets.sh                    every target of targets/presets.txt
#   targets/tools/test-all-targets.sh cortex-m0 cortex-m4f
# Exit status 0 only if every preset configured, built and passed.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"
presets=("$@")
if [ ${#presets[@]} -eq 0 ]; then
  while read -r p; do
    [ -z "$p" ] || [[ "$p" == \#* ]] && continue
    presets+=("$p")
  done < targets/presets.txt
fi

summary=()
failed=0
for p in "${presets[@]}"; do
  mkdir -p "build/$p"
  log="build/$p/test-all.log"
  : >"$log"
  t0=$(date +%s.%N)
  if ! cmake --preset "$p" >>"$log" 2>&1; then
    summary+=("$(printf '%-14s CONFIGURE FAILED (see %s)' "$p" "$log")"); failed=1; continue
  fi
  t1=$(date +%s.%N)
  if ! cmake --build --preset "$p" >>"$log" 2>&1; then
    summary+=("$(printf '%-14s BUILD FAILED (see %s)' "$p" "$log")"); failed=1; continue
  fi
  t2=$(date +%s.%N)
  ctest --preset "$p" >"build/$p/ctest.log" 2>&1
  rc=$?
  t3=$(date +%s.%N)
  cat "build/$p/ctest.log" >>"$log"
  result=$(grep -E 'tests passed' "build/$p/ctest.log" | tail -1)
  fails=$(grep -E '^\s+[0-9]+ - ' "build/$p/ctest.log" | sed 's/^ *[0-9]* - //' | tr '\n' ' ')
  [ $rc -eq 0 ] || failed=1
  summary+=("$(printf '%-14s %-40s build %5.1fs  test %5.1fs  %s' "$p" "${result:-no tests}" \
    "$(awk "BEGIN{print $t2 - $t1}")" "$(awk "BEGIN{print $t3 - $t2}")" "${fails:+FAILED: $fails}")")
done
printf '%s\n' "${summary[@]}"
exit $failed
