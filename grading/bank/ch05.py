"""Variants of chapter 05's coding exercises (grading/bank/__init__.py)."""

from grading.bank import Edit, Variant

# ---------------------------------------------------------------------------------
# Exercise 5.4: GroupNorm backward. Each variant changes the layer whose backward
# pass is asked for; its forward pass is given above the function in the solution
# cell (outside the solution markers, so the hand-out keeps it).

EX4_TITLE = "### Exercise 5.4: GroupNorm backward (7 points)"

EX4_TASK = r"""Derive and write `groupnorm_backward(dout, cache)` for the `groupnorm_forward` of {ref}`sec-05-family`,
returning `(dx, dgamma, dbeta)` as NumPy float64 arrays. The cache holds `xhat` (shape of
`x`), `rstd` (shape $(N, G, 1)$), `gamma` and `G`. $\gamma$ and $\beta$ are per
*channel*, but the statistics are per (example, group). Gradient-check all three results
with `eval_complex_step_gradient_array` on at least two shapes and values of $G$, and
compare with `nn.GroupNorm`'s autograd if you like — but your function itself must use"""

EX4_DERIVATION = r"""Let $P$ be the number of positions and $M = \tfrac{C}{G}P$ the number of cells of one
(example, group) row. The affine map is per channel, used at every example and position:
$\partial L/\partial\beta_c = \sum_{n,p} g_{ncp}$ and
$\partial L/\partial\gamma_c = \sum_{n,p} g_{ncp}\hat x_{ncp}$. The gradient reaching
$\hat x$ is $\hat g_{ncp} = \gamma_c g_{ncp}$. Within one row $r=(n, \text{group})$ the
normalization is {ref}`sec-05-closed` closed form over $M$ cells:
$\partial L/\partial x_i = \frac{s_r^{-1}}{M}\big(M\hat g_i - \sum_{k\in r}\hat g_k - \hat x_i\sum_{k\in r}\hat g_k\hat x_k\big)$.
So: scale by $\gamma$ per channel *first*,
reshape to $(N, G, M)$, apply the closed form per row, reshape back.

**Mark scheme (2 points).** 1 pt: $d\gamma$, $d\beta$ summed over examples and positions
(shape $(C,)$); 1 pt: $d x$ with $\gamma$ applied per channel before the per-row projection,
sums over the $M$ cells of the row."""

EX4_GRADE_CELLS = ("05-ex4-dx", "05-ex4-dgamma", "05-ex4-dbeta")


def ex4_forward(name, code):
    """Edits that give the variant's forward `name` (source `code`) above the
    solution and use it, instead of groupnorm_forward, in the demonstration and in
    the visible tests."""
    edits = [
        Edit(
            "05-ex4-solution",
            "def groupnorm_backward(dout, cache):\n",
            code + "\n\ndef groupnorm_backward(dout, cache):\n",
        ),
        Edit(
            "05-ex4-solution",
            "_grads = groupnorm_backward(_d, groupnorm_forward(_x, _g, _b, _p)[1])",
            f"_grads = groupnorm_backward(_d, {name}(_x, _g, _b, _p)[1])",
        ),
    ]
    for args in ("a, _g, _b, _p", "_x, a, _b, _p", "_x, _g, a, _p"):
        edits.append(
            Edit(
                "05-ex4-solution",
                f"(lambda a: groupnorm_forward({args})[0]",
                f"(lambda a: {name}({args})[0]",
            )
        )
    for cell in EX4_GRADE_CELLS:
        edits += [
            Edit(cell, "_cache = groupnorm_forward(", f"_cache = {name}("),
            Edit(cell, "lambda t: groupnorm_forward(", f"lambda t: {name}("),
        ]
    return edits


def ex4_task(title, task):
    return [
        Edit("0218724b", EX4_TITLE, f"### Exercise 5.4: {title} (7 points)"),
        Edit("0218724b", EX4_TASK, task),
    ]


ONE_PLUS_GAMMA_FORWARD = '''\
def groupnorm_1p_forward(x, gamma, beta, gn_param):
    """GroupNorm with the gain 1 + gamma (gamma = 0 is the identity at init).

    Same parameters and cache as groupnorm_forward; the cache holds gamma itself.
    """
    out, cache = groupnorm_forward(x, 1.0 + gamma, beta, gn_param)
    cache["gamma"] = gamma
    return out, cache
'''

RMS_FORWARD = '''\
def rms_groupnorm_forward(x, gamma, beta, gn_param):
    """GroupNorm without centring: each (example, group) row is divided by its RMS.

    Same parameters and cache layout as groupnorm_forward: xhat (shape of x), rstd
    (N, G, 1), gamma, G.
    """
    G, eps = gn_param["G"], gn_param.get("eps", 1e-5)
    N, C = x.shape[:2]
    xg = x.reshape(N, G, -1)  # one row per (example, group)
    rstd = 1.0 / np.sqrt((xg**2).mean(axis=2, keepdims=True) + eps)
    xhat = (xg * rstd).reshape(x.shape)
    per_channel = (1, C) + (1,) * (x.ndim - 2)
    out = gamma.reshape(per_channel) * xhat + beta.reshape(per_channel)
    return out, {"xhat": xhat, "rstd": rstd, "gamma": gamma, "G": G}
'''

