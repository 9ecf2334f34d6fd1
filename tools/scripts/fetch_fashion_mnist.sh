#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fetches Fashion-MNIST (60 000 training + 10 000 test images, 28 x 28, 10 classes) from Debian's
# dataset-fashion-mnist package without root (apt-get download + dpkg-deb -x) and writes the four
# IDX files uncompressed into DIR (default build/datasets/fashion-mnist), ready for
#   pbp train --task multiclass --data DIR/train-images-idx3-ubyte --labels DIR/train-labels-idx1-ubyte
# The package holds them gzip-compressed under /usr/share/datasets/fashion-mnist/; pbp reads plain
# IDX only (no zlib dependency), so they are decompressed here. If the package is installed, its
# files are used directly instead of downloading it again.
#   usage: fetch_fashion_mnist.sh [DIR]
set -euo pipefail
out="${1:-build/datasets/fashion-mnist}"
files=(train-images-idx3-ubyte train-labels-idx1-ubyte t10k-images-idx3-ubyte t10k-labels-idx1-ubyte)

complete=1
for f in "${files[@]}"; do [ -s "$out/$f" ] || complete=0; done
[ "$complete" = 1 ] && exit 0
mkdir -p "$out"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
source_dir=/usr/share/datasets/fashion-mnist
if [ ! -s "$source_dir/train-images-idx3-ubyte.gz" ]; then
  # apt-get warns when it downloads as root into a directory its sandbox user cannot write; the
  # log is shown only if the download fails.
  (cd "$work" && apt-get download dataset-fashion-mnist >"$work/apt.log" 2>&1) || {
    cat "$work/apt.log" >&2
    echo "fetch_fashion_mnist: 'apt-get download dataset-fashion-mnist' failed (run 'apt-get update' first?)" >&2
    exit 1
  }
  dpkg-deb -x "$work"/dataset-fashion-mnist_*.deb "$work/x"
  source_dir="$work/x/usr/share/datasets/fashion-mnist"
fi

for f in "${files[@]}"; do
  if [ ! -s "$source_dir/$f.gz" ]; then
    echo "fetch_fashion_mnist: $source_dir/$f.gz is missing from the package" >&2
    exit 1
  fi
  # Write under a temporary name and rename, so an interrupted run leaves no partial file.
  gzip -dc "$source_dir/$f.gz" >"$out/$f.tmp"
  mv "$out/$f.tmp" "$out/$f"
done
echo "fetch_fashion_mnist: wrote ${files[*]} into $out"
