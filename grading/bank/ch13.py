"""Variants of chapter 13's coding exercise (grading/bank/__init__.py)."""

from grading.bank import Edit, Variant

# The book's text of the cells that variants rewrite whole (the edits' `old`).
_BOOK = {
    "1671c31a24314836a5b85d7ef7fbf015": (
        "(sec-13-exercises)=\n"
        "## Exercises\n"
        "\n"
        "### Exercise 13.1: the z-loss and its gradient (4 points)\n"
        "\n"
        "```{admonition} Task\n"
        "Write `z_loss_grad(z, coef)` in NumPy: for logits `z` of shape"
        " $(N,V)$ (one row per\n"
        "prediction), the z-loss $\\ell=\\frac{c}{N}\\sum_n(\\ln Z_n)^2$ with\n"
        "$Z_n=\\sum_v e^{z_{nv}}$ and $c$ = `coef`, and its gradient"
        " $\\partial\\ell/\\partial z$, of\n"
        "the shape of `z`. Return `(loss, grad)`: a float and an array. It"
        " must work for logits as\n"
        "large as $\\pm1000$ (where $e^{z}$ overflows). Derive the gradient"
        " yourself; the tests run\n"
        "your function without the chapter's `loss_per_model` and without"
        " autograd. Points: the\n"
        "loss on ordinary logits 1, on huge logits 1, the gradient 2.\n"
        "```"
    ),
    "13-ex1-solution": (
        "def z_loss_grad(z, coef):\n"
        "    ### BEGIN SOLUTION\n"
        "    top = z.max(axis=1, keepdims=True)\n"
        "    e = np.exp(z - top)  # at most 1: no overflow\n"
        "    total = e.sum(axis=1, keepdims=True)\n"
        "    log_z = top + np.log(total)  # ln Z per row, (N, 1)\n"
        "    n = z.shape[0]\n"
        "    loss = float(coef * (log_z**2).sum() / n)\n"
        "    grad = coef * 2 * log_z * (e / total) / n  # d ln Z / dz is the"
        " softmax\n"
        "    return loss, grad\n"
        "    ### END SOLUTION"
    ),
}


_TASK = "1671c31a24314836a5b85d7ef7fbf015"

_TASK_HEAD = """\
(sec-13-exercises)=
## Exercises

### Exercise 13.1: the z-loss and its gradient (4 points)

```{admonition} Task
"""

_REF_BOOK = """\
def _z_loss_reference(z, coef):
    _top = z.max(axis=1, keepdims=True)
    _e = 2.718281828459045 ** (z - _top)  # e^(z - max): at most 1
    _total = _e.sum(axis=1, keepdims=True)
    _lz = _top + _ln(_total)  # ln Z of every row
    _n = z.shape[0]
    return coef * (_lz * _lz).sum() / _n, coef * 2 * _lz * (_e / _total) / _n
"""

_LOSS_CASES_BOOK = """\
for _shape, _scale, _coef in [
    ((4, 7), 2.0, 1e-4),
    ((1, 3), 0.5, 0.3),
    ((6, 5), 5.0, 1.0),
]:
"""

_GRAD_CASES_BOOK = """\
for _shape, _scale, _coef in [
    ((4, 7), 2.0, 1e-4),
    ((1, 3), 0.5, 0.3),
    ((6, 5), 5.0, 1.0),
    ((3, 6), 30.0, 1e-2),
]:
"""

_HUGE_CASES_BOOK = (
    "for _shape, _shift in [((3, 8), 1000.0), ((2, 5), -1000.0), ((4, 4), 700.0)]:"
)

_LOSS_CALL_BOOK = """\
    _got = _call_without(_FORBIDDEN, z_loss_grad, _z, _coef)
    assert len(_got) == 2, f"expected (loss, grad), got {len(_got)} values"
    assert (_z == _z_copy).all(), "z_loss_grad changed z"
"""

_LOSS_COMPARE_BOOK = "_np.array([_z_loss_reference(_z, _coef)[0]]),"
_HUGE_CALL_BOOK = "_got = _call_without(_FORBIDDEN, z_loss_grad, _z, 1e-4)"
_HUGE_COMPARE_BOOK = "_np.array([_z_loss_reference(_z, 1e-4)[0]]),"
_GRAD_CALL_BOOK = "_got = _call_without(_FORBIDDEN, z_loss_grad, _z, _coef)"
_GRAD_COMPARE_BOOK = (
    'f"grad for shape {_shape}", _got[1], _z_loss_reference(_z, _coef)[1], 1e-12'
)

