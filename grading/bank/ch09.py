"""Variants of chapter 09's coding exercises (grading/bank/__init__.py)."""

from grading.bank import Edit, Variant

# ---------------------------------------------------------------------------------------
# Exercise 9.1: a fused residual add and LayerNorm
# ---------------------------------------------------------------------------------------

_EX1_ITEM = r"""1. Write `add_layernorm_kernel(x, res, gamma, beta, eps, h, y, mean, rstd)`, a Numba kernel over
   float32 arrays of shape $(N, D)$ that writes $\mathbf h = \mathbf x + \mathbf r$,
   $\mathbf y = \operatorname{LN}(\mathbf h)$ with $\boldsymbol\gamma$, $\boldsymbol\beta$ and
   $\epsilon$, and the per-row mean and $1/\sigma$ into the given output arrays, reading each
   row of `x` and `res` from memory once, rows in parallel. Check it against NumPy.
   (4 points: 1 for `h`, 2 for `y`, 1 for `mean` and `rstd`.)"""

_EX1_REF = "    _ref = [_h, (_h - _mu) * _rs * _g + _b, _mu[:, 0], _rs[:, 0]]"

_EX1_STATS = """\
_rng = _np.random.default_rng(903)
for _n, _d in [(6, 40), (3, 1)]:
    (_, _, _m, _r), (_, _, _m_ref, _r_ref) = _ex1_case(_rng, _n, _d)
    for _name, _a, _b in [("mean", _m, _m_ref), ("rstd", _r, _r_ref)]:
        _compare(f"{_name} ({_n}, {_d})", _a, _b, 1e-5, _np.float32)
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(913)
for _d in [1, 768, int(_rng.integers(2, 3000))]:
    (_, _, _m, _r), (_, _, _m_ref, _r_ref) = _ex1_case(
        _rng, int(_rng.integers(1, 40)), _d
    )
    for _name, _a, _b in [("mean", _m, _m_ref), ("rstd", _r, _r_ref)]:
        _compare(f"{_name} (D = {_d})", _a, _b, 1e-5, _np.float32)
### END HIDDEN TESTS"""

_EX1_ADD_RMSNORM = Variant(
    "add-rmsnorm",
    "a fused residual add and RMSNorm (no beta, no mean), h, y and 1/rms written",
    (
        Edit(
            "ae735b38",
            "### Exercise 9.1: a fused residual add and LayerNorm (6 points)",
            "### Exercise 9.1: a fused residual add and RMSNorm (6 points)",
        ),
        Edit(
            "ae735b38",
            r"the next block starts with $\operatorname{LN}(\mathbf h)$.",
            r"the next block starts with $\operatorname{RMSNorm}(\mathbf h)$"
            "\n({doc}`04-rmsnorm`), as in LLaMA-style models.",
        ),
        Edit(
            "ae735b38",
            _EX1_ITEM,
            r"""1. Write `add_rmsnorm_kernel(x, res, gamma, eps, h, y, rstd)`, a Numba kernel over
   float32 arrays of shape $(N, D)$ that writes $\mathbf h = \mathbf x + \mathbf r$,
   $\mathbf y = \boldsymbol\gamma \odot \mathbf h / \sqrt{\overline{h^2} + \epsilon}$ (RMSNorm,
   no $\boldsymbol\beta$, $\epsilon$ inside the root) and the per-row
   $1/\sqrt{\overline{h^2} + \epsilon}$ into the given output arrays, reading each row of `x`
   and `res` from memory once, rows in parallel. Check it against NumPy.
   (4 points: 1 for `h`, 2 for `y`, 1 for `rstd`.)""",
        ),
        Edit("ae735b38", "chapter's fused LayerNorm)", "chapter's fused RMSNorm)"),
        Edit(
            "09-ex1-solution",
            """\
def add_layernorm_kernel(x, res, gamma, beta, eps, h, y, mean, rstd):
    ### BEGIN SOLUTION
    n, d = x.shape
    inv_d = np.float32(1.0 / d)
    for i in prange(n):
        xi, ri, hi, yi = x[i], res[i], h[i], y[i]
        s = np.float32(0.0)
        for j in range(d):  # sweep 1 reads x and res once, writes h, sums
            hi[j] = xi[j] + ri[j]
            s += hi[j]
        m = s * inv_d
        v = np.float32(0.0)
        for j in range(d):  # sweep 2: variance of the cached h
            v += (hi[j] - m) * (hi[j] - m)
        r = np.float32(1.0) / np.sqrt(v * inv_d + eps)
        for j in range(d):  # sweep 3: write y
            yi[j] = (hi[j] - m) * r * gamma[j] + beta[j]
        mean[i], rstd[i] = m, r
    ### END SOLUTION""",
            """\
def add_rmsnorm_kernel(x, res, gamma, eps, h, y, rstd):
    ### BEGIN SOLUTION
    n, d = x.shape
    inv_d = np.float32(1.0 / d)
    for i in prange(n):
        xi, ri, hi, yi = x[i], res[i], h[i], y[i]
        s = np.float32(0.0)
        for j in range(d):  # sweep 1 reads x and res once, writes h, sums squares
            hi[j] = xi[j] + ri[j]
            s += hi[j] * hi[j]
        r = np.float32(1.0) / np.sqrt(s * inv_d + eps)
        for j in range(d):  # sweep 2, on the cached h: write y
            yi[j] = hi[j] * r * gamma[j]
        rstd[i] = r
    ### END SOLUTION""",
        ),
        Edit(
            "09-ex1-solution",
            """\
xa, ga, ba, ra = make_problem(33, 96, seed=SEEDS[1])
ha, ya = np.empty_like(xa), np.empty_like(xa)
ma, sa = np.empty(33, np.float32), np.empty(33, np.float32)
add_layernorm_kernel(xa, ra, ga, ba, np.float32(1e-5), ha, ya, ma, sa)
ref = layer_norm((xa + ra).astype(np.float64), ga, ba)""",
            """\
xa, ga, _, ra = make_problem(33, 96, seed=SEEDS[1])
ha, ya = np.empty_like(xa), np.empty_like(xa)
sa = np.empty(33, np.float32)
add_rmsnorm_kernel(xa, ra, ga, np.float32(1e-5), ha, ya, sa)
ref = rmsnorm_forward((xa + ra).astype(np.float64), ga, {"eps": 1e-5})[0]""",
        ),
        Edit(
            "09-ex1-sum",
            '    "rmsnorm_fwd_kernel",\n]',
            '    "rmsnorm_fwd_kernel",\n    "rmsnorm_forward_fused",\n'
            '    "rmsnorm_forward",\n]',
        ),
        Edit(
            "09-ex1-sum",
            """\
    _b = _rng.uniform(-0.5, 0.5, _d).astype(_np.float32)
    _eps = _np.float32(_rng.choice([1e-5, 1e-3]))
    _out = [_np.full((_n, _d), _np.nan, _np.float32) for _ in range(2)]
    _out += [_np.full(_n, _np.nan, _np.float32) for _ in range(2)]
    _check_kernel(add_layernorm_kernel, _FORBIDDEN)
    _call_without(_FORBIDDEN, add_layernorm_kernel, _x, _res, _g, _b, _eps, *_out)
    _h = (_x + _res).astype(_np.float64)
    _mu = _h.mean(axis=1, keepdims=True)
    _rs = 1.0 / (((_h - _mu) ** 2).mean(axis=1, keepdims=True) + float(_eps)) ** 0.5
"""
            + _EX1_REF,
            """\
    _eps = _np.float32(_rng.choice([1e-5, 1e-3]))
    _out = [_np.full((_n, _d), _np.nan, _np.float32) for _ in range(2)]
    _out += [_np.full(_n, _np.nan, _np.float32)]
    _check_kernel(add_rmsnorm_kernel, _FORBIDDEN)
    _call_without(_FORBIDDEN, add_rmsnorm_kernel, _x, _res, _g, _eps, *_out)
    _h = (_x + _res).astype(_np.float64)
    _rs = 1.0 / ((_h * _h).mean(axis=1, keepdims=True) + float(_eps)) ** 0.5
    _ref = [_h, _h * _rs * _g, _rs[:, 0]]""",
        ),
        Edit(
            "09-ex1-stats",
            _EX1_STATS,
            """\
_rng = _np.random.default_rng(903)
for _n, _d in [(6, 40), (3, 1)]:
    (*_, _r), (*_, _r_ref) = _ex1_case(_rng, _n, _d)
    _compare(f"rstd ({_n}, {_d})", _r, _r_ref, 1e-5, _np.float32)
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(913)
for _d in [1, 768, int(_rng.integers(2, 3000))]:
    (*_, _r), (*_, _r_ref) = _ex1_case(_rng, int(_rng.integers(1, 40)), _d)
    _compare(f"rstd (D = {_d})", _r, _r_ref, 1e-5, _np.float32)
### END HIDDEN TESTS""",
        ),
        Edit(
            "09-ex1-answer",
            r"then the LayerNorm reads $\mathbf h$",
            r"then the RMSNorm reads $\mathbf h$",
        ),
        Edit(
            "09-ex1-answer",
            "(and the LayerNorm's backward needs it",
            "(and the RMSNorm's backward needs it",
        ),
    ),
)

