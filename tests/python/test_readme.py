# SPDX-License-Identifier: Apache-2.0
"""Every ```python block of tools/python/README.md runs as written, in order, in one namespace
(as a notebook would run them)."""
import pathlib
import re

import pytest

README = pathlib.Path(__file__).resolve().parents[2] / "tools" / "python" / "README.md"


def test_readme_python_blocks(tmp_path, monkeypatch):
    pytest.importorskip("pandas")
    pytest.importorskip("sklearn")
    blocks = re.findall(r"^```python\n(.*?)^```", README.read_text(), re.S | re.M)
    assert len(blocks) >= 4
    monkeypatch.chdir(tmp_path)
    namespace = {}
    for k, block in enumerate(blocks):
        exec(compile(block, f"{README.name} python block {k + 1}", "exec"), namespace)
    u = namespace["u"]
    assert u.epistemic_std[1] > 5 * u.epistemic_std[0]  # x = 6 is outside the data
    assert list(u.outside) == [False, True] and u.distance[1] > 0 and u.input[1] == 0
    assert (tmp_path / "toy.pbp").read_bytes() == namespace["model"].blob_
    assert (tmp_path / "firmware" / "toy_model.h").is_file()
    assert (tmp_path / "firmware" / "toy_model.c").is_file()
    assert namespace["small"].storage_ == ("int8",) * len(namespace["small"].storage_)
    assert (tmp_path / "firmware" / "toy_model_int8.c").is_file()
    device = namespace["device"]
    assert device.learnt_rows_ == 300
    assert device.score(namespace["held_out"], namespace["held_out_y"]) > namespace["before"]