# logits vocabulary first: (V, N), one column per prediction --------------------------

VOCAB_FIRST = Variant(
    "vocab-first",
    "z-loss and its gradient for logits laid out (V, N), one column per prediction",
    (
        Edit(
            _TASK,
            _BOOK[_TASK],
            _TASK_HEAD
            + r"""Write `z_loss_grad(z, coef)` in NumPy: for logits `z` of shape
$(V,N)$, vocabulary first (one **column** per prediction, as a vocabulary projection
$W\mathbf H$ of hidden states in columns gives them), the z-loss
$\ell=\frac{c}{N}\sum_n(\ln Z_n)^2$ with $Z_n=\sum_v e^{z_{vn}}$ and $c$ = `coef`, and
its gradient $\partial\ell/\partial z$, of the shape of `z`. Return `(loss, grad)`: a
float and an array. It must work for logits as large as $\pm1000$ (where $e^{z}$
overflows). Derive the gradient yourself; the tests run your function without the
chapter's `loss_per_model` and without autograd. Points: the loss on ordinary logits 1,
on huge logits 1, the gradient 2.
```""",
        ),
        Edit(
            "13-ex1-solution",
            _BOOK["13-ex1-solution"],
            """\
def z_loss_grad(z, coef):
    ### BEGIN SOLUTION
    top = z.max(axis=0, keepdims=True)  # over the vocabulary, per column
    e = np.exp(z - top)  # at most 1: no overflow
    total = e.sum(axis=0, keepdims=True)
    log_z = top + np.log(total)  # ln Z per column, (1, N)
    n = z.shape[1]
    loss = float(coef * (log_z**2).sum() / n)
    grad = coef * 2 * log_z * (e / total) / n  # d ln Z / dz is the softmax
    return loss, grad
    ### END SOLUTION""",
        ),
        Edit(
            "13-ex1-loss",
            _REF_BOOK,
            """\
def _z_loss_reference(z, coef):
    # z: (V, N), one column per prediction
    _top = z.max(axis=0, keepdims=True)
    _e = 2.718281828459045 ** (z - _top)  # e^(z - max): at most 1
    _total = _e.sum(axis=0, keepdims=True)
    _lz = _top + _ln(_total)  # ln Z of every column
    _n = z.shape[1]
    return coef * (_lz * _lz).sum() / _n, coef * 2 * _lz * (_e / _total) / _n
""",
        ),
        Edit(
            "13-ex1-loss",
            _LOSS_CASES_BOOK,
            """\
for _shape, _scale, _coef in [
    ((7, 4), 2.0, 1e-4),
    ((3, 1), 0.5, 0.3),
    ((5, 6), 5.0, 1.0),
]:
""",
        ),
        Edit(
            "13-ex1-huge",
            _HUGE_CASES_BOOK,
            "for _shape, _shift in [((8, 3), 1000.0), ((5, 2), -1000.0), ((4, 4), "
            "700.0)]:",
        ),
        Edit(
            "13-ex1-grad",
            _GRAD_CASES_BOOK,
            """\
for _shape, _scale, _coef in [
    ((7, 4), 2.0, 1e-4),
    ((3, 1), 0.5, 0.3),
    ((5, 6), 5.0, 1.0),
    ((6, 3), 30.0, 1e-2),
]:
""",
        ),
    ),
)

# a padding mask: the mean over real tokens only --------------------------------------

_MASK_REF = """\
def _z_loss_reference(z, coef, mask):
    _top = z.max(axis=1, keepdims=True)
    _e = 2.718281828459045 ** (z - _top)  # e^(z - max): at most 1
    _total = _e.sum(axis=1, keepdims=True)
    _lz = _top + _ln(_total)  # ln Z of every row
    _m = mask.reshape(-1, 1)  # 1: a real token, 0: padding
    _count = _m.sum()
    _loss = coef * (_m * _lz * _lz).sum() / _count
    return _loss, coef * 2 * _m * _lz * (_e / _total) / _count


def _half_mask(_rng, _n):
    # 0.0 on n // 2 rows drawn at random (padding), 1.0 on the others (at least one)
    _mask = _np.ones(_n)
    _mask[_rng.permutation(_n)[: _n // 2]] = 0.0
    return _mask
"""