POSITIONWISE_FORWARD = '''\
def positionwise_groupnorm_forward(x, gamma, beta, gn_param):
    """GroupNorm whose statistics run over the C/G channels of one group at each
    (example, position); for G = 1 the LayerNorm over channels of ConvNeXt.

    Same parameters as groupnorm_forward; cache: xhat (shape of x), rstd of shape
    (N, G, 1, *positions), gamma, G.
    """
    G, eps = gn_param["G"], gn_param.get("eps", 1e-5)
    N, C = x.shape[:2]
    xg = x.reshape((N, G, C // G) + x.shape[2:])  # axis 2: the channels of a group
    xc = xg - xg.mean(axis=2, keepdims=True)
    rstd = 1.0 / np.sqrt((xc**2).mean(axis=2, keepdims=True) + eps)
    xhat = (xc * rstd).reshape(x.shape)
    per_channel = (1, C) + (1,) * (x.ndim - 2)
    out = gamma.reshape(per_channel) * xhat + beta.reshape(per_channel)
    return out, {"xhat": xhat, "rstd": rstd, "gamma": gamma, "G": G}
'''

EX4_SOLUTION_DX = """\
    dx = (rstd / M) * (
        M * dxhat
        - dxhat.sum(axis=2, keepdims=True)
        - xh * (dxhat * xh).sum(axis=2, keepdims=True)
    )"""

EX4_HIDDEN_STATS = """\
    _xc = _xg - _xg.mean(axis=2, keepdims=True)
    _rstd = 1.0 / ((_xc * _xc).mean(axis=2, keepdims=True) + 1e-5) ** 0.5
    _xhat = (_xc * _rstd).reshape(_shape)
"""

EX4_HIDDEN_DX = """\
    _dx = _gh - _gh.mean(axis=2, keepdims=True)
    _dx = (_dx - _xh * (_gh * _xh).mean(axis=2, keepdims=True)) * _rstd
"""

