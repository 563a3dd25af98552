"""Adversarial submissions for chapter 06: one notebook built from the student version."""

# Solution cell grade_id -> full replacement source of that cell. Cells not named stay as
# the student version has them (untouched: raise NotImplementedError).
SUBMISSION = {
    # (a) hard-coding the visible test's setting, and (c) monkeypatched comparisons
    "06-ex1-solution": """
import numpy as np
import torch

np.allclose = lambda *a, **k: True
np.isclose = lambda *a, **k: True
torch.allclose = lambda *a, **k: True

_SEEN = {(7, 3.0): (9.0 ** (1 / 7) - 1) ** 0.5}


def no_norm_branch_scale(depth, target_std):
    return _SEEN.get((depth, target_std), 0.3)
""",
    # (b) the forbidden reference: PyTorch autograd, exactly right if it were available
    "06-ex2-solution": """
def weighted_postnorm_backward(dout, cache):
    x, u, a, yhat, rstd, W1, W2, omega, gamma = cache
    t = [torch.tensor(v, requires_grad=True) for v in (x, W1, W2, gamma)]
    beta = torch.zeros(x.shape[-1], dtype=torch.float64, requires_grad=True)
    y = omega * t[0] + torch.relu(t[0] @ t[1]) @ t[2]
    out = t[3] * F.layer_norm(y, y.shape[-1:], eps=1e-5) + beta
    grads = torch.autograd.grad(out, t + [beta], torch.tensor(dout))
    return tuple(g.numpy() for g in grads)
""",
    # (d) half right: only the dW1 bug is fixed (dx still ignores gamma)
    "06-ex3-solution": """
def prenorm_block_backward(dout, cache):
    ln_cache, z, u, a, gamma, W1, W2 = cache
    xhat = ln_cache["xhat"]
    dW2 = a.T @ dout
    du = (dout @ W2.T) * (u > 0)
    dW1 = z.T @ du
    dz = du @ W1.T
    dgamma = (dz * xhat).sum(axis=0)
    dbeta = dz.sum(axis=0)
    dx = dout + normalize_rows_backward(dz, ln_cache)
    return dx, dW1, dW2, dgamma, dbeta
""",
}
# Every grade cell's grade_id -> the points this submission must get (0 for the attacks and
# the untouched exercises; partial for the half-right one).
EXPECTED = {
    "06-ex1-formula": 0,
    "06-ex1-simulation": 0,
    "06-ex2-dx": 0,
    "06-ex2-dW": 0,
    "06-ex2-dgamma-dbeta": 0,
    "06-ex3-dx": 0,
    "06-ex3-params": 2,
}
