"""Variants of chapter 07's coding exercises (grading/bank/__init__.py)."""

from grading.bank import Edit, Variant

# ---------------------------------------------------------------------------------
# Exercise 7.1: weight normalization backward. Each variant changes the
# parametrization (its forward pass is the read-only cell), so the book's backward
# pass no longer fits.

EX1_INTRO = r"""argument of {ref}`sec-07-lr`, applied to the weights instead of the activations: every column
of a weight matrix is written as a direction times a learned length,
$w_j = g_j\, v_j / \lVert v_j \rVert$, and $y = x W$ (no bias). The forward pass is given below;
its cache holds `(x, v, g, norms, w)` with `norms` $= (\lVert v_1\rVert, \dots,
\lVert v_H\rVert)$."""

EX1_TASK = r"""(a) *Derive* $\partial L/\partial x$, $\partial L/\partial v_j$ and $\partial L/\partial g_j$
from $G = \partial L/\partial y$, show that $v_j \cdot \partial L/\partial v_j = 0$, and
conclude what one SGD step does to $\lVert v_j \rVert$ and to the effective step size of the
direction $v_j/\lVert v_j\rVert$ (answer cell, 4 points).

(b) *Implement* `weightnorm_backward(dout, cache)` returning `(dx, dv, dg)` in NumPy, without
autograd, and check it against PyTorch or numerical differences on small random inputs of
your own (the tests grade `dx`, `dv` and `dg` separately on random inputs of several shapes:
1, 3 and 2 points)."""

EX1_READONLY = '''\
def weightnorm_forward(x, v, g):
    """y = x @ w with column j of w equal to g[j] * v[:, j] / ||v[:, j]||."""
    norms = np.sqrt((v * v).sum(axis=0))
    w = v * (g / norms)
    return x @ w, (x, v, g, norms, w)'''

EX1_SOLUTION = """\
    x, v, g, norms, w = cache
    dw = x.T @ dout
    vhat = v / norms
    dg = (dw * vhat).sum(axis=0)
    dv = (g / norms) * (dw - vhat * dg)
    return dout @ w.T, dv, dg"""

EX1_DERIVATION = r"""With $W$ the effective weights, $y = xW$ gives $\partial L/\partial W = x^\top G$ and
$\partial L/\partial x = G W^\top$. Column $j$ depends on $v_j$ and $g_j$ only. Write
$\hat v_j = v_j/\lVert v_j\rVert$ and $d_j = (x^\top G)_{:,j}$. Since
$\partial w_j/\partial g_j = \hat v_j$, $\ \partial L/\partial g_j = d_j \cdot \hat v_j$. Since
$\partial \hat v_j/\partial v_j = (I - \hat v_j \hat v_j^\top)/\lVert v_j\rVert$,

$$
\frac{\partial L}{\partial v_j} = \frac{g_j}{\lVert v_j\rVert}
\left(I - \hat v_j \hat v_j^\top\right) d_j
= \frac{g_j}{\lVert v_j\rVert}\left(d_j - \hat v_j \frac{\partial L}{\partial g_j}\right).
$$

The matrix in brackets projects onto the complement of $v_j$, so
$v_j \cdot \partial L/\partial v_j = 0$. An SGD step $v_j' = v_j - \eta\, \partial L/\partial v_j$
therefore adds an orthogonal vector: $\lVert v_j'\rVert^2 = \lVert v_j\rVert^2 + \eta^2
\lVert \partial L/\partial v_j\rVert^2 \ge \lVert v_j\rVert^2$; the norm only grows. The gradient
itself scales like $1/\lVert v_j\rVert$, so the direction $\hat v_j$ turns by an angle of about
$\eta \lVert \partial L/\partial v_j\rVert / \lVert v_j\rVert \propto \eta/\lVert v_j\rVert^2$:
the effective learning rate is $\eta/\lVert v_j\rVert^2$, and a step that is too large grows
$\lVert v_j\rVert$ and so damps the steps after it, the mechanism behind the wider range of
tolerated learning rates in {ref}`sec-07-lr`.

**Mark scheme (4 points).** 1 pt: $\partial L/\partial x = G W^\top$ and $\partial L/\partial g_j
= d_j\cdot\hat v_j$; 1 pt: $\partial L/\partial v_j$ with the projection (the "naive" form
$g_j d_j/\lVert v_j\rVert$ gets 0 here); 1 pt: orthogonality shown; 1 pt: the norm grows and the
effective step scales like $\eta/\lVert v_j\rVert^2$."""

EX1_GRADE_CELLS = ("07-ex1-dx", "07-ex1-dv", "07-ex1-dg")

EX1_TORCH_W = "_w = _t[1] * (_t[2] / _torch.sqrt((_t[1] * _t[1]).sum(0)))"

EX1_CACHE = """\
    _norms = ((_v * _v).sum(axis=0)) ** 0.5
    _cache = (_x.copy(), _v.copy(), _g.copy(), _norms.copy(), _v * (_g / _norms))"""


def ex1_edits(intro, task, readonly, solution, derivation, tests):
    """The edits of a variant of 7.1; `tests`: (old, new) pairs for every grade cell."""
    edits = [
        Edit("7b1ed61c", EX1_INTRO, intro),
        Edit("7b1ed61c", EX1_TASK, task),
        Edit("07-weightnorm-readonly", EX1_READONLY, readonly),
        Edit("07-ex1-solution", EX1_SOLUTION, solution),
        Edit("07-ex1-derivation", EX1_DERIVATION, derivation),
    ]
    return edits + [Edit(c, old, new) for c in EX1_GRADE_CELLS for old, new in tests]


