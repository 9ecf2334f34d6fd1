#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fetches public data sets from Debian's python3-sklearn package (no root needed) and writes
# them as plain CSV (one header row, target last) into DIR (default build/datasets):
#   boston.csv (506 x 13, house value), breast_cancer.csv (569 x 30, 0/1 label),
#   digits.csv (1797 x 64 pixels 0-16, digit 0-9): the files of ../shared/datasets (README there).
set -euo pipefail
out="${1:-build/datasets}"
mkdir -p "$out"
[ -s "$out/boston.csv" ] && [ -s "$out/breast_cancer.csv" ] && [ -s "$out/digits.csv" ] && exit 0
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# apt's stderr only matters when the download fails (as root it warns about its sandbox).
(cd "$work" && apt-get download python3-sklearn >/dev/null 2>"$work/apt.log") || {
  cat "$work/apt.log" >&2
  echo "fetch_datasets: 'apt-get download python3-sklearn' failed (run 'apt-get update' first?)" >&2
  exit 1
}
dpkg-deb -x "$work"/python3-sklearn_*.deb "$work/x"
data="$work/x/usr/lib/python3/dist-packages/sklearn/datasets/data"
# The first line of sklearn's files holds counts and class names; the second is the header.
tail -n +2 "$data/boston_house_prices.csv" | tr -d '\r' > "$out/boston.csv.tmp"
mv "$out/boston.csv.tmp" "$out/boston.csv"
{
  printf 'f%s,' $(seq 0 29) | sed 's/,$/,label\n/'
  tail -n +2 "$data/breast_cancer.csv" | tr -d '\r'
} > "$out/breast_cancer.csv.tmp"
mv "$out/breast_cancer.csv.tmp" "$out/breast_cancer.csv"
{
  printf 'p%s,' $(seq 0 63) | sed 's/,$/,digit\n/'
  gzip -dc "$data/digits.csv.gz" | tr -d '\r'
} > "$out/digits.csv.tmp"
mv "$out/digits.csv.tmp" "$out/digits.csv"
echo "fetch_datasets: wrote $out/boston.csv, $out/breast_cancer.csv and $out/digits.csv"
