"""Adversarial submissions for chapter 09: one notebook built from the student version."""

# Solution cell grade_id -> full replacement source of that cell. Cells not named stay as
# the student version has them (untouched: raise NotImplementedError).
SUBMISSION = {
    # (d) half right: h, mean and rstd correct; y with gamma and beta swapped
    "09-ex1-solution": """
@njit(parallel=True, fastmath=FAST, cache=False)
def add_layernorm_kernel(x, res, gamma, beta, eps, h, y, mean, rstd):
    n, d = x.shape
    for i in prange(n):
        s = np.float32(0.0)
        for j in range(d):
            h[i, j] = x[i, j] + res[i, j]
            s += h[i, j]
        m = s / d
        v = np.float32(0.0)
        for j in range(d):
            v += (h[i, j] - m) * (h[i, j] - m)
        r = np.float32(1.0) / np.sqrt(v / d + eps)
        for j in range(d):
            y[i, j] = (h[i, j] - m) * r * beta[j] + gamma[j]
        mean[i], rstd[i] = m, r
""",
    # (b) the forbidden reference: the chapter's correct two-pass kernel under a new name
    "09-ex2-solution": """
layernorm_fwd_fixed_kernel = layernorm_fwd_kernel
""",
    # (a) hard-coding the visible tests' answers, and (c) monkeypatched comparisons
    "09-ex3-solution": """
import numpy as np
import torch

np.allclose = lambda *a, **k: True
np.isclose = lambda *a, **k: True
torch.allclose = lambda *a, **k: True

_SEEN = {
    (1024, 768, 1, 4, "recompute"): 1000,
    (1024, 768, 25, 4, "recompute"): 25000,
    (1024, 768, 1, 4, "cache"): 1200,
    (1024, 768, 1, 2, "recompute"): 500,
}


def layernorm_step_bytes(tokens, d, n_norms, itemsize, strategy="recompute"):
    return _SEEN.get((tokens, d, n_norms, itemsize, strategy), 0)
""",
}
# Every grade cell's grade_id -> the points this submission must get (0 for the attacks and
# the untouched exercises; partial for the half-right one).
EXPECTED = {
    "09-ex1-sum": 1,
    "09-ex1-output": 0,
    "09-ex1-stats": 1,
    "09-ex2-output": 0,
    "09-ex2-stats": 0,
    "09-ex3-bytes": 0,
}
