#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The int8 variance encodings of runtime/FORMAT.md ("Storage type 3"), measured: Boston 13-50-1
# (--recipe paper, split 0, seed 1) and digits 64-50-10 (40 epochs, every fifth row held out,
# seed 1) are trained once in float32; int8_variance_encodings writes the float32 blob each
# candidate decodes to; pbp eval scores them on the test rows and pbp predict on every row of the
# data set (Boston: epistemic std, relative error; digits: the largest change of a class
# probability), against the float32 blob.
# usage: tools/bench/int8_encoding/measure.sh BUILD_DIR DATASETS_DIR [WORK_DIR]
set -euo pipefail
pbp=$1/bin/pbp
encodings=$1/bin/int8_variance_encodings
data=$2
work=${3:-$(mktemp -d)}
mkdir -p "$work"
awk -F, 'NR == FNR { keep[$1 + 2] = 1; next } FNR == 1 || keep[FNR]' \
  "$data/boston_splits/index_train_0.txt" "$data/boston.csv" >"$work/boston_train.csv"
awk -F, 'NR == FNR { keep[$1 + 2] = 1; next } FNR == 1 || keep[FNR]' \
  "$data/boston_splits/index_test_0.txt" "$data/boston.csv" >"$work/boston_test.csv"
awk -F, 'NR == 1 || NR % 5 != 2' "$data/digits.csv" >"$work/digits_train.csv"
awk -F, 'NR == 1 || NR % 5 == 2' "$data/digits.csv" >"$work/digits_test.csv"
"$pbp" train --data "$work/boston_train.csv" --recipe paper --seed 1 --out "$work/boston.pbp" \
  >/dev/null
"$pbp" train --data "$work/digits_train.csv" --task multiclass --classes 10 --hidden 50 \
  --epochs 40 --seed 1 --out "$work/digits.pbp" >/dev/null 2>&1
names="means sqrt log16 log32 only-sqrt only-log16 only-log32 layer-sqrt layer-log16"
names+=" only-layer-sqrt only-layer-log16"
for set in boston digits; do
  "$encodings" "$work/$set.pbp" "$work/$set"
  "$pbp" predict --model "$work/$set.pbp" --data "$data/$set.csv" --out "$work/$set-float32.csv"
  echo "$set float32: $("$pbp" eval --model "$work/$set.pbp" --data "$work/${set}_test.csv" --json)"
  for name in $names; do
    "$pbp" predict --model "$work/$set-$name.pbp" --data "$data/$set.csv" \
      --out "$work/$set-$name.csv"
    echo "$set $name: $("$pbp" eval --model "$work/$set-$name.pbp" \
      --data "$work/${set}_test.csv" --json)"
  done
  python3 - "$work" "$set" $names <<'PY'
import csv, statistics, sys
work, name, encodings = sys.argv[1], sys.argv[2], sys.argv[3:]
def rows(path):
    return list(csv.DictReader(open(path)))
base = rows(f"{work}/{name}-float32.csv")
for encoding in encodings:
    other = rows(f"{work}/{name}-{encoding}.csv")
    if "epistemic_std" in base[0]:
        errors = [abs(float(b["epistemic_std"]) / float(a["epistemic_std"]) - 1)
                  for a, b in zip(base, other)]
        what = "epistemic std relative error"
    else:
        classes = [k for k in base[0] if k[0] == "p" and k[1:].isdigit()]
        errors = [max(abs(float(a[k]) - float(b[k])) for k in classes) for a, b in zip(base, other)]
        what = "largest |change of a class probability|"
    print(f"{name} {encoding}: {what}: median {statistics.median(errors):.2g}, "
          f"max {max(errors):.2g} ({len(errors)} rows)")
PY
done
