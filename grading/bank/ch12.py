"""Variants of chapter 12's coding exercises (grading/bank/__init__.py)."""

from grading.bank import Edit, Variant

# Exercise 12.1: the book's Task, the cells it names, and the text of its tests that a
# variant rewrites. Its three grade cells share one loop over shapes (all hidden).
TASK = "0627676a"
SOLUTION = "12-ex1-solution"
DX, DPARAMS, DALPHA = "12-ex1-dx", "12-ex1-dparams", "12-ex1-dalpha"
GRADED = (DX, DPARAMS, DALPHA)

BOOK_TITLE = "### Exercise 12.1: DyT's backward pass (5 points)"
BOOK_TASK = """\
Write `dyt_grads(dout, x, gamma, alpha)`: the gradients of DyT,
$\\mathbf y=\\boldsymbol\\gamma\\odot\\tanh(\\alpha\\mathbf x)+\\boldsymbol\\beta$, for an input `x`
of any shape $(\\dots,D)$, `gamma` of shape $(D,)$, a float `alpha` and the upstream gradient
`dout` of the shape of `x`. Return `(dx, dgamma, dbeta, dalpha)`: arrays of shapes
$(\\dots,D)$, $(D,)$, $(D,)$ and a float. Derive them yourself and check them with
`eval_numerical_gradient_array` before you run the tests; the tests run your function
without the chapter's `dyt_backward`, without finite differences and without autograd.
Points: `dx` 2, `dgamma` and `dbeta` 1, `dalpha` 2.
"""

BOOK_GAMMA = "    _gamma, _dout = _rng.standard_normal(_shape[-1]), _rng.standard_normal(_shape)\n"
BOOK_SHAPES = """\
for _shape, _alpha in [
    ((5, 6), 0.5),
    ((2, 3, 4), 1.7),
    ((4, 3, 5), 0.05),
    ((1, 7), 3.0),
]:
"""
BOOK_CALL = (
    "    _got = _call_without(_FORBIDDEN, dyt_grads, _dout, _x, _gamma, _alpha)\n"
)
BOOK_CHANGED = '    assert (_x == _x_copy).all(), "dyt_grads changed x"\n'
BOOK_TANH = """\
    _e = 2.718281828459045 ** (-2.0 * alpha * x)
    _t = (1.0 - _e) / (1.0 + _e)  # tanh(alpha x), without NumPy's functions
"""
BOOK_ROWS = "    _rows = tuple(range(x.ndim - 1))\n"
BOOK_DU = "    _du = dout * gamma * (1.0 - _t * _t)\n"
BOOK_DALPHA_CHECK = """\
    _a = _np.asarray(_got[3], dtype=float)
    assert _a.shape == (), f"dalpha: expected a number, got shape {_a.shape}"
    _compare(f"dalpha for shape {_shape}", _a.reshape(1), _np.array([_ref[3]]), 1e-12)
"""


def in_every_grade_cell(old, new):
    """The same edit of the loop that each of the three grade cells runs."""
    return tuple(Edit(cell, old, new) for cell in GRADED)


PER_FEATURE = Variant(
    "per-feature-alpha",
    "DyT's gradients with one learned α per feature (α and dα of shape (D,))",
    (
        Edit(
            TASK,
            BOOK_TASK,
            """\
Write `dyt_grads(dout, x, gamma, alpha)`: the gradients of DyT with one learned scale
per feature instead of one per layer, $y_j=\\gamma_j\\tanh(\\alpha_j x_j)+\\beta_j$ for
every feature $j$, for an input `x` of any shape $(\\dots,D)$, `gamma` and `alpha` of
shape $(D,)$ and the upstream gradient `dout` of the shape of `x`. Return
`(dx, dgamma, dbeta, dalpha)`: arrays of shapes $(\\dots,D)$, $(D,)$, $(D,)$ and $(D,)$.
Derive them yourself and check them with `eval_numerical_gradient_array` before you run
the tests; the tests run your function without the chapter's `dyt_backward`, without
finite differences and without autograd. Points: `dx` 2, `dgamma` and `dbeta` 1,
`dalpha` 2.
""",
        ),
        Edit(
            SOLUTION,
            "        float((du * x).sum()),\n",
            "        (du * x).sum(axis=rows),\n",
        ),
        *in_every_grade_cell(
            BOOK_GAMMA,
            BOOK_GAMMA
            + "    _alpha = _alpha * (0.5 + _rng.uniform(size=_shape[-1]))\n",
        ),
        Edit(DX, "        (_du * x).sum(),\n", "        (_du * x).sum(axis=_rows),\n"),
        Edit(
            DALPHA,
            BOOK_DALPHA_CHECK,
            '    _compare(f"dalpha for shape {_shape}", _got[3], _ref[3], 1e-12)\n',
        ),
    ),
)

