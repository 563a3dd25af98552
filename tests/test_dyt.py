"""DyT in NumPy (normbook/dyt.py): its backward against numerical gradients."""

import numpy as np
import pytest


from normbook.dyt import dyt_backward, dyt_forward
from normbook.gradcheck import eval_numerical_gradient_array, rel_error

pytestmark = pytest.mark.static


@pytest.mark.parametrize("shape, alpha", [((4, 7), 0.5), ((2, 3, 5), 1.7), ((6,), 0.1)])
def test_the_backward_matches_numerical_gradients(shape, alpha):
    rng = np.random.default_rng(sum(shape))
    x = 2 * rng.standard_normal(shape) + 0.3
    gamma, beta = (
        1 + 0.3 * rng.standard_normal(shape[-1]),
        rng.standard_normal(shape[-1]),
    )
    dout = rng.standard_normal(shape)
    out, cache = dyt_forward(x, gamma, beta, alpha)
    dx, dgamma, dbeta, dalpha = dyt_backward(dout, cache)
    a = np.array([alpha])
    numeric = {
        "dx": eval_numerical_gradient_array(
            lambda v: dyt_forward(v, gamma, beta, alpha)[0], x, dout
        ),
        "dgamma": eval_numerical_gradient_array(
            lambda v: dyt_forward(x, v, beta, alpha)[0], gamma, dout
        ),
        "dbeta": eval_numerical_gradient_array(
            lambda v: dyt_forward(x, gamma, v, alpha)[0], beta, dout
        ),
        "dalpha": eval_numerical_gradient_array(
            lambda v: dyt_forward(x, gamma, beta, v[0])[0], a, dout
        )[0],
    }
    for name, got in zip(numeric, (dx, dgamma, dbeta, dalpha)):
        assert rel_error(got, numeric[name]) < 1e-7, name
    assert out.shape == x.shape and isinstance(dalpha, float)


def test_a_steep_tanh_is_the_sign_and_a_flat_one_is_linear():
    """DyT squashes: large alpha gives gamma * sign(x) + beta, small alpha nearly the
    line gamma * alpha * x + beta."""
    x = np.linspace(-3, 3, 13)[None] + 0.05
    ones, zeros = np.ones(13), np.zeros(13)
    np.testing.assert_allclose(dyt_forward(x, ones, zeros, 1e3)[0], np.sign(x))
    np.testing.assert_allclose(
        dyt_forward(x, ones, zeros, 1e-4)[0], 1e-4 * x, rtol=1e-6
    )
