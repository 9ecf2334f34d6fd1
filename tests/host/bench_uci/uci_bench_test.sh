#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tools/bench/uci.sh end to end on tiny data sets generated here: a folder set with a constant
# column, a 1e9-scale input and a name that needs XML escaping, and a Boston-layout set named
# like a published row (its anchors must appear); then the gap and tail splits of one of them.
# Then a set without splits must be refused before any training.
#   uci_bench_test.sh <pbp binary> <scratch folder>
set -euo pipefail
pbp=$1
work=$2
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
uci=$root/tools/bench/uci.sh
check() {  # message condition...
  local message=$1
  shift
  "$@" || { echo "FAILED: $message" >&2; exit 1; }
}

rm -rf "$work"
mkdir -p "$work/data/odd&wide/splits" "$work/data/yacht_splits" "$work/bad/broken"

# 60 rows: x0 constant, x1 up to ~1e11, x2 small; y smooth in x1 and x2 plus a wobble.
make_csv() {  # seed
  awk -v seed="$1" 'BEGIN {
    print "x0,x1,x2,y"
    for (i = 0; i < 60; ++i) {
      x1 = (i * 37 % 60) * 1.7e9; x2 = ((i * 13 + seed) % 17) / 17
      printf "7,%.6g,%.6g,%.6g\n", x1, x2, 2 * x2 + x1 / 1e11 + 0.1 * ((i * 7) % 5 - 2)
    }
  }'
}
make_splits() {  # folder: 3 splits, 10 test rows each
  for s in 0 1 2; do
    awk -v s="$s" 'BEGIN { for (i = 0; i < 60; ++i) if ((i + 2 * s) % 6 == 0) print i }' \
      >"$1/index_test_$s.txt"
    awk -v s="$s" 'BEGIN { for (i = 0; i < 60; ++i) if ((i + 2 * s) % 6 != 0) print i }' \
      >"$1/index_train_$s.txt"
  done
}
make_csv 1 >"$work/data/odd&wide/odd&wide.csv"
make_splits "$work/data/odd&wide/splits"
make_csv 5 >"$work/data/yacht.csv"
make_splits "$work/data/yacht_splits"

out=$work/out
"$uci" --pbp "$pbp" --out "$out" --splits 2 "$work/data" -- --recipe paper --epochs 5 \
  >"$work/stdout.txt" 2>"$work/stderr.txt" ||
  {
    cat "$work/stdout.txt" "$work/stderr.txt" >&2
    echo "FAILED: uci.sh exited non-zero" >&2
    exit 1
  }
cat "$work/stdout.txt"
check "table row of the folder set, 2 splits" grep -q '^| odd&wide *| 2 ' "$work/stdout.txt"
check "table row of the Boston-layout set with its anchors" \
  grep -q '^| yacht *| 2 .*| 1.02 / -1.63 *| 0.67 / -1.25 *| 1.58 / -1.18 *| \(yes\|no\) ' \
  "$work/stdout.txt"
check "Markdown written" grep -q '^| yacht ' "$out/uci.md"
check "crossval JSON per set, first 2 splits only" python3 -c '
import json, sys
for name in sys.argv[1:]:
    assert len(json.load(open(name))["splits"]) == 2, name' "$out/odd&wide.json" "$out/yacht.json"
check "SVG is well-formed XML with one panel per set" python3 -c '
import sys, xml.dom.minidom
texts = [t.firstChild.data for t in xml.dom.minidom.parse(sys.argv[1]).getElementsByTagName("text")
         if t.firstChild is not None]
assert "odd&wide" in texts and "yacht" in texts, texts' "$out/uci_loglik.svg"
check "no temporary files left" test -z "$(find "$out" -name '.*')"

# Gap and tail splits, made from the data: one per input column (x0, constant, too: its ties cut
# by row number), the ranks cut as documented, and a table per kind.
shifted=$work/shifted
"$uci" --pbp "$pbp" --out "$shifted" --kinds gap,tail "$work/data" -- --recipe paper \
  --epochs 5 >"$work/shifted.txt" 2>"$work/shifted_err.txt" ||
  { cat "$work/shifted.txt" "$work/shifted_err.txt" >&2; echo "FAILED: --kinds gap,tail" >&2; exit 1; }