CHANNELS_FIRST = Variant(
    "channels-first",
    "DyT's gradients for channels-first feature maps (N, C, ...), γ and β along axis 1",
    (
        Edit(
            TASK,
            BOOK_TASK,
            """\
Write `dyt_grads(dout, x, gamma, alpha)`: the gradients of DyT,
$\\mathbf y=\\boldsymbol\\gamma\\odot\\tanh(\\alpha\\mathbf x)+\\boldsymbol\\beta$, applied to
channels-first feature maps as in a convolutional network: `x` of any shape
$(N,C,\\dots)$ with at least three axes (say $(N,C,H,W)$), `gamma` and $\\boldsymbol\\beta$
of shape $(C,)$, one entry per channel, acting along axis 1, a float `alpha` and the
upstream gradient `dout` of the shape of `x`. Return `(dx, dgamma, dbeta, dalpha)`:
arrays of shapes $(N,C,\\dots)$, $(C,)$, $(C,)$ and a float. Derive them yourself and
check them with `eval_numerical_gradient_array` before you run the tests; the tests run
your function without the chapter's `dyt_backward`, without finite differences and
without autograd. Points: `dx` 2, `dgamma` and `dbeta` 1, `dalpha` 2.
""",
        ),
        Edit(
            SOLUTION,
            """\
    rows = tuple(range(x.ndim - 1))
    du = dout * gamma * (1 - t * t)
""",
            """\
    rows = (0, *range(2, x.ndim))  # every axis but the channels'
    du = dout * gamma.reshape(-1, *[1] * (x.ndim - 2)) * (1 - t * t)
""",
        ),
        *in_every_grade_cell(
            BOOK_SHAPES,
            """\
for _shape, _alpha in [
    ((5, 6, 3), 0.5),
    ((2, 3, 4, 5), 1.7),
    ((4, 3, 5), 0.05),
    ((1, 7, 2, 2), 3.0),
]:
""",
        ),
        *in_every_grade_cell(
            BOOK_GAMMA,
            "    _gamma, _dout = _rng.standard_normal(_shape[1]), "
            "_rng.standard_normal(_shape)\n",
        ),
        Edit(
            DX,
            BOOK_ROWS + BOOK_DU,
            """\
    _rows = (0,) + tuple(range(2, x.ndim))  # every axis but the channels'
    _channels = (-1,) + (1,) * (x.ndim - 2)
    _du = dout * gamma.reshape(_channels) * (1.0 - _t * _t)
""",
        ),
    ),
)

