"""Adversarial submissions for chapter 10: one notebook per attack (one coding exercise)."""

# Solution cell grade_id -> full replacement source of that cell, per submission. The
# cell holds the kernel and the launcher the tests call (LAUNCHER, as handed out).
LAUNCHER = """

def launch_rms_backward(x, dy, w, rstd, rows):
    x, dy, w, rstd = (
        torch.from_numpy(np.ascontiguousarray(a, dtype=np.float32)).to(DEVICE)
        for a in (x, dy, w, rstd)
    )
    n, d = x.shape
    programs = -(-n // rows)
    dx = torch.full_like(x, float("nan"))
    part = torch.full((programs, d), float("nan"), device=DEVICE)
    block = triton.next_power_of_2(d)
    rms_backward_kernel[(programs,)](
        dy, x, w, rstd, dx, part, n, d, ROWS=rows, BLOCK=block
    )
    return dx.cpu().numpy(), part.cpu().numpy()
"""
SUBMISSIONS = {
    # (d) half right: dx correct, the partial sums never written
    "half_right": {
        "10-ex1-solution": """
@triton.jit
def rms_backward_kernel(
    DY, X, W, Rstd, DX, DW_part, N, D, ROWS: tl.constexpr, BLOCK: tl.constexpr
):
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < D
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    for i in range(ROWS):
        row = pid * ROWS + i
        live = mask & (row < N)
        offs = row.to(tl.int64) * D + cols
        x = tl.load(X + offs, mask=live, other=0.0).to(tl.float32)
        dy = tl.load(DY + offs, mask=live, other=0.0).to(tl.float32)
        r = tl.load(Rstd + row, mask=row < N, other=0.0)
        g = dy * w
        dx = (g - x * r * (tl.sum(g * x * r, axis=0) / D)) * r
        tl.store(DX + offs, dx, mask=live)
"""
        + LAUNCHER
    },
    # (b) the forbidden reference: the chapter's kernel under the exercise's name
    "reference": {
        "10-ex1-solution": "rms_backward_kernel = _rms_norm_bwd\n" + LAUNCHER
    },
    # (c) monkeypatched comparisons, and a kernel that writes zeros
    "monkeypatch": {
        "10-ex1-solution": """
import numpy as np
import torch

np.allclose = lambda *a, **k: True
np.isclose = lambda *a, **k: True
torch.allclose = lambda *a, **k: True


@triton.jit
def rms_backward_kernel(
    DY, X, W, Rstd, DX, DW_part, N, D, ROWS: tl.constexpr, BLOCK: tl.constexpr
):
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    for i in range(ROWS):
        row = pid * ROWS + i
        tl.store(DX + row * D + cols, tl.zeros([BLOCK], tl.float32), mask=(cols < D) & (row < N))
    tl.store(DW_part + pid * D + cols, tl.zeros([BLOCK], tl.float32), mask=cols < D)
"""
        + LAUNCHER
    },
}
# Submission -> every grade cell's grade_id -> the points it must get.
EXPECTED_BY_SUBMISSION = {
    "half_right": {"10-ex1-dx": 4, "10-ex1-partials": 0},
    "reference": {"10-ex1-dx": 0, "10-ex1-partials": 0},
    "monkeypatch": {"10-ex1-dx": 0, "10-ex1-partials": 0},
}

# Honest rewrites: the model answer written another way (the two row sums of the mean
# taken apart, the partial sums accumulated from g and w). Full marks.
HONEST = {
    "10-ex1-solution": """
@triton.jit
def rms_backward_kernel(
    DY, X, W, Rstd, DX, DW_part, N, D, ROWS: tl.constexpr, BLOCK: tl.constexpr
):
    pid = tl.program_id(0)
    offsets = tl.arange(0, BLOCK)
    inside = offsets < D
    gamma = tl.load(W + offsets, mask=inside, other=1.0).to(tl.float32)
    total = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(ROWS):
        r_index = pid * ROWS + k
        ok = inside & (r_index < N)
        base = r_index.to(tl.int64) * D
        xs = tl.load(X + base + offsets, mask=ok, other=0.0).to(tl.float32)
        grad = tl.load(DY + base + offsets, mask=ok, other=0.0).to(tl.float32)
        inv = tl.load(Rstd + r_index, mask=r_index < N, other=0.0)
        dot = tl.sum(grad * gamma * xs, axis=0) * inv * inv / D
        tl.store(DX + base + offsets, inv * (grad * gamma - xs * dot), mask=ok)
        total = total + grad * xs * inv
    tl.store(DW_part + pid * D + offsets, total, mask=inside)
"""
    + LAUNCHER
}