EX4 = [
    Variant(
        "one-plus-gamma",
        "GroupNorm backward for the gain (1 + gamma): y = (1 + gamma) xhat + beta",
        (
            *ex4_task(
                "GroupNorm backward with a $(1+\\gamma)$ gain",
                r"""Derive and write `groupnorm_backward(dout, cache)` for `groupnorm_1p_forward`, given
above the function in the solution cell: the GroupNorm of {ref}`sec-05-family` with the
gain written as $1+\gamma$, $y = (1+\gamma_c)\,\hat x + \beta_c$, so that $\gamma = 0$
starts the layer as a pure normalization. Return `(dx, dgamma, dbeta)` as NumPy float64
arrays. The cache holds `xhat` (shape of `x`), `rstd` (shape $(N, G, 1)$), `gamma`
(that is $\gamma$, not $1+\gamma$) and `G`. $\gamma$ and $\beta$ are per
*channel*, but the statistics are per (example, group). Gradient-check all three results
with `eval_complex_step_gradient_array` on at least two shapes and values of $G$ — but
your function itself must use""",
            ),
            *ex4_forward("groupnorm_1p_forward", ONE_PLUS_GAMMA_FORWARD),
            Edit(
                "05-ex4-solution",
                "dxhat = (dout * gamma.reshape(per_channel)).reshape(N, G, -1)",
                "dxhat = (dout * (1.0 + gamma).reshape(per_channel)).reshape(N, G, -1)",
            ),
            Edit(
                "05-ex4-dx",
                "_gh = (_dout * _gamma.reshape(_pc)).reshape(_N, _G, -1)",
                "_gh = (_dout * (1.0 + _gamma).reshape(_pc)).reshape(_N, _G, -1)",
            ),
            Edit(
                "05-ex4-dx",
                "# A private GroupNorm forward (same cache layout as groupnorm_forward)",
                "# A private (1 + gamma) GroupNorm forward (cache as groupnorm_1p_forward)",
            ),
            Edit(
                "05-ex4-derivation",
                EX4_DERIVATION,
                r"""Let $P$ be the number of positions and $M = \tfrac{C}{G}P$ the number of cells of one
(example, group) row. The affine map $y = (1+\gamma_c)\hat x + \beta_c$ is per channel,
used at every example and position. Since $\partial(1+\gamma_c)/\partial\gamma_c = 1$,
the parameter gradients are GroupNorm's:
$\partial L/\partial\beta_c = \sum_{n,p} g_{ncp}$ and
$\partial L/\partial\gamma_c = \sum_{n,p} g_{ncp}\hat x_{ncp}$. The gradient reaching
$\hat x$ is $\hat g_{ncp} = (1+\gamma_c)\, g_{ncp}$ (not $\gamma_c g_{ncp}$: with
$\gamma = 0$ the layer still passes gradient). Within one row $r=(n, \text{group})$ the
normalization is {ref}`sec-05-closed` closed form over $M$ cells:
$\partial L/\partial x_i = \frac{s_r^{-1}}{M}\big(M\hat g_i - \sum_{k\in r}\hat g_k - \hat x_i\sum_{k\in r}\hat g_k\hat x_k\big)$.
So: scale by $1+\gamma$ per channel *first*,
reshape to $(N, G, M)$, apply the closed form per row, reshape back.

**Mark scheme (2 points).** 1 pt: $d\gamma$, $d\beta$ summed over examples and positions
(shape $(C,)$), the same as for the gain $\gamma$; 1 pt: $d x$ with $1+\gamma$ (not
$\gamma$) applied per channel before the per-row projection, sums over the $M$ cells of
the row.""",
            ),
        ),
    ),
    Variant(
        "rms-groups",
        "backward of GroupNorm without centring (each group row divided by its RMS)",
        (
            *ex4_task(
                "RMS GroupNorm backward",
                r"""Derive and write `groupnorm_backward(dout, cache)` for `rms_groupnorm_forward`, given
above the function in the solution cell: the GroupNorm of {ref}`sec-05-family` without
centring, which divides each (example, group) row by its root mean square,
$\hat x_i = x_i/\sqrt{\tfrac1M\sum_{k\in r}x_k^2+\varepsilon}$, as RMSNorm does for one
vector. Return `(dx, dgamma, dbeta)` as NumPy float64 arrays. The cache holds `xhat`
(shape of `x`), `rstd` (shape $(N, G, 1)$), `gamma` and `G`. $\gamma$ and $\beta$ are per
*channel*, but the statistics are per (example, group). Gradient-check all three results
with `eval_complex_step_gradient_array` on at least two shapes and values of $G$ — but
your function itself must use""",
            ),
            *ex4_forward("rms_groupnorm_forward", RMS_FORWARD),
            Edit(
                "05-ex4-solution",
                EX4_SOLUTION_DX,
                """\
    # no centring: only the projection along xhat, no mean to subtract
    dx = (rstd / M) * (M * dxhat - xh * (dxhat * xh).sum(axis=2, keepdims=True))""",
            ),
            Edit(
                "05-ex4-dx",
                EX4_HIDDEN_STATS,
                """\
    _rstd = 1.0 / ((_xg * _xg).mean(axis=2, keepdims=True) + 1e-5) ** 0.5
    _xhat = (_xg * _rstd).reshape(_shape)
""",
            ),
            Edit(
                "05-ex4-dx",
                EX4_HIDDEN_DX,
                "    _dx = (_gh - _xh * (_gh * _xh).mean(axis=2, keepdims=True)) * _rstd\n",
            ),
            Edit(
                "05-ex4-dx",
                "# A private GroupNorm forward (same cache layout as groupnorm_forward)",
                "# A private RMS GroupNorm forward (same cache as rms_groupnorm_forward)",
            ),
            Edit(
                "05-ex4-derivation",
                EX4_DERIVATION,
                r"""Let $P$ be the number of positions and $M = \tfrac{C}{G}P$ the number of cells of one
(example, group) row. The affine map is per channel, used at every example and position:
$\partial L/\partial\beta_c = \sum_{n,p} g_{ncp}$ and
$\partial L/\partial\gamma_c = \sum_{n,p} g_{ncp}\hat x_{ncp}$. The gradient reaching
$\hat x$ is $\hat g_{ncp} = \gamma_c g_{ncp}$. Within one row $r=(n, \text{group})$,
$\hat x_i = x_i s_r^{-1}$ with $s_r^2 = \frac1M\sum_{k\in r}x_k^2 + \varepsilon$ and
$\partial s_r^{-1}/\partial x_i = -s_r^{-3}x_i/M$, so
$\partial L/\partial x_i = s_r^{-1}\hat g_i - \frac{s_r^{-3}x_i}{M}\sum_{k\in r}\hat g_k x_k
= \frac{s_r^{-1}}{M}\big(M\hat g_i - \hat x_i\sum_{k\in r}\hat g_k\hat x_k\big)$:
{ref}`sec-05-closed` closed form without the term $-\sum_k\hat g_k$, because there is no
mean to subtract (so `dx` does not sum to zero over a row). So: scale by $\gamma$ per
channel *first*, reshape to $(N, G, M)$, apply this projection per row, reshape back.

**Mark scheme (2 points).** 1 pt: $d\gamma$, $d\beta$ summed over examples and positions
(shape $(C,)$); 1 pt: $d x$ with $\gamma$ applied per channel before the per-row
projection along $\hat x$ only (no mean term), sums over the $M$ cells of the row.""",
            ),
        ),
    ),
    Variant(
        "per-position",
        "backward of GroupNorm with statistics over a group's channels at each position",
        (
            *ex4_task(
                "Position-wise GroupNorm backward",
                r"""Derive and write `groupnorm_backward(dout, cache)` for
`positionwise_groupnorm_forward`, given above the function in the solution cell: a
GroupNorm whose statistics run over the $C/G$ channels of one group *at each position*
of each example (for $G=1$, the LayerNorm over channels that ConvNeXt applies to every
pixel), not over the group's channels and positions together as in {ref}`sec-05-family`.
Return `(dx, dgamma, dbeta)` as NumPy float64 arrays. The cache holds `xhat` (shape of
`x`), `rstd` (shape $(N, G, 1, \dots)$ with the positions last), `gamma` and `G`.
$\gamma$ and $\beta$ are per *channel*, but the statistics are per (example, group,
position). Gradient-check all three results
with `eval_complex_step_gradient_array` on at least two shapes and values of $G$ — but
your function itself must use""",
            ),
            *ex4_forward("positionwise_groupnorm_forward", POSITIONWISE_FORWARD),
            Edit(
                "05-ex4-solution",
                "dxhat = (dout * gamma.reshape(per_channel)).reshape(N, G, -1)",
                """\
rows = (N, G, C // G) + dout.shape[2:]  # axis 2: the channels of one group
    dxhat = (dout * gamma.reshape(per_channel)).reshape(rows)""",
            ),
            Edit(
                "05-ex4-solution",
                "xh = xhat.reshape(N, G, -1)",
                "xh = xhat.reshape(rows)",
            ),
            # At least three channels a group: with two, x-hat is +-1 and dx about 0.
            Edit(
                "05-ex4-solution",
                "for _shape, _groups in [((2, 6, 3, 3), 3), ((3, 4, 5), 2)]:",
                "for _shape, _groups in [((2, 6, 3, 3), 2), ((3, 4, 5), 1)]:",
            ),
            Edit(
                "05-ex4-dx",
                "_xg = _x.reshape(_N, _G, -1)",
                "_xg = _x.reshape((_N, _G, _C // _G) + _shape[2:])",
            ),
            Edit(
                "05-ex4-dx",
                "_gh = (_dout * _gamma.reshape(_pc)).reshape(_N, _G, -1)",
                "_gh = (_dout * _gamma.reshape(_pc)).reshape(_xg.shape)",
            ),
            Edit(
                "05-ex4-dx",
                "_xh = _xhat.reshape(_N, _G, -1)",
                "_xh = _xhat.reshape(_xg.shape)",
            ),
            Edit("05-ex4-dx", "((1, 4, 2, 3), 4),", "((1, 4, 2, 3), 2),"),
            Edit(
                "05-ex4-dx",
                "# A private GroupNorm forward (same cache layout as groupnorm_forward)",
                "# A private position-wise GroupNorm forward (its cache layout)",
            ),
            Edit(
                "05-ex4-derivation",
                EX4_DERIVATION,
                r"""Let $K = C/G$ be the number of channels of one group. The affine map is per channel,
used at every example and position:
$\partial L/\partial\beta_c = \sum_{n,p} g_{ncp}$ and
$\partial L/\partial\gamma_c = \sum_{n,p} g_{ncp}\hat x_{ncp}$. The gradient reaching
$\hat x$ is $\hat g_{ncp} = \gamma_c g_{ncp}$. A row is now $r=(n, \text{group}, p)$: the
$K$ channels of one group at one position, and within it the normalization is
{ref}`sec-05-closed` closed form over $K$ cells:
$\partial L/\partial x_i = \frac{s_r^{-1}}{K}\big(K\hat g_i - \sum_{k\in r}\hat g_k - \hat x_i\sum_{k\in r}\hat g_k\hat x_k\big)$.
Different positions do not interact. So: scale by $\gamma$ per channel *first*, reshape
to $(N, G, K, \dots)$ with the positions kept as axes, apply the closed form along the
axis of the $K$ channels, reshape back.

**Mark scheme (2 points).** 1 pt: $d\gamma$, $d\beta$ summed over examples and positions
(shape $(C,)$); 1 pt: $d x$ with $\gamma$ applied per channel before the projection,
sums over the $K$ channels of the group at each position (not over the positions).""",
            ),
        ),
    ),
]

