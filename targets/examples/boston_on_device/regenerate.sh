#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Regenerates boston_13_50.c/.h (the model this example links) from the Boston housing data:
#   pbp train --recipe paper --hidden 50 --epochs 40 --seed 1 on all 506 rows, then pbp export-c.
#
#   targets/examples/boston_on_device/regenerate.sh PBP DATA.csv [OUT_DIR]
#
# PBP is the host `pbp` binary (build/host/bin/pbp), DATA.csv the Boston CSV
# (tools/scripts/fetch_datasets.sh writes build/datasets/boston.csv). Writes into OUT_DIR (default:
# this folder). The CTest `example_boston_on_device_model` runs it into the build tree and
# compares with the committed files; after a deliberate trainer change, run it without OUT_DIR
# and regenerate expected_output.txt (see CMakeLists.txt).
set -euo pipefail
pbp=$(realpath "$1")
data=$(realpath "$2")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(realpath "${3:-$here}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"  # export-c records the blob's path: keep it a bare file name
"$pbp" train --data "$data" --out boston_13_50.pbp --recipe paper --hidden 50 --epochs 40 --seed 1 >/dev/null
"$pbp" export-c boston_13_50.pbp --name boston_13_50 --out-dir "$out" >/dev/null
# The example's model is the project's own, under its licence (export-c leaves a user's unlabelled).
sed -i '1i /* SPDX-License-Identifier: Apache-2.0 */' "$out/boston_13_50.c" "$out/boston_13_50.h"
echo "regenerate: wrote $out/boston_13_50.c and $out/boston_13_50.h"