ISRU = Variant(
    "isru",
    "the gradients of γ ⊙ s(αx) + β with LayerNorm's own S, s(u) = u / √(1 + u²)",
    (
        Edit(
            TASK,
            BOOK_TITLE,
            "### Exercise 12.1: the backward pass of another S (5 points)",
        ),
        Edit(
            TASK,
            BOOK_TASK,
            """\
Exercise 12.3 finds the S that LayerNorm draws for one feature: $u/\\sqrt{u^2+v}$. Take
it in the place of DyT's tanh, with $v=1$: $s(u)=u/\\sqrt{1+u^2}$, bounded by $\\pm1$ like
tanh but saturating more slowly. Write `isru_grads(dout, x, gamma, alpha)`: the
gradients of $\\mathbf y=\\boldsymbol\\gamma\\odot s(\\alpha\\mathbf x)+\\boldsymbol\\beta$ for
an input `x` of any shape $(\\dots,D)$, `gamma` of shape $(D,)$, a float `alpha` and the
upstream gradient `dout` of the shape of `x`. Return `(dx, dgamma, dbeta, dalpha)`:
arrays of shapes $(\\dots,D)$, $(D,)$, $(D,)$ and a float. Derive them yourself and check
them with `eval_numerical_gradient_array` before you run the tests; the tests run your
function without the chapter's `dyt_backward`, without finite differences and without
autograd. Points: `dx` 2, `dgamma` and `dbeta` 1, `dalpha` 2.
""",
        ),
        Edit(
            SOLUTION,
            """\
def dyt_grads(dout, x, gamma, alpha):
    ### BEGIN SOLUTION
    t = np.tanh(alpha * x)
    rows = tuple(range(x.ndim - 1))
    du = dout * gamma * (1 - t * t)
""",
            """\
def isru_grads(dout, x, gamma, alpha):
    ### BEGIN SOLUTION
    r = 1 / np.sqrt(1 + (alpha * x) ** 2)
    t = alpha * x * r  # s(alpha x)
    rows = tuple(range(x.ndim - 1))
    du = dout * gamma * r**3  # s'(u) = (1 + u^2)^(-3/2)
""",
        ),
        *in_every_grade_cell(BOOK_CALL, BOOK_CALL.replace("dyt_grads", "isru_grads")),
        *in_every_grade_cell(
            BOOK_CHANGED, BOOK_CHANGED.replace("dyt_grads", "isru_grads")
        ),
        Edit(
            DX,
            BOOK_TANH,
            """\
    _r = (1.0 + (alpha * x) * (alpha * x)) ** -0.5
    _t = alpha * x * _r  # s(alpha x) = u / sqrt(1 + u^2), u = alpha x
""",
        ),
        Edit(
            DX, BOOK_DU, "    _du = dout * gamma * (_r * _r * _r)  # s'(u) dout gamma\n"
        ),
    ),
)

ONE_PLUS_GAMMA = Variant(
    "one-plus-gamma",
    "DyT's gradients with the zero-centred gain 1 + γ: y = (1 + γ) ⊙ tanh(αx) + β",
    (
        Edit(
            TASK,
            BOOK_TASK,
            """\
Write `dyt_grads(dout, x, gamma, alpha)`: the gradients of DyT with the zero-centred
gain of Gemma's norms ({doc}`11-llm-norms`),
$\\mathbf y=(1+\\boldsymbol\\gamma)\\odot\\tanh(\\alpha\\mathbf x)+\\boldsymbol\\beta$, for an
input `x` of any shape $(\\dots,D)$, `gamma` of shape $(D,)$, a float `alpha` and the
upstream gradient `dout` of the shape of `x`. Return `(dx, dgamma, dbeta, dalpha)`:
arrays of shapes $(\\dots,D)$, $(D,)$, $(D,)$ and a float. Derive them yourself and check
them with `eval_numerical_gradient_array` before you run the tests; the tests run your
function without the chapter's `dyt_backward`, without finite differences and without
autograd. Points: `dx` 2, `dgamma` and `dbeta` 1, `dalpha` 2.
""",
        ),
        Edit(
            SOLUTION,
            "    du = dout * gamma * (1 - t * t)\n",
            "    du = dout * (1 + gamma) * (1 - t * t)\n",
        ),
        Edit(DX, BOOK_DU, "    _du = dout * (1.0 + gamma) * (1.0 - _t * _t)\n"),
    ),
)

BANK = {"12-ex1": [PER_FEATURE, CHANNELS_FIRST, ISRU, ONE_PLUS_GAMMA]}