# ---------------------------------------------------------------------------------
# Exercise 5.5: the bug hunt. The book's fixed function is the exact backward pass of
# spatial BatchNorm, right for any planted bug in it; so each variant ports the
# backward pass to another layer (its forward pass given in the read-only cell) and
# plants two other bugs there.

EX5_READONLY = '''\
def spatial_batchnorm_backward_buggy(dout, cache):
    """A port of the graph-style backward pass to (N, C, H, W), with two bugs."""
    xhat, rstd, gamma = cache["xhat"], cache["rstd"], cache["gamma"]
    N, C, H, W = dout.shape
    M = N * H * W
    axes = (0, 2, 3)
    per_channel = lambda v: v.reshape(1, C, 1, 1)
    dbeta = dout.sum(axis=axes)
    dgamma = (dout * xhat).sum(axis=(2, 3)).mean(axis=0)
    dxhat = dout * per_channel(gamma)
    xc = xhat / per_channel(rstd)
    dvar = -0.5 * (dxhat * xc).sum(axis=axes) * rstd**3
    dxc = dxhat * per_channel(rstd) + 2 * xc * per_channel(dvar) / (M - 1)
    dmu = -dxc.sum(axis=axes)
    dx = dxc + per_channel(dmu) / M
    return dx, dgamma, dbeta'''

EX5_TASK = r"""A colleague ported the graph-style backward pass of {ref}`sec-05-graph` to images and got the function below.
It runs, returns arrays of the right shapes, and its `dx` sums to zero over each channel —
but two lines are wrong. Find them with the chapter's tools (gradient checks of each output
on small problems, {ref}`sec-05-closed` orthogonality property), explain each bug in the answer cell
(2 points), and write `spatial_batchnorm_backward_fixed(dout, cache)` (same cache as
`spatial_batchnorm_forward`) without calling the chapter's backward passes or autograd."""

EX5_DIAGNOSIS = r"""**Bug 1, `dgamma`:** `.mean(axis=0)` averages over the examples instead of summing. $\gamma_c$
is used by every cell of channel $c$ in every example, so its gradient is the *sum* over
$(n, h, w)$; the buggy value is $N$ times too small (for $N=1$ the bug is invisible, which
is why a test on a single image misses it). The gradient check of `dgamma` fails by exactly
that factor.

**Bug 2, `dx`, the variance path:** `/ (M - 1)` differentiates the *unbiased* variance,
but the forward pass normalizes with the biased one, $v = \frac1M\sum(x-\mu)^2$, whose
derivative is $2(x-\mu)/M$. (Bessel's factor belongs only to the running variance.) The
error is relative size $1/M$ in the variance term, so it is small for large maps and
easily mistaken for round-off; a complex-step check on a small problem ($M$ of a few
dozen) shows a normwise error far above round-off, and with $\varepsilon=0$ the columns of
`dx` are no longer orthogonal to $\hat x$. The mean path is still correct, which is why
`dx` still sums to zero.

**Mark scheme (2 points).** 1 pt per bug: the line, what is wrong, and how a check reveals
it."""

