#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tools/bench/active_density_width.sh on a generated 300-row set, two widths, two repeats: a table
# row per width, the criterion per width, a choice among them, every run scored on the pool; a
# missing data file is refused before any run.
#   active_density_width_test.sh <pbp binary> <scratch folder>
set -euo pipefail
pbp=$1
work=$2
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
script=$root/tools/bench/active_density_width.sh
check() {  # message condition...
  local message=$1
  shift
  "$@" || { echo "FAILED: $message" >&2; exit 1; }
}
rm -rf "$work"
mkdir -p "$work"
awk 'BEGIN { print "x0,x1,y"
  for (i = 0; i < 300; ++i) { a = (i * 37 % 300) / 100 - 1.5; b = (i * 11 % 17) / 17
    printf "%.6g,%.6g,%.6g\n", a, b, a * a - b + 0.05 * ((i * 7) % 5 - 2) } }' >"$work/gen.csv"
"$script" --pbp "$pbp" --out "$work/out" --widths "1 3" --repeats 2 "$work/gen.csv" \
  >"$work/stdout.txt" 2>"$work/stderr.txt" ||
  { cat "$work/stdout.txt" "$work/stderr.txt" >&2; echo "FAILED: the script exited non-zero" >&2; exit 1; }
cat "$work/stdout.txt"
check "a table row per width" test "$(grep -c '^| gen | [13] | ' "$work/stdout.txt")" -eq 2
check "the criterion per width" test "$(grep -c '^  width [13]: [-+][0-9]' "$work/stdout.txt")" -eq 2
check "a choice among the widths" grep -q '^choice: --density-width [13]$' "$work/stdout.txt"
check "every run scored on the pool" python3 -c '
import json, sys
for name in sys.argv[1:]:
    runs = json.load(open(name))
    for s in ("density-variance", "density-reduction", "random"):
        assert runs[s]["scored_on"] == "pool" and runs[s]["repeats"] == 2, (name, s)' \
  "$work/out/gen_w1_s1.json" "$work/out/gen_w3_s1.json"
if "$script" --pbp "$pbp" --out "$work/out2" "$work/missing.csv" >/dev/null 2>"$work/bad.txt"; then
  echo "FAILED: a missing data file was accepted" >&2
  exit 1
fi
check "the missing file named" grep -q 'missing.csv: not a file' "$work/bad.txt"
check "nothing run for it" test ! -e "$work/out2"
echo "active_density_width.sh end to end: ok"
