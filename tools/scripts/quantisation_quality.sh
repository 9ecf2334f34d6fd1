#!/usr/bin/env bash
# float16 weights against the float32 blob of the same training run (README, "Quantised
# weights"): each float32 model is trained once, quantised with `pbp quantize`, and both blobs
# are scored with `pbp eval` on the same test rows.
#   Boston 13-50-1 (--recipe paper, 40 epochs) on the 20 standard splits: test LL and 95 %
#   coverage, the float16 - float32 difference per split;
#   digits 64-50-10 (40 epochs) on a fixed split (every fifth row held out): accuracy and ECE;
#   sizes: bytes per weight of Boston's blobs and of a 784-400-400-10 network (trained one
#   epoch on 30 random rows: only its size matters).
# usage: tools/scripts/quantisation_quality.sh PBP DATASETS_DIR [WORK_DIR]
set -euo pipefail
pbp=$1
data=$2
work=${3:-$(mktemp -d)}
mkdir -p "$work"

# Rows of CSV $1 whose 0-based data-row index is listed in $2, with the header, into $3.
rows_by_index() {
  awk -F, 'NR == FNR { keep[$1 + 2] = 1; next } FNR == 1 || keep[FNR]' "$2" "$1" >"$3"
}
json_field() { # FILE FIELD
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"
}

echo "split,loglik32,loglik16,coverage95_32,coverage95_16"
for i in $(seq 0 19); do
  rows_by_index "$data/boston.csv" "$data/boston_splits/index_train_$i.txt" "$work/train.csv"
  rows_by_index "$data/boston.csv" "$data/boston_splits/index_test_$i.txt" "$work/test.csv"
  "$pbp" train --data "$work/train.csv" --recipe paper --seed "$((i + 1))" \
    --out "$work/boston32.pbp" >/dev/null
  "$pbp" quantize "$work/boston32.pbp" --storage float16 --out "$work/boston16.pbp" >/dev/null
  for s in 32 16; do
    "$pbp" eval --model "$work/boston$s.pbp" --data "$work/test.csv" --json >"$work/eval$s.json"
  done
  echo "$i,$(json_field "$work/eval32.json" loglik),$(json_field "$work/eval16.json" loglik)," \
    "$(json_field "$work/eval32.json" coverage95),$(json_field "$work/eval16.json" coverage95)" |
    tr -d ' '
done
"$pbp" inspect "$work/boston32.pbp" | grep '^weights:'
"$pbp" inspect "$work/boston16.pbp" | grep '^weights:'

awk -F, 'NR == 1 || NR % 5 != 2' "$data/digits.csv" >"$work/digits_train.csv"
awk -F, 'NR == 1 || NR % 5 == 2' "$data/digits.csv" >"$work/digits_test.csv"
"$pbp" train --data "$work/digits_train.csv" --task multiclass --classes 10 --hidden 50 \
  --epochs 40 --seed 1 --out "$work/digits32.pbp" >/dev/null
"$pbp" quantize "$work/digits32.pbp" --storage float16 --out "$work/digits16.pbp"
for s in 32 16; do
  "$pbp" eval --model "$work/digits$s.pbp" --data "$work/digits_test.csv" --json
done

python3 - "$work/wide.csv" <<'PY'
import random, sys
random.seed(1)
with open(sys.argv[1], "w") as f:
    f.write(",".join(f"p{k}" for k in range(784)) + ",label\n")
    for r in range(30):
        f.write(",".join(str(random.randint(0, 255)) for _ in range(784)) + f",{r % 10}\n")
PY
"$pbp" train --data "$work/wide.csv" --task multiclass --classes 10 --hidden 400,400 --epochs 1 \
  --out "$work/wide32.pbp" >/dev/null
"$pbp" quantize "$work/wide32.pbp" --storage float16 --out "$work/wide16.pbp" >/dev/null
"$pbp" inspect "$work/wide32.pbp" | grep '^weights:'
"$pbp" inspect "$work/wide16.pbp" | grep '^weights:'
