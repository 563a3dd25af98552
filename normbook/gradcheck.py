# Numerical gradient checking, shared by the chapters (chapter 3 explains it). The
# names and semantics follow the cs231n assignments.
import numpy as np


def eval_numerical_gradient_array(f, x, df, h=1e-5, centred=True):
    """Finite-difference estimate of d/dx sum(df * f(x)).

    f reads the array x, which is perturbed in place, one entry at a time, and
    restored. centred=True: (f(x + h) - f(x - h)) / 2h, error O(h**2); False: the
    forward difference (f(x + h) - f(x)) / h, error O(h).
    """
    grad = np.zeros_like(x)
    base = None if centred else f(x).copy()
    for ix in np.ndindex(x.shape):
        old = x[ix]
        x[ix] = old + h
        plus = f(x).copy()
        if centred:
            x[ix] = old - h
            minus = f(x).copy()
            grad[ix] = np.sum((plus - minus) * df) / (2 * h)
        else:
            grad[ix] = np.sum((plus - base) * df) / h
        x[ix] = old  # restore
    return grad


def rel_error(x, y):
    """Largest elementwise relative error, denominator floored at 1e-8 (cs231n)."""
    return float(np.max(np.abs(x - y) / np.maximum(1e-8, np.abs(x) + np.abs(y))))


def normwise_error(a, b):
    """Relative error of the whole array: ||a - b|| / max(1e-8, ||a|| + ||b||)."""
    return float(
        np.linalg.norm(a - b) / max(1e-8, np.linalg.norm(a) + np.linalg.norm(b))
    )