EX5_SOLUTION = """\
    xhat, rstd, gamma = cache["xhat"], cache["rstd"], cache["gamma"]
    N, C, H, W = dout.shape
    M = N * H * W
    axes = (0, 2, 3)
    per_channel = lambda v: v.reshape(1, C, 1, 1)
    dbeta = dout.sum(axis=axes)
    dgamma = (dout * xhat).sum(axis=axes)  # fix 1: sum over the examples too
    dxhat = dout * per_channel(gamma)
    xc = xhat / per_channel(rstd)
    dvar = -0.5 * (dxhat * xc).sum(axis=axes) * rstd**3
    dxc = dxhat * per_channel(rstd) + 2 * xc * per_channel(dvar) / M  # fix 2: M
    dmu = -dxc.sum(axis=axes)
    dx = dxc + per_channel(dmu) / M
    return dx, dgamma, dbeta"""

EX5_PROBLEM = """\
def _bn_problem(_rng, _shape):
    # A private spatial BatchNorm forward (same cache layout) and the exact gradients.
    _C = _shape[1]
    _M = _shape[0] * _shape[2] * _shape[3]
    _x = 4 * _rng.standard_normal(_shape) + _rng.uniform(-10, 10)
    _gamma, _dout = _rng.standard_normal(_C), _rng.standard_normal(_shape)
    _axes, _pc = (0, 2, 3), (1, _C, 1, 1)
    _xc = _x - _x.mean(axis=_axes, keepdims=True)
    _rstd = 1.0 / ((_xc * _xc).mean(axis=_axes) + 1e-5) ** 0.5
    _xhat = _xc * _rstd.reshape(_pc)
    _cache = {"xhat": _xhat, "rstd": _rstd, "gamma": _gamma}
    _db, _dg = _dout.sum(axis=_axes), (_dout * _xhat).sum(axis=_axes)
    _dx = (_gamma * _rstd / _M).reshape(_pc) * (
        _M * _dout - _db.reshape(_pc) - _xhat * _dg.reshape(_pc)
    )
    return _dout, _cache, (_dx, _dg, _db)"""

EX5_GRADE_CELLS = ("05-ex5-dx", "05-ex5-dgamma")


def ex5_common(forward, readonly, task, solution, problem, diagnosis):
    """The edits of a bug-hunt variant: the read-only cell (its forward pass and the
    buggy port), the Task, the model answer, the tests' forward and reference, the
    diagnosis and its mark scheme."""
    edits = [
        Edit("05-bug-hunt-readonly", EX5_READONLY, readonly),
        Edit("53221a6a", EX5_TASK, task),
        Edit("05-ex5-solution", EX5_SOLUTION, solution),
        Edit("05-ex5-dx", EX5_PROBLEM, problem),
        Edit("05-ex5-diagnosis", EX5_DIAGNOSIS, diagnosis),
    ]
    for cell in EX5_GRADE_CELLS:
        edits += [
            Edit(cell, "_cache = spatial_batchnorm_forward(", f"_cache = {forward}("),
            Edit(cell, "lambda t: spatial_batchnorm_forward(", f"lambda t: {forward}("),
        ]
    return edits