SGD_CONSEQUENCE = r"""An SGD step $v_j' = v_j - \eta\, \partial L/\partial v_j$
therefore adds an orthogonal vector: $\lVert v_j'\rVert^2 = \lVert v_j\rVert^2 + \eta^2
\lVert \partial L/\partial v_j\rVert^2 \ge \lVert v_j\rVert^2$; the norm only grows. The gradient
itself scales like $1/\lVert v_j\rVert$, so the direction $\hat v_j$ turns by an angle of about
$\eta \lVert \partial L/\partial v_j\rVert / \lVert v_j\rVert \propto \eta/\lVert v_j\rVert^2$:
the effective learning rate is $\eta/\lVert v_j\rVert^2$, and a step that is too large grows
$\lVert v_j\rVert$ and so damps the steps after it, the mechanism behind the wider range of
tolerated learning rates in {ref}`sec-07-lr`."""

EX1 = [
    Variant(
        "rows",
        "weight-norm backward with W stored as (H, D), one normalized row per output",
        ex1_edits(
            r"""argument of {ref}`sec-07-lr`, applied to the weights instead of the activations. Here the
weight matrix is stored as `nn.Linear` stores it, $W \in \mathbb{R}^{H\times D}$ with one
*row* per output unit, and $y = x W^\top$ (no bias); every row is written as a direction
times a learned length, $w_j = g_j\, v_j / \lVert v_j \rVert$ (PyTorch's `weight_norm` with
`dim=0`). The forward pass is given below; `v` has shape $(H, D)$, and the cache holds
`(x, v, g, norms, w)` with `norms` $= (\lVert v_1\rVert, \dots, \lVert v_H\rVert)$, the norms
of the rows.""",
            r"""(a) *Derive* $\partial L/\partial x$, $\partial L/\partial v_j$ and $\partial L/\partial g_j$
from $G = \partial L/\partial y$, show that $v_j \cdot \partial L/\partial v_j = 0$, and
conclude what one SGD step does to $\lVert v_j \rVert$ and to the effective step size of the
direction $v_j/\lVert v_j\rVert$ (answer cell, 4 points).

(b) *Implement* `weightnorm_backward(dout, cache)` returning `(dx, dv, dg)` in NumPy (`dv`
of the shape $(H, D)$ of `v`), without autograd, and check it against PyTorch or numerical
differences on small random inputs of your own (the tests grade `dx`, `dv` and `dg`
separately on random inputs of several shapes: 1, 3 and 2 points).""",
            '''\
def weightnorm_forward(x, v, g):
    """y = x @ w.T with w of shape (H, D), as nn.Linear stores its weight: row j of
    w equals g[j] * v[j] / ||v[j]||."""
    norms = np.sqrt((v * v).sum(axis=1))
    w = v * (g / norms)[:, None]
    return x @ w.T, (x, v, g, norms, w)''',
            """\
    x, v, g, norms, w = cache
    dw = dout.T @ x  # (H, D): row j holds the gradient of output j's weights
    vhat = v / norms[:, None]
    dg = (dw * vhat).sum(axis=1)
    dv = (g / norms)[:, None] * (dw - vhat * dg[:, None])
    return dout @ w, dv, dg""",
            r"""With $W \in \mathbb{R}^{H\times D}$ the effective weights, $y = xW^\top$ gives
$\partial L/\partial W = G^\top x$ and $\partial L/\partial x = G W$. Row $j$ depends on
$v_j$ and $g_j$ only. Write $\hat v_j = v_j/\lVert v_j\rVert$ and $d_j = (G^\top x)_{j,:}$,
row $j$ of $\partial L/\partial W$. Since
$\partial w_j/\partial g_j = \hat v_j$, $\ \partial L/\partial g_j = d_j \cdot \hat v_j$. Since
$\partial \hat v_j/\partial v_j = (I - \hat v_j \hat v_j^\top)/\lVert v_j\rVert$,

$$
\frac{\partial L}{\partial v_j} = \frac{g_j}{\lVert v_j\rVert}
\left(I - \hat v_j \hat v_j^\top\right) d_j
= \frac{g_j}{\lVert v_j\rVert}\left(d_j - \hat v_j \frac{\partial L}{\partial g_j}\right),
$$

a row of $\partial L/\partial v$, which has the shape $(H, D)$ of $v$. The matrix in
brackets projects onto the complement of $v_j$, so
$v_j \cdot \partial L/\partial v_j = 0$. """
            + SGD_CONSEQUENCE
            + r"""

**Mark scheme (4 points).** 1 pt: $\partial L/\partial x = G W$ and $\partial L/\partial g_j
= d_j\cdot\hat v_j$ with $d_j$ row $j$ of $G^\top x$; 1 pt: $\partial L/\partial v_j$ with the
projection, per row (the "naive" form $g_j d_j/\lVert v_j\rVert$ gets 0 here); 1 pt:
orthogonality shown; 1 pt: the norm grows and the effective step scales like
$\eta/\lVert v_j\rVert^2$.""",
            [
                (
                    "_rng.standard_normal((_d, _h)),",
                    "_rng.standard_normal((_h, _d)),  # v, one row per output",
                ),
                (
                    EX1_TORCH_W,
                    "_w = _t[1] * (_t[2] / _torch.sqrt((_t[1] * _t[1]).sum(1)))[:, None]",
                ),
                ("(_t[0] @ _w).backward(", "(_t[0] @ _w.T).backward("),
                (
                    EX1_CACHE,
                    """\
    _norms = ((_v * _v).sum(axis=1)) ** 0.5
    _wn = _v * (_g / _norms)[:, None]
    _cache = (_x.copy(), _v.copy(), _g.copy(), _norms.copy(), _wn)""",
                ),
            ],
        ),
    ),
    Variant(
        "log-length",
        "weight-norm backward with the length as an exponential, w_j = exp(s_j) v_j/|v_j|",
        (
            *ex1_edits(
                r"""argument of {ref}`sec-07-lr`, applied to the weights instead of the activations: every column
of a weight matrix is written as a direction times a learned length, and here the length
is learned through its logarithm so that it stays positive:
$w_j = e^{s_j}\, v_j / \lVert v_j \rVert$, and $y = x W$ (no bias). The forward pass is
given below; its cache holds `(x, v, s, norms, w)` with `norms` $= (\lVert v_1\rVert,
\dots, \lVert v_H\rVert)$.""",
                r"""(a) *Derive* $\partial L/\partial x$, $\partial L/\partial v_j$ and $\partial L/\partial s_j$
from $G = \partial L/\partial y$, show that $v_j \cdot \partial L/\partial v_j = 0$, and
conclude what one SGD step does to $\lVert v_j \rVert$ and to the effective step size of the
direction $v_j/\lVert v_j\rVert$ (answer cell, 4 points).

(b) *Implement* `weightnorm_backward(dout, cache)` returning `(dx, dv, ds)` in NumPy, without
autograd, and check it against PyTorch or numerical differences on small random inputs of
your own (the tests grade `dx`, `dv` and `ds` separately on random inputs of several shapes:
1, 3 and 2 points).""",
                '''\
def weightnorm_forward(x, v, s):
    """y = x @ w with column j of w equal to exp(s[j]) * v[:, j] / ||v[:, j]||."""
    norms = np.sqrt((v * v).sum(axis=0))
    w = v * (np.exp(s) / norms)
    return x @ w, (x, v, s, norms, w)''',
                """\
    x, v, s, norms, w = cache
    dw = x.T @ dout
    vhat = v / norms
    dlength = (dw * vhat).sum(axis=0)  # dL/d(exp(s_j)), the gradient of the length
    dv = (np.exp(s) / norms) * (dw - vhat * dlength)
    return dout @ w.T, dv, np.exp(s) * dlength""",
                r"""With $W$ the effective weights, $y = xW$ gives $\partial L/\partial W = x^\top G$ and
$\partial L/\partial x = G W^\top$. Column $j$ depends on $v_j$ and $s_j$ only. Write
$\hat v_j = v_j/\lVert v_j\rVert$, $d_j = (x^\top G)_{:,j}$ and $\ell_j = e^{s_j}$ for the
length. Since $\partial w_j/\partial \ell_j = \hat v_j$ and $d\ell_j/ds_j = \ell_j$,
$\ \partial L/\partial s_j = e^{s_j}\, d_j \cdot \hat v_j = d_j\cdot w_j$. Since
$\partial \hat v_j/\partial v_j = (I - \hat v_j \hat v_j^\top)/\lVert v_j\rVert$,

$$
\frac{\partial L}{\partial v_j} = \frac{e^{s_j}}{\lVert v_j\rVert}
\left(I - \hat v_j \hat v_j^\top\right) d_j
= \frac{e^{s_j}}{\lVert v_j\rVert}\left(d_j - \hat v_j\,(d_j\cdot\hat v_j)\right).
$$

The matrix in brackets projects onto the complement of $v_j$, so
$v_j \cdot \partial L/\partial v_j = 0$. """
                + SGD_CONSEQUENCE
                + r"""

**Mark scheme (4 points).** 1 pt: $\partial L/\partial x = G W^\top$ and $\partial L/\partial s_j
= e^{s_j} d_j\cdot\hat v_j$ (the chain rule through $e^{s_j}$); 1 pt:
$\partial L/\partial v_j$ with the projection and the factor $e^{s_j}$ (the "naive" form
$e^{s_j} d_j/\lVert v_j\rVert$ gets 0 here); 1 pt: orthogonality shown; 1 pt: the norm grows
and the effective step scales like $\eta/\lVert v_j\rVert^2$.""",
                [
                    (
                        "_g = _rng.uniform(0.5, 2.0, _h)",
                        "_g = _rng.uniform(-1.0, 1.0, _h)  # s, the log-lengths",
                    ),
                    (
                        EX1_TORCH_W,
                        "_w = _t[1] * (_torch.exp(_t[2]) / _torch.sqrt((_t[1] * _t[1]).sum(0)))",
                    ),
                    (
                        EX1_CACHE,
                        """\
    _norms = ((_v * _v).sum(axis=0)) ** 0.5
    _wn = _v * (_np.exp(_g) / _norms)
    _cache = (_x.copy(), _v.copy(), _g.copy(), _norms.copy(), _wn)""",
                    ),
                ],
            ),
            Edit(
                "07-ex1-dg",
                '_compare(f"dg at {(_n, _d, _h)}"',
                '_compare(f"ds at {(_n, _d, _h)}"',
            ),
            Edit(
                "07-ex1-dg",
                "# Exercise 7.1: dg (2 points)",
                "# Exercise 7.1: ds (2 points)",
            ),
        ),
    ),
    Variant(
        "frobenius",
        "weight-norm backward with one length for the whole matrix, W = g V / |V|_F",
        ex1_edits(
            r"""argument of {ref}`sec-07-lr`, applied to the weights instead of the activations. In this
variant the whole weight matrix, not each column, is written as a direction times one
learned length: $W = g\, V/\lVert V\rVert_F$ with the Frobenius norm
$\lVert V\rVert_F = \big(\sum_{ij} V_{ij}^2\big)^{1/2}$ and $g$ an array of shape $(1,)$,
and $y = x W$ (no bias). The forward pass is given below; its cache holds
`(x, v, g, norm, w)` with `norm` $= \lVert V\rVert_F$, a number.""",
            r"""(a) *Derive* $\partial L/\partial x$, $\partial L/\partial V$ and $\partial L/\partial g$
from $G = \partial L/\partial y$, show that $\langle V, \partial L/\partial V\rangle_F = 0$
(the sum of the entrywise products), and conclude what one SGD step does to
$\lVert V\rVert_F$ and to the effective step size of the direction $V/\lVert V\rVert_F$
(answer cell, 4 points).

(b) *Implement* `weightnorm_backward(dout, cache)` returning `(dx, dv, dg)` in NumPy (`dg`
of shape $(1,)$, like `g`), without autograd, and check it against PyTorch or numerical
differences on small random inputs of your own (the tests grade `dx`, `dv` and `dg`
separately on random inputs of several shapes: 1, 3 and 2 points).""",
            '''\
def weightnorm_forward(x, v, g):
    """y = x @ w with w = g * v / ||v||_F: one length g (shape (1,)) for the whole
    matrix, divided by the Frobenius norm of v."""
    norm = np.sqrt((v * v).sum())
    w = v * (g / norm)
    return x @ w, (x, v, g, norm, w)''',
            """\
    x, v, g, norm, w = cache
    dw = x.T @ dout
    vhat = v / norm
    dg = np.array([(dw * vhat).sum()])  # one length: a sum over the whole matrix
    dv = (g / norm) * (dw - vhat * dg)
    return dout @ w.T, dv, dg""",
            r"""With $W$ the effective weights, $y = xW$ gives $\partial L/\partial W = x^\top G =: D$ and
$\partial L/\partial x = G W^\top$. Write $\langle A, B\rangle_F = \sum_{ij}A_{ij}B_{ij}$ and
$\hat V = V/\lVert V\rVert_F$. Every entry of $W$ depends on $g$ and on all of $V$. Since
$\partial W/\partial g = \hat V$, $\ \partial L/\partial g = \langle D, \hat V\rangle_F$, one
number summed over the whole matrix. Since $\partial \lVert V\rVert_F/\partial V = \hat V$,
the derivative of $\hat V$ in a direction $E$ is
$\big(E - \hat V\langle\hat V, E\rangle_F\big)/\lVert V\rVert_F$, so

$$
\frac{\partial L}{\partial V} = \frac{g}{\lVert V\rVert_F}
\left(D - \hat V\,\langle D, \hat V\rangle_F\right)
= \frac{g}{\lVert V\rVert_F}\left(D - \hat V \frac{\partial L}{\partial g}\right).
$$

The bracket is the projection of $D$ onto the complement of $V$ in the space of matrices,
so $\langle V, \partial L/\partial V\rangle_F = 0$ (but a single column of
$\partial L/\partial V$ need not be orthogonal to that column of $V$). An SGD step
$V' = V - \eta\,\partial L/\partial V$ therefore adds an orthogonal matrix:
$\lVert V'\rVert_F^2 = \lVert V\rVert_F^2 + \eta^2\lVert\partial L/\partial V\rVert_F^2
\ge \lVert V\rVert_F^2$; the norm only grows. The gradient scales like
$1/\lVert V\rVert_F$, so the direction $\hat V$ turns by an angle of about
$\eta/\lVert V\rVert_F^2$ times a factor independent of the scale: the effective learning
rate is $\eta/\lVert V\rVert_F^2$, one for the whole matrix, and a step that is too large
grows $\lVert V\rVert_F$ and so damps the steps after it, as in {ref}`sec-07-lr`.

**Mark scheme (4 points).** 1 pt: $\partial L/\partial x = G W^\top$ and $\partial L/\partial g
= \langle x^\top G, \hat V\rangle_F$, summed over the whole matrix; 1 pt:
$\partial L/\partial V$ with the projection onto the complement of $V$ as a matrix (the
"naive" form $g D/\lVert V\rVert_F$, or a per-column projection, gets 0 here); 1 pt:
orthogonality $\langle V, \partial L/\partial V\rangle_F = 0$ shown; 1 pt: the Frobenius
norm grows and the effective step scales like $\eta/\lVert V\rVert_F^2$.""",
            [
                (
                    "_g = _rng.uniform(0.5, 2.0, _h)",
                    "_g = _rng.uniform(0.5, 2.0, 1)  # one length for the whole matrix",
                ),
                (
                    EX1_TORCH_W,
                    "_w = _t[1] * (_t[2] / _torch.sqrt((_t[1] * _t[1]).sum()))",
                ),
                (
                    EX1_CACHE,
                    """\
    _norm = float((_v * _v).sum()) ** 0.5
    _cache = (_x.copy(), _v.copy(), _g.copy(), _norm, _v * (_g / _norm))""",
                ),
            ],
        ),
    ),
]

