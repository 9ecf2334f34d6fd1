#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A deep-ensemble baseline for the UCI benchmark, trained on the same split files as pbp-edge.

  ensemble_baseline.py DATA.csv SPLIT_DIR [--target NAME|INDEX] [--nets 5] [--epochs 40] [--seed 1]

Lakshminarayanan, Pritzel & Blundell (NeurIPS 2017) without adversarial training: per split, 5
networks of 1 x 50 ReLU with a mean and a variance head (softplus + 1e-6), each trained by Gaussian
negative log-likelihood with Adam (learning rate 0.01, batches of 100, 40 epochs) from its own seed,
on inputs and target standardised by the split's training rows; the prediction is the mixture's
mean and variance, scored as a Gaussian in the target's original units, as the paper does.
Prints the JSON of `pbp crossval --json` (rmse, loglik, coverage50/90/95 and train_seconds per
split, and their means; "method": "ensemble"). PyTorch from Debian's python3-torch, on one thread
(`tools/setup.sh --bench`): for benchmarks only, never a dependency of pbp-edge.
"""

import argparse
import csv
import json
import math
import os
import sys
import time

Z = {50: 0.6744897501960817, 90: 1.6448536269514722, 95: 1.959963984540054}


def read(path, target):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    header = rows[0]
    t = len(header) - 1 if target is None else (
        int(target) if target.isdigit() else header.index(target))
    data = [[float(v) for v in row] for row in rows[1:]]
    x = [[v for c, v in enumerate(row) if c != t] for row in data]
    return x, [row[t] for row in data]


def indices(folder, part, s):
    with open(os.path.join(folder, f"index_{part}_{s}.txt"), encoding="utf-8") as f:
        return [int(i) for i in f.read().split()]


def one_split(torch, x, y, train, test, args, split_seed):
    xt = torch.tensor([x[i] for i in train], dtype=torch.float64)
    yt = torch.tensor([y[i] for i in train], dtype=torch.float64)
    x_mean, x_std = xt.mean(0), xt.std(0, unbiased=False)
    x_std[x_std == 0] = 1.0
    y_mean, y_std = yt.mean(), yt.std(unbiased=False)
    xs = ((xt - x_mean) / x_std).float()
    ys = ((yt - y_mean) / y_std).float().unsqueeze(1)
    xq = ((torch.tensor([x[i] for i in test], dtype=torch.float64) - x_mean) / x_std).float()
    means, variances = [], []
    for net in range(args.nets):
        torch.manual_seed(split_seed * 1000 + net)
        model = torch.nn.Sequential(torch.nn.Linear(xs.shape[1], 50), torch.nn.ReLU(),
                                    torch.nn.Linear(50, 2))
        optimiser = torch.optim.Adam(model.parameters(), lr=0.01)
        for _ in range(args.epochs):
            order = torch.randperm(xs.shape[0])
            for start in range(0, xs.shape[0], 100):
                batch = order[start:start + 100]
                out = model(xs[batch])
                mean, var = out[:, :1], torch.nn.functional.softplus(out[:, 1:]) + 1e-6
                loss = (0.5 * torch.log(var) + 0.5 * (ys[batch] - mean) ** 2 / var).mean()
                optimiser.zero_grad()
                loss.backward()
                optimiser.step()
        with torch.no_grad():
            out = model(xq).double()
            means.append(out[:, 0])
            variances.append(torch.nn.functional.softplus(out[:, 1]) + 1e-6)
    mean = torch.stack(means).mean(0)
    var = (torch.stack(variances) + torch.stack(means) ** 2).mean(0) - mean ** 2
    mean, var = mean * y_std + y_mean, var * y_std ** 2
    truth = torch.tensor([y[i] for i in test], dtype=torch.float64)
    error = truth - mean
    result = {"rmse": float(torch.sqrt((error ** 2).mean())),
              "loglik": float((-0.5 * torch.log(2 * math.pi * var) - 0.5 * error ** 2 / var)
                              .mean())}
    for p, z in Z.items():
        result[f"coverage{p}"] = float((error.abs() <= z * var.sqrt()).double().mean())
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data")
    parser.add_argument("splits")
    parser.add_argument("--target")
    parser.add_argument("--nets", type=int, default=5)
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        sys.exit("ensemble_baseline.py: needs PyTorch (tools/setup.sh --bench installs "
                 "Debian's python3-torch)")
    torch.set_num_threads(1)
    x, y = read(args.data, args.target)
    splits = []
    s = 0
    while os.path.exists(os.path.join(args.splits, f"index_train_{s}.txt")):
        started = time.monotonic()
        result = one_split(torch, x, y, indices(args.splits, "train", s),
                           indices(args.splits, "test", s), args, args.seed + s)
        result["train_seconds"] = time.monotonic() - started
        splits.append(result)
        print(f"ensemble_baseline.py: split {s}: LL {result['loglik']:.3f}", file=sys.stderr)
        s += 1
    if not splits:
        sys.exit(f"ensemble_baseline.py: {args.splits}: no index_train_0.txt")
    out = {"method": "ensemble", "splits": splits}
    n = len(splits)
    for key in ("rmse", "loglik", "coverage50", "coverage90", "coverage95", "train_seconds"):
        values = [split[key] for split in splits]
        mean = sum(values) / n
        out[f"{key}_mean"] = mean
        if key in ("rmse", "loglik"):
            out[f"{key}_se"] = math.sqrt(sum((v - mean) ** 2 for v in values) / n / n)
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
