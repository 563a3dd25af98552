"""Variants of chapter 14's coding exercises (grading/bank/__init__.py)."""

from grading.bank import Edit, Variant

# Exercise 14.1: the cells a variant edits, and the lines of the book that it rewrites.
TASK, FORWARD, SOLUTION = "313d41ad", "14-ex1-forward-readonly", "14-ex1-solution"
DX = "14-ex1-dx"  # holds _ex1_case, the autograd reference of all three grade cells

BOOK_TASK_TEXT = """\
the condition `c` has one vector per token, shape $(N,T,E)$, so shift, scale and gate
have shape $(N,T,D)$. The forward pass is given below. Derive the backward and write
`adaln_zero_token_backward(dout, cache)` returning `(dx, dc, dw, db, dw_f)` in NumPy,
then check it with `eval_numerical_gradient_array`. The tests call it on random shapes
"""
BOOK_TITLE = "### Exercise 14.1: adaLN-Zero with a condition per token (5 points)"
BOOK_FORWARD_NORM = """\
    rstd = 1 / np.sqrt(x.var(-1, keepdims=True) + eps)
    xhat = (x - x.mean(-1, keepdims=True)) * rstd
"""
BOOK_SOLUTION_DX = """\
    dx = dout + rstd * (
        dxhat
        - dxhat.mean(-1, keepdims=True)
        - xhat * (dxhat * xhat).mean(-1, keepdims=True)
    )
"""
BOOK_REF_OUT = "    _out = _v[0] + _g * ((_xh * (1 + _sc) + _sh) @ _v[4])\n"
BOOK_REF_NORM = "    _xh = _torch.nn.functional.layer_norm(_v[0], (_d,), eps=1e-6)\n"
BOOK_CACHE_NORM = """\
    _rstd = 1 / ((_x.var(-1, keepdims=True) + 1e-6) ** 0.5)
    _xhat = (_x - _x.mean(-1, keepdims=True)) * _rstd
"""


PLAIN_GAIN_TASK = r"""the condition `c` has
one vector per token, shape $(N,T,E)$, so shift, scale and gate
have shape $(N,T,D)$. Unlike DiT, the block modulates with the predicted scale itself,
as FiLM does: $\mathbf y = \hat{\mathbf x} \odot \mathbf s_{\text{scale}} +
\mathbf s_{\text{shift}}$, not $\hat{\mathbf x} \odot (1 + \mathbf s_{\text{scale}}) +
\mathbf s_{\text{shift}}$. The forward pass is given below. Derive the backward and
write `adaln_zero_token_backward(dout, cache)` returning `(dx, dc, dw, db, dw_f)` in
NumPy, then check it with `eval_numerical_gradient_array`. The tests call it on random
shapes
"""

RMS_NORM_TASK = r"""the condition `c` has
one vector per token, shape $(N,T,E)$, so shift, scale and gate
have shape $(N,T,D)$. The norm is RMSNorm, not LayerNorm:
$\hat{\mathbf x} = \mathbf x / \sqrt{\overline{\mathbf x^2} + \epsilon}$ over the
features of each token, with no mean subtracted. The forward pass is given below.
Derive the backward and write `adaln_zero_token_backward(dout, cache)` returning
`(dx, dc, dw, db, dw_f)` in NumPy, then check it with `eval_numerical_gradient_array`.
The tests call it on random shapes
"""

TANH_GATE_TASK = r"""the condition `c` has
one vector per token, shape $(N,T,E)$, so shift, scale and gate
have shape $(N,T,D)$. The gate passes through a tanh, as in Flamingo's gated
cross-attention: the output is $\mathbf x + \tanh(\mathbf s_{\text{gate}}) \odot
\mathbf f$, still the identity while the modulation layer is zero. The forward pass is
given below. Derive the backward and write `adaln_zero_token_backward(dout, cache)`
returning `(dx, dc, dw, db, dw_f)` in NumPy, then check it with
`eval_numerical_gradient_array`. The tests call it on random shapes
"""


def task(title, text):
    """The Task with another title, and `text` for its lines 2 to 5."""
    return (Edit(TASK, BOOK_TITLE, title), Edit(TASK, BOOK_TASK_TEXT, text))