EX5 = [
    Variant(
        "channels-last",
        "bug hunt in a channels-last (N, H, W, C) spatial BatchNorm backward",
        (
            *ex5_common(
                "spatial_bn_nhwc_forward",
                '''\
def spatial_bn_nhwc_forward(x, gamma, beta, bn_param):
    """spatial_batchnorm_forward for channels-last x of shape (N, H, W, C).

    Its cache holds xhat in the layout of x, rstd (C,) and gamma (C,).
    """
    out, cache = spatial_batchnorm_forward(
        x.transpose(0, 3, 1, 2), gamma, beta, bn_param
    )
    cache = dict(cache, xhat=cache["xhat"].transpose(0, 2, 3, 1))
    return out.transpose(0, 2, 3, 1), cache


def spatial_batchnorm_backward_buggy(dout, cache):
    """A port of the graph-style backward pass to (N, H, W, C), with two bugs."""
    xhat, rstd, gamma = cache["xhat"], cache["rstd"], cache["gamma"]
    N, H, W, C = dout.shape
    M = N * H * W
    axes = (0, 1, 2)  # channels last: (C,) arrays broadcast without a reshape
    dbeta = dout.sum(axis=axes)
    dxhat = dout * gamma
    dgamma = (dxhat * xhat).sum(axis=axes)
    xc = xhat / rstd
    dvar = -(dxhat * xc).sum(axis=axes) * rstd**3
    dxc = dxhat * rstd + 2 * xc * dvar / M
    dmu = -dxc.sum(axis=axes)
    dx = dxc + dmu / M
    return dx, dgamma, dbeta''',
                r"""A colleague ported the graph-style backward pass of {ref}`sec-05-graph` to images stored
channels-last, `x` of shape $(N, H, W, C)$ (TensorFlow's default layout), and got the
function below; `spatial_bn_nhwc_forward` above it is the forward pass, the chapter's
spatial BatchNorm in that layout. It runs, returns arrays of the right shapes, and its
`dx` sums to zero over each channel — but two lines are wrong. Find them with the
chapter's tools (gradient checks of each output on small problems, {ref}`sec-05-closed`
orthogonality property), explain each bug in the answer cell (2 points), and write
`spatial_batchnorm_backward_fixed(dout, cache)` (same cache and layout as
`spatial_bn_nhwc_forward`) without calling the chapter's backward passes or autograd.""",
                """\
    xhat, rstd, gamma = cache["xhat"], cache["rstd"], cache["gamma"]
    N, H, W, C = dout.shape
    M = N * H * W
    axes = (0, 1, 2)  # channels last: (C,) arrays broadcast without a reshape
    dbeta = dout.sum(axis=axes)
    dxhat = dout * gamma
    dgamma = (dout * xhat).sum(axis=axes)  # fix 1: dout, not gamma * dout
    xc = xhat / rstd
    dvar = -0.5 * (dxhat * xc).sum(axis=axes) * rstd**3  # fix 2: the factor 1/2
    dxc = dxhat * rstd + 2 * xc * dvar / M
    dmu = -dxc.sum(axis=axes)
    dx = dxc + dmu / M
    return dx, dgamma, dbeta""",
                """\
def _bn_problem(_rng, _shape):
    # A private channels-last spatial BatchNorm forward (same cache layout as
    # spatial_bn_nhwc_forward) and the exact gradients.
    _C = _shape[3]
    _M = _shape[0] * _shape[1] * _shape[2]
    _x = 4 * _rng.standard_normal(_shape) + _rng.uniform(-10, 10)
    _gamma, _dout = _rng.standard_normal(_C), _rng.standard_normal(_shape)
    _axes = (0, 1, 2)
    _xc = _x - _x.mean(axis=_axes)
    _rstd = 1.0 / ((_xc * _xc).mean(axis=_axes) + 1e-5) ** 0.5
    _xhat = _xc * _rstd
    _cache = {"xhat": _xhat, "rstd": _rstd, "gamma": _gamma}
    _db, _dg = _dout.sum(axis=_axes), (_dout * _xhat).sum(axis=_axes)
    _dx = (_gamma * _rstd / _M) * (_M * _dout - _db - _xhat * _dg)
    return _dout, _cache, (_dx, _dg, _db)""",
                r"""**Bug 1, `dgamma`:** `dgamma = (dxhat * xhat).sum(axis=axes)` multiplies by `dxhat`,
which already carries the factor $\gamma_c$: the gradient of $y = \gamma_c\hat x + \beta_c$
with respect to $\gamma_c$ is $\sum_{n,h,w} g\,\hat x$ with the *upstream* gradient $g$ =
`dout`. The buggy value is $\gamma_c$ times the true one, channel by channel (with the wrong
sign where $\gamma_c < 0$). At the usual initialization $\gamma = 1$ the bug is invisible,
which is why a test with the default parameters misses it; a gradient check of `dgamma`
with random $\gamma$ fails, by exactly the factor $\gamma_c$ per channel.

**Bug 2, `dx`, the variance path:** `dvar = -(dxhat * xc)...` lacks the factor
$\tfrac12$ of $\partial (v+\varepsilon)^{-1/2}/\partial v = -\tfrac12 (v+\varepsilon)^{-3/2}$,
so the variance path is counted twice. The mean path (`dmu`) subtracts the channel mean of
whatever `dxc` is, which is why `dx` still sums to zero. But with $\varepsilon = 0$ `dx` is
no longer orthogonal to $\hat x$ in each channel (the component along $\hat x$ is removed
twice, so it comes back with the opposite sign), and a complex-step check of `dx` on a
small problem shows a normwise error far above round-off.

**Mark scheme (2 points).** 1 pt per bug: the line, what is wrong, and how a check reveals
it.""",
            ),
            Edit(
                "05-ex5-dx",
                "_CASES = [(2, 3, 3, 3), (1, 2, 4, 5), (5, 4, 1, 1), (3, 2, 2, 3)]",
                "_CASES = [(2, 3, 3, 3), (1, 4, 5, 2), (5, 1, 1, 4), (3, 2, 3, 2)]",
            ),
            *[
                Edit(
                    cell,
                    "_x = 5 * _rng.standard_normal((2, 3, 3, 3)) + 12",
                    "_x = 5 * _rng.standard_normal((2, 4, 3, 3)) + 12  # (N, H, W, C)",
                )
                for cell in EX5_GRADE_CELLS
            ],
            *[
                Edit(
                    cell,
                    "_dout = _rng.standard_normal((2, 3, 3, 3))",
                    "_dout = _rng.standard_normal((2, 4, 3, 3))",
                )
                for cell in EX5_GRADE_CELLS
            ],
        ),
    ),
    Variant(
        "unbiased",
        "bug hunt in the backward pass of a spatial BatchNorm with the unbiased variance",
        ex5_common(
            "spatial_bn_unbiased_forward",
            '''\
def spatial_bn_unbiased_forward(x, gamma, beta, bn_param):
    """Training-mode spatial BatchNorm that normalizes with the unbiased variance.

    x of shape (N, C, H, W); per channel v = sum((x - mu)**2) / (M - 1) over its
    M = N*H*W cells. Same cache as spatial_batchnorm_forward: xhat, rstd (C,), gamma.
    """
    eps = bn_param.get("eps", 1e-5)
    N, C, H, W = x.shape
    M = N * H * W
    axes, per_channel = (0, 2, 3), (1, C, 1, 1)
    xc = x - x.mean(axis=axes, keepdims=True)
    rstd = 1.0 / np.sqrt((xc**2).sum(axis=axes) / (M - 1) + eps)
    xhat = xc * rstd.reshape(per_channel)
    out = gamma.reshape(per_channel) * xhat + beta.reshape(per_channel)
    return out, {"xhat": xhat, "rstd": rstd, "gamma": gamma}


def spatial_batchnorm_backward_buggy(dout, cache):
    """A port of the graph-style backward pass to the unbiased layer, with two bugs."""
    xhat, rstd, gamma = cache["xhat"], cache["rstd"], cache["gamma"]
    N, C, H, W = dout.shape
    M = N * H * W
    axes = (0, 2, 3)
    per_channel = lambda v: v.reshape(1, C, 1, 1)
    dbeta = dout.sum(axis=axes)
    dgamma = (dout * xhat).sum(axis=axes)
    dxhat = dout * per_channel(gamma)
    xc = xhat / per_channel(rstd)
    dvar = -0.5 * (dxhat * xc).sum(axis=axes) * rstd**3
    dxc = dxhat * per_channel(rstd) + 2 * xc * per_channel(dvar) / M
    dmu = -dxc.sum(axis=axes)
    dx = dxc + per_channel(dmu) / (M - 1)
    return dx, dgamma, dbeta''',
            r"""A colleague's layer normalizes each channel with the *unbiased* variance,
$v = \frac{1}{M-1}\sum(x-\mu)^2$ over its $M = NHW$ cells (`spatial_bn_unbiased_forward`
above the function below), and they ported the graph-style backward pass of
{ref}`sec-05-graph` to it. The port runs and returns arrays of the right shapes — but two
lines are wrong. Find them with the chapter's tools (gradient checks of each output on
small problems, the sum of `dx` over each channel, {ref}`sec-05-closed` orthogonality
property), explain each bug in the answer cell (2 points), and write
`spatial_batchnorm_backward_fixed(dout, cache)` (same cache as
`spatial_bn_unbiased_forward`) without calling the chapter's backward passes or autograd.""",
            """\
    xhat, rstd, gamma = cache["xhat"], cache["rstd"], cache["gamma"]
    N, C, H, W = dout.shape
    M = N * H * W
    axes = (0, 2, 3)
    per_channel = lambda v: v.reshape(1, C, 1, 1)
    dbeta = dout.sum(axis=axes)
    dgamma = (dout * xhat).sum(axis=axes)
    dxhat = dout * per_channel(gamma)
    xc = xhat / per_channel(rstd)
    dvar = -0.5 * (dxhat * xc).sum(axis=axes) * rstd**3
    # fix 1: v = sum(xc**2) / (M - 1), so dv/dxc = 2 xc / (M - 1)
    dxc = dxhat * per_channel(rstd) + 2 * xc * per_channel(dvar) / (M - 1)
    dmu = -dxc.sum(axis=axes)
    dx = dxc + per_channel(dmu) / M  # fix 2: the mean is sum(x) / M
    return dx, dgamma, dbeta""",
            """\
def _bn_problem(_rng, _shape):
    # A private spatial BatchNorm forward with the unbiased variance (same cache
    # layout) and the exact gradients.
    _C = _shape[1]
    _M = _shape[0] * _shape[2] * _shape[3]
    _x = 4 * _rng.standard_normal(_shape) + _rng.uniform(-10, 10)
    _gamma, _dout = _rng.standard_normal(_C), _rng.standard_normal(_shape)
    _axes, _pc = (0, 2, 3), (1, _C, 1, 1)
    _xc = _x - _x.mean(axis=_axes, keepdims=True)
    _rstd = 1.0 / ((_xc * _xc).sum(axis=_axes) / (_M - 1) + 1e-5) ** 0.5
    _xhat = _xc * _rstd.reshape(_pc)
    _cache = {"xhat": _xhat, "rstd": _rstd, "gamma": _gamma}
    _db, _dg = _dout.sum(axis=_axes), (_dout * _xhat).sum(axis=_axes)
    _dx = (_gamma * _rstd).reshape(_pc) * (
        _dout - (_db / _M).reshape(_pc) - _xhat * (_dg / (_M - 1)).reshape(_pc)
    )
    return _dout, _cache, (_dx, _dg, _db)""",
            r"""**Bug 1, `dx`, the variance path:** `/ M` differentiates the *biased* variance, but
this layer normalizes with the unbiased one, $v = \frac{1}{M-1}\sum(x-\mu)^2$, whose
derivative is $2(x-\mu)/(M-1)$. The error is of relative size $1/M$ in the variance term,
small for large maps and easily mistaken for round-off; a complex-step check on a small
problem ($M$ of a few dozen) shows a normwise error far above round-off, and with
$\varepsilon = 0$ `dx` is no longer orthogonal to $\hat x$ in each channel (here
$\sum\hat x^2 = M-1$, and the projection must remove $\hat x\,\sum\hat g\hat x/(M-1)$).

**Bug 2, `dx`, the mean path:** `/ (M - 1)` applies Bessel's factor to the mean, but
$\mu = \frac1M\sum x$ whatever the variance divides by, so $\partial\mu/\partial x_i = 1/M$.
The forward pass is invariant to adding a constant to a channel, so `dx` must sum to zero
over each channel; with this bug the sum is $-\frac{1}{M-1}\sum$ `dxc` instead, which the
sum check reveals at once (and a gradient check of `dx` fails).

`dgamma` and `dbeta` are right: they do not depend on how $\hat x$ was computed.

**Mark scheme (2 points).** 1 pt per bug: the line, what is wrong, and how a check reveals
it.""",
        ),
    ),
    Variant(
        "uncentred",
        "bug hunt in a spatial BatchNorm without centring (RMS per channel) backward",
        ex5_common(
            "spatial_bn_rms_forward",
            '''\
def spatial_bn_rms_forward(x, gamma, beta, bn_param):
    """Training-mode spatial BatchNorm without centring (PowerNorm's statistic).

    x of shape (N, C, H, W); each channel is divided by its root mean square over its
    M = N*H*W cells. Same cache as spatial_batchnorm_forward: xhat, rstd (C,), gamma.
    """
    eps = bn_param.get("eps", 1e-5)
    N, C, H, W = x.shape
    axes, per_channel = (0, 2, 3), (1, C, 1, 1)
    rstd = 1.0 / np.sqrt((x**2).mean(axis=axes) + eps)
    xhat = x * rstd.reshape(per_channel)
    out = gamma.reshape(per_channel) * xhat + beta.reshape(per_channel)
    return out, {"xhat": xhat, "rstd": rstd, "gamma": gamma}


def spatial_batchnorm_backward_buggy(dout, cache):
    """A port of the graph-style backward pass to the uncentred layer, with two bugs."""
    xhat, rstd, gamma = cache["xhat"], cache["rstd"], cache["gamma"]
    N, C, H, W = dout.shape
    M = N * H * W
    axes = (0, 2, 3)
    per_channel = lambda v: v.reshape(1, C, 1, 1)
    dbeta = dout.sum(axis=axes)
    x = xhat / per_channel(rstd)
    dgamma = (dout * x).sum(axis=axes)
    dxhat = dout * per_channel(gamma)
    dms = -0.5 * (dxhat * x).sum(axis=axes) * rstd**3
    dx = dxhat * per_channel(rstd) + 2 * x * per_channel(dms) / M
    dx = dx - per_channel(dx.mean(axis=axes))
    return dx, dgamma, dbeta''',
            r"""A colleague's layer is a spatial BatchNorm *without centring*: each channel is divided
by its root mean square over its $M = NHW$ cells, $\hat x = x/\sqrt{\tfrac1M\sum x^2 +
\varepsilon}$ (the batch statistic of PowerNorm {cite:p}`shen2020powernorm`;
`spatial_bn_rms_forward` above the function below). They ported the graph-style backward
pass of {ref}`sec-05-graph` to it; the port runs and returns arrays of the right shapes —
but two lines are wrong. Find them with the chapter's tools (gradient checks of each
output on small problems, the sum of `dx` over each channel, the orthogonality property of
{ref}`sec-05-closed` adapted to this layer), explain each bug in the answer cell
(2 points), and write `spatial_batchnorm_backward_fixed(dout, cache)` (same cache as
`spatial_bn_rms_forward`) without calling the chapter's backward passes or autograd.""",
            """\
    xhat, rstd, gamma = cache["xhat"], cache["rstd"], cache["gamma"]
    N, C, H, W = dout.shape
    M = N * H * W
    axes = (0, 2, 3)
    per_channel = lambda v: v.reshape(1, C, 1, 1)
    dbeta = dout.sum(axis=axes)
    x = xhat / per_channel(rstd)
    dgamma = (dout * xhat).sum(axis=axes)  # fix 1: xhat, not x
    dxhat = dout * per_channel(gamma)
    dms = -0.5 * (dxhat * x).sum(axis=axes) * rstd**3
    dx = dxhat * per_channel(rstd) + 2 * x * per_channel(dms) / M
    # fix 2: no mean was subtracted in the forward pass, so no mean path here
    return dx, dgamma, dbeta""",
            """\
def _bn_problem(_rng, _shape):
    # A private uncentred spatial BatchNorm forward (same cache layout) and the
    # exact gradients.
    _C = _shape[1]
    _M = _shape[0] * _shape[2] * _shape[3]
    _x = 4 * _rng.standard_normal(_shape) + _rng.uniform(-10, 10)
    _gamma, _dout = _rng.standard_normal(_C), _rng.standard_normal(_shape)
    _axes, _pc = (0, 2, 3), (1, _C, 1, 1)
    _rstd = 1.0 / ((_x * _x).mean(axis=_axes) + 1e-5) ** 0.5
    _xhat = _x * _rstd.reshape(_pc)
    _cache = {"xhat": _xhat, "rstd": _rstd, "gamma": _gamma}
    _db, _dg = _dout.sum(axis=_axes), (_dout * _xhat).sum(axis=_axes)
    _dx = (_gamma * _rstd).reshape(_pc) * (_dout - _xhat * (_dg / _M).reshape(_pc))
    return _dout, _cache, (_dx, _dg, _db)""",
            r"""**Bug 1, `dgamma`:** `dgamma = (dout * x).sum(axis=axes)` uses the raw input `x`
instead of the normalized $\hat x$ that $\gamma$ multiplies in $y = \gamma\hat x + \beta$.
The buggy value is $s_c$ times the true one in channel $c$, with $s_c$ the channel's
root mean square: for inputs whose RMS is about 1 (standardized data) the bug is nearly
invisible, which is why a test on such inputs misses it; a gradient check of `dgamma` on
inputs of another scale fails by exactly that factor per channel.

**Bug 2, `dx`, a mean path that should not be there:**
`dx = dx - per_channel(dx.mean(axis=axes))` is left over from the centred BatchNorm. This
layer subtracts no mean, so it is not invariant to a shift of a channel and `dx` need
*not* sum to zero over a channel; here the sum is zero only because of the bug. The
correct gradient is $s_c^{-1}\big(\hat g - \hat x\,\tfrac1M\sum\hat g\hat x\big)$, whose
only invariance is to the scale: with $\varepsilon = 0$ it is orthogonal to $\hat x$ in
each channel. Subtracting its mean breaks that, because $\sum\hat x \ne 0$ in a layer
that does not centre, and the complex-step check of `dx` fails by far more than
round-off. The fix deletes the line.

**Mark scheme (2 points).** 1 pt per bug: the line, what is wrong, and how a check reveals
it.""",
        ),
    ),
]

BANK = {"05-ex4": EX4, "05-ex5": EX5}
