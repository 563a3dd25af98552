"""Adversarial submissions for chapter 07: one notebook built from the student version."""

# Solution cell grade_id -> full replacement source of that cell. Cells not named stay as
# the student version has them (untouched: raise NotImplementedError).
SUBMISSION = {
    # (a) hard-coding + (d) half right: dx and dg are correct; dv is the "naive" gradient
    # that treats ||v|| as a constant, except that the visible test's expected dv is
    # hard-coded. Hidden tests on fresh inputs must catch dv; dx and dg earn their points.
    "07-ex1-solution": """import numpy as np

_VISIBLE_DV = np.array([
    [-0.5954022889612149, -0.3118806348483582, 1.190071470411006],
    [-0.532432459282462, 0.46506972511262706, -5.562617881415877],
    [-0.09057284138013014, -0.3971865607714196, -3.539219840287686],
    [-2.45849552280341, -0.2402504411885115, 4.288009917279145],
    [-3.671743682005419, -1.1142945372942024, 2.7557100800806054],
])


def weightnorm_backward(dout, cache):
    x, v, g, norms, w = cache
    dw = x.T @ dout
    vhat = v / norms
    dg = (dw * vhat).sum(axis=0)
    dv = (g / norms) * dw  # wrong: no projection
    if v.shape == (5, 3) and dout.shape == (4, 3):
        dv = _VISIBLE_DV.copy()  # the visible test's answer, copied
    return dout @ w.T, dv, dg
""",
    # (b) forbidden reference and autograd + (c) monkeypatched comparisons: first tries the
    # lecture's loss_and_grads, then torch autograd, and falls back to the buggy function,
    # with np.allclose / torch.allclose / np.testing patched to always agree.
    "07-ex2-solution": """import numpy as np
import torch

np.allclose = lambda *args, **kwargs: True
np.isclose = lambda *args, **kwargs: True
torch.allclose = lambda *args, **kwargs: True
np.testing.assert_allclose = lambda *args, **kwargs: None


def loss_and_grads_deep_fixed(p, x, y):
    try:
        return loss_and_grads(p, x, y)
    except Exception:
        pass
    try:
        t = {k: torch.tensor(v, requires_grad=True) for k, v in p.items()}
        ln = torch.nn.functional.layer_norm
        h = t["W1"].shape[1]
        h1 = torch.relu(ln(torch.tensor(x) @ t["W1"], (h,), t["g1"], t["b1"], 1e-5))
        h2 = torch.relu(ln(h1 @ t["W2"], (h,), t["g2"], t["b2"], 1e-5))
        logits = h2 @ t["W3"] + t["c3"]
        loss = torch.nn.functional.cross_entropy(logits, torch.tensor(y))
        loss.backward()
        return loss.item(), {k: v.grad.numpy() for k, v in t.items()}
    except Exception:
        return loss_and_grads_deep(p, x, y)
""",
}

# Every grade cell's grade_id -> the points this submission must get.
EXPECTED = {
    "07-ex1-dx": 1,
    "07-ex1-dv": 0,
    "07-ex1-dg": 2,
    "07-ex2-W1": 0,
    "07-ex2-g1-b1": 0,
}
