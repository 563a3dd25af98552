"""Adversarial submissions for chapter 04: one notebook built from the student version."""

# Solution cell grade_id -> full replacement source of that cell. Cells not named stay as
# the student version has them (untouched: raise NotImplementedError).
SUBMISSION = {
    # (a) hard-coding: prms_error returns the values the visible test expects
    "04-ex1-solution": """
def prmsnorm(x, gamma, p, eps=1e-8):
    raise NotImplementedError()


_SEEN = {1.0: 0.0, 1 / 64: 0.16, 1 / 16: 0.08, 1 / 4: 0.04}


def prms_error(x, p):
    return _SEEN.get(p, 0.05)
""",
    # (d) half right: dx correct, dgamma summed over the first axis only (wrong for 3-D)
    "04-ex2-solution": """
def rmsnorm_outside_backward(dout, x, gamma, eps):
    rho = np.sqrt(np.mean(x * x, axis=-1, keepdims=True))
    s = rho + eps
    g = dout * gamma
    dgamma = np.sum(dout * x / s, axis=0)
    d = x.shape[-1]
    dx = g / s - x * np.sum(g * x, axis=-1, keepdims=True) / (d * rho * s**2)
    return dx, dgamma
""",
    # (b) the forbidden reference: exactly right if rmsnorm_backward were available
    "04-ex3-solution": """
def rmsnorm_unit_offset_backward(dout, x, gamma, eps=1e-6):
    rstd = 1.0 / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)
    return rmsnorm_backward(dout, {"xhat": x * rstd, "rstd": rstd, "gamma": 1 + gamma})
""",
    # (c) monkeypatched comparisons and a wrong implementation
    "04-ex4-solution": """
import numpy as np
import torch

np.allclose = lambda *a, **k: True
np.isclose = lambda *a, **k: True
torch.allclose = lambda *a, **k: True


def max_weight_bound(gq, gk, T):
    return 0.5


def min_gain_for_weight(p, T, d_head):
    return 1.0
""",
}
# Every grade cell's grade_id -> the points this submission must get (0 for the attacks and
# the untouched exercises; partial for the half-right one).
EXPECTED = {
    "04-ex1-prmsnorm": 0,
    "04-ex1-error": 0,
    "04-ex2-dx": 3,
    "04-ex2-dgamma": 0,
    "04-ex3-backward": 0,
    "04-ex4-bound": 0,
    "04-ex4-gain": 0,
}

# A further attack on the core-skill exercises: PyTorch autograd instead of a derivation
# (exactly right if autograd were available). Same format; every grade cell must get 0.
AUTOGRAD_SUBMISSION = {
    "04-ex2-solution": """
def rmsnorm_outside_backward(dout, x, gamma, eps):
    xt = torch.tensor(x, requires_grad=True)
    gt = torch.tensor(gamma, requires_grad=True)
    rho = xt.pow(2).mean(-1, keepdim=True).sqrt()
    dx, dg = torch.autograd.grad(gt * xt / (rho + eps), (xt, gt), torch.tensor(dout))
    return dx.numpy(), dg.numpy()
""",
    "04-ex3-solution": """
def rmsnorm_unit_offset_backward(dout, x, gamma, eps=1e-6):
    xt = torch.tensor(x, requires_grad=True)
    gt = torch.tensor(gamma, requires_grad=True)
    r = (xt.pow(2).mean(-1, keepdim=True) + eps).sqrt()
    ((1 + gt) * xt / r).backward(torch.tensor(dout))
    return xt.grad.numpy(), gt.grad.numpy()
""",
}
AUTOGRAD_EXPECTED = {key: 0 for key in EXPECTED}