_EX1_ONE_PLUS_GAMMA = Variant(
    "one-plus-gamma",
    "a fused residual add and LayerNorm whose gain is 1 + gamma",
    (
        Edit(
            "ae735b38",
            r"""   $\mathbf y = \operatorname{LN}(\mathbf h)$ with $\boldsymbol\gamma$, $\boldsymbol\beta$ and
   $\epsilon$, and the per-row mean and $1/\sigma$ into the given output arrays, reading each""",
            r"""   $\mathbf y = \hat{\mathbf h} \odot (1 + \boldsymbol\gamma) + \boldsymbol\beta$, the
   LayerNorm whose gain is stored as its offset $\boldsymbol\gamma$ from one (so that
   $\boldsymbol\gamma = \mathbf 0$ is the identity gain), with $\hat{\mathbf h}$ normalized as
   in {doc}`02-layernorm` ($\epsilon$ inside the root), and the per-row mean and $1/\sigma$
   into the given output arrays, reading each""",
        ),
        Edit(
            "09-ex1-solution",
            "            yi[j] = (hi[j] - m) * r * gamma[j] + beta[j]",
            "            yi[j] = (hi[j] - m) * r * (np.float32(1.0) + gamma[j]) + beta[j]",
        ),
        Edit(
            "09-ex1-solution",
            "ref = layer_norm((xa + ra).astype(np.float64), ga, ba)",
            "ref = layer_norm((xa + ra).astype(np.float64), 1 + ga.astype(np.float64), ba)",
        ),
        Edit(
            "09-ex1-sum",
            _EX1_REF,
            "    _g1 = 1.0 + _g.astype(_np.float64)  # the gain\n"
            "    _ref = [_h, (_h - _mu) * _rs * _g1 + _b, _mu[:, 0], _rs[:, 0]]",
        ),
    ),
)

_EX1_EPS_OUTSIDE = Variant(
    "eps-outside",
    "a fused residual add and LayerNorm with epsilon added to sigma, outside the root",
    (
        Edit(
            "ae735b38",
            r"""   $\mathbf y = \operatorname{LN}(\mathbf h)$ with $\boldsymbol\gamma$, $\boldsymbol\beta$ and
   $\epsilon$, and the per-row mean and $1/\sigma$ into the given output arrays, reading each""",
            r"""   $\mathbf y = \boldsymbol\gamma \odot (\mathbf h - \mu)/(\sigma + \epsilon) + \boldsymbol\beta$,
   a LayerNorm with $\epsilon$ added to the standard deviation $\sigma$ (population, $1/D$),
   outside the root, and the per-row mean $\mu$ and $1/(\sigma + \epsilon)$ into the given
   output arrays, reading each""",
        ),
        Edit(
            "09-ex1-solution",
            "        r = np.float32(1.0) / np.sqrt(v * inv_d + eps)",
            "        r = np.float32(1.0) / (np.sqrt(v * inv_d) + eps)  # eps outside the root",
        ),
        Edit(
            "09-ex1-solution",
            "ref = layer_norm((xa + ra).astype(np.float64), ga, ba)",
            """\
hd = (xa + ra).astype(np.float64)
hd -= hd.mean(axis=1, keepdims=True)
ref = hd / (np.sqrt((hd * hd).mean(axis=1, keepdims=True)) + 1e-5) * ga + ba""",
        ),
        Edit(
            "09-ex1-sum",
            "    _eps = _np.float32(_rng.choice([1e-5, 1e-3]))",
            "    _eps = _np.float32(_rng.choice([1e-3, 1e-2]))",
        ),
        Edit(
            "09-ex1-sum",
            "    _rs = 1.0 / (((_h - _mu) ** 2).mean(axis=1, keepdims=True) + float(_eps)) ** 0.5",
            "    _sd = (((_h - _mu) ** 2).mean(axis=1, keepdims=True)) ** 0.5\n"
            "    _rs = 1.0 / (_sd + float(_eps))",
        ),
    ),
)

# ---------------------------------------------------------------------------------------
# Exercise 9.2: bug hunt, a one-sweep forward
# ---------------------------------------------------------------------------------------

_EX2_TASK = r"""### Exercise 9.2: bug hunt, a one-sweep forward (5 points)

```{admonition} Task
A colleague made the forward kernel "faster" by computing the mean and the variance in a single
sweep. Their check, on standard normal rows, passes (the cell below).

1. In the answer cell: name the bug, explain why the check cannot see it, and describe inputs
   that expose it; demonstrate them in the solution cell. (2 points)
2. Write `layernorm_fwd_fixed_kernel` with the same signature, float32 data, reading each row
   from memory once. The tests use rows whose mean is up to a few thousand times their standard
   deviation. (3 points: 2 for `y`, 1 for `mean` and `rstd`.)
```"""

_EX2_BUGGY_KERNEL = """\
@njit(parallel=True, fastmath=FAST, cache=False)
def layernorm_fwd_onesweep_kernel(x, gamma, beta, eps, y, mean, rstd):
    n, d = x.shape
    inv_d = np.float32(1.0 / d)
    for i in prange(n):
        xi, yi = x[i], y[i]
        s = np.float32(0.0)
        s2 = np.float32(0.0)
        for j in range(d):  # one sweep: sum and sum of squares
            s += xi[j]
            s2 += xi[j] * xi[j]
        m = s * inv_d
        r = np.float32(1.0) / np.sqrt(s2 * inv_d - m * m + eps)
        for j in range(d):
            yi[j] = (xi[j] - m) * r * gamma[j] + beta[j]
        mean[i], rstd[i] = m, r"""

_EX2_BUGGY_CHECK = """\
xc, gc, bc, _ = make_problem(64, 1024, seed=SEEDS[2])
err = check_forward(layernorm_fwd_onesweep_kernel, xc, gc, bc)"""

_EX2_CHECK_FN = """\
def check_forward(kernel, x, gamma, beta):
    # Normwise error of kernel's y against chapter 2's layer_norm in float64.
    y = np.empty_like(x)
    stats = np.empty(len(x), np.float32), np.empty(len(x), np.float32)
    kernel(x, gamma, beta, np.float32(1e-5), y, *stats)
    return normwise_error(y, layer_norm(x.astype(np.float64), gamma, beta))"""

