"""Adversarial submissions for chapter 02: one notebook built from the student version."""

# Solution cell grade_id -> full replacement source of that cell. Cells not named stay as
# the student version has them (untouched: raise NotImplementedError).
SUBMISSION = {
    # (d) half right: the merged mean is right and empty parts are handled, but the
    # between-chunk term Delta^2 n_a n_b / n of m2 is forgotten.
    "02-ex1-solution": """
def merge_moments(a, b):
    n_a, mean_a, m2_a = a
    n_b, mean_b, m2_b = b
    n = n_a + n_b
    if n == 0:
        return 0, mean_a * 0, m2_a * 0
    mean = mean_a + (mean_b - mean_a) * (n_b / n)
    return n, mean, m2_a + m2_b
""",
    # (a) hard-coded: returns the final state of the visible test's two streams,
    # copied from a run of that test, whatever the input.
    "02-ex2-solution": """
import numpy as np

_FINAL = {
    3: ([6.929891071057019, 6.816329421138488, 6.96517842555185],
        [126.08626457745024, 135.28347176995442, 107.32427991917069]),
    2: ([-299.84431211457013, -300.05588755785567],
        [40.08899297891092, 43.98128448691378]),
}


def stream_update(state, block):
    mean, m2 = _FINAL.get(block.shape[0], (block.mean(-1), block.var(-1)))
    return 40, np.array(mean, dtype=block.dtype), np.array(m2, dtype=block.dtype)
""",
    # (b) the forbidden reference: PyTorch's own layer_norm does the work.
    "02-ex3-solution": """
import torch
import torch.nn.functional as F


def layer_norm_lastk(x, gamma, beta, k, eps=1e-5):
    out = F.layer_norm(torch.from_numpy(x), x.shape[x.ndim - k:],
                       torch.from_numpy(np.asarray(gamma, dtype=float)),
                       torch.from_numpy(np.asarray(beta, dtype=float)), eps=eps)
    return out.numpy()
""",
    # (c) monkeypatched comparisons around a wrong answer: the ported function unchanged.
    "02-ex4-solution": """
import numpy as np
import torch

np.allclose = lambda *a, **k: True
np.isclose = lambda *a, **k: True
torch.allclose = lambda *a, **k: True


def layernorm_forward_fixed(x, gamma, beta, ln_param):
    return layernorm_forward_ported(x, gamma, beta, ln_param)
""",
}

# Every grade cell's grade_id -> the points this submission must get.
EXPECTED = {
    "02-ex1-mean": 1,
    "02-ex1-m2": 0,
    "02-ex1-empty": 1,
    "02-ex2-float64": 0,
    "02-ex2-float32": 0,
    "02-ex3-values": 0,
    "02-ex3-errors": 0,
    "02-ex4-loud": 0,
    "02-ex4-quiet": 0,
}
