#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# float16 and int8 weights against the float32 blob of the same training run (tools/bench/RESULTS.md, "Quantised
# weights: size and quality"): each float32 model is trained once, quantised with `pbp quantize` (int8 with --data:
# the split's training rows, as `pbp train --storage int8` does), and the blobs are scored with
# `pbp eval` on the same test rows and `pbp predict` on the same inputs.
#   Boston and the UCI sets of DATASETS_DIR/uci (13-50-1 and alike, --recipe paper, 40 epochs) on
#   their 20 standard splits: test LL and 95 % coverage, the quantised - float32 difference per
#   split, and the median relative difference of the epistemic std on the data set's first 1 000
#   rows (all of them when fewer);
#   digits 64-50-10 (40 epochs) on a fixed split (every fifth row held out): accuracy and ECE;
#   sizes: bytes per weight of Boston's blobs and of a 784-400-400-10 network (trained one
#   epoch on 30 random rows: only its size matters). int8 moves the layers `pbp quantize --data`
#   moves to logarithmic variance codes or float16 (--fallback, PBP_QUALITY_FALLBACK, default
#   auto): the rows say how many of each (f16layers, logvar_layers) and the bytes per weight.
# usage: tools/scripts/quantisation_quality.sh PBP DATASETS_DIR [WORK_DIR] [SPLITS]
# PBP_QUALITY_RECIPE=auto trains the UCI sets with the trainer's default recipe instead of
# --recipe paper (slower: power's splits take about 35 s each). PBP_QUALITY_FIRST_SPLIT=K starts
# at split K (two processes can share the splits).
# Prints one CSV row per data set and split, then the summary per data set.
set -euo pipefail
pbp=$1
data=$2
work=${3:-$(mktemp -d)}
splits=${4:-20}
recipe=${PBP_QUALITY_RECIPE:-paper}
fallback=${PBP_QUALITY_FALLBACK:-auto}   # pbp quantize --fallback
first_split=${PBP_QUALITY_FIRST_SPLIT:-0}
mkdir -p "$work"

# Rows of CSV $1 whose 0-based data-row index is listed in $2, with the header, into $3.
rows_by_index() {
  awk -F, 'NR == FNR { keep[$1 + 2] = 1; next } FNR == 1 || keep[FNR]' "$2" "$1" >"$3"
}
json_field() { # FILE FIELD
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"
}
# The median over rows of |epistemic_std(B) / epistemic_std(A) - 1| of two `pbp predict` CSVs.
median_epistemic() { # A.csv B.csv
  python3 - "$1" "$2" <<'PY'
import csv, statistics, sys
a, b = (list(csv.DictReader(open(p))) for p in sys.argv[1:3])
print(statistics.median(abs(float(y["epistemic_std"]) / float(x["epistemic_std"]) - 1)
                        for x, y in zip(a, b)))
PY
}

sets=("boston:$data/boston.csv:$data/boston_splits")
for dir in "$data"/uci/*/; do
  name=$(basename "$dir")
  [[ -f "$dir/$name.csv" ]] && sets+=("$name:$dir/$name.csv:$dir/splits")
done

results="$work/splits.csv"
echo "set,split,loglik32,loglik16,loglik8,coverage95_32,coverage95_16,coverage95_8,epistemic16,epistemic8,kl8,bpw8,f16layers,logvar_layers" |
  tee "$results"
for entry in "${sets[@]}"; do
  IFS=: read -r name csv split_dir <<<"$entry"
  head -n 1001 "$csv" >"$work/inputs.csv"
  for i in $(seq "$first_split" $((splits - 1))); do
    rows_by_index "$csv" "$split_dir/index_train_$i.txt" "$work/train.csv"
    rows_by_index "$csv" "$split_dir/index_test_$i.txt" "$work/test.csv"
    "$pbp" train --data "$work/train.csv" --recipe "$recipe" --seed "$((i + 1))" \
      --out "$work/${name}32.pbp" >/dev/null 2>&1
    "$pbp" quantize "$work/${name}32.pbp" --storage float16 --out "$work/${name}16.pbp" >/dev/null
    # the mean predictive KL divergence of int8 from float32 on the training rows, as it prints it,
    # the blob's bytes per weight and how many layers it kept in float16 (--fallback)
    "$pbp" quantize "$work/${name}32.pbp" --storage int8 --data "$work/train.csv" \
      --fallback "$fallback" --out "$work/${name}8.pbp" >"$work/quantize.txt" 2>/dev/null
    kl8=$(sed -n 's/.* against float32 on .*predictive KL mean \([^,]*\),.*/\1/p' "$work/quantize.txt")
    bpw8=$(sed -n 's/^wrote .* bytes (\([0-9.]*\) per weight).*/\1/p' "$work/quantize.txt")
    f16=$(grep -c 'kept in float16' "$work/quantize.txt" || true)
    logvar=$(grep -c 'takes logarithmic variance codes' "$work/quantize.txt" || true)
    for s in 32 16 8; do
      "$pbp" eval --model "$work/$name$s.pbp" --data "$work/test.csv" --json >"$work/eval$s.json"
      "$pbp" predict --model "$work/$name$s.pbp" --data "$work/inputs.csv" --out "$work/p$s.csv"
    done
    echo "$name,$i,$(json_field "$work/eval32.json" loglik),$(json_field "$work/eval16.json" loglik)," \
      "$(json_field "$work/eval8.json" loglik),$(json_field "$work/eval32.json" coverage95)," \
      "$(json_field "$work/eval16.json" coverage95),$(json_field "$work/eval8.json" coverage95)," \
      "$(median_epistemic "$work/p32.csv" "$work/p16.csv"),$(median_epistemic "$work/p32.csv" "$work/p8.csv")," \
      "$kl8,$bpw8,$f16,$logvar" |
      tr -d ' ' | tee -a "$results"
  done