_EX2_ANSWER = r"""**The bug.** The variance is computed as $\overline{x^2} - \bar x^{\,2}$ in float32. When the
mean is large compared with the spread, both terms are close to $\mu^2$ and their difference,
$\sigma^2$, is a small remainder of two large, rounded numbers: catastrophic cancellation
({doc}`02-layernorm`). Each float32 term carries an error of about $2^{-24}\mu^2$ per operation,
so the relative error of the variance grows like $2^{-24}\mu^2/\sigma^2$ (times a factor from
the summation): per cents at $\mu = 1000\,\sigma$, and from about $\mu = 10^4\sigma$ on the
computed variance is mostly rounding error and can even be negative (then $1/\sigma$ is NaN or
huge).

**Why the check misses it.** Standard normal rows have $|\mu|\ll\sigma$, where the formula is
harmless. Rows with, say, $\mu = 1000\,\sigma$ (a feature with a large constant offset, common
after ReLU layers or in residual streams) expose it: the solution cell shows the error of
$\mathbf y$ growing with the square of the offset, a thousand times the fixed kernel's at
$\mu = 1000\,\sigma$.

**Mark scheme (2 points).** 1 pt: the one-sweep formula $E[x^2]-E[x]^2$ cancels
catastrophically in float32 when $|\mu|\gg\sigma$. 1 pt: the check uses centred data; inputs
with a large offset relative to the spread expose it (with the demonstration)."""

_EX2_SOLUTION = """\
@njit(parallel=True, fastmath=FAST, cache=False)
def layernorm_fwd_fixed_kernel(x, gamma, beta, eps, y, mean, rstd):
    ### BEGIN SOLUTION
    n, d = x.shape
    inv_d = np.float32(1.0 / d)
    for i in prange(n):
        xi, yi = x[i], y[i]
        s = np.float32(0.0)
        for j in range(d):
            s += xi[j]
        m = s * inv_d
        v = np.float32(0.0)
        for j in range(d):  # the second sweep runs on the cached row
            v += (xi[j] - m) * (xi[j] - m)
        r = np.float32(1.0) / np.sqrt(v * inv_d + eps)
        for j in range(d):
            yi[j] = (xi[j] - m) * r * gamma[j] + beta[j]
        mean[i], rstd[i] = m, r
    ### END SOLUTION


### BEGIN SOLUTION
for offset in [0.0, 1e2, 1e3]:
    xo = xc + np.float32(offset)
    bad = check_forward(layernorm_fwd_onesweep_kernel, xo, gc, bc)
    good = check_forward(layernorm_fwd_fixed_kernel, xo, gc, bc)
    print(f"offset {offset:6.0f}: one sweep {bad:.0e}, fixed {good:.0e}")
### END SOLUTION"""

_EX2_OUTPUT_TESTS = """\
def _ex2_case(_rng, _n, _d, _offset):
    _x = _rng.standard_normal((_n, _d)) * _rng.uniform(0.5, 2)
    _x = (_x + _offset * _rng.choice([-1.0, 1.0], (_n, 1))).astype(_np.float32)
    _g = _rng.uniform(-1.5, 1.5, _d).astype(_np.float32)
    _b = _rng.uniform(-0.5, 0.5, _d).astype(_np.float32)
    _out = [_np.full((_n, _d), _np.nan, _np.float32)]
    _out += [_np.full(_n, _np.nan, _np.float32) for _ in range(2)]
    _check_kernel(layernorm_fwd_fixed_kernel, _FORBIDDEN)
    _call_without(
        _FORBIDDEN, layernorm_fwd_fixed_kernel, _x, _g, _b, _np.float32(1e-5), *_out
    )
    _xd = _x.astype(_np.float64)
    _mu = _xd.mean(axis=1, keepdims=True)
    _rs = 1.0 / (((_xd - _mu) ** 2).mean(axis=1, keepdims=True) + 1e-5) ** 0.5
    return _out, [(_xd - _mu) * _rs * _g + _b, _mu[:, 0], _rs[:, 0]]


_rng = _np.random.default_rng(904)
for _n, _d, _offset in [(8, 64, 0.0), (8, 1024, 1000.0)]:
    (_y, *_), (_y_ref, *_) = _ex2_case(_rng, _n, _d, _offset)
    _compare(f"y, offset {_offset:g}", _y, _y_ref, 1.5e-6 * (1 + _offset), _np.float32)
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(914)
for _offset in [0.0, 300.0, 3000.0, float(_rng.uniform(500, 3000))]:
    for _d in [256, 1024, int(_rng.integers(100, 4096))]:
        (_y, *_), (_y_ref, *_) = _ex2_case(_rng, int(_rng.integers(1, 20)), _d, _offset)
        _tol = 1.5e-6 * (1 + _offset)
        _compare(f"y, offset {_offset:g}, D = {_d}", _y, _y_ref, _tol, _np.float32)
### END HIDDEN TESTS"""

_EX2_STATS_TESTS = """\
_rng = _np.random.default_rng(905)
for _n, _d, _offset in [(8, 64, 0.0), (8, 1024, 1000.0)]:
    (_, _m, _r), (_, _m_ref, _r_ref) = _ex2_case(_rng, _n, _d, _offset)
    for _name, _a, _b in [("mean", _m, _m_ref), ("rstd", _r, _r_ref)]:
        _tol = 1.5e-6 * (1 + _offset)
        _compare(f"{_name}, offset {_offset:g}", _a, _b, _tol, _np.float32)
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(915)
for _offset in [0.0, 3000.0, float(_rng.uniform(500, 3000))]:
    _d = int(_rng.integers(100, 4096))
    (_, _m, _r), (_, _m_ref, _r_ref) = _ex2_case(
        _rng, int(_rng.integers(1, 20)), _d, _offset
    )
    for _name, _a, _b in [("mean", _m, _m_ref), ("rstd", _r, _r_ref)]:
        _tol = 1.5e-6 * (1 + _offset)
        _compare(f"{_name}, offset {_offset:g}", _a, _b, _tol, _np.float32)
### END HIDDEN TESTS"""


def _bug_hunt(name, summary, task, kernel, check_fn, check, answer, solution, tests):
    """A variant of exercise 9.2: every cell that states, plants, diagnoses, fixes and
    tests the bug, rewritten. `tests`: (output tests, stats tests, forbidden extra)."""
    output, stats, forbidden = tests
    edits = [
        Edit("8929cfd3", _EX2_TASK, task),
        Edit("09-ex2-buggy-readonly", _EX2_BUGGY_KERNEL, kernel),
        Edit("09-ex2-buggy-readonly", _EX2_CHECK_FN, check_fn),
        Edit("09-ex2-buggy-readonly", _EX2_BUGGY_CHECK, check),
        Edit("09-ex2-answer", _EX2_ANSWER, answer),
        Edit("09-ex2-solution", _EX2_SOLUTION, solution),
        Edit("09-ex2-output", _EX2_OUTPUT_TESTS, output),
        Edit("09-ex2-stats", _EX2_STATS_TESTS, stats),
    ]
    if forbidden:
        edits.append(
            Edit(
                "09-ex2-output",
                '    "rmsnorm_fwd_kernel",\n]',
                '    "rmsnorm_fwd_kernel",\n'
                + "".join(f'    "{f}",\n' for f in forbidden)
                + "]",
            )
        )
    return Variant(name, summary, tuple(edits))


