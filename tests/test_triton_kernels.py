"""Chapter 10's Triton kernels (normbook/triton_norms.py) against float64 references.

`make test-triton` runs these in their own environment (.venv-triton: triton is about
1 GB, so it is not in requirements.txt): on a CPU under the Triton interpreter, on small
random shapes; with a GPU present, the same tests run compiled on the GPU. Every test
here is marked `triton`: `make test` deselects them (and says so); elsewhere without
triton they skip, or fail under CI=true. (That chapter 10 shows the stored GPU run
needs no triton: tests/test_stored.py.)
"""

import os
import subprocess
import sys

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from conftest import ROOT, has_triton, require

from normbook import layers

pytestmark = pytest.mark.triton

if has_triton():
    if not torch.cuda.is_available():
        os.environ.setdefault("TRITON_INTERPRET", "1")  # before triton is imported
    from normbook import triton_norms as tn


@pytest.fixture(autouse=True)
def needs_triton():
    require(has_triton(), "no triton here (`make test-triton` runs this file)")


DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
# (rows, D): D below, at and above a power of two; rows that leave the last backward
# program short, and more rows than 32 x programs (several rows per program).
SHAPES = [(1, 1), (3, 7), (33, 64), (70, 200), (129, 257), (5, 1000)]


def inputs(N, D, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    x = 2 * torch.randn(N, D, generator=g) + 0.5
    dy = torch.randn(N, D, generator=g)
    w = 1 + 0.3 * torch.randn(D, generator=g)
    b = 0.3 * torch.randn(D, generator=g)
    return [t.to(DEVICE, dtype) for t in (x, dy, w, b)]


def reference_ln(x, dy, w, b):
    """LayerNorm forward and gradients in float64 (autograd through F.layer_norm)."""
    x, w, b = (t.double().cpu().requires_grad_() for t in (x, w, b))
    y = F.layer_norm(x, (x.shape[1],), w, b, 1e-5)
    y.backward(dy.double().cpu())
    return y.detach(), x.grad, w.grad, b.grad


def reference_rms(x, dy, w):
    x, w = (t.double().cpu().requires_grad_() for t in (x, w))
    y = F.rms_norm(x, (x.shape[1],), w, 1e-6)
    y.backward(dy.double().cpu())
    return y.detach(), x.grad, w.grad


def term_scales(x, dy, w, rstd, mean=None):
    """The size of the terms each output sums, elementwise (float64): the yardstick for
    round-off where terms cancel (with D = 1, LayerNorm's dx is exactly zero and
    RMSNorm's is a difference of two equal terms)."""
    x, dy, w = (t.double().cpu() for t in (x, dy, w))
    rstd = rstd.double().cpu()[:, None]
    xhat = (x - (0 if mean is None else mean.double().cpu()[:, None])) * rstd
    return {
        "dx": rstd * (w * dy).abs(),
        "dw": (dy * xhat).abs().sum(0),
        "db": dy.abs().sum(0),
    }


def assert_close(name, got, ref, dtype, scale=None):
    """float32: the normwise error of float32 arithmetic (relative to the terms' size).
    bfloat16: every element within one bfloat16 ulp of the float64 value, plus float32
    round-off (1e-10 absolute counts as zero: LayerNorm's dw is exactly zero when
    D = 1, where float64 leaves 1e-14); one ulp, not half, because Triton 3.6's
    interpreter truncates float32 to bfloat16 where a GPU rounds to nearest."""
    got = got.double().cpu()
    scale = ref.abs() if scale is None else scale
    if dtype == torch.float32:
        err = float((got - ref).norm() / (1e-6 * scale.norm() + 1e-10))
        assert err <= 1, f"{name}: {err:.2f} x the normwise error float32 allows (1e-6)"
    else:
        ulp = torch.exp2(torch.floor(torch.log2(ref.abs().clamp_min(1e-30))) - 7)
        worst = float(((got - ref).abs() / (ulp + 1e-5 * scale + 1e-10)).max())
        assert worst <= 1, f"{name}: {worst:.2f} x (one bfloat16 ulp + round-off)"


# The backward's layouts: w held in registers or re-read for every row (the launcher's
# choice for wide rows), and each row split over 1, 2 or 4 programs (the launcher
# splits the widest; the split is capped at the padded row, so D = 1 stays whole).
LAYOUTS = {"w_held": (False, 1), "w_in_loop": (True, 1), "split2": (True, 2)}
LAYOUTS["split4_w_held"] = (False, 4)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
@pytest.mark.parametrize("N,D", SHAPES)
def test_layer_norm(N, D, dtype, layout):
    w_in_loop, split = LAYOUTS[layout]
    x, dy, w, b = inputs(N, D, dtype, seed=N * 1000 + D)
    y, mean, rstd = tn.layer_norm_fwd(x, w, b)
    dx, dw, db = tn.layer_norm_bwd(dy, x, w, mean, rstd, None, w_in_loop, split)
    y_ref, dx_ref, dw_ref, db_ref = reference_ln(x, dy, w, b)
    scale = term_scales(x, dy, w, rstd, mean)
    assert y.dtype == dx.dtype == dtype and y.shape == dx.shape == (N, D)
    assert dw.dtype == db.dtype == dtype and dw.shape == db.shape == (D,)
    assert_close("y", y, y_ref, dtype)
    for name, got, ref in [("dx", dx, dx_ref), ("dw", dw, dw_ref), ("db", db, db_ref)]:
        assert_close(name, got, ref, dtype, scale[name])


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
@pytest.mark.parametrize("N,D", SHAPES)
def test_rms_norm(N, D, dtype, layout):
    w_in_loop, split = LAYOUTS[layout]
    x, dy, w, _ = inputs(N, D, dtype, seed=N * 1000 + D)
    y, rstd = tn.rms_norm_fwd(x, w)
    dx, dw = tn.rms_norm_bwd(dy, x, w, rstd, None, w_in_loop, split)
    y_ref, dx_ref, dw_ref = reference_rms(x, dy, w)
    scale = term_scales(x, dy, w, rstd)
    assert y.dtype == dx.dtype == dw.dtype == dtype and dw.shape == (D,)
    assert_close("y", y, y_ref, dtype)
    for name, got, ref in [("dx", dx, dx_ref), ("dw", dw, dw_ref)]:
        assert_close(name, got, ref, dtype, scale[name])


def test_partial_sums_over_many_tiles():
    """The reduction of the partial rows over more than one tile of 64 (the H200 runs
    528 partial rows): two full tiles and a tail of 2, for two arrays at once."""
    g = torch.Generator().manual_seed(3)
    part = torch.randn(2, 130, 37, generator=g).to(DEVICE)
    got = tn._reduce(part, torch.float32)
    ref = part.double().cpu().sum(1)
    assert_close("sum", got, ref, torch.float32, part.double().cpu().abs().sum(1))


@pytest.mark.parametrize("layer", ["layer_norm", "rms_norm"])
def test_backward_with_many_programs(layer):
    """130 programs, so 130 partial rows (more than one tile of the reduction), with a
    short last program, as on a GPU with many multiprocessors."""
    x, dy, w, b = inputs(300, 48, torch.float32, seed=11)
    if layer == "layer_norm":
        y, mean, rstd = tn.layer_norm_fwd(x, w, b)
        got = tn.layer_norm_bwd(dy, x, w, mean, rstd, programs=130)
        ref = reference_ln(x, dy, w, b)[1:]
        names = ["dx", "dw", "db"]
    else:
        y, rstd = tn.rms_norm_fwd(x, w)
        mean = None
        got = tn.rms_norm_bwd(dy, x, w, rstd, programs=130)
        ref = reference_rms(x, dy, w)[1:]
        names = ["dx", "dw"]
    scale = term_scales(x, dy, w, rstd, mean)
    for name, a, r in zip(names, got, ref):
        assert_close(name, a, r, torch.float32, scale[name])


# The launcher's own choices for wide rows: w re-read from 8192 columns on, rows of
# 16384 split over two programs; D = 8193 pads 8191 lanes (the most masked lanes).
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
@pytest.mark.parametrize("N,D", [(2, 16384), (3, 8193), (2, 12288)])
def test_wide_rows_with_the_default_launch(N, D, dtype):
    x, dy, w, b = inputs(N, D, dtype, seed=D)
    y, mean, rstd = tn.layer_norm_fwd(x, w, b)
    dx, dw, db = tn.layer_norm_bwd(dy, x, w, mean, rstd)
    y_ref, dx_ref, dw_ref, db_ref = reference_ln(x, dy, w, b)
    scale = term_scales(x, dy, w, rstd, mean)
    assert_close("y", y, y_ref, dtype)
    for name, got, ref in [("dx", dx, dx_ref), ("dw", dw, dw_ref), ("db", db, db_ref)]:
        assert_close(name, got, ref, dtype, scale[name])
    ys, rs = tn.rms_norm_fwd(x, w)
    dxs, dws = tn.rms_norm_bwd(dy, x, w, rs)
    ys_ref, dxs_ref, dws_ref = reference_rms(x, dy, w)
    scale = term_scales(x, dy, w, rs)
    assert_close("RMS y", ys, ys_ref, dtype)
    assert_close("RMS dx", dxs, dxs_ref, dtype, scale["dx"])
    assert_close("RMS dw", dws, dws_ref, dtype, scale["dw"])


@pytest.mark.parametrize("N,D", [(33, 64), (5, 1000), (2, 16384)])
def test_mixed_precision(N, D):
    """Production mixed precision: bfloat16 activations and gradients, float32 gains and
    biases. y and dx come out in bfloat16 (one rounding), dw and db in float32 with
    float32 accuracy, since every sum is taken in float32."""
    x, dy = (t.to(torch.bfloat16) for t in inputs(N, D, torch.float32, seed=N + D)[:2])
    w, b = (t.float() for t in inputs(N, D, torch.float32, seed=N + D)[2:])
    y, mean, rstd = tn.layer_norm_fwd(x, w, b)
    dx, dw, db = tn.layer_norm_bwd(dy, x, w, mean, rstd)
    assert y.dtype == dx.dtype == torch.bfloat16
    assert dw.dtype == db.dtype == torch.float32
    y_ref, dx_ref, dw_ref, db_ref = reference_ln(x, dy, w, b)
    scale = term_scales(x, dy, w, rstd, mean)
    assert_close("y", y, y_ref, torch.bfloat16)
    assert_close("dx", dx, dx_ref, torch.bfloat16, scale["dx"])
    assert_close("dw", dw, dw_ref, torch.float32, scale["dw"])
    assert_close("db", db, db_ref, torch.float32, scale["db"])
    ys, rs = tn.rms_norm_fwd(x, w)
    dxs, dws = tn.rms_norm_bwd(dy, x, w, rs)
    assert ys.dtype == dxs.dtype == torch.bfloat16 and dws.dtype == torch.float32
    ys_ref, dxs_ref, dws_ref = reference_rms(x, dy, w)
    scale = term_scales(x, dy, w, rs)
    assert_close("RMS y", ys, ys_ref, torch.bfloat16)
    assert_close("RMS dx", dxs, dxs_ref, torch.bfloat16, scale["dx"])
    assert_close("RMS dw", dws, dws_ref, torch.float32, scale["dw"])


def test_statistics_and_the_books_numpy_layers():
    """The saved statistics are the book's mean and rstd, and the outputs match the
    NumPy layers of chapters 2-4 (float64) to float32 round-off."""
    x, dy, w, b = inputs(40, 96, torch.float32, seed=7)
    y, mean, rstd = tn.layer_norm_fwd(x, w, b)
    xn, dyn, wn, bn = (t.double().cpu().numpy() for t in (x, dy, w, b))
    out, cache = layers.layernorm_forward(xn, wn, bn, {"eps": 1e-5})
    np.testing.assert_allclose(mean.cpu().numpy(), cache["mu"][:, 0], atol=1e-6)
    np.testing.assert_allclose(rstd.cpu().numpy(), cache["rstd"][:, 0], rtol=1e-6)
    np.testing.assert_allclose(y.cpu().numpy(), out, rtol=1e-5, atol=1e-5)
    dx, dw, db = tn.layer_norm_bwd(dy, x, w, mean, rstd)
    for got, ref in zip((dx, dw, db), layers.layernorm_backward(dyn, cache)):
        np.testing.assert_allclose(got.cpu().numpy(), ref, rtol=1e-4, atol=1e-5)
    ys, rs = tn.rms_norm_fwd(x, w)
    out, cache = layers.rmsnorm_forward(xn, wn, {"eps": 1e-6})
    np.testing.assert_allclose(ys.cpu().numpy(), out, rtol=1e-5, atol=1e-5)
    dxs, dws = tn.rms_norm_bwd(dy, x, w, rs)
    for got, ref in zip((dxs, dws), layers.rmsnorm_backward(dyn, cache)):
        np.testing.assert_allclose(got.cpu().numpy(), ref, rtol=1e-4, atol=1e-5)


def test_bad_input_is_refused():
    x = torch.randn(4, 8, device=DEVICE)
    with pytest.raises(ValueError, match="shape"):
        tn.layer_norm_fwd(
            x, torch.ones(7, device=DEVICE), torch.zeros(8, device=DEVICE)
        )
    with pytest.raises(ValueError, match="contiguous 2-D"):
        tn.rms_norm_fwd(x.t(), torch.ones(4, device=DEVICE))
    with pytest.raises(ValueError, match="D <= 16384"):
        tn.rms_norm_fwd(torch.randn(1, 16385, device=DEVICE), torch.ones(16385))


def test_the_benchmark_script_runs_at_a_tiny_size(tmp_path):
    """measure/bench_gpu.py --tiny: every row of the GPU benchmark, once, on a tiny
    shape, in the three precisions (here as a check of the script; the measurement
    needs a GPU; Liger's kernels need one too)."""
    import json

    out = tmp_path / "tiny.json"
    subprocess.run(
        [sys.executable, "-m", "measure.bench_gpu", "--tiny", "--out", out],
        check=True,
        cwd=ROOT,
    )
    result = json.loads(out.read_text())
    assert {"date", "command", "torch", "triton", "device"} <= set(
        result["environment"]
    )
    rows = result["rows"]
    kinds = {(r["dtype"], r["op"], r["direction"], r["impl"]) for r in rows}
    for dtype in ("float32", "bfloat16", "mixed"):
        for roof in ("copy", "add"):
            for impl in ("torch", "triton"):
                assert (dtype, roof, "-", impl) in kinds
        for op in ("layer_norm", "rms_norm"):
            for direction in ("forward", "backward"):
                for impl in ("triton", "torch", "compile", "compile-max"):
                    assert (dtype, op, direction, impl) in kinds
    assert any("liger" in note for note in result["not_run"])  # no GPU: said so
    for r in rows:
        assert len(r["seconds"]) == len(r["seconds_wall"]) == 3
        if r["impl"] in ("triton", "compile", "compile-max"):
            tol = 1e-6 if r["dtype"] == "float32" else 2e-2
            assert r["error"] < tol, r
        if r["impl"] == "triton" and r["direction"] == "backward":
            arrays = 2 if r["op"] == "layer_norm" else 1
            assert r["uncounted_bytes"] == 2 * arrays * 4 * r["D"]  # 1 program
