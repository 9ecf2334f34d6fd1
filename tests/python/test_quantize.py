# SPDX-License-Identifier: Apache-2.0
"""quantize: the blobs `pbp quantize` writes, bit for bit, predicting and exported as any blob."""
import numpy as np
import pytest

from helpers import write_csv
from pbp_edge import PBPClassifier, PBPRegressor

NAMES = ["x0", "x1", "x2"]


@pytest.fixture
def fitted(regression):
    X, y = regression
    model = PBPRegressor(recipe="paper", hidden=(10,), epochs=5, verbose=0)
    return model.fit(X, y, feature_names=NAMES, target_name="y"), X


@pytest.mark.parametrize("storage", ["float16", "int8", "int8-logvar", "float32"])
def test_quantize_writes_what_pbp_quantize_writes(fitted, storage, tmp_path, pbp_cli):
    model, X = fitted
    model.save(tmp_path / "m.pbp")
    pbp_cli("quantize", tmp_path / "m.pbp", "--storage", storage, "--out", tmp_path / "q.pbp")
    quantized = model.quantize(storage)
    assert quantized.blob_ == (tmp_path / "q.pbp").read_bytes()
    assert quantized.storage_ == (storage,) * 2 and model.storage_ == ("float32",) * 2
    if storage == "float32":
        assert quantized.blob_ == model.blob_
    else:
        assert quantized.blob_ != model.blob_ and len(quantized.blob_) < len(model.blob_)
    assert list(quantized.feature_names_in_) == NAMES
    header, _ = quantized.export_c("q_model", tmp_path)
    assert f"#define Q_MODEL_SIZE {len(quantized.blob_)}u" in open(header).read()


# With the rows, the host library's quantise-with-fallback (pbp/host/quantise.hpp) from both
# front ends; quantize() defaults to --fallback none.
@pytest.mark.parametrize("storage,fallback", [("int8", None), ("int8-logvar", None),
                                              ("int8", "auto"), ("int8", "float16")])
def test_quantize_with_rows_writes_what_pbp_quantize_data_writes(fitted, storage, fallback,
                                                                 tmp_path, pbp_cli):
    model, X = fitted
    model.save(tmp_path / "m.pbp")
    write_csv(tmp_path / "x.csv", X)
    pbp_cli("quantize", tmp_path / "m.pbp", "--storage", storage, "--data", tmp_path / "x.csv",
            "--fallback", fallback or "none", "--out", tmp_path / "q.pbp")
    quantized = model.quantize(storage, X, **({"fallback": fallback} if fallback else {}))
    assert quantized.blob_ == (tmp_path / "q.pbp").read_bytes()
    assert quantized.blob_ != model.quantize(storage).blob_
    mean, std = quantized.predict(X, return_std=True)
    assert np.corrcoef(mean, model.predict(X))[0, 1] > 0.99


def test_quantized_classifier_and_bad_storage(classification):
    X, y = classification
    model = PBPClassifier(hidden=(8,), epochs=5, verbose=0).fit(X, y)
    quantized = model.quantize("float16")
    assert list(quantized.classes_) == list(model.classes_)
    assert np.abs(quantized.predict_proba(X) - model.predict_proba(X)).max() < 0.05
    with pytest.raises(ValueError, match="storage must be 'float32', 'float16', 'int8'"):
        model.quantize("int4")
    with pytest.raises(ValueError, match="X rounds int8 means"):
        model.quantize("float16", X)



def test_quantize_refuses_a_bad_fallback(fitted):
    model, X = fitted
    assert model.quantize("int8", X, fallback="none").blob_ == model.quantize("int8", X).blob_
    with pytest.raises(ValueError, match="fallback must be 'auto', 'float16' or 'none'"):
        model.quantize("int8", X, fallback="int4")
    with pytest.raises(ValueError, match="fallback needs X"):
        model.quantize("int8", fallback="auto")