MASKED = Variant(
    "masked",
    "z-loss and its gradient averaged over the real tokens of a padding mask",
    (
        Edit(
            _TASK,
            _BOOK[_TASK],
            _TASK_HEAD
            + r"""Write `z_loss_grad(z, coef, mask)` in NumPy: for logits `z` of
shape $(N,V)$ (one row per prediction) and a padding mask `mask` of shape $(N,)$ (1.0
for a real token, 0.0 for padding; at least one 1.0), the z-loss averaged over the real
tokens, $\ell=\frac{c}{M}\sum_n m_n(\ln Z_n)^2$ with $M=\sum_n m_n$,
$Z_n=\sum_v e^{z_{nv}}$ and $c$ = `coef`, and its gradient $\partial\ell/\partial z$, of
the shape of `z` (zero on padding rows). Return `(loss, grad)`: a float and an array. It
must work for logits as large as $\pm1000$ (where $e^{z}$ overflows), on real and
padding rows alike. Derive the gradient yourself; the tests run your function without
the chapter's `loss_per_model` and without autograd. Points: the loss on ordinary logits
1, on huge logits 1, the gradient 2.
```""",
        ),
        Edit(
            "13-ex1-solution",
            _BOOK["13-ex1-solution"],
            """\
def z_loss_grad(z, coef, mask):
    ### BEGIN SOLUTION
    top = z.max(axis=1, keepdims=True)
    e = np.exp(z - top)  # at most 1: no overflow
    total = e.sum(axis=1, keepdims=True)
    log_z = top + np.log(total)  # ln Z per row, (N, 1)
    m = np.reshape(mask, (-1, 1)).astype(float)  # 1: real token, 0: padding
    count = m.sum()
    loss = float(coef * (m * log_z**2).sum() / count)
    grad = coef * 2 * m * log_z * (e / total) / count  # d ln Z / dz is the softmax
    return loss, grad
    ### END SOLUTION""",
        ),
        Edit("13-ex1-loss", _REF_BOOK, _MASK_REF),
        Edit(
            "13-ex1-loss",
            _LOSS_CALL_BOOK,
            """\
    _mask = _half_mask(_rng, _shape[0])
    _mask_copy = _mask.copy()
    _got = _call_without(_FORBIDDEN, z_loss_grad, _z, _coef, _mask)
    assert len(_got) == 2, f"expected (loss, grad), got {len(_got)} values"
    assert (_z == _z_copy).all(), "z_loss_grad changed z"
    assert (_mask == _mask_copy).all(), "z_loss_grad changed mask"
""",
        ),
        Edit(
            "13-ex1-loss",
            _LOSS_COMPARE_BOOK,
            "_np.array([_z_loss_reference(_z, _coef, _mask)[0]]),",
        ),
        Edit(
            "13-ex1-huge",
            "    " + _HUGE_CALL_BOOK,
            "    _mask = _half_mask(_rng, _shape[0])\n"
            "    _got = _call_without(_FORBIDDEN, z_loss_grad, _z, 1e-4, _mask)",
        ),
        Edit(
            "13-ex1-huge",
            _HUGE_COMPARE_BOOK,
            "_np.array([_z_loss_reference(_z, 1e-4, _mask)[0]]),",
        ),
        Edit(
            "13-ex1-grad",
            "    " + _GRAD_CALL_BOOK,
            "    _mask = _half_mask(_rng, _shape[0])\n"
            "    _got = _call_without(_FORBIDDEN, z_loss_grad, _z, _coef, _mask)",
        ),
        Edit(
            "13-ex1-grad",
            _GRAD_COMPARE_BOOK,
            'f"grad for shape {_shape}",\n'
            "        _got[1],\n"
            "        _z_loss_reference(_z, _coef, _mask)[1],\n"
            "        1e-12,",
        ),
    ),
)

# the z-loss of soft-capped logits ----------------------------------------------------

_CAP_REF = """\
def _z_loss_reference(z, coef, cap):
    # the z-loss of the capped logits cap * tanh(z / cap), and its gradient in z
    _a = 2.718281828459045 ** (2.0 * z / cap)  # e^(2u), u = z / cap
    _t = (_a - 1.0) / (_a + 1.0)  # tanh(u)
    _dcap = 4.0 * _a / ((_a + 1.0) * (_a + 1.0))  # 1 - tanh(u)^2, without cancelling
    _zc = cap * _t
    _top = _zc.max(axis=1, keepdims=True)
    _e = 2.718281828459045 ** (_zc - _top)  # e^(zc - max): at most 1
    _total = _e.sum(axis=1, keepdims=True)
    _lz = _top + _ln(_total)  # ln Z of every row
    _n = z.shape[0]
    _loss = coef * (_lz * _lz).sum() / _n
    return _loss, coef * 2 * _lz * (_e / _total) * _dcap / _n
"""

