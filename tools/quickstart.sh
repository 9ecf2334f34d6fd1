#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The README's first command: installs what is missing (Debian packages), builds, and runs
# `pbp demo`: a Bayesian neural network trained by PBP on the paper's toy problem and on Boston
# housing, exported as blobs, run by the freestanding runtime on the host and on a simulated
# Cortex-M4F (QEMU), with predictions, their uncertainty and plots. Output: build/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh --demo
cmake --preset host >/dev/null
# Only what the demo runs, the pbp tool, and the Python module pbp_edge; tools/check.sh builds the rest.
cmake --build --preset host --target pbp pbp_edge
bash tools/scripts/fetch_datasets.sh build/datasets

device=()
if command -v arm-none-eabi-gcc >/dev/null && command -v qemu-system-arm >/dev/null; then
  echo "building the Cortex-M4F firmware (targets/examples/model_runner) ..."
  device=(--device "bash targets/tools/run-on-device.sh --preset cortex-m4f")
  bash targets/tools/run-on-device.sh --preset cortex-m4f --build-only
fi
build/host/bin/pbp demo --out-dir build/demo --boston build/datasets/boston.csv "${device[@]}"
echo "The Python module: PYTHONPATH=build/host/python /usr/bin/python3 -c 'import pbp_edge', or pip install --no-build-isolation . (tools/python/README.md)"