_EX2_RMS_TAIL = _bug_hunt(
    "rms-unrolled-tail",
    "bug hunt: an RMSNorm forward unrolled by four drops the last D mod 4 squares",
    r"""### Exercise 9.2: bug hunt, an unrolled RMSNorm forward (5 points)

```{admonition} Task
A colleague made the RMSNorm forward kernel "faster" by unrolling its sum of squares by four,
with four independent partial sums. Their check, on rows of $D = 1024$, passes (the cell
below).

1. In the answer cell: name the bug, explain why the check cannot see it, and describe inputs
   that expose it; demonstrate them in the solution cell. (2 points)
2. Write `rmsnorm_fwd_fixed_kernel(x, gamma, eps, y, rstd)`, the RMSNorm forward of
   {doc}`04-rmsnorm` ($\epsilon$ inside the root) with the colleague's signature, float32
   data, reading each row from memory once. The tests use rows of every length from 1 to a
   few thousand. (3 points: 2 for `y`, 1 for `rstd`.)
```""",
    """\
@njit(parallel=True, fastmath=FAST, cache=False)
def rmsnorm_fwd_unrolled_kernel(x, gamma, eps, y, rstd):
    n, d = x.shape
    inv_d = np.float32(1.0 / d)
    for i in prange(n):
        xi, yi = x[i], y[i]
        s0 = s1 = s2 = s3 = np.float32(0.0)
        for j in range(0, d - 3, 4):  # four independent sums, four numbers a step
            s0 += xi[j] * xi[j]
            s1 += xi[j + 1] * xi[j + 1]
            s2 += xi[j + 2] * xi[j + 2]
            s3 += xi[j + 3] * xi[j + 3]
        r = np.float32(1.0) / np.sqrt((s0 + s1 + s2 + s3) * inv_d + eps)
        for j in range(d):
            yi[j] = xi[j] * r * gamma[j]
        rstd[i] = r""",
    """\
def check_forward(kernel, x, gamma):
    # Normwise error of kernel's y against chapter 4's rmsnorm_forward in float64.
    y = np.empty_like(x)
    kernel(x, gamma, np.float32(1e-5), y, np.empty(len(x), np.float32))
    ref = rmsnorm_forward(x.astype(np.float64), gamma, {"eps": 1e-5})[0]
    return normwise_error(y, ref)""",
    """\
xc, gc, _, _ = make_problem(64, 1024, seed=SEEDS[2])
err = check_forward(rmsnorm_fwd_unrolled_kernel, xc, gc)""",
    r"""**The bug.** The unrolled loop, `range(0, d - 3, 4)`, stops after the last full group of
four: when $D$ is not a multiple of 4 the squares of the last $D \bmod 4$ numbers of the row
are never added (the remainder loop is missing). The mean square comes out too small by their
share, so $1/\operatorname{rms}$ and every output of the row come out too large by about
half that share: some $10^{-3}$ at $D = 1023$, more the shorter the row; for $D < 4$ nothing
is summed at all and the kernel returns $1/\sqrt\epsilon$ and $\mathbf y$ hundreds of times too
large.

**Why the check misses it.** The check uses $D = 1024$, a multiple of 4, where the groups of
four cover the whole row; so do the widths of most models (768, 1024, 4096). Any row length
that is not a multiple of 4 exposes it: the solution cell shows the error at $D = 1024$, $1023$
and $3$, growing with the share of the row that is dropped.

**Mark scheme (2 points).** 1 pt: the unrolled sum drops the last $D \bmod 4$ squares (no
remainder loop), with its effect on $1/\operatorname{rms}$ and $\mathbf y$. 1 pt: the check's
$D$ is a multiple of 4; row lengths that are not expose it (with the demonstration).""",
    """\
@njit(parallel=True, fastmath=FAST, cache=False)
def rmsnorm_fwd_fixed_kernel(x, gamma, eps, y, rstd):
    ### BEGIN SOLUTION
    n, d = x.shape
    inv_d = np.float32(1.0 / d)
    for i in prange(n):
        xi, yi = x[i], y[i]
        s0 = s1 = s2 = s3 = np.float32(0.0)
        for j in range(0, d - 3, 4):
            s0 += xi[j] * xi[j]
            s1 += xi[j + 1] * xi[j + 1]
            s2 += xi[j + 2] * xi[j + 2]
            s3 += xi[j + 3] * xi[j + 3]
        for j in range(d - d % 4, d):  # the remainder: the last d % 4 numbers
            s0 += xi[j] * xi[j]
        r = np.float32(1.0) / np.sqrt((s0 + s1 + s2 + s3) * inv_d + eps)
        for j in range(d):  # the second sweep runs on the cached row
            yi[j] = xi[j] * r * gamma[j]
        rstd[i] = r
    ### END SOLUTION


### BEGIN SOLUTION
for d in [1024, 1023, 3]:
    xd, gd = np.ascontiguousarray(xc[:, :d]), np.ascontiguousarray(gc[:d])
    bad = check_forward(rmsnorm_fwd_unrolled_kernel, xd, gd)
    good = check_forward(rmsnorm_fwd_fixed_kernel, xd, gd)
    print(f"D = {d:4d}: unrolled {bad:.0e}, fixed {good:.0e}")
### END SOLUTION""",
    (
        """\
def _ex2_case(_rng, _n, _d):
    _x = _rng.standard_normal((_n, _d)) * _rng.uniform(0.5, 2)
    _x = (_x + _rng.uniform(-1, 1, (_n, 1))).astype(_np.float32)
    _g = _rng.uniform(-1.5, 1.5, _d).astype(_np.float32)
    _out = [_np.full((_n, _d), _np.nan, _np.float32)]
    _out += [_np.full(_n, _np.nan, _np.float32)]
    _check_kernel(rmsnorm_fwd_fixed_kernel, _FORBIDDEN)
    _call_without(
        _FORBIDDEN, rmsnorm_fwd_fixed_kernel, _x, _g, _np.float32(1e-5), *_out
    )
    _xd = _x.astype(_np.float64)
    _rs = 1.0 / ((_xd * _xd).mean(axis=1, keepdims=True) + 1e-5) ** 0.5
    return _out, [_xd * _rs * _g, _rs[:, 0]]


_rng = _np.random.default_rng(904)
for _n, _d in [(8, 64), (8, 1023), (4, 3)]:
    (_y, _), (_y_ref, _) = _ex2_case(_rng, _n, _d)
    _compare(f"y, D = {_d}", _y, _y_ref, 1.5e-6, _np.float32)
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(914)
for _d in [1, 2, 3, 5, 6, 7, 1021, 1022, 4095, int(_rng.integers(100, 4096))]:
    (_y, _), (_y_ref, _) = _ex2_case(_rng, int(_rng.integers(1, 20)), _d)
    _compare(f"y, D = {_d}", _y, _y_ref, 1.5e-6, _np.float32)
### END HIDDEN TESTS""",
        """\
_rng = _np.random.default_rng(905)
for _n, _d in [(8, 64), (8, 1023)]:
    (_, _r), (_, _r_ref) = _ex2_case(_rng, _n, _d)
    _compare(f"rstd, D = {_d}", _r, _r_ref, 1.5e-6, _np.float32)
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(915)
for _d in [1, 3, 6, 2049, int(_rng.integers(100, 4096))]:
    (_, _r), (_, _r_ref) = _ex2_case(_rng, int(_rng.integers(1, 20)), _d)
    _compare(f"rstd, D = {_d}", _r, _r_ref, 1.5e-6, _np.float32)
### END HIDDEN TESTS""",
        ["rmsnorm_forward_fused", "rmsnorm_forward"],
    ),
)