SOFT_CAPPED = Variant(
    "soft-capped",
    "z-loss of soft-capped logits cap * tanh(z / cap), gradient in the raw logits",
    (
        Edit(
            _TASK,
            _BOOK[_TASK],
            _TASK_HEAD
            + r"""Write `z_loss_grad(z, coef, cap)` in NumPy: for raw logits `z` of
shape $(N,V)$ (one row per prediction) that pass through a soft cap $\kappa$ = `cap`
before the softmax, $\hat z_{nv}=\kappa\tanh(z_{nv}/\kappa)$ (as in Gemma 2), the z-loss
of the capped logits $\ell=\frac{c}{N}\sum_n(\ln Z_n)^2$ with $Z_n=\sum_v e^{\hat
z_{nv}}$ and $c$ = `coef`, and its gradient $\partial\ell/\partial z$ with respect to
the **raw** logits, of the shape of `z`. Return `(loss, grad)`: a float and an array. It
must work for raw logits as large as $\pm1000$. Derive the gradient yourself; the tests
run your function without the chapter's `loss_per_model` and without autograd. Points:
the loss on ordinary logits 1, on huge logits 1, the gradient 2.
```""",
        ),
        Edit(
            "13-ex1-solution",
            _BOOK["13-ex1-solution"],
            """\
def z_loss_grad(z, coef, cap):
    ### BEGIN SOLUTION
    capped = cap * np.tanh(z / cap)  # in (-cap, cap)
    top = capped.max(axis=1, keepdims=True)
    e = np.exp(capped - top)  # at most 1: no overflow
    total = e.sum(axis=1, keepdims=True)
    log_z = top + np.log(total)  # ln Z per row, (N, 1)
    n = z.shape[0]
    loss = float(coef * (log_z**2).sum() / n)
    dcap = 1.0 / np.cosh(z / cap) ** 2  # d(cap tanh(z / cap)) / dz, no cancellation
    grad = coef * 2 * log_z * (e / total) * dcap / n  # softmax times the cap's slope
    return loss, grad
    ### END SOLUTION""",
        ),
        Edit("13-ex1-loss", _REF_BOOK, _CAP_REF),
        Edit(
            "13-ex1-loss",
            _LOSS_CASES_BOOK,
            """\
for _shape, _scale, _coef, _cap in [
    ((4, 7), 2.0, 1e-4, 3.0),
    ((1, 3), 0.5, 0.3, 2.0),
    ((6, 5), 5.0, 1.0, 10.0),
]:
""",
        ),
        Edit(
            "13-ex1-loss",
            "_call_without(_FORBIDDEN, z_loss_grad, _z, _coef)",
            "_call_without(_FORBIDDEN, z_loss_grad, _z, _coef, _cap)",
        ),
        Edit(
            "13-ex1-loss",
            _LOSS_COMPARE_BOOK,
            "_np.array([_z_loss_reference(_z, _coef, _cap)[0]]),",
        ),
        Edit(
            "13-ex1-huge",
            _HUGE_CALL_BOOK,
            "_got = _call_without(_FORBIDDEN, z_loss_grad, _z, 1e-4, 30.0)",
        ),
        Edit(
            "13-ex1-huge",
            _HUGE_COMPARE_BOOK,
            "_np.array([_z_loss_reference(_z, 1e-4, 30.0)[0]]),",
        ),
        Edit(
            "13-ex1-grad",
            _GRAD_CASES_BOOK,
            """\
for _shape, _scale, _coef, _cap in [
    ((4, 7), 2.0, 1e-4, 3.0),
    ((1, 3), 0.5, 0.3, 2.0),
    ((6, 5), 5.0, 1.0, 10.0),
    ((3, 6), 30.0, 1e-2, 50.0),
]:
""",
        ),
        Edit(
            "13-ex1-grad",
            _GRAD_CALL_BOOK,
            "_got = _call_without(_FORBIDDEN, z_loss_grad, _z, _coef, _cap)",
        ),
        Edit(
            "13-ex1-grad",
            _GRAD_COMPARE_BOOK,
            'f"grad for shape {_shape}",\n'
            "        _got[1],\n"
            "        _z_loss_reference(_z, _coef, _cap)[1],\n"
            "        1e-12,",
        ),
    ),
)

BANK = {"13-ex1": [VOCAB_FIRST, MASKED, SOFT_CAPPED]}
