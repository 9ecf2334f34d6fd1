# SPDX-License-Identifier: Apache-2.0
"""Small deterministic data sets and the CSV files `pbp` reads and writes, for the tests."""
import csv

import numpy as np


def regression_data(rows=60, seed=0):
    """y = sin(2 x0) + x1 / 2 + noise, x in [-2, 2]^3 (x2 unused)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2.0, 2.0, size=(rows, 3))
    y = np.sin(2.0 * X[:, 0]) + 0.5 * X[:, 1] + rng.normal(0.0, 0.1, size=rows)
    return X, y


def class_data(classes=3, rows=60, seed=0):
    """Gaussian blobs around the corners of a triangle (or a line for 2 classes)."""
    rng = np.random.default_rng(seed)
    y = np.arange(rows) % classes
    angle = 2.0 * np.pi * y / classes
    centres = np.stack([np.cos(angle), np.sin(angle)], axis=1) * 2.0
    return centres + rng.normal(0.0, 0.7, size=(rows, 2)), y


def write_csv(path, X, y=None, names=None, target="y"):
    """Every value as repr, which reads back as the same double."""
    names = names or [f"x{k}" for k in range(X.shape[1])]
    with open(path, "w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(names + ([target] if y is not None else []))
        for i, row in enumerate(X):
            writer.writerow([repr(float(v)) for v in row] +
                            ([repr(float(y[i]))] if y is not None else []))
    return path


def read_csv(text):
    """`pbp predict`'s output: the header and every column as a list of strings."""
    rows = list(csv.reader(text.splitlines()))
    return {name: [row[k] for row in rows[1:]] for k, name in enumerate(rows[0])}


def as_float32(texts):
    return np.array([np.float32(t) for t in texts], dtype=np.float32)
