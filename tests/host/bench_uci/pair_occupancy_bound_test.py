#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tools/bench/pair_occupancy_bound.py: its cells and novelty by hand, then end to end on a tiny
generated set (two split kinds, --recipe paper, 2 epochs): every A2 of the grid scored, A2 = 0
being the models' own LL, and the cache reused.
  pair_occupancy_bound_test.py <pbp binary> <scratch folder>"""
import importlib.util
import math
import os
import shutil
import subprocess
import sys

pbp, work = sys.argv[1:]
script = os.path.join(os.path.dirname(__file__), "..", "..", "..", "tools", "bench",
                      "pair_occupancy_bound.py")
spec = importlib.util.spec_from_file_location("pair_occupancy_bound", script)
pob = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pob)


def check(message, condition):
    if not condition:
        sys.exit(f"FAILED: {message}")


# 4 bins over [0, 4]: 1.5 in bin 1, the top value in the last bin, values outside clamped.
check("cells", [pob.cell(x, 0.0, 4.0, 4) for x in (0.0, 1.5, 4.0, -3.0, 9.0)] == [0, 1, 3, 0, 3])
check("an input without spread has one cell", pob.cell(5.0, 2.0, 2.0, 4) == 0)
# Three inputs (three pairs), training rows on the diagonal of each pair's grid: a row with every
# value seen but x0 and x1 crossed falls on unseen cells in two of its three pairs.
values = [[0.0, 0.0, 0.0, 1.0], [4.0, 4.0, 4.0, 2.0], [0.0, 4.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]
novel = pob.novelty(values, [0, 1], [2, 3], 4)
check(f"novelty of a crossed row and a seen one: {novel}", novel == [2 / 3, 0.0])
# One test row y 1, mean 0, std 1, f 0.5, sd_y 2: at A2 = 0 the Gaussian LL, at A2 = 1 variance 2.
split = ("k", 0, [1.0], [0.0], [1.0], [0.5], 2.0)
check("LL at A2 = 0", abs(pob.loglik(split, 0) - (-0.5 * math.log(2 * math.pi) - 0.5)) < 1e-12)
check("LL at A2 = 1", abs(pob.loglik(split, 1) - (-0.5 * math.log(4 * math.pi) - 0.25)) < 1e-12)

shutil.rmtree(work, ignore_errors=True)
for kind in ("a", "b"):
    os.makedirs(os.path.join(work, kind))
with open(os.path.join(work, "data.csv"), "w") as f:
    f.write("x0,x1,y\n")
    for i in range(40):
        x0, x1 = (i * 7 % 40) / 10, (i * 3 % 11) / 11
        f.write(f"{x0},{x1},{math.sin(x0) + x1 + 0.05 * ((i * 5) % 3 - 1)}\n")
for kind, modulus in (("a", 4), ("b", 5)):
    for s in range(2):
        with open(os.path.join(work, kind, f"index_test_{s}.txt"), "w") as f:
            f.write("\n".join(str(i) for i in range(40) if i % modulus == s) + "\n")
        with open(os.path.join(work, kind, f"index_train_{s}.txt"), "w") as f:
            f.write("\n".join(str(i) for i in range(40) if i % modulus != s) + "\n")
command = [sys.executable, script, "--pbp", pbp, "--data", os.path.join(work, "data.csv"),
           "--splits", "a=" + os.path.join(work, "a"), "--splits", "b=" + os.path.join(work, "b"),
           "--work", os.path.join(work, "cache"), "--bins", "4", "--", "--recipe", "paper",
           "--epochs", "2"]
first = subprocess.run(command, check=True, capture_output=True, text=True).stdout.splitlines()
table = [line for line in first if line.startswith("  ")]
check(f"a line per split kind: {first}", [line.split(" (")[0] for line in table] == ["  a", "  b"])
check("2 splits each", all("(2 splits, mean f " in line for line in table))
check("every A2 of the grid", all(line.count("A2 ") == len(pob.GRID) for line in table))
cached = [os.path.join(work, "cache", f"{k}_{s}", "pred_seed1.csv") for k in "ab" for s in range(2)]
check("predictions cached", all(os.path.exists(p) for p in cached))
written = [os.stat(p).st_mtime_ns for p in cached]
again = subprocess.run(command, check=True, capture_output=True, text=True).stdout.splitlines()
check("a rerun trains nothing and prints the same", again == first and
      [os.stat(p).st_mtime_ns for p in cached] == written)
# --fit: each split's A2 from its training rows' gap and tail folds (2 inputs: 4 folds a split).
at = command.index("--")
fit = subprocess.run(command[:at] + ["--fit"] + command[at:], check=True, capture_output=True,
                     text=True).stdout.splitlines()
check("the bound's lines unchanged by --fit", [line for line in fit if "fitted" not in line] == first)
fitted = [line for line in fit if "A2 fitted from each split's training rows" in line]
check(f"a fitted line per split kind: {fit}", len(fitted) == 2)
check("4 folds trained per split", all(len([d for d in os.listdir(os.path.join(work, "cache", f"{k}_{s}"))
                                            if d.startswith("fold_")]) == 4 for k in "ab" for s in range(2)))
print("pair_occupancy_bound_test: passed")
