#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Training speed of one Boston run (first 455 rows, 1 hidden layer of 50, 40 epochs = 18 200 ADF
# updates) against the authors' reference C code measured on this kind of machine.
#   tools/bench/train_speed.sh <pbp binary> <boston.csv>
# Prints instructions per update (callgrind, counting only pbp::trainer::train), the training time
# (train() alone, as `pbp train` reports it: what the reference's 120 ms measures) and the wall
# time of the whole `pbp train` process (start-up, CSV parsing, the blob's fsync), medians of 5.
set -euo pipefail
if [[ $# -ne 2 ]]; then
  echo "usage: $0 <pbp binary> <boston.csv>" >&2
  exit 2
fi
pbp=$1
csv=$2
rows=455
epochs=40
updates=$((rows * epochs))
ref_instr=89400  # reference C code, per update (callgrind)
ref_ms=120       # reference C code, per training run

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
head -n $((rows + 1)) "$csv" >"$work/train.csv"
train=("$pbp" train --data "$work/train.csv" --out "$work/model.pbp" --recipe paper --hidden 50 --epochs "$epochs")
"${train[@]}" >/dev/null 2>&1 || { echo "pbp train failed" >&2; "${train[@]}"; exit 1; }

command -v valgrind >/dev/null || { echo "valgrind not found" >&2; exit 1; }
valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" \
  --toggle-collect='pbp::trainer::train(*' "${train[@]}" >/dev/null 2>"$work/valgrind.log"
instr=$(sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$work/cg.out")
[[ -n "$instr" && "$instr" -gt 0 ]] || { echo "no callgrind count" >&2; cat "$work/valgrind.log" >&2; exit 1; }

times=()
train_times=()
for _ in 1 2 3 4 5; do
  start=$(date +%s%N)
  report=$("${train[@]}" 2>&1)
  end=$(date +%s%N)
  times+=($(((end - start) / 1000)))  # microseconds
  train_times+=("$(sed -n 's/.*training took \([0-9.]*\) s.*/\1/p' <<<"$report")")
done
median_us=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 3p)
median_train_s=$(printf '%s\n' "${train_times[@]}" | sort -n | sed -n 3p)
[[ -n "$median_train_s" ]] || { echo "no training time in pbp train's output" >&2; exit 1; }

awk -v instr="$instr" -v updates="$updates" -v ref_i="$ref_instr" -v us="$median_us" \
  -v ref_ms="$ref_ms" -v runs="${times[*]}" -v train_s="$median_train_s" \
  -v train_runs="${train_times[*]}" 'BEGIN {
  per = instr / updates; ms = us / 1000; train_ms = train_s * 1000
  printf "training run: %d updates (455 rows x 40 epochs, 1 hidden layer of 50)\n", updates
  printf "instructions per update: %8.0f   reference C: %6d   ratio %.2fx fewer\n", per, ref_i, ref_i / per
  printf "training time (median):  %8.1f ms reference C: %6d ms ratio %.2fx faster\n", train_ms, ref_ms, ref_ms / train_ms
  printf "whole process (median):  %8.1f ms (start-up, CSV parsing, blob written with fsync)\n", ms
  printf "  (training, s: %s)\n", train_runs
  printf "  (runs, us: %s; callgrind total in train(): %d instructions)\n", runs, instr
}'
