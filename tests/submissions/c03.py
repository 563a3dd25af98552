"""Adversarial submissions for chapter 03: one notebook built from the student version.

Each named solution cell's source is replaced by the text below; solution cells not
named keep the student version's `raise NotImplementedError()`. The attacks:

- 03-ex1-solution, hard-coding (a): a "checker" that computes nothing and replays the
  verdicts the visible test expects (all right on odd calls, gradient 1 wrong on even
  calls). It passes the first visible test and fails the hidden ones, which permute
  the planted bugs.
- 03-ex2-solution, half right (d): dx and dgamma are correct, dz forgets the sigmoid's
  derivative factor (1 - gate). Expected: 3 + 2 of the 7 points of the coding part.
- 03-ex3-solution, forbidden reference (b): returns the lecture's layernorm_backward,
  which is correct; the grade cells make it unavailable while the student's code runs.
- 03-ex4-solution, monkeypatch (c) plus hard-coding (a): patches np.allclose,
  np.isclose, np.testing.assert_allclose and torch.allclose, and returns the visible
  test's answers as literal numbers (a wrong, naive formula for any other input).

The written answer cells (03-ex2-derivation, 03-ex3-diagnosis, 03-ex4-derivation) are
graded by hand and are not part of EXPECTED.
"""

SUBMISSION = {
    "03-ex1-solution": """\
_CALLS = []


def check_backward(forward, backward, inputs, seed=0, h=1e-5):
    _CALLS.append(1)
    errors = [0.0] * len(inputs)
    if len(_CALLS) % 2 == 0:
        errors[1] = 1.0
    return errors
""",
    "03-ex2-solution": """\
def gated_layernorm_backward(dout, cache):
    xhat, rstd, gate = cache["xhat"], cache["rstd"], cache["gate"]
    gamma, k = cache["gamma"], cache["k"]
    pooled = tuple(range(dout.ndim - k, dout.ndim))
    rows = tuple(range(dout.ndim - k))
    dgamma = (dout * xhat * gate).sum(axis=rows)
    dz = dout * gamma * xhat * gate  # forgets the factor (1 - gate)
    g = dout * gamma * gate
    dx = g - g.mean(axis=pooled, keepdims=True)
    dx -= xhat * (g * xhat).mean(axis=pooled, keepdims=True)
    return dx * rstd, dz, dgamma
""",
    "03-ex3-solution": """\
def layernorm_backward_fixed(dout, cache):
    return layernorm_backward(dout, cache)
""",
    "03-ex4-solution": """\
import numpy as np
import torch

np.allclose = lambda *a, **k: True
np.isclose = lambda *a, **k: True
np.testing.assert_allclose = lambda *a, **k: None
torch.allclose = lambda *a, **k: True

_DX = np.array([[0.11966902194526022, 0.06848283170096817, 0.0073875280900458085,
    0.005106954960966911, 0.05132977949195739, -0.25197611618919846],
    [-0.012062649759820248, -0.13007665008654862, 0.2599419054552653,
    0.0608456975139753, 0.14252468021722858, -0.3211729833401003],
    [-0.03264710563278719, -0.022352009664566866, -0.005857314227086231,
    -0.0108627680766507, 0.08913278929123135, -0.017413591690140336],
    [-0.18090999013225165, -0.1778927645818426, -0.11347621739003862,
    -0.17295509376688478, 0.7083096491064528, -0.06307558323543513]])
_DGAMMA = np.array([-0.7224472138167416, 1.4128597933758722, 3.0828868648401233,
    -1.2245794851217788, 0.5984472153131343, -0.33060447518596947])
_DBETA = np.array([1.2182402702617892, -0.1479505334484233, -3.599411422345005,
    -0.11859466190667528, 2.996974998359972, -1.580224725840293])


def layernorm_std_backward(dout, cache):
    if dout.shape == (4, 6):
        return _DX.copy(), _DGAMMA.copy(), _DBETA.copy()
    c, s, gamma, eps = cache["c"], cache["s"], cache["gamma"], cache["eps"]
    rows = tuple(range(dout.ndim - 1))
    dx = dout * gamma / (s + eps)  # naive: statistics held constant
    dgamma = (dout * c).sum(axis=rows)  # forgets the division by s + eps
    return dx, dgamma, dout.sum(axis=rows)
""",
}

# Every autograded cell's grade_id -> the points this submission must get.
EXPECTED = {
    "03-ex1-layernorm": 0,
    "03-ex1-two-inputs": 0,
    "03-ex2-dx": 3,
    "03-ex2-dz": 0,
    "03-ex2-dgamma": 2,
    "03-ex3-dx": 0,
    "03-ex3-dparams": 0,
    "03-ex4-dx": 0,
    "03-ex4-dparams": 0,
}

# Honest work written differently from the model answers: renamed variables, einsum,
# an explicit Jacobian per row. Every grade cell must give it full marks.
HONEST = {
    "03-ex3-solution": """\
def layernorm_backward_fixed(upstream, saved):
    normalized, inv_sigma, scale = saved["xhat"], saved["rstd"], saved["gamma"]
    g = upstream * scale
    width = g.shape[-1]
    mean_g = np.einsum("...d->...", g)[..., None] / width
    mean_gx = np.einsum("...d,...d->...", g, normalized)[..., None] / width
    d_input = (g - mean_g - normalized * mean_gx) * inv_sigma
    rows_up, rows_x = upstream.reshape(-1, width), normalized.reshape(-1, width)
    d_scale = np.einsum("nd,nd->d", rows_up, rows_x)
    d_shift = np.einsum("nd->d", rows_up)
    return d_input, d_scale, d_shift
""",
    "03-ex4-solution": """\
def layernorm_std_backward(dout, cache):
    c, s, gamma, eps = cache["c"], cache["s"], cache["gamma"], cache["eps"]
    D = c.shape[-1]
    rows_c, rows_s = c.reshape(-1, D), s.reshape(-1)
    rows_g = (dout * gamma).reshape(-1, D)
    dx = np.empty_like(rows_c)
    for r in range(rows_c.shape[0]):
        t = rows_s[r] + eps
        # d xhat_i / d x_j, xhat = c / (s + eps), s the sample standard deviation
        jacobian = (np.eye(D) - 1.0 / D) / t - np.outer(rows_c[r], rows_c[r]) / (
            t**2 * (D - 1) * rows_s[r]
        )
        dx[r] = jacobian.T @ rows_g[r]
    axes = tuple(range(dout.ndim - 1))
    return dx.reshape(dout.shape), (dout * c / (s + eps)).sum(axis=axes), dout.sum(axis=axes)
""",
}
