# Dynamic Tanh (DyT, Zhu et al. 2025) in NumPy: a norm's place taken by an elementwise
# tanh with one learned scale, no statistics. The cs231n interface of
# normbook/layers.py: forward(x, params...) returns (out, cache), backward(dout, cache)
# the gradients.
import numpy as np


def dyt_forward(x, gamma, beta, alpha):
    """gamma * tanh(alpha * x) + beta over the last axis of x: (..., D).

    gamma, beta: shape (D,); alpha: one number. Returns (out, cache); cache is a dict
    with keys "x", "t" (= tanh(alpha x)), "alpha", "gamma".
    """
    t = np.tanh(alpha * x)
    return gamma * t + beta, {"x": x, "t": t, "alpha": alpha, "gamma": gamma}


def dyt_backward(dout, cache):
    """Backward pass of dyt_forward. Returns (dx, dgamma, dbeta, dalpha): shapes
    (..., D), (D,), (D,) and a float."""
    x, t, alpha, gamma = cache["x"], cache["t"], cache["alpha"], cache["gamma"]
    rows = tuple(range(dout.ndim - 1))
    du = dout * gamma * (1 - t * t)  # d tanh(u) = (1 - tanh(u)^2) du, u = alpha x
    return (
        alpha * du,
        (dout * t).sum(axis=rows),
        dout.sum(axis=rows),
        float((du * x).sum()),
    )
