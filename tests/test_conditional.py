"""Chapter 14's shared code (normbook/conditional.py), its sweep script at a tiny size
and the stored sweep."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from conftest import require
from measure import conditional_sweep
from measure.stored import best_rate
from normbook import conditional as C

ROOT = Path(__file__).resolve().parent.parent
STORED = ROOT / "book" / "assets" / "measurements" / "conditional-sweep.json"


@pytest.mark.static
def test_adaln_zero_rejects_bad_shapes_and_is_the_identity_at_zero():
    rng = np.random.default_rng(0)
    x, c = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 5))
    w, b, w_f = np.zeros((5, 12)), np.zeros(12), rng.standard_normal((4, 4))
    with pytest.raises(ValueError, match="x must be"):
        C.adaln_zero_forward(x[0], c, w, b, w_f)
    with pytest.raises(ValueError, match="w "):
        C.adaln_zero_forward(x, c, w[:, :9], b, w_f)
    out, cache = C.adaln_zero_forward(x, c, w, b, w_f)
    assert (out == x).all()
    dout = rng.standard_normal(out.shape)
    dx, dc, dw, db, dw_f = C.adaln_zero_backward(dout, cache)
    assert (dx == dout).all() and not dc.any() and not dw_f.any()
    assert not dw[:, :8].any() and dw[:, 8:].any()  # only the gate's third


@pytest.mark.static
def test_every_variant_builds_and_patches_round_trip():
    x = torch.randn(3, C.SIDE, C.SIDE)
    assert torch.equal(C.unpatchify(C.patchify(x)), x)
    t, y = torch.rand(3), torch.tensor([0, 4, 9])
    for variant in C.VARIANTS:
        model = C.FlowModel(variant, d=16, depth=1, heads=2)
        assert model(x, t, y).shape == x.shape
        zero = variant in ("adaLN-Zero", "unconditional")
        assert (model(x, t, y) == 0).all() == zero  # DiT's zero output layer
    with pytest.raises(ValueError, match="variant"):
        C.FlowModel("cross-attention")


@pytest.mark.static
def test_the_stored_sweep_is_complete():
    """The sweep chapter 14 shows: five variants; one run per rate and seed of the
    rates' step, and one per compared seed at the rate that step chose (the lowest mean
    test loss); accuracies as fractions; three samples per class of the first seed."""
    result = json.loads(STORED.read_text())
    model = result["model"]
    assert {"date", "command", "python", "torch"} <= set(result["environment"])
    assert "conditional_sweep" in result["environment"]["command"]
    assert list(result["variants"]) == C.VARIANTS
    assert 0.9 < result["classifier_test_accuracy"] <= 1
    assert not set(model["seeds"]) & set(model["compared_seeds"])
    for variant, rows in result["variants"].items():
        rate = model["rates"][variant]
        assert rate == best_rate(rows, model["lrs"], model["seeds"])
        runs = sorted((r["lr"], r["seed"]) for r in rows)
        grid = [(lr, s) for lr in model["lrs"] for s in model["seeds"]]
        assert runs == sorted(grid + [(rate, s) for s in model["compared_seeds"]])
        assert all(0 <= r["accuracy"] <= 1 and r["test_loss"] > 0 for r in rows)
        for r in rows:
            if r["seed"] == model["seeds"][0]:
                assert len(r["samples"]) == 30
                assert all(len(s) == 196 for s in r["samples"])


def test_the_sweep_script_runs_tiny(tmp_path):
    """measure/conditional_sweep.py --tiny, its three steps: the rates, each variant
    at its rate on another seed, the merge (a few steps: a check of the script, not a
    result), in the stored sweep's layout."""
    folder = Path(os.environ.get("MNIST_DIR", ROOT / "data" / "mnist"))
    require(folder.exists(), f"no MNIST in {folder} (make data)")
    sweep = [sys.executable, "-m", "measure.conditional_sweep", "--tiny", "--out"]
    rates, other = tmp_path / "rates.json", tmp_path / "other.json"
    env = dict(os.environ, MNIST_DIR=folder)
    subprocess.run(sweep + [rates], check=True, cwd=ROOT, env=env)
    at_rate = ["--best-from", rates, "--seeds", "1"]
    subprocess.run(sweep + [other] + at_rate, check=True, cwd=ROOT, env=env)
    parts = [json.loads(path.read_text()) for path in (rates, other)]
    result = conditional_sweep.merge(parts, "the test")
    assert list(result["variants"]) == C.VARIANTS
    assert result["model"]["compared_seeds"] == [1]
    for variant, rows in result["variants"].items():
        grid = len(result["model"]["lrs"]) * len(result["model"]["seeds"])
        assert len(rows) == grid + 1
        assert all(0 <= r["accuracy"] <= 1 for r in rows)
    parts[1]["model"]["rates"] = dict.fromkeys(C.VARIANTS, 0.5)
    with pytest.raises(AssertionError, match="rates the rates' step did not choose"):
        conditional_sweep.merge(parts, "the test")