_EX2_XHAT_EPS = _bug_hunt(
    "xhat-eps-outside",
    "bug hunt: a forward that caches xhat adds epsilon to sigma, outside the root",
    r"""### Exercise 9.2: bug hunt, a forward that caches $\hat{\mathbf x}$ (5 points)

```{admonition} Task
A colleague wrote the forward kernel of the cache strategy ({ref}`sec-09-design`), which
writes $\hat{\mathbf x}$ for the backward and saves only $1/\sigma$, and "simplified" how it
computes $1/\sigma$. Their check, on rows of unit spread, passes (the cell below).

1. In the answer cell: name the bug, explain why the check cannot see it, and describe inputs
   that expose it; demonstrate them in the solution cell. (2 points)
2. Write `layernorm_fwd_xhat_fixed_kernel(x, gamma, beta, eps, y, xhat, rstd)`, the
   LayerNorm of {doc}`02-layernorm` ($\epsilon$ added to the variance, inside the root) with
   the colleague's signature, float32 data, reading each row from memory once. The tests use
   rows whose standard deviation runs from $10^{-4}$ to 2. (3 points: 2 for `y`, 1 for `xhat`
   and `rstd`.)
```""",
    """\
@njit(parallel=True, fastmath=FAST, cache=False)
def layernorm_fwd_xhat_eps_kernel(x, gamma, beta, eps, y, xhat, rstd):
    n, d = x.shape
    inv_d = np.float32(1.0 / d)
    for i in prange(n):
        xi, yi, hi = x[i], y[i], xhat[i]
        s = np.float32(0.0)
        for j in range(d):
            s += xi[j]
        m = s * inv_d
        v = np.float32(0.0)
        for j in range(d):
            v += (xi[j] - m) * (xi[j] - m)
        r = np.float32(1.0) / (np.sqrt(v * inv_d) + eps)
        for j in range(d):
            hi[j] = (xi[j] - m) * r
            yi[j] = hi[j] * gamma[j] + beta[j]
        rstd[i] = r""",
    """\
def check_forward(kernel, x, gamma, beta):
    # Normwise error of kernel's y against chapter 2's layer_norm in float64.
    y, xhat = np.empty_like(x), np.empty_like(x)
    kernel(x, gamma, beta, np.float32(1e-5), y, xhat, np.empty(len(x), np.float32))
    return normwise_error(y, layer_norm(x.astype(np.float64), gamma, beta))""",
    """\
xc, gc, bc, _ = make_problem(64, 1024, seed=SEEDS[2])
err = check_forward(layernorm_fwd_xhat_eps_kernel, xc, gc, bc)""",
    r"""**The bug.** The kernel computes $1/(\sigma + \epsilon)$ where LayerNorm asks for
$1/\sqrt{\sigma^2 + \epsilon}$: $\epsilon$ is added to the standard deviation, outside the
root. For $\sigma \gg \sqrt\epsilon$ both are close to $1/\sigma$; their relative difference
is about $\epsilon/\sigma - \epsilon/(2\sigma^2)$, $5\cdot10^{-6}$ at $\sigma = 1$ and
$\epsilon = 10^{-5}$. Near and below $\sqrt\epsilon \approx 3\cdot10^{-3}$ they part: at
$\sigma = 10^{-3}$ the kernel divides by $1.01\cdot10^{-3}$ instead of $3.3\cdot10^{-3}$ (outputs
three times too large), and a constant row gets $1/\epsilon = 10^5$ instead of
$1/\sqrt\epsilon \approx 316$. $\hat{\mathbf x}$ and `rstd`, which the backward uses, are off
by the same factor.

**Why the check misses it.** Its rows have $\sigma \approx 1$, where the two forms differ by a
few parts in a million, below the check's threshold. Rows with a small spread expose it (a
feature that barely varies, inputs in small units, activations that an earlier layer scaled
down): the solution cell shows the error growing as the spread falls from 1 to $10^{-3}$.

**Mark scheme (2 points).** 1 pt: $\epsilon$ is added to $\sigma$ instead of $\sigma^2$ (outside
the root), with its effect on $\mathbf y$, $\hat{\mathbf x}$ and `rstd`. 1 pt: the check's rows
have $\sigma \gg \sqrt\epsilon$; rows with $\sigma$ near or below $\sqrt\epsilon$ expose it
(with the demonstration).""",
    """\
@njit(parallel=True, fastmath=FAST, cache=False)
def layernorm_fwd_xhat_fixed_kernel(x, gamma, beta, eps, y, xhat, rstd):
    ### BEGIN SOLUTION
    n, d = x.shape
    inv_d = np.float32(1.0 / d)
    for i in prange(n):
        xi, yi, hi = x[i], y[i], xhat[i]
        s = np.float32(0.0)
        for j in range(d):
            s += xi[j]
        m = s * inv_d
        v = np.float32(0.0)
        for j in range(d):  # the second sweep runs on the cached row
            v += (xi[j] - m) * (xi[j] - m)
        r = np.float32(1.0) / np.sqrt(v * inv_d + eps)  # eps inside the root
        for j in range(d):
            hi[j] = (xi[j] - m) * r
            yi[j] = hi[j] * gamma[j] + beta[j]
        rstd[i] = r
    ### END SOLUTION


### BEGIN SOLUTION
for scale in [1.0, 1e-2, 1e-3]:
    xs = xc * np.float32(scale)
    bad = check_forward(layernorm_fwd_xhat_eps_kernel, xs, gc, bc)
    good = check_forward(layernorm_fwd_xhat_fixed_kernel, xs, gc, bc)
    print(f"spread {scale:5.0e}: eps outside {bad:.0e}, inside {good:.0e}")
### END SOLUTION""",
    (
        """\
def _ex2_case(_rng, _n, _d):
    # Rows of standard deviation 1e-4 to 2, each with a mean of at most its spread.
    _s = 10.0 ** _rng.uniform(-4, 0.3, (_n, 1))
    _x = _rng.standard_normal((_n, _d)) + _rng.uniform(-1, 1, (_n, 1))
    _x = (_x * _s).astype(_np.float32)
    _g = _rng.uniform(-1.5, 1.5, _d).astype(_np.float32)
    _b = _rng.uniform(-0.5, 0.5, _d).astype(_np.float32)
    _out = [_np.full((_n, _d), _np.nan, _np.float32) for _ in range(2)]
    _out += [_np.full(_n, _np.nan, _np.float32)]
    _kernel = layernorm_fwd_xhat_fixed_kernel
    _check_kernel(_kernel, _FORBIDDEN)
    _call_without(_FORBIDDEN, _kernel, _x, _g, _b, _np.float32(1e-5), *_out)
    _xd = _x.astype(_np.float64)
    _xd = _xd - _xd.mean(axis=1, keepdims=True)
    _rs = 1.0 / ((_xd * _xd).mean(axis=1, keepdims=True) + 1e-5) ** 0.5
    return _out, [_xd * _rs * _g + _b, _xd * _rs, _rs[:, 0]]


_rng = _np.random.default_rng(904)
for _n, _d in [(8, 64), (8, 1024)]:
    (_y, *_), (_y_ref, *_) = _ex2_case(_rng, _n, _d)
    _compare(f"y, D = {_d}", _y, _y_ref, 1.5e-6, _np.float32)
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(914)
for _d in [1, 7, 256, 1024, int(_rng.integers(100, 4096))]:
    (_y, *_), (_y_ref, *_) = _ex2_case(_rng, int(_rng.integers(4, 20)), _d)
    _compare(f"y, D = {_d}", _y, _y_ref, 1.5e-6, _np.float32)
### END HIDDEN TESTS""",
        """\
_rng = _np.random.default_rng(905)
for _n, _d in [(8, 64), (8, 1024)]:
    (_, _h, _r), (_, _h_ref, _r_ref) = _ex2_case(_rng, _n, _d)
    for _name, _a, _b in [("xhat", _h, _h_ref), ("rstd", _r, _r_ref)]:
        _compare(f"{_name}, D = {_d}", _a, _b, 1.5e-6, _np.float32)
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(915)
for _ in range(3):
    _d = int(_rng.integers(100, 4096))
    (_, _h, _r), (_, _h_ref, _r_ref) = _ex2_case(_rng, int(_rng.integers(4, 20)), _d)
    for _name, _a, _b in [("xhat", _h, _h_ref), ("rstd", _r, _r_ref)]:
        _compare(f"{_name}, D = {_d}", _a, _b, 1.5e-6, _np.float32)
### END HIDDEN TESTS""",
        [],
    ),
)

