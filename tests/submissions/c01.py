"""Adversarial submissions for chapter 01: one notebook built from the student version."""

# Solution cell grade_id -> full replacement source of that cell. Cells not named stay as
# the student version has them (untouched: raise NotImplementedError).
SUBMISSION = {
    # (a) hard-codes the visible test's expected output, and (b) calls the forbidden
    # reference, torch.nn.init.calculate_gain, under an alias taken at definition time.
    "01-ex1-solution": """
import math

import numpy as np
from torch.nn.init import calculate_gain as _gain


def leaky_relu(h, slope):
    return np.array([-0.2, 0.0, 3.0])


def kaiming_std(fan_in, slope=0.0):
    return _gain("leaky_relu", slope) / math.sqrt(fan_in)
""",
    # (c) monkeypatches the comparison helpers, and (d) is half right: forward_gain is
    # correct, backward_factor forgets to square the derivative.
    "01-ex2-solution": """
import math

import numpy as np
import torch

np.allclose = lambda *a, **k: True
np.isclose = lambda *a, **k: np.True_
np.testing.assert_allclose = lambda *a, **k: None
torch.allclose = lambda *a, **k: True


def forward_gain(phi, n_nodes=101):
    z, w = np.polynomial.hermite_e.hermegauss(n_nodes)
    return 1.0 / math.sqrt(np.sum(w * phi(z) ** 2) / math.sqrt(2 * math.pi))


def backward_factor(dphi, gain, n_nodes=101):
    z, w = np.polynomial.hermite_e.hermegauss(n_nodes)
    return gain**2 * abs(np.sum(w * dphi(z)) / math.sqrt(2 * math.pi))
""",
}

# Every autograded grade cell's grade_id -> the points this submission must get. (The
# written answers, 01-ex1-derivation, 01-ex2-answer, 01-ex3-*, 01-ex4-answer, are graded
# by hand and score nothing automatically.)
EXPECTED = {
    "01-ex1-leaky-relu": 0,  # (a) hard-coded
    "01-ex1-kaiming-std": 0,  # (b) forbidden reference
    "01-ex2-gain": 2,  # (d) the correct half
    "01-ex2-backward": 0,  # (c) monkeypatch with a wrong implementation
}
