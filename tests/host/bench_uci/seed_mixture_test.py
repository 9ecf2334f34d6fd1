#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tools/bench/seed_mixture.py: its mixture moments and distances by hand, then end to end on a
tiny generated set (2 seeds, --recipe paper, 2 epochs): every k and scale scored, the cache reused.
Then tools/bench/distance_scale_fit.py: its folds and fold LL by hand, and end to end on that set.
  seed_mixture_test.py <pbp binary> <scratch folder>"""
import importlib.util
import math
import os
import shutil
import subprocess
import sys

pbp, work = sys.argv[1:]
script = os.path.join(os.path.dirname(__file__), "..", "..", "..", "tools", "bench", "seed_mixture.py")
spec = importlib.util.spec_from_file_location("seed_mixture", script)
sm = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sm)


def check(message, condition):
    if not condition:
        sys.exit(f"FAILED: {message}")


# Two members N(0, 1^2) and N(2, 1^2): mean 1, variance 1 + 1 (the means' spread).
means, variances = sm.mixture([([0.0], [1.0]), ([2.0], [1.0])])
check("mixture moments", means == [1.0] and variances == [2.0])
check("spread counted twice", sm.mixture([([0.0], [1.0]), ([2.0], [1.0])], 2.0)[1] == [3.0])
# Inputs 0, 2 (std 1) and 0, 0 (std 0 -> 1): a row at 1 is 1 std from the nearest training value,
# a row at 5 is 3 stds beyond the range, a row on a training value is at 0.
train = [[0.0, 0.0, 9.0], [2.0, 0.0, 9.0]]
check("nearest-value distances",
      sm.nearest_value_distances(train, [[1.0, 0.0, 0], [5.0, 0.0, 0], [2.0, 0.0, 0]]) == [1.0, 3.0, 0.0])
check("distance of an input without spread", sm.nearest_value_distances(train, [[0.0, 0.5, 0]]) == [0.5])

shutil.rmtree(work, ignore_errors=True)
os.makedirs(os.path.join(work, "splits"))
with open(os.path.join(work, "data.csv"), "w") as f:
    f.write("x0,x1,y\n")
    for i in range(40):
        x0, x1 = (i * 7 % 40) / 10, (i * 3 % 11) / 11
        f.write(f"{x0},{x1},{math.sin(x0) + x1 + 0.05 * ((i * 5) % 3 - 1)}\n")
for s in range(2):
    with open(os.path.join(work, "splits", f"index_test_{s}.txt"), "w") as f:
        f.write("\n".join(str(i) for i in range(40) if i % 4 == s) + "\n")
    with open(os.path.join(work, "splits", f"index_train_{s}.txt"), "w") as f:
        f.write("\n".join(str(i) for i in range(40) if i % 4 != s) + "\n")
command = [sys.executable, script, "--pbp", pbp, "--data", os.path.join(work, "data.csv"),
           "--splits", os.path.join(work, "splits"), "--work", os.path.join(work, "cache"),
           "--seeds", "2", "--spread-scales", "1,2", "--distance-scales", "0,1", "--label", "tiny", "--",
           "--recipe", "paper", "--epochs", "2"]
first = subprocess.run(command, check=True, capture_output=True, text=True).stdout.splitlines()
check(f"6 lines (k 1: spread 1; k 2: spreads 1, 2; each at scales 0, 1): {first}", len(first) == 6)
check("labels, k and scales", [line.split("\t")[:4] for line in first] ==
      [["tiny", f"K={k}", f"C={c}", f"A={a}"] for k, c in ((1, 1), (2, 1), (2, 2)) for a in (0, 1)])
check("2 splits scored", all(line.endswith("splits 2") for line in first))
cached = [os.path.join(work, "cache", f"split{s}", f"pred_seed{k}.csv") for s in range(2) for k in (1, 2)]
check("predictions cached", all(os.path.exists(p) for p in cached))
written = [os.stat(p).st_mtime_ns for p in cached]
second = subprocess.run(command, check=True, capture_output=True, text=True).stdout.splitlines()
check("a rerun reads the cache, trains nothing", written == [os.stat(p).st_mtime_ns for p in cached])
check("a rerun from the cache scores the same", first == second)
fit_script = os.path.join(os.path.dirname(script), "distance_scale_fit.py")
spec = importlib.util.spec_from_file_location("distance_scale_fit", fit_script)
fit = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fit)
ten = [[float(i), float(9 - i), 0.0] for i in range(10)]  # x0 ascending, x1 descending
made = list(fit.folds(ten))
check("a gap and a tail fold per input", [m[0] for m in made] == ["gap0", "tail0", "gap1", "tail1"])
check("gap: the middle third held out", made[0][2] == [3, 4, 5, 6] and made[2][2] == [3, 4, 5, 6])
check("tail: the top and bottom 10 % held out", made[1][2] == [0, 9] and made[3][2] == [0, 9])
# One row, error 1, std 1, distance 1, sd_y 1: variance 1 + A^2.
for scale in (0.0, 1.0):
    v = 1.0 + scale * scale
    check("fold LL", abs(fit.fold_loglik(([1.0], [0.0], [1.0], [1.0], 1.0), scale) -
                         (-0.5 * (math.log(2 * math.pi * v) + 1.0 / v))) < 1e-15)
out = subprocess.run([sys.executable, fit_script, "--pbp", pbp, "--data", os.path.join(work, "data.csv"),
                      "--work", os.path.join(work, "fit"), "--", "--recipe", "paper", "--epochs", "2"],
                     check=True, capture_output=True, text=True).stdout.splitlines()
check(f"the fitted A, then the profile over the grid: {out}",
      len(out) == 1 + len(fit.GRID) and out[0].startswith("A ") and float(out[0][2:]) in fit.GRID)
best = max(out[1:], key=lambda line: float(line.split("\t")[1]))
check("the fitted A is the profile's best", float(best.split("\t")[0]) == float(out[0][2:]))
print("seed_mixture_test: ok")