# ---------------------------------------------------------------------------------
# Exercise 7.2: the bug hunt. The book's fixed function is the exact gradient of the
# book's network, right for any bug planted in it; so each variant changes the
# network (the read-only cell, its autograd twin in the cell after it, and the tests'
# reference) and plants the one wrong line there.

EX2_STORY = r"""A colleague extended the NumPy network of {ref}`sec-07-numpy` to two LayerNorm-ReLU hidden
layers and wrote the backward pass by hand (below). The network trains: its loss falls about
as fast as with the exact gradient (the cell after the code trains both). Yet exactly one line
is wrong: a falling loss is no test of a backward pass."""

EX2_NETWORK = """\
def loss_and_grads_deep(p, x, y):
    a1 = x @ p["W1"]
    z1, cache1 = layernorm_forward(a1, p["g1"], p["b1"], {"eps": 1e-5})
    h1 = np.maximum(z1, 0)
    a2 = h1 @ p["W2"]
    z2, cache2 = layernorm_forward(a2, p["g2"], p["b2"], {"eps": 1e-5})
    h2 = np.maximum(z2, 0)
    loss, dlogits = softmax_xent(h2 @ p["W3"] + p["c3"], y)
    grads = {"W3": h2.T @ dlogits, "c3": dlogits.sum(axis=0)}
    dz2 = (dlogits @ p["W3"].T) * (z2 > 0)
    da2, grads["g2"], grads["b2"] = layernorm_backward(dz2, cache2)
    grads["W2"] = h1.T @ da2
    dz1 = (da2 @ p["W2"].T) * (a1 > 0)
    da1, grads["g1"], grads["b1"] = layernorm_backward(dz1, cache1)
    grads["W1"] = x.T @ da1
    return loss, grads"""

