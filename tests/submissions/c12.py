"""Adversarial submissions for chapter 12: one notebook per attack (one coding exercise)."""

# Solution cell grade_id -> full replacement source of that cell, per submission.
SUBMISSIONS = {
    # (d) half right: dx and the parameter gradients right, dalpha forgets the
    # derivative of tanh (1 - t^2), a common slip
    "half_right": {
        "12-ex1-solution": """
def dyt_grads(dout, x, gamma, alpha):
    t = np.tanh(alpha * x)
    rows = tuple(range(x.ndim - 1))
    dx = alpha * dout * gamma * (1 - t * t)
    dalpha = float((dout * gamma * x).sum())
    return dx, (dout * t).sum(axis=rows), dout.sum(axis=rows), dalpha
"""
    },
    # (b) the forbidden references: the chapter's dyt_backward, then finite differences
    "reference": {
        "12-ex1-solution": """
def dyt_grads(dout, x, gamma, alpha):
    cache = dyt_forward(x, gamma, np.zeros_like(gamma), alpha)[1]
    dx, dgamma, dbeta, _ = dyt_backward(dout, cache)
    dalpha = eval_numerical_gradient_array(
        lambda v: dyt_forward(x, gamma, 0 * gamma, float(v[0]))[0],
        np.array([alpha]),
        dout,
    )[0]
    return dx, dgamma, dbeta, float(dalpha)
"""
    },
    # (c) monkeypatched comparisons, and answers of the right shapes filled with zeros
    "monkeypatch": {
        "12-ex1-solution": """
import numpy as np
import torch

np.allclose = lambda *a, **k: True
np.isclose = lambda *a, **k: True
torch.allclose = lambda *a, **k: True


def dyt_grads(dout, x, gamma, alpha):
    return np.zeros_like(x), np.zeros_like(gamma), np.zeros_like(gamma), 0.0
"""
    },
}
# Submission -> every grade cell's grade_id -> the points it must get.
EXPECTED_BY_SUBMISSION = {
    "half_right": {"12-ex1-dx": 2, "12-ex1-dparams": 1, "12-ex1-dalpha": 0},
    "reference": {"12-ex1-dx": 0, "12-ex1-dparams": 0, "12-ex1-dalpha": 0},
    "monkeypatch": {"12-ex1-dx": 0, "12-ex1-dparams": 0, "12-ex1-dalpha": 0},
}

# Honest rewrite: the model answer written another way (tanh' as 1/cosh^2, the sums by
# einsum over the flattened rows). Full marks.
HONEST = {
    "12-ex1-solution": """
def dyt_grads(dout, x, gamma, alpha):
    D = x.shape[-1]
    g2, x2 = dout.reshape(-1, D), x.reshape(-1, D)
    slope = 1.0 / np.cosh(alpha * x2) ** 2
    local = g2 * gamma * slope
    dgamma = np.einsum("nd,nd->d", g2, np.tanh(alpha * x2))
    dalpha = np.einsum("nd,nd->", local, x2)
    return (alpha * local).reshape(x.shape), dgamma, g2.sum(0), float(dalpha)
"""
}