_EX2_STD_SAVED = _bug_hunt(
    "gain-std-saved",
    "bug hunt: a (1 + gamma) LayerNorm forward saves sigma where the backward wants 1/sigma",
    r"""### Exercise 9.2: bug hunt, the saved statistics (5 points)

```{admonition} Task
A colleague wrote the forward kernel of a LayerNorm whose gain is $1 + \boldsymbol\gamma$
($\boldsymbol\gamma$ is stored as its offset from one, so that $\boldsymbol\gamma = \mathbf 0$
is the identity gain): $\mathbf y = \hat{\mathbf x} \odot (1 + \boldsymbol\gamma) +
\boldsymbol\beta$. It divides by $\sigma$ "for accuracy" instead of multiplying by $1/\sigma$.
Their check, which compares $\mathbf y$ with a float64 reference, passes (the cell below).

1. In the answer cell: name the bug, explain why the check cannot see it, and describe a check
   and inputs that expose it; demonstrate them in the solution cell. (2 points)
2. Write `layernorm_fwd_fixed_kernel` with the same signature (the same layer, the gain
   $1 + \boldsymbol\gamma$), float32 data, reading each row from memory once, saving the mean
   and $1/\sigma$ that the chapter's backward kernels read. The tests use rows whose mean is up
   to a few thousand times their standard deviation. (3 points: 2 for `y`, 1 for `mean` and
   `rstd`.)
```""",
    """\
@njit(parallel=True, fastmath=FAST, cache=False)
def layernorm_fwd_divide_kernel(x, gamma, beta, eps, y, mean, rstd):
    n, d = x.shape
    inv_d = np.float32(1.0 / d)
    for i in prange(n):
        xi, yi = x[i], y[i]
        s = np.float32(0.0)
        for j in range(d):
            s += xi[j]
        m = s * inv_d
        v = np.float32(0.0)
        for j in range(d):
            v += (xi[j] - m) * (xi[j] - m)
        sd = np.sqrt(v * inv_d + eps)
        for j in range(d):  # divide by sigma: the gain is 1 + gamma
            yi[j] = (xi[j] - m) / sd * (np.float32(1.0) + gamma[j]) + beta[j]
        mean[i], rstd[i] = m, sd""",
    """\
def check_forward(kernel, x, gamma, beta):
    # Normwise error of kernel's y against chapter 2's layer_norm (gain 1 + gamma).
    y = np.empty_like(x)
    stats = np.empty(len(x), np.float32), np.empty(len(x), np.float32)
    kernel(x, gamma, beta, np.float32(1e-5), y, *stats)
    gain = 1 + gamma.astype(np.float64)
    return normwise_error(y, layer_norm(x.astype(np.float64), gain, beta))""",
    """\
xc, gc, bc, _ = make_problem(64, 1024, seed=SEEDS[2])
err = check_forward(layernorm_fwd_divide_kernel, xc, gc, bc)""",
    r"""**The bug.** The kernel saves $\sigma = \sqrt{\operatorname{var} + \epsilon}$ in `rstd`,
where the backward kernels ({ref}`sec-09-fused`) read $1/\sigma$ and multiply by it:
$\partial\mathbf x$ would come out $\sigma^2$ times too large on every row (a hundred times at
$\sigma = 10$, a hundredth at $\sigma = 0.1$), and $\partial\boldsymbol\gamma$, which uses
$\hat{\mathbf x} = (\mathbf x - \mu)\cdot$`rstd`, wrong as well. $\mathbf y$ itself is right:
the kernel divides by $\sigma$, so the name `rstd` and the stored value part ways.

**Why the check misses it.** It compares only $\mathbf y$, and never looks at the saved
statistics; on standard normal rows $\sigma \approx 1$, where even a loose look at `rstd`
would find it nearly right ($\sigma \approx 1/\sigma$). A check of `rstd` against
$1/\sqrt{\operatorname{var} + \epsilon}$ computed in float64 (or of the backward's
$\partial\mathbf x$ against autograd), on rows whose spread is not 1 (say $\sigma = 0.1$ or
10), exposes it: the solution cell shows `rstd` off by a factor $\sigma^2$.

**Mark scheme (2 points).** 1 pt: `rstd` holds $\sigma$, not $1/\sigma$, and what that does to
the backward. 1 pt: the check compares only $\mathbf y$ (and its rows have $\sigma \approx 1$);
a check of the saved statistics on rows with $\sigma \ne 1$ exposes it (with the
demonstration).""",
    """\
@njit(parallel=True, fastmath=FAST, cache=False)
def layernorm_fwd_fixed_kernel(x, gamma, beta, eps, y, mean, rstd):
    ### BEGIN SOLUTION
    n, d = x.shape
    inv_d = np.float32(1.0 / d)
    for i in prange(n):
        xi, yi = x[i], y[i]
        s = np.float32(0.0)
        for j in range(d):
            s += xi[j]
        m = s * inv_d
        v = np.float32(0.0)
        for j in range(d):  # the second sweep runs on the cached row
            v += (xi[j] - m) * (xi[j] - m)
        r = np.float32(1.0) / np.sqrt(v * inv_d + eps)
        for j in range(d):
            yi[j] = (xi[j] - m) * r * (np.float32(1.0) + gamma[j]) + beta[j]
        mean[i], rstd[i] = m, r  # 1 / sigma, as the backward reads it
    ### END SOLUTION


### BEGIN SOLUTION
for scale in [0.1, 1.0, 10.0]:
    xs = xc * np.float32(scale)
    xd = xs.astype(np.float64)
    want = 1 / np.sqrt(xd.var(axis=1) + 1e-5)
    for kernel in [layernorm_fwd_divide_kernel, layernorm_fwd_fixed_kernel]:
        y, m, r = np.empty_like(xs), np.empty(64, np.float32), np.empty(64, np.float32)
        kernel(xs, gc, bc, np.float32(1e-5), y, m, r)
        print(
            f"spread {scale:4g}, {kernel.__name__}: y error "
            f"{check_forward(kernel, xs, gc, bc):.0e}, rstd error "
            f"{normwise_error(r, want):.0e}"
        )
### END SOLUTION""",
    (
        _EX2_OUTPUT_TESTS.replace(
            "    return _out, [(_xd - _mu) * _rs * _g + _b, _mu[:, 0], _rs[:, 0]]",
            "    _g1 = 1.0 + _g.astype(_np.float64)  # the gain\n"
            "    return _out, [(_xd - _mu) * _rs * _g1 + _b, _mu[:, 0], _rs[:, 0]]",
        ),
        _EX2_STATS_TESTS,
        [],
    ),
)

# ---------------------------------------------------------------------------------------
# Exercise 9.3: the bytes of a training step
# ---------------------------------------------------------------------------------------

_EX3_TESTS = """\
_a = layernorm_step_bytes(1024, 768, 1, 4)
assert type(_a) is int, f"an int expected, got {type(_a).__name__}"
assert layernorm_step_bytes(1024, 768, 25, 4) == 25 * _a, (
    "proportional to n_norms expected"
)
_c = layernorm_step_bytes(1024, 768, 1, 4, "cache")
assert _c > _a, "caching xhat writes one more activation array"
assert layernorm_step_bytes(1024, 768, 1, 2) < _a, (
    "fewer bytes with 2-byte numbers expected"
)
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(916)
for _ in range(20):
    _t, _d, _k = (int(_v) for _v in _rng.integers(1, 5000, 3))
    _b = int(_rng.choice([2, 4, 8]))
    _act, _par = _t * _d * _b, _d * _b
    _want = {
        "recompute": _k * (5 * _act + 5 * _par + 16 * _t),
        "cache": _k * (6 * _act + 5 * _par + 8 * _t),
    }
    for _s, _w in _want.items():
        _got = layernorm_step_bytes(_t, _d, _k, _b, _s)"""