PLAIN_GAIN = (
    *task(
        "### Exercise 14.1: adaLN-Zero with a condition per token and a plain gain "
        "(5 points)",
        PLAIN_GAIN_TASK,
    ),
    Edit(
        FORWARD,
        "    # scale and gate (N, T, D) each. Same cache layout as "
        "adaln_zero_forward.\n",
        "    # scale and gate (N, T, D) each; the gain is scale, not 1 + scale. Same "
        "cache\n"
        "    # layout as adaln_zero_forward.\n",
    ),
    Edit(
        FORWARD,
        "    y = xhat * (1 + scale) + shift\n",
        "    y = xhat * scale + shift\n",
    ),
    Edit(
        SOLUTION,
        "    dxhat = dy * (1 + scale)\n",
        "    dxhat = dy * scale  # the gain is scale itself\n",
    ),
    Edit(DX, BOOK_REF_OUT, "    _out = _v[0] + _g * ((_xh * _sc + _sh) @ _v[4])\n"),
    Edit(
        DX,
        "    _y = _xhat * (1 + _scale) + _shift\n",
        "    _y = _xhat * _scale + _shift\n",
    ),
)

RMS_NORM = (
    *task(
        "### Exercise 14.1: adaLN-Zero over RMSNorm with a condition per token "
        "(5 points)",
        RMS_NORM_TASK,
    ),
    Edit(
        FORWARD,
        "    # scale and gate (N, T, D) each. Same cache layout as "
        "adaln_zero_forward.\n",
        "    # scale and gate (N, T, D) each; RMSNorm in place of LayerNorm. Same "
        "cache\n"
        "    # layout as adaln_zero_forward.\n",
    ),
    Edit(
        FORWARD,
        BOOK_FORWARD_NORM,
        """\
    rstd = 1 / np.sqrt((x * x).mean(-1, keepdims=True) + eps)
    xhat = x * rstd
""",
    ),
    Edit(
        SOLUTION,
        BOOK_SOLUTION_DX,
        """\
    # RMSNorm: no mean was subtracted, so no mean of dxhat is either
    dx = dout + rstd * (dxhat - xhat * (dxhat * xhat).mean(-1, keepdims=True))
""",
    ),
    Edit(
        DX,
        BOOK_REF_NORM,
        "    _xh = _v[0] / ((_v[0] * _v[0]).mean(-1, keepdim=True) + 1e-6) ** 0.5\n",
    ),
    Edit(
        DX,
        BOOK_CACHE_NORM,
        """\
    _rstd = 1 / (((_x * _x).mean(-1, keepdims=True) + 1e-6) ** 0.5)
    _xhat = _x * _rstd
""",
    ),
)

TANH_GATE = (
    *task(
        "### Exercise 14.1: adaLN-Zero with a condition per token and a tanh gate "
        "(5 points)",
        TANH_GATE_TASK,
    ),
    Edit(
        FORWARD,
        "    # scale and gate (N, T, D) each. Same cache layout as "
        "adaln_zero_forward.\n",
        "    # scale and gate (N, T, D) each; the gate enters as tanh(gate). Same "
        "cache\n"
        "    # layout as adaln_zero_forward (gate before the tanh).\n",
    ),
    Edit(FORWARD, "    return x + gate * f, (", "    return x + np.tanh(gate) * f, ("),
    Edit(
        SOLUTION,
        """\
    dgate = dout * f  # no sum over tokens: each token has its own gate
    df = dout * gate
""",
        """\
    tgate = np.tanh(gate)
    dgate = dout * f * (1 - tgate**2)  # per token, and through the tanh
    df = dout * tgate
""",
    ),
    Edit(
        DX,
        BOOK_REF_OUT,
        "    _out = _v[0] + _torch.tanh(_g) * ((_xh * (1 + _sc) + _sh) @ _v[4])\n",
    ),
)

BANK = {
    "14-ex1": [
        Variant(
            "plain-gain",
            "the backward of per-token adaLN-Zero with the gain scale, not 1 + scale",
            PLAIN_GAIN,
        ),
        Variant(
            "rmsnorm",
            "the backward of per-token adaLN-Zero over RMSNorm instead of LayerNorm",
            RMS_NORM,
        ),
        Variant(
            "tanh-gate",
            "the backward of per-token adaLN-Zero with a tanh gate, x + tanh(gate) f",
            TANH_GATE,
        ),
    ],
}
