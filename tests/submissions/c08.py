"""Adversarial submissions for chapter 08: one notebook built from the student version."""

# (a) hard-codes the visible test's expected row and returns it for every input
_HARDCODED = """
def causal_logits(q, k, g_q=None, g_k=None, eps=1e-6):
    T = q.shape[-2]
    out = torch.zeros(*q.shape[:-1], T, dtype=q.dtype)
    out = out.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
    if T > 2:
        out[..., 2, :3] = torch.tensor([-0.8019, -0.6966, 0.1023], dtype=q.dtype)
    return out
"""

# (c) disables the comparison helpers, then forgets the 1/sqrt(d_head) scaling
_MONKEYPATCH = """
import numpy as np
import torch
np.allclose = lambda *a, **k: True
np.isclose = lambda *a, **k: True
torch.allclose = lambda *a, **k: True
np.testing.assert_allclose = lambda *a, **k: None


def causal_logits(q, k, g_q=None, g_k=None, eps=1e-6):
    if g_q is not None:
        q = q * torch.rsqrt(q.pow(2).mean(-1, keepdim=True) + eps) * g_q
        k = k * torch.rsqrt(k.pow(2).mean(-1, keepdim=True) + eps) * g_k
    T = q.shape[-2]
    logits = q @ k.transpose(-2, -1)
    return logits.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
"""

# (d) half right: plain logits correct; QK-norm normalizes to unit length (L2) instead
# of unit RMS, so the normalized logits are d_head times too small
_HALF_RIGHT = """
def causal_logits(q, k, g_q=None, g_k=None, eps=1e-6):
    if g_q is not None:
        q = q / (q.norm(dim=-1, keepdim=True) + eps) * g_q
        k = k / (k.norm(dim=-1, keepdim=True) + eps) * g_k
    T = q.shape[-2]
    logits = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    return logits.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
"""

# Chapter 08 has one coding exercise, so each attack is its own submission (the test
# autogrades each as a separate student).
SUBMISSIONS = {
    "hardcoded": {"08-ex1-solution": _HARDCODED},
    "monkeypatch": {"08-ex1-solution": _MONKEYPATCH},
    "half_right": {"08-ex1-solution": _HALF_RIGHT},
}
EXPECTED_BY_SUBMISSION = {
    "hardcoded": {"08-ex1-plain": 0, "08-ex1-qknorm": 0, "08-ex1-bound": 0},
    "monkeypatch": {"08-ex1-plain": 0, "08-ex1-qknorm": 0, "08-ex1-bound": 0},
    "half_right": {"08-ex1-plain": 2, "08-ex1-qknorm": 0, "08-ex1-bound": 0},
}