_EX3_SOLUTION_BODY = """\
    act, par = tokens * d * itemsize, d * itemsize
    if strategy == "recompute":
        forward = 2 * act + 2 * par + 8 * tokens  # x, gamma, beta in; y, mean, rstd out
        backward = (
            3 * act + 3 * par + 8 * tokens
        )  # x, dy, gamma, mean, rstd; dx, dg, db
    else:
        forward = 3 * act + 2 * par + 4 * tokens  # ... y, xhat, rstd out
        backward = 3 * act + 3 * par + 4 * tokens  # xhat, dy, gamma, rstd; dx, dg, db"""

_EX3_RMSNORM = Variant(
    "rmsnorm",
    "the least bytes of the RMSNorms of a training step (gamma only, 1/rms saved)",
    (
        Edit(
            "289a2565",
            "1. Write `layernorm_step_bytes(tokens, d, n_norms, itemsize, strategy)`: the least "
            "number of\n   bytes that the forward and backward passes of `n_norms` LayerNorms "
            "move in one training step,",
            "1. Write `rmsnorm_step_bytes(tokens, d, n_norms, itemsize, strategy)`: the least "
            "number of\n   bytes that the forward and backward passes of `n_norms` RMSNorms"
            "\n   ({doc}`04-rmsnorm`) move in one training step,",
        ),
        Edit(
            "289a2565",
            r"""   ($\boldsymbol\gamma$, $\boldsymbol\beta$ and their gradients) take `itemsize` bytes per
   number; per-row statistics are float32 (4 bytes). With `strategy="recompute"` the forward
   saves the mean and $1/\sigma$ and the backward reads $\mathbf x$; with `strategy="cache"` the
   forward also writes $\hat{\mathbf x}$ and saves only $1/\sigma$, and the backward reads
   $\hat{\mathbf x}$ instead of $\mathbf x$ (and no mean).""",
            r"""   ($\boldsymbol\gamma$ and its gradient: RMSNorm has no $\boldsymbol\beta$) take `itemsize`
   bytes per number; per-row statistics are float32 (4 bytes). With `strategy="recompute"`
   the forward saves $1/\operatorname{rms}$ and the backward reads $\mathbf x$; with
   `strategy="cache"` the forward also writes $\hat{\mathbf x} = \mathbf x/\operatorname{rms}$,
   and the backward reads $\hat{\mathbf x}$ instead of $\mathbf x$.""",
        ),
        Edit(
            "289a2565",
            r"for GPT-2 small (25 LayerNorms, $d = 768$)",
            "for a model of GPT-2 small's shape with RMSNorms\n   (25 norms, $d = 768$)",
        ),
        Edit(
            "09-ex3-solution",
            'def layernorm_step_bytes(tokens, d, n_norms, itemsize, strategy="recompute"):',
            'def rmsnorm_step_bytes(tokens, d, n_norms, itemsize, strategy="recompute"):',
        ),
        Edit(
            "09-ex3-solution",
            _EX3_SOLUTION_BODY,
            """\
    act, par = tokens * d * itemsize, d * itemsize
    if strategy == "recompute":
        forward = 2 * act + par + 4 * tokens  # x, gamma in; y, rstd out
        backward = 3 * act + 2 * par + 4 * tokens  # x, dy, gamma, rstd; dx, dg
    else:
        forward = 3 * act + par + 4 * tokens  # ... y, xhat, rstd out
        backward = 3 * act + 2 * par + 4 * tokens  # xhat, dy, gamma, rstd; dx, dg""",
        ),
        Edit(
            "09-ex3-solution",
            "step = layernorm_step_bytes(8 * 1024, 768, 25, 4)",
            "step = rmsnorm_step_bytes(8 * 1024, 768, 25, 4)",
        ),
        Edit(
            "09-ex3-solution",
            'f"GPT-2 small, 8 x 1024 tokens',
            'f"RMSNorm GPT-2, 8 x 1024 tokens',
        ),
        Edit(
            "09-ex3-solution",
            'extra = layernorm_step_bytes(8 * 1024, 768, 25, 4, "cache") - step',
            'extra = rmsnorm_step_bytes(8 * 1024, 768, 25, 4, "cache") - step',
        ),
        Edit(
            "09-ex3-bytes",
            _EX3_TESTS,
            """\
_a = rmsnorm_step_bytes(1024, 768, 1, 4)
assert type(_a) is int, f"an int expected, got {type(_a).__name__}"
assert rmsnorm_step_bytes(1024, 768, 25, 4) == 25 * _a, (
    "proportional to n_norms expected"
)
_c = rmsnorm_step_bytes(1024, 768, 1, 4, "cache")
assert _c > _a, "caching xhat writes one more activation array"
assert rmsnorm_step_bytes(1024, 768, 1, 2) < _a, (
    "fewer bytes with 2-byte numbers expected"
)
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(916)
for _ in range(20):
    _t, _d, _k = (int(_v) for _v in _rng.integers(1, 5000, 3))
    _b = int(_rng.choice([2, 4, 8]))
    _act, _par = _t * _d * _b, _d * _b
    _want = {
        "recompute": _k * (5 * _act + 3 * _par + 8 * _t),
        "cache": _k * (6 * _act + 3 * _par + 8 * _t),
    }
    for _s, _w in _want.items():
        _got = rmsnorm_step_bytes(_t, _d, _k, _b, _s)""",
        ),
        Edit(
            "09-ex3-answer",
            r"""**(a)** Per norm with recomputation: forward $2A + 2P + 8T$, backward $3A + 3P + 8T$, with
$A = TDb$, $P = Db$. For $T = 8192$, $D = 768$, $b = 4$: $A = 25.2$ MB, so one norm moves about
$5A = 126$ MB (the parameters and statistics add 0.1 %), and 25 norms about 3.15 GB per step""",
            r"""**(a)** Per RMSNorm with recomputation: forward $2A + P + 4T$ ($\mathbf x$,
$\boldsymbol\gamma$ in; $\mathbf y$, $1/\operatorname{rms}$ out), backward $3A + 2P + 4T$
($\mathbf x$, $\partial\mathbf y$, $\boldsymbol\gamma$, $1/\operatorname{rms}$ in;
$\partial\mathbf x$, $\partial\boldsymbol\gamma$ out), with $A = TDb$, $P = Db$. For
$T = 8192$, $D = 768$, $b = 4$: $A = 25.2$ MB, so one norm moves about $5A = 126$ MB (the
parameter and the statistic add 0.06 %), and 25 norms about 3.15 GB per step""",
        ),
        Edit(
            "09-ex3-answer",
            r"""$25A \approx 0.63$ GB more memory (less the $4T$ bytes of means not kept), and
$25A$ more traffic.""",
            r"""$25A \approx 0.63$ GB more memory (RMSNorm keeps no mean to save in
exchange), and $25A$ more traffic.""",
        ),
        Edit(
            "09-ex3-answer",
            r"""**Mark scheme (3 points).** 1 pt: (a) about 3.15 GB and both times""",
            r"""**Mark scheme (3 points).** 1 pt: (a) about 3.15 GB ($5A + 3P + 8T$ per norm) and both
times""",
        ),
    ),
)