done
python3 - "$results" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("\nset: mean test LL float32 / float16 / int8; int8 - float32: mean and largest |LL difference|,"
      " splits within 0.01 nats; largest |95 % coverage difference| of a split (points), and of the"
      " coverage pooled over the splits; largest median epistemic std difference (float16, int8);"
      " int8's mean predictive KL divergence from float32 on the training rows")
for name in dict.fromkeys(r["set"] for r in rows):
    r = [x for x in rows if x["set"] == name]
    ll = {s: [float(x["loglik" + s]) for x in r] for s in ("32", "16", "8")}
    d8 = [b - a for a, b in zip(ll["32"], ll["8"])]
    c8 = [100 * abs(float(x["coverage95_8"]) - float(x["coverage95_32"])) for x in r]
    c16 = [100 * abs(float(x["coverage95_16"]) - float(x["coverage95_32"])) for x in r]
    # pooled: the splits' test sets are the same size, so the mean of their coverages
    pooled = {s: 100 * statistics.mean(float(x["coverage95_" + s]) for x in r) for s in ("32", "16", "8")}
    print(f"{name} ({len(r)} splits): {statistics.mean(ll['32']):.5f} / {statistics.mean(ll['16']):.5f}"
          f" / {statistics.mean(ll['8']):.5f}; int8 {statistics.mean(d8):+.2e}, largest"
          f" {max(abs(d) for d in d8):.2e} (mean |d| {statistics.mean(abs(d) for d in d8):.2e},"
          f" worst loss {min(min(d8), 0.0):.2e}), {sum(abs(d) <= 0.01 for d in d8)}/{len(r)} within 0.01;"
          f" coverage float16 {max(c16):.2f}, int8 {max(c8):.2f} points (pooled"
          f" {pooled['16'] - pooled['32']:+.2f}, {pooled['8'] - pooled['32']:+.2f});"
          f" epistemic {max(float(x['epistemic16']) for x in r):.2e},"
          f" {max(float(x['epistemic8']) for x in r):.2e} (int8: median over the splits"
          f" {statistics.median(float(x['epistemic8']) for x in r):.2e},"
          f" {sum(float(x['epistemic8']) > 0.02 for x in r)} splits over 2 %);"
          f" KL on the training rows {statistics.mean(float(x['kl8']) for x in r):.2e};"
          f" {sum(int(x['f16layers']) > 0 for x in r)} splits kept layers in float16"
          f" ({sum(int(x['f16layers']) for x in r)} layers), bytes per weight"
          f" {min(float(x['bpw8']) for x in r):.3f} to {max(float(x['bpw8']) for x in r):.3f}")
PY
"$pbp" inspect "$work/boston32.pbp" | grep '^weights:'
"$pbp" inspect "$work/boston16.pbp" | grep '^weights:'
"$pbp" inspect "$work/boston8.pbp" | grep '^weights:'

awk -F, 'NR == 1 || NR % 5 != 2' "$data/digits.csv" >"$work/digits_train.csv"
awk -F, 'NR == 1 || NR % 5 == 2' "$data/digits.csv" >"$work/digits_test.csv"
"$pbp" train --data "$work/digits_train.csv" --task multiclass --classes 10 --hidden 50 \
  --epochs 40 --seed 1 --out "$work/digits32.pbp" >/dev/null 2>&1
"$pbp" quantize "$work/digits32.pbp" --storage float16 --out "$work/digits16.pbp" >/dev/null
"$pbp" quantize "$work/digits32.pbp" --storage int8 --data "$work/digits_train.csv" \
  --out "$work/digits8.pbp" >/dev/null
for s in 32 16 8; do
  echo "digits $s: $("$pbp" eval --model "$work/digits$s.pbp" --data "$work/digits_test.csv" --json)"
done
"$pbp" inspect "$work/digits8.pbp" | grep '^weights:'

python3 - "$work/wide.csv" <<'PY'
import random, sys
random.seed(1)
with open(sys.argv[1], "w") as f:
    f.write(",".join(f"p{k}" for k in range(784)) + ",label\n")
    for r in range(30):
        f.write(",".join(str(random.randint(0, 255)) for _ in range(784)) + f",{r % 10}\n")
PY
"$pbp" train --data "$work/wide.csv" --task multiclass --classes 10 --hidden 400,400 --epochs 1 \
  --out "$work/wide32.pbp" >/dev/null 2>&1
for s in 16 8; do
  storage=$([[ $s == 16 ]] && echo float16 || echo int8)
  "$pbp" quantize "$work/wide32.pbp" --storage "$storage" --out "$work/wide$s.pbp" >/dev/null
done
for s in 32 16 8; do "$pbp" inspect "$work/wide$s.pbp" | grep '^weights:'; done
ls -l "$work"/wide*.pbp "$work"/boston*.pbp "$work"/digits*.pbp | awk '{print $5, $NF}'
