# SPDX-License-Identifier: Apache-2.0
"""The README's Python example runs as written."""
import pathlib
import re

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


def test_readme_example(tmp_path, monkeypatch):
    section = README.read_text().split("\n## Python\n", 1)[1].split("\n## ", 1)[0]
    example = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    monkeypatch.chdir(tmp_path)
    namespace = {}
    exec(compile(example, "README.md", "exec"), namespace)
    u, r = namespace["u"], namespace["r"]
    # What the example's comments say: x = 6 lies outside the training data, and the truth there,
    # 6^3 = 216, is above its interval (the range flag, not the interval, is what to trust).
    assert list(r.outside) == [False, True]
    assert u.upper[1] < 216.0
    assert u.epistemic_std[1] > 5 * u.epistemic_std[0]
    assert (tmp_path / "toy.pbp").read_bytes() == namespace["model"].blob_
    assert (tmp_path / "firmware" / "toy_model.h").is_file()
    assert (tmp_path / "firmware" / "toy_model.c").is_file()
