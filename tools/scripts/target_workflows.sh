#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs `cmake --workflow --preset <preset>` (configure, build, test under QEMU) for each preset
# named, PBP_TARGET_JOBS (2) at a time: a workflow's configure step runs on one core, so a second
# workflow's build and tests use the other. Each workflow's output goes to build/target-logs/ and
# is printed whole, with its wall time, when it ends (in the order they end, never interleaved).
# Every workflow runs even if one fails; the exit status is then 1 and the failed presets are named.
#   tools/scripts/target_workflows.sh cortex-m0 cortex-m4f ...   (tools/check.sh: targets/presets.txt)
set -uo pipefail
cd "$(dirname "$0")/../.."
jobs="${PBP_TARGET_JOBS:-2}"
logs=build/target-logs
mkdir -p "$logs"
declare -A preset_of=() started_at=()
failed=()

finish_one() {  # waits for a workflow to end and prints its output
  local pid status
  wait -n -p pid
  status=$?
  local preset=${preset_of[$pid]}
  printf '\n==== target %s (QEMU): %s in %d s ====\n' "$preset" \
    "$([ "$status" -eq 0 ] && echo passed || echo "FAILED (exit $status)")" \
    "$((SECONDS - started_at[$pid]))"
  cat "$logs/$preset.log"
  [ "$status" -eq 0 ] || failed+=("$preset")
  unset "preset_of[$pid]" "started_at[$pid]"
}

for preset in "$@"; do
  while [ "${#preset_of[@]}" -ge "$jobs" ]; do finish_one; done
  cmake --workflow --preset "$preset" >"$logs/$preset.log" 2>&1 &
  preset_of[$!]=$preset
  started_at[$!]=$SECONDS
done
while [ "${#preset_of[@]}" -gt 0 ]; do finish_one; done

if [ "${#failed[@]}" -gt 0 ]; then
  echo "targets: ${#failed[@]} of $# FAILED: ${failed[*]} (their output above; logs in $logs)" >&2
  exit 1
fi
echo "targets: all $# passed"