cat "$work/shifted.txt"
check "gap table with the published gap figure" \
  grep -q '^| yacht *| 3 .*| -2.114 (MFVI) *| \(yes\|no\) ' "$work/shifted.txt"
check "tail table" grep -q '^Tail splits' "$work/shifted.txt"
check "split files as documented" python3 -c '
import csv, sys
folder, data = sys.argv[1], sys.argv[2]
rows = list(csv.reader(open(data)))[1:]
for kind in ("gap", "tail"):
    names = [line.split()[1] for line in open(f"{folder}/{kind}/columns.txt")]
    assert names == ["x0", "x1", "x2"], names
    for s, name in enumerate(names):
        col = int(name[1:])
        train = [int(i) for i in open(f"{folder}/{kind}/index_train_{s}.txt").read().split()]
        test = [int(i) for i in open(f"{folder}/{kind}/index_test_{s}.txt").read().split()]
        assert sorted(train + test) == list(range(60)) and not set(train) & set(test)
        ranked = sorted(range(60), key=lambda i: (float(rows[i][col]), i))
        expect = ranked[20:40] if kind == "gap" else ranked[:6] + ranked[54:]
        assert sorted(test) == sorted(expect), (kind, name)
' "$shifted/splits/yacht" "$work/data/yacht.csv"
check "JSON carries the kind and test row counts" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["split_kind"] == "gap" and [s["test_rows"] for s in r["splits"]] == [20, 20, 20], r' \
  "$shifted/yacht.gap.json"

# A baseline's JSON (its "method") is shown beside pbp-edge's, with its worst split.
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
r["method"] = "ensemble"
r["splits"][0]["loglik"] = -7.25
json.dump(r, open(sys.argv[2], "w"))' "$shifted/yacht.gap.json" "$work/yacht.gap.ensemble.json"
python3 "$root/tools/bench/uci_report.py" --out "$work/report" "$shifted/yacht.gap.json" \
  "$work/yacht.gap.ensemble.json" >"$work/report.txt"
check "ensemble column with its worst split" grep -q '^| yacht *| 3 .*(worst -7.250) ' \
  "$work/report.txt"
# The distance and pair scales each split's model carries, counted.
mkdir -p "$work/scales"
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
for split, (a, a2) in zip(r["splits"], [(0.5, 2), (0.5, 0.25), (1, 2)]):
    split["distance_scale"], split["pair_scale"] = a, a2
json.dump(r, open(sys.argv[2], "w"))' "$shifted/yacht.gap.json" "$work/scales/yacht.gap.json"
python3 "$root/tools/bench/uci_report.py" --out "$work/scales" "$work/scales/yacht.gap.json" \
  >"$work/scales.txt"
check "the scales each split chose" grep -q '| A 0.5 ×2, 1 ×1; A2 0.25 ×1, 2 ×2 |' "$work/scales.txt"
check "paper's models: no scale" grep -q '| A 0 ×3; A2 0 ×3 |' "$work/shifted.txt"
# The ensemble itself, where PyTorch is installed (tools/setup.sh --bench; not in CI's setup).
if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  "$uci" --pbp "$pbp" --out "$work/ensemble" --splits 2 --ensemble "$work/data" -- \
    --recipe paper --epochs 5 >"$work/ensemble.txt" 2>&1 ||
    { cat "$work/ensemble.txt" >&2; echo "FAILED: --ensemble" >&2; exit 1; }
  check "ensemble trained on the same splits" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["method"] == "ensemble" and len(r["splits"]) == 2 and r["loglik_mean"] > -10, r' \
    "$work/ensemble/yacht.ensemble.json"
else
  echo "uci.sh --ensemble not run: no PyTorch for /usr/bin/python3 (tools/setup.sh --bench)"
fi

# A folder with a CSV but no splits/ is refused up front, naming the folder.
printf 'x0,y\n1,2\n' >"$work/bad/broken/broken.csv"
if "$uci" --pbp "$pbp" --out "$work/out_bad" "$work/bad" >/dev/null 2>"$work/bad.txt"; then
  echo "FAILED: uci.sh accepted a data set without splits" >&2
  exit 1
fi
check "clear message for the missing splits folder" \
  grep -q 'broken: .*without its splits/' "$work/bad.txt"
echo "uci.sh end to end: ok"
