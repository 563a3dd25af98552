# Normalization layers in NumPy, shared by the chapters (chapter 2 derives LayerNorm's
# forward, chapter 3 its backward, chapter 4 RMSNorm's). Every layer normalizes over the
# last axis and follows the cs231n interface: forward(x, params..., param_dict) returns
# (out, cache), backward(dout, cache) returns the gradients. The cache is a dict.
import numpy as np


def layer_norm(x, gamma=None, beta=None, eps=1e-5):
    """LayerNorm over the last axis of x; gamma, beta of shape (D,) (None: 1 and 0)."""
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)  # population variance: 1/D
    y = (x - mu) / np.sqrt(var + eps)  # eps inside the square root
    if gamma is not None:
        y = gamma * y
    return y if beta is None else y + beta


def layernorm_forward(x, gamma, beta, ln_param):
    """Forward pass of layer normalization over the last axis (cs231n-style interface).

    x: array of shape (..., D); gamma, beta: arrays of shape exactly (D,);
    ln_param: dict; ln_param["eps"] is added to the variance (default 1e-5).
    Returns (out, cache): out has the shape of x; cache is a dict with keys
    "x", "xhat", "mu", "var", "rstd", "gamma", "eps" (mu, var, rstd: shape (..., 1)).
    """
    x = np.asarray(x)
    if x.ndim == 0:
        raise ValueError("layernorm_forward: x needs at least one axis (features last)")
    D = x.shape[-1]
    for name, p in (("gamma", gamma), ("beta", beta)):
        if np.shape(p) != (D,):
            raise ValueError(
                f"layernorm_forward: {name} has shape {np.shape(p)} but x has shape "
                f"{x.shape}; {name} must have shape ({D},), the size of the last "
                "(normalized) axis of x"
            )
    eps = ln_param.get("eps", 1e-5)
    mu = x.mean(axis=-1, keepdims=True)
    xc = x - mu
    var = (xc**2).mean(axis=-1, keepdims=True)
    rstd = 1.0 / np.sqrt(var + eps)
    xhat = xc * rstd
    out = gamma * xhat + beta
    cache = {
        "x": x,
        "xhat": xhat,
        "mu": mu,
        "var": var,
        "rstd": rstd,
        "gamma": gamma,
        "eps": eps,
    }
    return out, cache


def layernorm_backward(dout, cache):
    """Backward pass of layernorm_forward. dout: (..., D).

    Returns (dx, dgamma, dbeta) with shapes (..., D), (D,), (D,).
    """
    xhat, rstd, gamma = cache["xhat"], cache["rstd"], cache["gamma"]
    rows = tuple(range(dout.ndim - 1))  # every axis except the feature axis
    dbeta = dout.sum(axis=rows)
    dgamma = (dout * xhat).sum(axis=rows)
    dxhat = dout * gamma
    dx = (
        dxhat
        - dxhat.mean(axis=-1, keepdims=True)  # mean path
        - xhat * (dxhat * xhat).mean(axis=-1, keepdims=True)  # variance path
    ) * rstd  # the direct path's 1/sigma, shared
    return dx, dgamma, dbeta


def rmsnorm_forward(x, gamma, rms_param):
    """Forward pass of RMSNorm over the last axis: gamma * x / sqrt(mean(x**2) + eps).

    x: array of shape (..., D); gamma: shape (D,); rms_param["eps"] (default 1e-5)
    goes inside the root. Returns (out, cache); cache is a dict with keys
    "x", "xhat", "rstd", "gamma", "eps" (rstd: shape (..., 1)).
    """
    eps = rms_param.get("eps", 1e-5)
    rstd = 1.0 / np.sqrt((x * x).mean(axis=-1, keepdims=True) + eps)
    xhat = x * rstd
    out = gamma * xhat
    cache = {"x": x, "xhat": xhat, "rstd": rstd, "gamma": gamma, "eps": eps}
    return out, cache


def rmsnorm_backward(dout, cache):
    """Backward pass of rmsnorm_forward. Returns (dx, dgamma): shapes (..., D), (D,)."""
    xhat, rstd, gamma = cache["xhat"], cache["rstd"], cache["gamma"]
    dgamma = (dout * xhat).sum(axis=tuple(range(dout.ndim - 1)))
    dxhat = dout * gamma
    dx = (dxhat - xhat * (dxhat * xhat).mean(axis=-1, keepdims=True)) * rstd
    return dx, dgamma