_EX3_NO_BIAS = Variant(
    "no-bias",
    "the least bytes of the bias-free LayerNorms (gamma only) of a training step",
    (
        Edit(
            "289a2565",
            "the forward and backward passes of `n_norms` LayerNorms move",
            "the forward and backward passes of `n_norms` LayerNorms without\n"
            "   $\\boldsymbol\\beta$ (as in many recent language models) move",
        ),
        Edit(
            "289a2565",
            r"($\boldsymbol\gamma$, $\boldsymbol\beta$ and their gradients)",
            r"($\boldsymbol\gamma$ and its gradient)",
        ),
        Edit(
            "289a2565",
            r"for GPT-2 small (25 LayerNorms, $d = 768$)",
            "for GPT-2 small with bias-free LayerNorms\n   (25 norms, $d = 768$)",
        ),
        Edit(
            "09-ex3-solution",
            _EX3_SOLUTION_BODY,
            """\
    act, par = tokens * d * itemsize, d * itemsize
    if strategy == "recompute":
        forward = 2 * act + par + 8 * tokens  # x, gamma in; y, mean, rstd out
        backward = 3 * act + 2 * par + 8 * tokens  # x, dy, gamma, mean, rstd; dx, dg
    else:
        forward = 3 * act + par + 4 * tokens  # ... y, xhat, rstd out
        backward = 3 * act + 2 * par + 4 * tokens  # xhat, dy, gamma, rstd; dx, dg""",
        ),
        Edit(
            "09-ex3-solution",
            'f"GPT-2 small, 8 x 1024 tokens',
            'f"GPT-2, no beta, 8 x 1024 tokens',
        ),
        Edit(
            "09-ex3-bytes",
            """\
        "recompute": _k * (5 * _act + 5 * _par + 16 * _t),
        "cache": _k * (6 * _act + 5 * _par + 8 * _t),""",
            """\
        "recompute": _k * (5 * _act + 3 * _par + 16 * _t),
        "cache": _k * (6 * _act + 3 * _par + 8 * _t),""",
        ),
        Edit(
            "09-ex3-answer",
            r"""**(a)** Per norm with recomputation: forward $2A + 2P + 8T$, backward $3A + 3P + 8T$, with
$A = TDb$, $P = Db$. For $T = 8192$, $D = 768$, $b = 4$:""",
            r"""**(a)** Per norm with recomputation: forward $2A + P + 8T$ ($\mathbf x$,
$\boldsymbol\gamma$ in; $\mathbf y$, mean, $1/\sigma$ out), backward $3A + 2P + 8T$
($\mathbf x$, $\partial\mathbf y$, $\boldsymbol\gamma$, mean, $1/\sigma$ in;
$\partial\mathbf x$, $\partial\boldsymbol\gamma$ out), with $A = TDb$, $P = Db$: no
$\boldsymbol\beta$ to read and no $\partial\boldsymbol\beta$ to write. For
$T = 8192$, $D = 768$, $b = 4$:""",
        ),
        Edit(
            "09-ex3-answer",
            r"""**Mark scheme (3 points).** 1 pt: (a) about 3.15 GB and both times""",
            r"""**Mark scheme (3 points).** 1 pt: (a) about 3.15 GB ($5A + 3P + 16T$ per norm) and both
times""",
        ),
    ),
)

_EX3_OUTPUT = Variant(
    "output-strategy",
    "the least bytes of a step's LayerNorms, recomputing or keeping y instead of x (Apex)",
    (
        Edit(
            "289a2565",
            r"""with `strategy="cache"` the
   forward also writes $\hat{\mathbf x}$ and saves only $1/\sigma$, and the backward reads
   $\hat{\mathbf x}$ instead of $\mathbf x$ (and no mean).""",
            r"""with `strategy="output"` (the
   memory-efficient mode of Apex's fused LayerNorm) the forward saves only $1/\sigma$, and
   the backward reads $\mathbf y$, $\boldsymbol\gamma$ and $\boldsymbol\beta$ instead of
   $\mathbf x$ and the mean, and recovers $\hat{\mathbf x} = (\mathbf y - \boldsymbol\beta)
   /\boldsymbol\gamma$.""",
        ),
        Edit(
            "289a2565",
            "(b) how much more memory the cache strategy keeps alive through a step;",
            "(b) how much memory the output strategy saves through a step, given that\n"
            "   the layer after each norm keeps $\\mathbf y$ for its own backward;",
        ),
        Edit(
            "09-ex3-solution",
            """\
    else:
        forward = 3 * act + 2 * par + 4 * tokens  # ... y, xhat, rstd out
        backward = 3 * act + 3 * par + 4 * tokens  # xhat, dy, gamma, rstd; dx, dg, db""",
            """\
    else:  # "output": the backward reads y, gamma, beta, rstd, dy; writes dx, dg, db
        forward = 2 * act + 2 * par + 4 * tokens  # x, gamma, beta in; y, rstd out
        backward = 3 * act + 4 * par + 4 * tokens""",
        ),
        Edit(
            "09-ex3-solution",
            """\
extra = layernorm_step_bytes(8 * 1024, 768, 25, 4, "cache") - step
print(f"cache strategy: {extra / 1e9:.2f} GB more traffic per step")""",
            """\
extra = layernorm_step_bytes(8 * 1024, 768, 25, 4, "output") - step
saved = 25 * 8 * 1024 * (768 * 4 + 4)  # x and the mean of every norm, not kept
print(
    f"output strategy: {extra / 1e6:+.2f} MB of traffic, "
    f"{saved / 1e9:.2f} GB less memory per step"
)""",
        ),
        Edit(
            "09-ex3-bytes",
            """\
_c = layernorm_step_bytes(1024, 768, 1, 4, "cache")
assert _c > _a, "caching xhat writes one more activation array\"""",
            """\
_o = layernorm_step_bytes(1024, 768, 1, 4, "output")
assert abs(_o - _a) < 1024 * 768, "y replaces x: as many activation arrays expected\"""",
        ),
        Edit(
            "09-ex3-bytes",
            """\
        "cache": _k * (6 * _act + 5 * _par + 8 * _t),""",
            """\
        "output": _k * (5 * _act + 6 * _par + 8 * _t),""",
        ),
        Edit(
            "09-ex3-answer",
            r"""**(b)** The cache strategy keeps $\hat{\mathbf x}$ of every norm alive from the forward to the
backward: $25A \approx 0.63$ GB more memory (less the $4T$ bytes of means not kept), and
$25A$ more traffic.""",
            r"""**(b)** With the output strategy a norm keeps only $1/\sigma$ ($4T$ bytes) for its
backward: $\mathbf y$ is kept anyway by the layer that reads it (the attention's or the
MLP's first matrix product), and $\mathbf x$ and the mean need not be kept. That saves
$25(A + 4T) \approx 0.63$ GB of memory per step, at the same traffic: forward
$2A + 2P + 4T$, backward $3A + 4P + 4T$ (it reads $\boldsymbol\beta$ too), $P - 8T$ bytes
per norm against recomputation, 1.6 MB less in all. (It needs $\gamma_j \ne 0$.)""",
        ),
        Edit(
            "09-ex3-answer",
            r"""1 pt: (b) $25\,TD$ numbers, about 0.63 GB in float32.""",
            r"""1 pt: (b) $\mathbf x$ not kept, $25\,TD$ numbers, about 0.63 GB in
float32, at about the same traffic.""",
        ),
    ),
)

# The model answers' demonstration reads the copy bandwidth from `stream` (the value
# MEASURED holds): MEASURED's cell also reads results that a grader's run lacks.
_EX3_COPY = Edit(
    "09-ex3-solution",
    'copy_all = MEASURED[f"STREAM copy ({ALL} thr)"][0]',
    'copy_all = stream[ALL]["copy"]  # = MEASURED[f"STREAM copy ({ALL} thr)"][0]',
)

BANK = {
    "09-ex1": [_EX1_ADD_RMSNORM, _EX1_ONE_PLUS_GAMMA, _EX1_EPS_OUTSIDE],
    "09-ex2": [_EX2_RMS_TAIL, _EX2_XHAT_EPS, _EX2_STD_SAVED],
    "09-ex3": [
        Variant(v.name, v.summary, (*v.edits, _EX3_COPY))
        for v in (_EX3_RMSNORM, _EX3_NO_BIAS, _EX3_OUTPUT)
    ],
}