EX2_AUTOGRAD = """\
    for k in ("1", "2"):
        g, b = t["g" + k], t["b" + k]
        h = torch.relu(F.layer_norm(h @ t["W" + k], g.shape, g, b, 1e-5))"""

EX2_ASSERTS = """\
# scan: 404 windows (SEEDS[0] = 0..403): the loss falls below 0.3 of its start (worst
# 0.224, seed 161), about as fast as with the exact gradient (final ratio 0.980 to
# 1.026, seeds 188 and 187); cosines above 0.85 (worst 0.898, b1, seed 2)
deep_first, deep_last = (
    np.mean(deep_losses["as written"][:10]),
    np.mean(deep_losses["as written"][-10:]),
)
assert deep_last < 0.3 * deep_first
assert 0.95 < deep_last / np.mean(deep_losses["autograd"][-10:]) < 1.05
assert min(cosine.values()) > 0.85
assert min(cosine[k] for k in ("W2", "g2", "b2", "W3", "c3")) > 1 - 1e-9"""

EX2_SOLUTION = """\
    a1 = x @ p["W1"]
    z1, cache1 = layernorm_forward(a1, p["g1"], p["b1"], {"eps": 1e-5})
    h1 = np.maximum(z1, 0)
    a2 = h1 @ p["W2"]
    z2, cache2 = layernorm_forward(a2, p["g2"], p["b2"], {"eps": 1e-5})
    h2 = np.maximum(z2, 0)
    loss, dlogits = softmax_xent(h2 @ p["W3"] + p["c3"], y)
    grads = {"W3": h2.T @ dlogits, "c3": dlogits.sum(axis=0)}
    dz2 = (dlogits @ p["W3"].T) * (z2 > 0)
    da2, grads["g2"], grads["b2"] = layernorm_backward(dz2, cache2)
    grads["W2"] = h1.T @ da2
    dz1 = (da2 @ p["W2"].T) * (z1 > 0)
    da1, grads["g1"], grads["b1"] = layernorm_backward(dz1, cache1)
    grads["W1"] = x.T @ da1
    return loss, grads"""

