# SPDX-License-Identifier: Apache-2.0
"""Fixtures for pbp_edge's tests: the module (build/host/python unless PYTHONPATH has it), the
pbp command line to compare with, and small deterministic data sets."""
import os
import pathlib
import subprocess
import sys

import pytest

from helpers import class_data, regression_data

ROOT = pathlib.Path(__file__).resolve().parents[2]
try:
    import pbp_edge  # noqa: F401
except ImportError:  # not on PYTHONPATH: the host build's
    sys.path.insert(0, str(ROOT / "build" / "host" / "python"))


@pytest.fixture(scope="session")
def pbp_cli():
    """Runs the pbp command line (PBP_CLI, else build/host/bin/pbp); returns its stdout."""
    path = pathlib.Path(os.environ.get("PBP_CLI", ROOT / "build" / "host" / "bin" / "pbp"))
    if not path.is_file():
        pytest.fail(f"no pbp command line at {path}: build it (cmake --build --preset host) "
                    "or set PBP_CLI")

    def run(*args):
        result = subprocess.run([str(path), *map(str, args)], capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        return result.stdout
    return run


@pytest.fixture
def regression():
    return regression_data()


@pytest.fixture
def classification():
    return class_data()
