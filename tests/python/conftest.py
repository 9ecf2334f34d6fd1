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
except ImportError:  # neither installed nor on PYTHONPATH: the host build's
    sys.path.insert(0, str(ROOT / "build" / "host" / "python"))
    import pbp_edge  # noqa: F401
# tools/check.sh tests the installed wheel: PBP_EDGE_INSTALLED=1 says the module must come from
# an environment's site-packages, not from a build folder.
if os.environ.get("PBP_EDGE_INSTALLED") == "1" and "site-packages" not in pbp_edge.__file__:
    raise RuntimeError(f"pbp_edge was imported from {pbp_edge.__file__}, not an installed wheel")


def _cli_path():
    path = pathlib.Path(os.environ.get("PBP_CLI", ROOT / "build" / "host" / "bin" / "pbp"))
    if not path.is_file():
        pytest.fail(f"no pbp command line at {path}: build it (cmake --build --preset host) "
                    "or set PBP_CLI")
    return path


@pytest.fixture(scope="session")
def pbp_cli():
    """Runs the pbp command line (PBP_CLI, else build/host/bin/pbp); returns its stdout."""
    path = _cli_path()

    def run(*args):
        result = subprocess.run([str(path), *map(str, args)], capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        return result.stdout
    return run


@pytest.fixture(scope="session")
def pbp_cli_error():
    """Runs the pbp command line expecting it to fail; returns its stderr."""
    path = _cli_path()

    def run(*args):
        result = subprocess.run([str(path), *map(str, args)], capture_output=True, text=True)
        assert result.returncode != 0, result.stdout
        return result.stderr
    return run


@pytest.fixture
def regression():
    return regression_data()


@pytest.fixture
def classification():
    return class_data()