EX2_EXPLANATION = r"""The line `dz1 = (da2 @ p["W2"].T) * (a1 > 0)` takes the ReLU mask from the *linear* output
`a1`, before the LayerNorm; the ReLU acts on the normalized `z1`, so the mask must be
`(z1 > 0)` (the second layer does this right). LayerNorm subtracts each row's mean and rescales
it, so the sign pattern of `z1` differs from that of `a1` wherever an entry lies between zero
and its row mean. A gradient check shows the error only in `W1`, `g1` and `b1`: everything
from the output back to `W2`, `g2`, `b2` is computed before the faulty line. The loss still
falls because most entries share their sign in `a1` and `z1`, so the wrong gradient is close
to the right one: the cell under the exercise prints its cosine with the true gradient at
initialization, well above zero for `W1`, `g1` and `b1` and exactly 1 for the later
parameters, which get exact gradients. In that short run the loss falls about as fast as with
the exact gradient; the damage is a slightly wrong first layer, which only a gradient check
reveals.

**Mark scheme (2 points).** 1 pt: the line and the correct mask `(z1 > 0)`; 1 pt: which
gradients are wrong (only the first layer's) and why the loss still falls (the wrong gradient
remains positively correlated with the true one; later layers are exact)."""

EX2_TORCH = """\
    _h1 = _torch.relu(
        _ln(_torch.tensor(_x) @ _t["W1"], (_h,), _t["g1"], _t["b1"], 1e-5)
    )
    _h2 = _torch.relu(_ln(_h1 @ _t["W2"], (_h,), _t["g2"], _t["b2"], 1e-5))"""

