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
    # (e) a correct layer_statistics, and a diagnose that hard-codes the visible tests'
    # verdicts in the order they are asked.
    "01-ex5-solution": """
import numpy as np


def layer_statistics(x, weights, activation, readout):
    acts, a = [], x
    for W in weights:
        a = np.tanh(a @ W) if activation == "tanh" else np.maximum(a @ W, 0.0)
        acts.append(a)
    grads, g = [], readout / len(x)
    for W, a in zip(weights[::-1], acts[::-1]):
        d = g * (1.0 - a**2 if activation == "tanh" else (a > 0.0))
        grads.insert(0, d)
        g = d @ W.T
    saturated = [float(np.mean(abs(a) > 0.99)) if activation == "tanh" else 0.0 for a in acts]
    return {
        "act_std": np.array([a.std() for a in acts]),
        "saturated": np.array(saturated),
        "grad_std": np.array([d.std() for d in grads]),
    }


_VERDICTS = ["vanishing", "healthy"]


def diagnose(stats):
    _VERDICTS.append(_VERDICTS.pop(0))
    return _VERDICTS[-1]
""",
}

# Solutions written unlike the model answers, which must get full marks: diagnose with
# other thresholds (activations only, a factor 10, the most saturated layer over one half).
HONEST = {
    "01-ex5-solution": """
def layer_statistics(x, weights, activation, readout):
    phi, dphi = ACTIVATIONS[activation]  # the chapter's activations, phi' from a
    hs, acts = [], [x]
    for W in weights:
        hs.append(acts[-1] @ W)
        acts.append(phi(hs[-1]))
    acts = acts[1:]
    dh = [None] * len(weights)
    da = readout / x.shape[0]
    for l in range(len(weights) - 1, -1, -1):
        dh[l] = da * dphi(acts[l])
        da = np.einsum("nj,ij->ni", dh[l], weights[l])
    sat = np.array([(np.abs(a) > 0.99).mean() for a in acts], dtype=np.float64)
    return {
        "act_std": np.array([np.std(a) for a in acts]),
        "saturated": sat * (activation == "tanh"),
        "grad_std": np.array([np.std(d) for d in dh]),
    }


def diagnose(stats):
    if stats["saturated"].max() > 0.5:
        return "saturated"
    change = stats["act_std"][-1] / stats["act_std"][0]
    if change < 0.1:
        return "vanishing"
    return "exploding" if change > 10 else "healthy"
""",
}

# Every autograded grade cell's grade_id -> the points this submission must get. (The
# written answers, 01-ex1-derivation, 01-ex2-answer, 01-ex3-*, 01-ex4-answer,
# 01-ex5-answer, are graded by hand and score nothing automatically.)
EXPECTED = {
    "01-ex1-leaky-relu": 0,  # (a) hard-coded
    "01-ex1-kaiming-std": 0,  # (b) forbidden reference
    "01-ex2-gain": 2,  # (d) the correct half
    "01-ex2-backward": 0,  # (c) monkeypatch with a wrong implementation
    "01-ex5-statistics": 2,  # (e) the correct half
    "01-ex5-diagnose": 0,  # (e) hard-coded verdicts
}
