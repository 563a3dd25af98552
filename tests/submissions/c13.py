"""Adversarial submissions for chapter 13: one notebook per attack (one coding exercise)."""

# Solution cell grade_id -> full replacement source of that cell, per submission.
SUBMISSIONS = {
    # (d) half right: the textbook formula without the shift by the largest logit
    # (overflows on huge logits), and a gradient that forgets the factor 2 of the square
    "half_right": {
        "13-ex1-solution": """
def z_loss_grad(z, coef):
    e = np.exp(z)
    log_z = np.log(e.sum(axis=1, keepdims=True))
    n = z.shape[0]
    return float(coef * (log_z**2).sum() / n), coef * log_z * e / e.sum(1, keepdims=True) / n
"""
    },
    # (b) the forbidden reference: the gradient by autograd
    "reference": {
        "13-ex1-solution": """
import torch


def z_loss_grad(z, coef):
    t = torch.tensor(z, requires_grad=True)
    loss = coef * t.logsumexp(1).square().mean()
    loss.backward()
    return float(loss), t.grad.numpy()
"""
    },
    # (c) monkeypatched comparisons, and answers of the right shapes filled with zeros
    "monkeypatch": {
        "13-ex1-solution": """
import numpy as np
import torch

np.allclose = lambda *a, **k: True
np.isclose = lambda *a, **k: True
np.log = lambda x: 0 * x
torch.allclose = lambda *a, **k: True


def z_loss_grad(z, coef):
    return 0.0, np.zeros_like(z)
"""
    },
}
# Submission -> every grade cell's grade_id -> the points it must get.
EXPECTED_BY_SUBMISSION = {
    "half_right": {"13-ex1-loss": 1, "13-ex1-huge": 0, "13-ex1-grad": 0},
    "reference": {"13-ex1-loss": 0, "13-ex1-huge": 0, "13-ex1-grad": 0},
    "monkeypatch": {"13-ex1-loss": 0, "13-ex1-huge": 0, "13-ex1-grad": 0},
}

# Honest rewrite: the model answer written another way (np.logaddexp.reduce for ln Z,
# the softmax as exp(z - ln Z)). Full marks.
HONEST = {
    "13-ex1-solution": """
def z_loss_grad(z, coef):
    lse = np.logaddexp.reduce(z, axis=1)
    softmax = np.exp(z - lse[:, None])
    n = len(z)
    return float(coef * np.mean(lse**2)), (2 * coef / n) * lse[:, None] * softmax
"""
}