EX2_GRADE_CELLS = ("07-ex2-W1", "07-ex2-g1-b1")


def ex2_edits(story, network, autograd, exact, solution, explanation, torch):
    """The edits of a variant of 7.2: the story, the buggy network, its autograd twin
    and what the cell after it asserts (`exact`: the parameters whose gradients the
    faulty line does not reach), the model answer, the explanation and its mark
    scheme, and the tests' autograd reference."""
    names = "(" + ", ".join(f'"{k}"' for k in exact) + ")"
    asserts = f"""\
# only what holds whatever the data: the loss falls, and the parameters the faulty
# line does not reach get exact gradients (cosine 1); the rest is printed
deep_first, deep_last = (
    np.mean(deep_losses["as written"][:10]),
    np.mean(deep_losses["as written"][-10:]),
)
assert deep_last < deep_first
assert min(cosine[k] for k in {names}) > 1 - 1e-9"""
    return [
        Edit("cca515ed", EX2_STORY, story),
        Edit("07-deep-readonly", EX2_NETWORK, network),
        Edit("35935da2", EX2_AUTOGRAD, autograd),
        Edit("35935da2", EX2_ASSERTS, asserts),
        Edit("07-ex2-solution", EX2_SOLUTION, solution),
        Edit("07-ex2-explanation", EX2_EXPLANATION, explanation),
    ] + [Edit(cell, EX2_TORCH, torch) for cell in EX2_GRADE_CELLS]


