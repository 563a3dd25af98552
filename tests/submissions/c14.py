"""Adversarial submissions for chapter 14: one notebook per attack (one coding exercise)."""

# Solution cell grade_id -> full replacement source of that cell, per submission.
SUBMISSIONS = {
    # (d) half right: dx and dw_f right, but SiLU's derivative taken as the sigmoid
    # alone (the c * sig * (1 - sig) term forgotten), so dc is wrong
    "half_right": {
        "14-ex1-solution": """
def adaln_zero_token_backward(dout, cache):
    c, sig, s, w, w_f, xhat, rstd, scale, gate, y, f = cache
    df = dout * gate
    dy = df @ w_f.T
    dxhat = dy * (1 + scale)
    dx = dout + rstd * (
        dxhat
        - dxhat.mean(-1, keepdims=True)
        - xhat * (dxhat * xhat).mean(-1, keepdims=True)
    )
    dm = np.concatenate([dy, dy * xhat, dout * f], axis=-1)
    dw = np.einsum("nte,ntk->ek", s, dm)
    db = dm.sum((0, 1))
    dc = (dm @ w.T) * sig
    return dx, dc, dw, db, np.einsum("ntd,nte->de", y, df)
"""
    },
    # (b) the forbidden reference: the chapter's per-example backward, one token at a
    # time (a token with its own condition is an example of one token)
    "reference": {
        "14-ex1-solution": """
def adaln_zero_token_backward(dout, cache):
    c, sig, s, w, w_f, xhat, rstd, scale, gate, y, f = cache
    n, t, d = dout.shape
    flat = lambda a: a.reshape(n * t, -1)
    small = (flat(c), flat(sig), flat(s), w, w_f, xhat.reshape(n * t, 1, d),
             rstd.reshape(n * t, 1, 1), flat(scale), flat(gate),
             y.reshape(n * t, 1, d), f.reshape(n * t, 1, d))
    dx, dc, dw, db, dw_f = adaln_zero_backward(dout.reshape(n * t, 1, d), small)
    return dx.reshape(n, t, d), dc.reshape(n, t, -1), dw, db, dw_f
"""
    },
    # (c) monkeypatched comparisons, and answers of the right shapes filled with zeros
    "monkeypatch": {
        "14-ex1-solution": """
import numpy as np
import torch

np.allclose = lambda *a, **k: True
np.isclose = lambda *a, **k: True
torch.allclose = lambda *a, **k: True


def adaln_zero_token_backward(dout, cache):
    c, sig, s, w, w_f = cache[:5]
    return (np.zeros_like(dout), np.zeros_like(c), np.zeros_like(w),
            np.zeros(w.shape[1]), np.zeros_like(w_f))
"""
    },
}
# Submission -> every grade cell's grade_id -> the points it must get.
EXPECTED_BY_SUBMISSION = {
    "half_right": {"14-ex1-dx": 2, "14-ex1-cond": 0, "14-ex1-branch": 1},
    "reference": {"14-ex1-dx": 0, "14-ex1-cond": 0, "14-ex1-branch": 0},
    "monkeypatch": {"14-ex1-dx": 0, "14-ex1-cond": 0, "14-ex1-branch": 0},
}

# Honest rewrite: the model answer written another way (tokens flattened into rows,
# the LayerNorm backward as the Jacobian's projection, SiLU' from its definition).
HONEST = {
    "14-ex1-solution": """
def adaln_zero_token_backward(dout, cache):
    c, sig, s, w, w_f, xhat, rstd, scale, gate, y, f = cache
    n, t, d = dout.shape
    g = dout.reshape(-1, d)
    xh = xhat.reshape(-1, d)
    gate_r, scale_r = gate.reshape(-1, d), scale.reshape(-1, d)
    branch_grad = g * gate_r
    dy = branch_grad @ w_f.T
    u = dy * (1 + scale_r)
    proj = u - u.mean(1, keepdims=True) - xh * (u * xh).mean(1, keepdims=True)
    dx = g + rstd.reshape(-1, 1) * proj
    dm = np.hstack([dy, dy * xh, g * f.reshape(-1, d)])
    s_r, c_r, sig_r = (a.reshape(n * t, -1) for a in (s, c, sig))
    silu_prime = sig_r + c_r * sig_r * (1 - sig_r)
    dc = (dm @ w.T) * silu_prime
    return (dx.reshape(n, t, d), dc.reshape(c.shape), s_r.T @ dm, dm.sum(0),
            y.reshape(-1, d).T @ branch_grad)
"""
}