EX2 = [
    Variant(
        "leaky-relu",
        "bug hunt in a two-layer LayerNorm-LeakyReLU(0.1) network's hand-written backward",
        ex2_edits(
            r"""A colleague extended the NumPy network of {ref}`sec-07-numpy` to two hidden layers of
LayerNorm followed by a LeakyReLU of slope $0.1$, $h = \max(z, 0.1z)$, and wrote the
backward pass by hand (below). The network trains: its loss falls (the cell after the
code trains it and the exact gradient side by side). Yet exactly one line is wrong: a
falling loss is no test of a backward pass.""",
            """\
def loss_and_grads_deep(p, x, y):
    a1 = x @ p["W1"]
    z1, cache1 = layernorm_forward(a1, p["g1"], p["b1"], {"eps": 1e-5})
    h1 = np.where(z1 > 0, z1, 0.1 * z1)  # LeakyReLU, slope 0.1
    a2 = h1 @ p["W2"]
    z2, cache2 = layernorm_forward(a2, p["g2"], p["b2"], {"eps": 1e-5})
    h2 = np.where(z2 > 0, z2, 0.1 * z2)
    loss, dlogits = softmax_xent(h2 @ p["W3"] + p["c3"], y)
    grads = {"W3": h2.T @ dlogits, "c3": dlogits.sum(axis=0)}
    dz2 = (dlogits @ p["W3"].T) * np.where(z2 > 0, 1.0, 0.1)
    da2, grads["g2"], grads["b2"] = layernorm_backward(dz2, cache2)
    grads["W2"] = h1.T @ da2
    dz1 = (da2 @ p["W2"].T) * (z1 > 0)
    da1, grads["g1"], grads["b1"] = layernorm_backward(dz1, cache1)
    grads["W1"] = x.T @ da1
    return loss, grads""",
            """\
    for k in ("1", "2"):
        g, b = t["g" + k], t["b" + k]
        z = F.layer_norm(h @ t["W" + k], g.shape, g, b, 1e-5)
        h = F.leaky_relu(z, 0.1)""",
            ("W2", "g2", "b2", "W3", "c3"),
            """\
    a1 = x @ p["W1"]
    z1, cache1 = layernorm_forward(a1, p["g1"], p["b1"], {"eps": 1e-5})
    h1 = np.where(z1 > 0, z1, 0.1 * z1)
    a2 = h1 @ p["W2"]
    z2, cache2 = layernorm_forward(a2, p["g2"], p["b2"], {"eps": 1e-5})
    h2 = np.where(z2 > 0, z2, 0.1 * z2)
    loss, dlogits = softmax_xent(h2 @ p["W3"] + p["c3"], y)
    grads = {"W3": h2.T @ dlogits, "c3": dlogits.sum(axis=0)}
    dz2 = (dlogits @ p["W3"].T) * np.where(z2 > 0, 1.0, 0.1)
    da2, grads["g2"], grads["b2"] = layernorm_backward(dz2, cache2)
    grads["W2"] = h1.T @ da2
    dz1 = (da2 @ p["W2"].T) * np.where(z1 > 0, 1.0, 0.1)  # the leak's slope too
    da1, grads["g1"], grads["b1"] = layernorm_backward(dz1, cache1)
    grads["W1"] = x.T @ da1
    return loss, grads""",
            r"""The line `dz1 = (da2 @ p["W2"].T) * (z1 > 0)` multiplies by the derivative of a plain
ReLU, but the first layer's activation is the LeakyReLU $\max(z, 0.1z)$, whose derivative
is $1$ where $z_1 > 0$ and $0.1$ elsewhere; the line must be
`dz1 = (da2 @ p["W2"].T) * np.where(z1 > 0, 1.0, 0.1)` (the second layer does this right).
The bug drops the gradient through every negative entry of `z1` instead of scaling it by
$0.1$. A gradient check shows the error only in `W1`, `g1` and `b1`: everything from the
output back to `W2`, `g2`, `b2` is computed before the faulty line. The loss still falls
because the wrong gradient is the true one without the small contributions through the
negative entries (weight $0.1$ against $1$), so it stays close to the true one: the cell
under the exercise prints its cosine with the true gradient at initialization, well above
zero for `W1`, `g1` and `b1` and exactly 1 for the later parameters, which get exact
gradients. The damage is a slightly wrong first layer, which only a gradient check
reveals.

**Mark scheme (2 points).** 1 pt: the line and the correct derivative
`np.where(z1 > 0, 1.0, 0.1)`; 1 pt: which gradients are wrong (only the first layer's) and
why the loss still falls (the wrong gradient misses only the $0.1$-weighted terms and
remains positively correlated with the true one; later layers are exact).""",
            """\
    _lrelu = _torch.nn.functional.leaky_relu
    _h1 = _lrelu(
        _ln(_torch.tensor(_x) @ _t["W1"], (_h,), _t["g1"], _t["b1"], 1e-5), 0.1
    )
    _h2 = _lrelu(_ln(_h1 @ _t["W2"], (_h,), _t["g2"], _t["b2"], 1e-5), 0.1)""",
        ),
    ),
    Variant(
        "residual",
        "bug hunt in a LayerNorm-ReLU network whose second block is residual",
        ex2_edits(
            r"""A colleague extended the NumPy network of {ref}`sec-07-numpy` to two LayerNorm-ReLU hidden
layers, the second of them a residual block, $h_2 = h_1 + \operatorname{ReLU}(
\operatorname{LN}(h_1 W_2))$, and wrote the backward pass by hand (below). The network
trains: its loss falls (the cell after the code trains it and the exact gradient side by
side). Yet exactly one line is wrong: a falling loss is no test of a backward pass.""",
            """\
def loss_and_grads_deep(p, x, y):
    a1 = x @ p["W1"]
    z1, cache1 = layernorm_forward(a1, p["g1"], p["b1"], {"eps": 1e-5})
    h1 = np.maximum(z1, 0)
    a2 = h1 @ p["W2"]
    z2, cache2 = layernorm_forward(a2, p["g2"], p["b2"], {"eps": 1e-5})
    h2 = h1 + np.maximum(z2, 0)  # residual block
    loss, dlogits = softmax_xent(h2 @ p["W3"] + p["c3"], y)
    grads = {"W3": h2.T @ dlogits, "c3": dlogits.sum(axis=0)}
    dh2 = dlogits @ p["W3"].T
    dz2 = dh2 * (z2 > 0)
    da2, grads["g2"], grads["b2"] = layernorm_backward(dz2, cache2)
    grads["W2"] = h1.T @ da2
    dz1 = (da2 @ p["W2"].T) * (z1 > 0)
    da1, grads["g1"], grads["b1"] = layernorm_backward(dz1, cache1)
    grads["W1"] = x.T @ da1
    return loss, grads""",
            """\
    for k in ("1", "2"):
        g, b = t["g" + k], t["b" + k]
        z = torch.relu(F.layer_norm(h @ t["W" + k], g.shape, g, b, 1e-5))
        h = z if k == "1" else h + z  # the second block is residual""",
            ("W2", "g2", "b2", "W3", "c3"),
            """\
    a1 = x @ p["W1"]
    z1, cache1 = layernorm_forward(a1, p["g1"], p["b1"], {"eps": 1e-5})
    h1 = np.maximum(z1, 0)
    a2 = h1 @ p["W2"]
    z2, cache2 = layernorm_forward(a2, p["g2"], p["b2"], {"eps": 1e-5})
    h2 = h1 + np.maximum(z2, 0)
    loss, dlogits = softmax_xent(h2 @ p["W3"] + p["c3"], y)
    grads = {"W3": h2.T @ dlogits, "c3": dlogits.sum(axis=0)}
    dh2 = dlogits @ p["W3"].T
    dz2 = dh2 * (z2 > 0)
    da2, grads["g2"], grads["b2"] = layernorm_backward(dz2, cache2)
    grads["W2"] = h1.T @ da2
    dz1 = (da2 @ p["W2"].T + dh2) * (z1 > 0)  # h1 also reaches h2 directly
    da1, grads["g1"], grads["b1"] = layernorm_backward(dz1, cache1)
    grads["W1"] = x.T @ da1
    return loss, grads""",
            r"""The line `dz1 = (da2 @ p["W2"].T) * (z1 > 0)` forgets the skip connection. $h_1$ reaches
the loss along two paths, through the block ($h_1 W_2$) and directly ($h_2 = h_1 + \dots$),
so its gradient is the sum `da2 @ p["W2"].T + dh2`, and the line must be
`dz1 = (da2 @ p["W2"].T + dh2) * (z1 > 0)`. A gradient check shows the error only in `W1`,
`g1` and `b1`: everything from the output back to `W2`, `g2`, `b2` (and `dh2` itself) is
computed before the faulty line. The loss still falls because every later parameter, `W2`,
`g2`, `b2`, `W3`, `c3`, gets its exact gradient (the cell under the exercise prints cosine
exactly 1 for them) and the network can fit the data on top of a poorly trained first
layer, which is still moved by the part of its gradient that passes through the block (its
printed cosine with the true gradient is below 1). The damage is a first layer trained with
the wrong gradient, without its skip path, and only a gradient check reveals it.

**Mark scheme (2 points).** 1 pt: the line and the correct gradient
`da2 @ p["W2"].T + dh2` (the skip path); 1 pt: which gradients are wrong (only the first
layer's) and why the loss still falls (the later layers are exact and fit the data; the
first layer still gets the part of its gradient through the block).""",
            """\
    _h1 = _torch.relu(
        _ln(_torch.tensor(_x) @ _t["W1"], (_h,), _t["g1"], _t["b1"], 1e-5)
    )
    _h2 = _h1 + _torch.relu(_ln(_h1 @ _t["W2"], (_h,), _t["g2"], _t["b2"], 1e-5))""",
        ),
    ),
    Variant(
        "relu-then-norm",
        "bug hunt in a ReLU-then-LayerNorm network's hand-written backward pass",
        ex2_edits(
            r"""A colleague extended the NumPy network of {ref}`sec-07-numpy` to two hidden layers that
apply the ReLU *before* the LayerNorm, $z = \operatorname{LN}(\operatorname{ReLU}(hW))$,
and wrote the backward pass by hand (below). The network trains: its loss falls (the cell
after the code trains it and the exact gradient side by side). Yet exactly one line is
wrong: a falling loss is no test of a backward pass.""",
            """\
def loss_and_grads_deep(p, x, y):
    a1 = x @ p["W1"]
    r1 = np.maximum(a1, 0)
    z1, cache1 = layernorm_forward(r1, p["g1"], p["b1"], {"eps": 1e-5})
    a2 = z1 @ p["W2"]
    r2 = np.maximum(a2, 0)
    z2, cache2 = layernorm_forward(r2, p["g2"], p["b2"], {"eps": 1e-5})
    loss, dlogits = softmax_xent(z2 @ p["W3"] + p["c3"], y)
    grads = {"W3": z2.T @ dlogits, "c3": dlogits.sum(axis=0)}
    dr2, grads["g2"], grads["b2"] = layernorm_backward(dlogits @ p["W3"].T, cache2)
    da2 = dr2 * (a2 > 0)
    grads["W2"] = z1.T @ da2
    dr1, grads["g1"], grads["b1"] = layernorm_backward(da2 @ p["W2"].T, cache1)
    da1 = dr1 * (z1 > 0)
    grads["W1"] = x.T @ da1
    return loss, grads""",
            """\
    for k in ("1", "2"):
        g, b = t["g" + k], t["b" + k]
        h = F.layer_norm(torch.relu(h @ t["W" + k]), g.shape, g, b, 1e-5)""",
            ("g1", "b1", "W2", "g2", "b2", "W3", "c3"),
            """\
    a1 = x @ p["W1"]
    r1 = np.maximum(a1, 0)
    z1, cache1 = layernorm_forward(r1, p["g1"], p["b1"], {"eps": 1e-5})
    a2 = z1 @ p["W2"]
    r2 = np.maximum(a2, 0)
    z2, cache2 = layernorm_forward(r2, p["g2"], p["b2"], {"eps": 1e-5})
    loss, dlogits = softmax_xent(z2 @ p["W3"] + p["c3"], y)
    grads = {"W3": z2.T @ dlogits, "c3": dlogits.sum(axis=0)}
    dr2, grads["g2"], grads["b2"] = layernorm_backward(dlogits @ p["W3"].T, cache2)
    da2 = dr2 * (a2 > 0)
    grads["W2"] = z1.T @ da2
    dr1, grads["g1"], grads["b1"] = layernorm_backward(da2 @ p["W2"].T, cache1)
    da1 = dr1 * (a1 > 0)  # the ReLU acts on a1, before the LayerNorm
    grads["W1"] = x.T @ da1
    return loss, grads""",
            r"""The line `da1 = dr1 * (z1 > 0)` takes the ReLU mask from the LayerNorm's *output* `z1`;
in this network the ReLU acts on the linear output `a1`, before the LayerNorm, so the mask
must be `(a1 > 0)` (the second layer does this right). Since `r1` $\ge 0$, at
initialization ($g_1 = 1$, $b_1 = 0$) `z1` is positive exactly where `r1` exceeds its row
mean: the wrong mask also drops the active units that lie between zero and their row's
mean. A gradient check shows the error only in `W1`: `g1` and `b1` come from
`layernorm_backward` before the faulty line, as do all the later gradients. The loss still
falls because the wrong gradient keeps the contributions of the strongly active units and
loses only those of the weakly active ones, so it remains close to the true one: the cell
under the exercise prints its cosine with the true gradient at initialization, well above
zero for `W1` and exactly 1 for every other parameter. The damage is a slightly wrong first
layer, which only a gradient check reveals.

**Mark scheme (2 points).** 1 pt: the line and the correct mask `(a1 > 0)` (or
`(r1 > 0)`); 1 pt: which gradients are wrong (only `W1`; `g1`, `b1` and the later layers
are exact) and why the loss still falls (the wrong gradient remains positively correlated
with the true one).""",
            """\
    _h1 = _ln(
        _torch.relu(_torch.tensor(_x) @ _t["W1"]), (_h,), _t["g1"], _t["b1"], 1e-5
    )
    _h2 = _ln(_torch.relu(_h1 @ _t["W2"]), (_h,), _t["g2"], _t["b2"], 1e-5)""",
        ),
    ),
]

BANK = {"07-ex1": EX1, "07-ex2": EX2}
