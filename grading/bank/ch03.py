"""Variants of chapter 03's coding exercises (grading/bank/__init__.py).

The book's text of the cells that some variants replace whole is kept below (`_BOOK_*`,
split into lines of at most 88 characters); every other edit names a short passage.
"""

from grading.bank import Edit, Variant


def _lines(*lines):
    return "\n".join(lines)


# 03-ex1-solution
_BOOK_EX1_SOL = _lines(
    r"def check_backward(forward, backward, inputs, seed=0, h=1e-5):",
    r"    ### BEGIN SOLUTION",
    r"    inputs = [",
    r"        np.array(a, dtype=np.float64) for a in inputs",
    r"    ]  # copies: callers untouched",
    r"    out, cache = forward(*inputs)",
    r"    dout = np.random.default_rng(seed).standard_normal(out.shape)",
    r"    grads = backward(dout, cache)",
    r"    errors = []",
    r"    for i, a in enumerate(inputs):",
    r"",
    r"        def f(t, i=i):",
    r"            args = list(inputs)",
    r"            args[i] = t",
    r"            return forward(*args)[0]",
    r"",
    r"        num = eval_numerical_gradient_array(f, a.copy(), dout, h=h)",
    r"        errors.append(normwise_error(num, np.asarray(grads[i],"
    r" dtype=np.float64)))",
    r"    return errors",
    r"    ### END SOLUTION",
)

# 03-ex1-layernorm
_BOOK_EX1_LN = _lines(
    r"def _ln_forward(x, gamma, beta):",
    r"    mu = x.mean(axis=-1, keepdims=True)",
    r"    c = x - mu",
    r"    rstd = 1.0 / ((c * c).mean(axis=-1, keepdims=True) + 1e-5) ** 0.5",
    r"    return gamma * c * rstd + beta, (c * rstd, rstd, gamma)",
    r"",
    r"",
    r"def _ln_backward(dout, cache, wrong=None):",
    r"    # wrong = 0, 1 or 2 plants a realistic bug in dx, dgamma or dbeta.",
    r"    xhat, rstd, gamma = cache",
    r"    rows = tuple(range(dout.ndim - 1))",
    r"    g = dout * gamma",
    r"    dx = (",
    r"        g",
    r"        - g.mean(axis=-1, keepdims=True)",
    r"        - xhat * (g * xhat).mean(axis=-1, keepdims=True)",
    r"    )",
    r"    dx = g if wrong == 0 else dx  # naive: statistics held constant",
    r"    dgamma = dout.sum(axis=rows) if wrong == 1 else (dout *"
    r" xhat).sum(axis=rows)",
    r"    dbeta = (dout * gamma).sum(axis=rows) if wrong == 2 else"
    r" dout.sum(axis=rows)",
    r"    return dx * rstd, dgamma, dbeta",
    r"",
    r"",
    r"def _verdict(_errors, _n, _wrong, _label):",
    r"    _errors = [float(_e) for _e in _errors]",
    r'    assert len(_errors) == _n, f"{_label}: expected {_n} errors, got'
    r' {len(_errors)}"',
    r"    for _i, _e in enumerate(_errors):",
    r"        if _i == _wrong:",
    r"            assert _e > 1e-2, (",
    r'                f"{_label}: gradient {_i} is wrong, error {_e:.1e},'
    r' expected > 1e-2"',
    r"            )",
    r"        else:",
    r"            assert _e < 1e-7, (",
    r'                f"{_label}: gradient {_i} is right, error {_e:.1e},'
    r' expected < 1e-7"',
    r"            )",
    r"",
    r"",
    r"# the chapter's analytic gradients: the checker must estimate them,"
    r" not look them up",
    r"_FORBIDDEN = (",
    r'    "layernorm_backward",',
    r'    "layernorm_backward_staged",',
    r'    "layernorm_backward_naive",',
    r'    "torch_layernorm_grads",',
    r")",
    r"",
    r"",
    r"def _run(_forward, _backward, _inputs, _wrong, _label, **_kw):",
    r"    _copies = [_a.copy() for _a in _inputs]",
    r"    _errors = _call_without(",
    r"        _FORBIDDEN, check_backward, _forward, _backward, _inputs, **_kw",
    r"    )",
    r"    _verdict(_errors, len(_inputs), _wrong, _label)",
    r"    _same = all((_a == _b).all() for _a, _b in zip(_inputs, _copies))",
    r'    assert _same, f"{_label}: check_backward changed the arrays passed in"',
    r"",
    r"",
    r"_rng = _np.random.default_rng(311)",
    r"_inputs = [",
    r"    _rng.standard_normal((3, 5)),",
    r"    _rng.standard_normal(5),",
    r"    _rng.standard_normal(5),",
    r"]",
    r'_run(_ln_forward, _ln_backward, _inputs, None, "correct LayerNorm")',
    r"_bug = lambda dout, cache: _ln_backward(dout, cache, wrong=1)",
    r'_run(_ln_forward, _bug, _inputs, 1, "LayerNorm with a wrong dgamma")',
    r"### BEGIN HIDDEN TESTS",
    r"_rng = _np.random.default_rng(3111)",
    r"for _shape in [(4, 6), (2, 3, 5), (7, 4)]:",
    r"    _x = 2 * _rng.standard_normal(_shape) + _rng.uniform(-3, 3)",
    r"    _inputs = [_x, _rng.standard_normal(_shape[-1]),"
    r" _rng.standard_normal(_shape[-1])]",
    r"    _seed = int(_rng.integers(10**6))",
    r"    for _wrong in _rng.permutation([-1, 0, 1, 2]).tolist():  # -1: correct",
    r"        _wrong = None if _wrong < 0 else _wrong",
    r"        _bwd = lambda d, c, _w=_wrong: _ln_backward(d, c, _w)",
    r"        _run(",
    r'            _ln_forward, _bwd, _inputs, _wrong, f"wrong {_wrong},'
    r' {_shape}", seed=_seed',
    r"        )",
    r"### END HIDDEN TESTS",
    r'print("check_backward on LayerNorm: all tests passed")',
)

# 03-ex1-two-inputs
_BOOK_EX1_MM = _lines(
    r"_E = 2.718281828459045  # e, as a literal: np.e could be rebound",
    r"",
    r"",
    r"def _mm_forward(x, w):",
    r"    out = 2.0 / (1.0 + _E ** (-2.0 * (x @ w))) - 1.0  # tanh(x @ w)",
    r"    return out, (x, w, out)",
    r"",
    r"",
    r"def _mm_backward(dout, cache, wrong=None):",
    r"    x, w, out = cache",
    r"    da = dout * (1.0 - out * out)",
    r"    dx = (dout if wrong == 0 else da) @ w.T  # wrong == 0: forgets tanh' in dx",
    r"    dw = x.T @ (dout if wrong == 1 else da)  # wrong == 1: forgets tanh' in dw",
    r"    return dx, dw",
    r"",
    r"",
    r"_rng = _np.random.default_rng(312)",
    r"_inputs = [_rng.standard_normal((4, 3)), _rng.standard_normal((3, 2))]",
    r'_run(_mm_forward, _mm_backward, _inputs, None, "correct tanh(x @ w)")',
    r"_run(",
    r"    _mm_forward, lambda d, c: _mm_backward(d, c, 1), _inputs, 1,"
    r' "tanh(x @ w), wrong dw"',
    r")",
    r"### BEGIN HIDDEN TESTS",
    r"_rng = _np.random.default_rng(3112)",
    r"for _n, _k, _m in [(5, 4, 3), (2, 6, 5)]:",
    r"    _inputs = [_rng.standard_normal((_n, _k)), 0.5 *"
    r" _rng.standard_normal((_k, _m))]",
    r"    _seed = int(_rng.integers(10**6))",
    r"    for _wrong in _rng.permutation([-1, 0, 1]).tolist():  # -1: correct",
    r"        _wrong = None if _wrong < 0 else _wrong",
    r"        _bwd = lambda d, c, _w=_wrong: _mm_backward(d, c, _w)",
    r"        _run(",
    r"            _mm_forward,",
    r"            _bwd,",
    r"            _inputs,",
    r"            _wrong,",
    r'            f"tanh(x @ w), wrong {_wrong}",',
    r"            seed=_seed,",
    r"        )",
    r"### END HIDDEN TESTS",
    r'print("check_backward on tanh(x @ w): all tests passed")',
)

# 03-gated-forward-readonly
_BOOK_EX2_FWD = _lines(
    r"def gated_layernorm_forward(x, z, gamma, k=1, eps=1e-5):",
    r"    # y = gamma * LN(x) * sigmoid(z), LN over the last k axes of x, no beta.",
    r"    # x, z: same shape; gamma: x.shape[-k:]. The cache holds what a"
    r" backward pass needs.",
    r"    axes = tuple(range(x.ndim - k, x.ndim))",
    r"    mu = x.mean(axis=axes, keepdims=True)",
    r"    var = ((x - mu) ** 2).mean(axis=axes, keepdims=True)",
    r"    rstd = 1.0 / np.sqrt(var + eps)",
    r"    xhat = (x - mu) * rstd",
    r"    gate = 1.0 / (1.0 + np.exp(-z))",
    r"    out = gamma * xhat * gate",
    r'    return out, {"xhat": xhat, "rstd": rstd, "gate": gate, "gamma":'
    r' gamma, "k": k}',
)

# 03-ex2-derivation
_BOOK_EX2_DER = _lines(
    r":::{dropdown} Solution and mark scheme",
    r"Write $s=s(\mathbf z)$ for the gate and treat the last $k$ axes of"
    r" one block as a single row",
    r"of $D=\prod_{a}S_a$ entries ($S$ the shape of those axes); the rows"
    r" are indexed by the",
    r"leading axes.",
    r"",
    r"- $\boldsymbol\gamma$ is used once per row, at every position of the block:",
    r"  $d\boldsymbol\gamma=\sum_{\text{rows}} d\mathbf y\odot\hat{\mathbf"
    r" x}\odot s$, summed over",
    r"  the leading axes only, so it has the shape $S$ of $\boldsymbol\gamma$.",
    r"- $\mathbf z$ reaches the loss only through its own gate entry, and"
    r" $s'(z)=s(1-s)$:",
    r"  $d\mathbf z=d\mathbf y\odot\boldsymbol\gamma\odot\hat{\mathbf"
    r" x}\odot s\odot(1-s)$.",
    r"- $\mathbf x$ reaches the loss only through $\hat{\mathbf x}$, with",
    r"  $d\hat{\mathbf x}=\boldsymbol\gamma\odot s\odot d\mathbf y$. From"
    r" $\hat{\mathbf x}$ back to",
    r"  $\mathbf x$ the three paths of LayerNorm are unchanged; pooling $k$"
    r" axes only means that",
    r"  the mean, the variance and the two row means in the formula run"
    r" over all $D$ entries of the",
    r"  block:",
    r"  $d\mathbf x=\frac1\sigma\big(d\hat{\mathbf"
    r" x}-\operatorname{mean}_S(d\hat{\mathbf x})",
    r"  -\hat{\mathbf x}\operatorname{mean}_S(d\hat{\mathbf"
    r" x}\odot\hat{\mathbf x})\big)$.",
    r"  The gate does not depend on $\mathbf x$, so it only reweights the"
    r" upstream gradient before",
    r"  the projection: $d\mathbf x$ is still orthogonal (per block) to"
    r" $\mathbf 1$ and, for",
    r"  $\epsilon=0$, to $\hat{\mathbf x}$.",
    r"",
    r"Gradient check (model run): `check_backward` on shapes $(4,6)$ with"
    r" $k=1$ and $(2,3,4)$ with",
    r"$k=2$ gives norm-wise errors of order $10^{-10}$ for all three gradients.",
    r"",
    r"**Mark scheme (4 points).** 1 pt: $d\boldsymbol\gamma$ with the gate"
    r" factor, summed over the",
    r"leading axes only (shape of $\boldsymbol\gamma$). 1 pt: $d\mathbf z$"
    r" with $s(1-s)$. 1 pt:",
    r"$d\mathbf x$ as the LayerNorm projection of $\boldsymbol\gamma\odot"
    r" s\odot d\mathbf y$, with",
    r"means over the $k$ pooled axes ($D$ = product of their sizes). 1 pt:"
    r" a gradient check of all",
    r"three gradients on at least two shapes and two values of $k$, errors"
    r" reported and below",
    r"$10^{-8}$.",
    r":::",
)

# 03-ex2-solution
_BOOK_EX2_SOL = _lines(
    r"def gated_layernorm_backward(dout, cache):",
    r"    ### BEGIN SOLUTION",
    r"    xhat, rstd, gate, gamma, k = (",
    r'        cache[n] for n in ("xhat", "rstd", "gate", "gamma", "k")',
    r"    )",
    r"    pooled = tuple(range(dout.ndim - k, dout.ndim))  # the normalized block",
    r"    rows = tuple(range(dout.ndim - k))  # the axes gamma is shared over",
    r"    dgamma = (dout * xhat * gate).sum(axis=rows)",
    r"    dz = dout * gamma * xhat * gate * (1.0 - gate)",
    r"    g = dout * gamma * gate  # d xhat",
    r"    dx = g - g.mean(axis=pooled, keepdims=True)",
    r"    dx -= xhat * (g * xhat).mean(axis=pooled, keepdims=True)",
    r"    return dx * rstd, dz, dgamma",
    r"    ### END SOLUTION",
)

# 03-ex2-dx
_BOOK_EX2_DX = _lines(
    r"import numpy as _np",
    r"",
    r"# Visible test: the chapter's gradient check on one seeded problem,"
    r" (4, 6) with k = 1.",
    r"_rng = _np.random.default_rng(321)",
    r"_x, _z = _rng.standard_normal((4, 6)), _rng.standard_normal((4, 6))",
    r"_gamma, _dout = _rng.standard_normal(6), _rng.standard_normal((4, 6))",
    r"_out, _cache = gated_layernorm_forward(_x, _z, _gamma, k=1)",
    r"_got = gated_layernorm_backward(_dout, _cache)[0]",
    r"_f = lambda t: gated_layernorm_forward(t, _z, _gamma)[0]",
    r"_num = eval_numerical_gradient_array(_f, _x.copy(), _dout)",
    r"_err = normwise_error(_num, _got)",
    r"assert _err < 1e-8, (",
    r'    f"dx: norm-wise error {_err:.1e} against finite differences,'
    r' expected < 1e-8"',
    r")",
    r"",
    r"### BEGIN HIDDEN TESTS",
    r"# the chapter's backward passes and finite differences are"
    r" unavailable while the",
    r"# student's function runs (autograd too, by the harness)",
    r"_FORBIDDEN = (",
    r'    "layernorm_backward",',
    r'    "layernorm_backward_staged",',
    r'    "layernorm_backward_naive",',
    r'    "torch_layernorm_grads",',
    r'    "eval_numerical_gradient_array",',
    r'    "check_backward",',
    r")",
    r"",
    r"_E = 2.718281828459045  # e, as a literal: np.e could be rebound",
    r"",
    r"",
    r"def _gated_reference(x, z, gamma, k, dout, eps=1e-5):",
    r"    pooled = tuple(range(x.ndim - k, x.ndim))",
    r"    rows = tuple(range(x.ndim - k))",
    r"    c = x - x.mean(axis=pooled, keepdims=True)",
    r"    rstd = 1.0 / ((c * c).mean(axis=pooled, keepdims=True) + eps) ** 0.5",
    r"    xhat = c * rstd",
    r"    gate = 1.0 / (1.0 + _E ** (-z))",
    r'    cache = {"xhat": xhat, "rstd": rstd, "gate": gate, "gamma": gamma, "k": k}',
    r"    g = dout * gamma * gate",
    r"    dx = g - g.mean(axis=pooled, keepdims=True)",
    r"    dx = (dx - xhat * (g * xhat).mean(axis=pooled, keepdims=True)) * rstd",
    r"    dz = dout * gamma * xhat * gate * (1.0 - gate)",
    r"    return cache, (dx, dz, (dout * xhat * gate).sum(axis=rows))",
    r"",
    r"",
    r"_rng = _np.random.default_rng(3211)",
    r"for _shape, _k in [((5, 4), 1), ((2, 3, 4), 2), ((2, 2, 3, 4), 1),"
    r" ((3, 2, 4), 3)]:",
    r"    _x = 2 * _rng.standard_normal(_shape) + _rng.uniform(-3, 3)",
    r"    _z = 2 * _rng.standard_normal(_shape)",
    r"    _gamma = _rng.standard_normal(_shape[len(_shape) - _k :])",
    r"    _dout = _rng.standard_normal(_shape)",
    r"    _cache, _ref = _gated_reference(_x, _z, _gamma, _k, _dout)",
    r"    _got = _call_without(_FORBIDDEN, gated_layernorm_backward, _dout, _cache)",
    r'    assert len(_got) == 3, f"expected (dx, dz, dgamma), got'
    r' {len(_got)} values"',
    r'    _compare(f"dx for shape {_shape}, k = {_k}", _got[0], _ref[0], 1e-12)',
    r"### END HIDDEN TESTS",
    r"",
    r'print("dx: all tests passed")',
)

# 03-ex2-dz
_BOOK_EX2_DZ = _lines(
    r"# Visible test: the chapter's gradient check on one seeded problem,"
    r" (4, 6) with k = 1.",
    r"_rng = _np.random.default_rng(321)",
    r"_x, _z = _rng.standard_normal((4, 6)), _rng.standard_normal((4, 6))",
    r"_gamma, _dout = _rng.standard_normal(6), _rng.standard_normal((4, 6))",
    r"_out, _cache = gated_layernorm_forward(_x, _z, _gamma, k=1)",
    r"_got = gated_layernorm_backward(_dout, _cache)[1]",
    r"_f = lambda t: gated_layernorm_forward(_x, t, _gamma)[0]",
    r"_num = eval_numerical_gradient_array(_f, _z.copy(), _dout)",
    r"_err = normwise_error(_num, _got)",
    r"assert _err < 1e-8, (",
    r'    f"dz: norm-wise error {_err:.1e} against finite differences,'
    r' expected < 1e-8"',
    r")",
    r"",
    r"### BEGIN HIDDEN TESTS",
    r"_rng = _np.random.default_rng(3212)",
    r"for _shape, _k in [((5, 4), 1), ((2, 3, 4), 2), ((2, 2, 3, 4), 1),"
    r" ((3, 2, 4), 3)]:",
    r"    _x = 2 * _rng.standard_normal(_shape) + _rng.uniform(-3, 3)",
    r"    _z = 2 * _rng.standard_normal(_shape)",
    r"    _gamma = _rng.standard_normal(_shape[len(_shape) - _k :])",
    r"    _dout = _rng.standard_normal(_shape)",
    r"    _cache, _ref = _gated_reference(_x, _z, _gamma, _k, _dout)",
    r"    _got = _call_without(_FORBIDDEN, gated_layernorm_backward, _dout, _cache)",
    r'    assert len(_got) == 3, f"expected (dx, dz, dgamma), got'
    r' {len(_got)} values"',
    r'    _compare(f"dz for shape {_shape}, k = {_k}", _got[1], _ref[1], 1e-12)',
    r"### END HIDDEN TESTS",
    r"",
    r'print("dz: all tests passed")',
)

# 03-ex2-dgamma
_BOOK_EX2_DG = _lines(
    r"# Visible test: the chapter's gradient check on one seeded problem,"
    r" (4, 6) with k = 1.",
    r"_rng = _np.random.default_rng(321)",
    r"_x, _z = _rng.standard_normal((4, 6)), _rng.standard_normal((4, 6))",
    r"_gamma, _dout = _rng.standard_normal(6), _rng.standard_normal((4, 6))",
    r"_out, _cache = gated_layernorm_forward(_x, _z, _gamma, k=1)",
    r"_got = gated_layernorm_backward(_dout, _cache)[2]",
    r"_f = lambda t: gated_layernorm_forward(_x, _z, t)[0]",
    r"_num = eval_numerical_gradient_array(_f, _gamma.copy(), _dout)",
    r"_err = normwise_error(_num, _got)",
    r"assert _err < 1e-8, (",
    r'    f"dgamma: norm-wise error {_err:.1e} against finite differences,'
    r' expected < 1e-8"',
    r")",
    r"",
    r"### BEGIN HIDDEN TESTS",
    r"_rng = _np.random.default_rng(3213)",
    r"for _shape, _k in [((5, 4), 1), ((2, 3, 4), 2), ((2, 2, 3, 4), 1),"
    r" ((3, 2, 4), 3)]:",
    r"    _x = 2 * _rng.standard_normal(_shape) + _rng.uniform(-3, 3)",
    r"    _z = 2 * _rng.standard_normal(_shape)",
    r"    _gamma = _rng.standard_normal(_shape[len(_shape) - _k :])",
    r"    _dout = _rng.standard_normal(_shape)",
    r"    _cache, _ref = _gated_reference(_x, _z, _gamma, _k, _dout)",
    r"    _got = _call_without(_FORBIDDEN, gated_layernorm_backward, _dout, _cache)",
    r'    assert len(_got) == 3, f"expected (dx, dz, dgamma), got'
    r' {len(_got)} values"',
    r'    _compare(f"dgamma for shape {_shape}, k = {_k}", _got[2], _ref[2], 1e-12)',
    r"### END HIDDEN TESTS",
    r"",
    r'print("dgamma: all tests passed")',
)

# 03-bug-hunt-readonly
_BOOK_EX3_BUG = _lines(
    r"def layernorm_backward_buggy(dout, cache):",
    r'    xhat, rstd, gamma = cache["xhat"], cache["rstd"], cache["gamma"]',
    r"    dbeta = dout.sum(axis=0)",
    r"    dgamma = (dout * xhat).sum(axis=0)",
    r"    dxhat = dout * gamma",
    r"    dx = (",
    r"        dxhat - dxhat.mean(axis=-1, keepdims=True) - xhat * (dxhat *"
    r" xhat).mean()",
    r"    ) * rstd",
    r"    return dx, dgamma, dbeta",
    r"",
    r"",
    r"# The colleague's check: one problem of shape (1, 8), all three gradients.",
    r'x, gamma, beta, dout = make_problem((1, 8), "randn", 2024)',
    r'ln_param = {"eps": 1e-5}',
    r"dx, dgamma, dbeta = layernorm_backward_buggy(",
    r"    dout, layernorm_forward(x, gamma, beta, ln_param)[1]",
    r")",
    r"checks = [",
    r"    (dx, lambda t: layernorm_forward(t, gamma, beta, ln_param)[0], x),",
    r"    (dgamma, lambda t: layernorm_forward(x, t, beta, ln_param)[0], gamma),",
    r"    (dbeta, lambda t: layernorm_forward(x, gamma, t, ln_param)[0], beta),",
    r"]",
    r"passed = [",
    r"    normwise_error(eval_numerical_gradient_array(f, a, dout), g) < 1e-8",
    r"    for g, f, a in checks",
    r"]",
    'print("colleague\'s check, dx / dgamma / dbeta below 1e-8:", passed)',
)

# 03-ex3-diagnosis
_BOOK_EX3_DIAG = _lines(
    r":::{dropdown} Solution and mark scheme",
    r"**Bug 1, the variance path of `dx`:** `(dxhat * xhat).mean()` has no"
    r" `axis`, so it averages",
    r"over the whole batch instead of over each row. Every row then uses"
    r" the batch's average",
    r"coefficient instead of its own $\operatorname{mean}(d\hat{\mathbf"
    r" x}\odot\hat{\mathbf x})$.",
    r"With a single row the batch mean *is* the row mean, so a $(1,D)$"
    r" check cannot see it; a",
    r"$(4,8)$ check gives a norm-wise error of order $10^{-1}$. Fix:"
    r" `.mean(axis=-1, keepdims=True)`.",
    r"",
    r"**Bug 2, the parameter gradients:** `sum(axis=0)` sums over the first"
    r" axis only. For a 2-D",
    r"input that is every row axis, so any 2-D check passes; for a"
    r" $(B,T,D)$ input it returns arrays",
    r"of shape $(T,D)$ instead of $(D,)$ (summing over $B$ but not over"
    r" $T$), which a check on a",
    r"3-D input exposes at once (shape mismatch, or a wrong update if"
    r" broadcasting hides it). Fix:",
    r"sum over `tuple(range(dout.ndim - 1))`.",
    r"",
    r"**Why the check missed both:** it used one row and a 2-D input, the"
    r" two cases in which the",
    r"buggy reductions coincide with the right ones. The recipe's step (5),"
    r" several shapes",
    r"including a batch of rows and a $(B,T,D)$ tensor, finds both.",
    r"",
    r"**Mark scheme (3 points).** 1 pt: bug 1 located and explained (batch"
    r" mean instead of row",
    r"mean in the variance path). 1 pt: bug 2 located and explained (sum"
    r" over axis 0 only; wrong",
    r"shape for 3-D inputs). 1 pt: why the one-row 2-D check could not see"
    r" either, and a check that",
    r"does (more than one row, a 3-D input).",
    r":::",
)

# 03-ex3-solution
_BOOK_EX3_SOL = _lines(
    r"def layernorm_backward_fixed(dout, cache):",
    r"    ### BEGIN SOLUTION",
    r'    xhat, rstd, gamma = cache["xhat"], cache["rstd"], cache["gamma"]',
    r"    rows = tuple(range(dout.ndim - 1))",
    r"    dbeta = dout.sum(axis=rows)",
    r"    dgamma = (dout * xhat).sum(axis=rows)",
    r"    dxhat = dout * gamma",
    r"    dx = dxhat - dxhat.mean(axis=-1, keepdims=True)",
    r"    dx -= xhat * (dxhat * xhat).mean(axis=-1, keepdims=True)",
    r"    return dx * rstd, dgamma, dbeta",
    r"    ### END SOLUTION",
)

# 03-ex3-dx
_BOOK_EX3_DX = _lines(
    r"import numpy as _np",
    r"",
    r"# Visible test: the chapter's gradient check on one seeded (4, 8) problem.",
    r'_x, _gamma, _beta, _dout = make_problem((4, 8), "5*randn+12", 331)',
    r'_cache = layernorm_forward(_x, _gamma, _beta, {"eps": 1e-5})[1]',
    r"_got = layernorm_backward_fixed(_dout, _cache)",
    r"_num = eval_numerical_gradient_array(",
    r'    lambda t: layernorm_forward(t, _gamma, _beta, {"eps": 1e-5})[0],'
    r" _x.copy(), _dout",
    r")",
    r"_err = normwise_error(_num, _got[0])",
    r"assert _err < 1e-8, (",
    r'    f"dx: norm-wise error {_err:.1e} against finite differences,'
    r' expected < 1e-8"',
    r")",
    r"",
    r"### BEGIN HIDDEN TESTS",
    r"# the chapter's backward passes and finite differences are"
    r" unavailable while the",
    r"# student's function runs (autograd too, by the harness)",
    r"_FORBIDDEN = (",
    r'    "layernorm_backward",',
    r'    "layernorm_backward_staged",',
    r'    "layernorm_backward_naive",',
    r'    "torch_layernorm_grads",',
    r'    "eval_numerical_gradient_array",',
    r'    "check_backward",',
    r")",
    r"",
    r"",
    r"def _ln_reference(x, gamma, dout, eps):",
    r"    rows = tuple(range(x.ndim - 1))",
    r"    mu = x.mean(axis=-1, keepdims=True)",
    r"    c = x - mu",
    r"    var = (c * c).mean(axis=-1, keepdims=True)",
    r"    rstd = 1.0 / (var + eps) ** 0.5",
    r"    xhat = c * rstd",
    r'    cache = {"x": x, "xhat": xhat, "mu": mu, "var": var, "rstd": rstd}',
    r"    cache.update(gamma=gamma, eps=eps)",
    r"    g = dout * gamma",
    r"    dx = (",
    r"        g",
    r"        - g.mean(axis=-1, keepdims=True)",
    r"        - xhat * (g * xhat).mean(axis=-1, keepdims=True)",
    r"    )",
    r"    return cache, (dx * rstd, (dout * xhat).sum(axis=rows),"
    r" dout.sum(axis=rows))",
    r"",
    r"",
    r"_rng = _np.random.default_rng(3311)",
    r"for _shape in [(5, 6), (2, 3, 4), (4, 3, 5), (1, 2, 7)]:",
    r"    _x = 3 * _rng.standard_normal(_shape) + _rng.uniform(-5, 5)",
    r"    _gamma, _dout = _rng.standard_normal(_shape[-1]),"
    r" _rng.standard_normal(_shape)",
    r"    _cache, _ref = _ln_reference(_x, _gamma, _dout, 1e-5)",
    r"    _got = _call_without(_FORBIDDEN, layernorm_backward_fixed, _dout, _cache)",
    r'    assert len(_got) == 3, f"expected (dx, dgamma, dbeta), got'
    r' {len(_got)} values"',
    r"",
    r'    _compare(f"dx for shape {_shape}", _got[0], _ref[0], 1e-12)',
    r"### END HIDDEN TESTS",
    r'print("dx: all tests passed")',
)

# 03-ex3-dparams
_BOOK_EX3_DP = _lines(
    r"# Visible test: the chapter's gradient check on one seeded (4, 8) problem.",
    r'_x, _gamma, _beta, _dout = make_problem((4, 8), "5*randn+12", 331)',
    r'_cache = layernorm_forward(_x, _gamma, _beta, {"eps": 1e-5})[1]',
    r"_got = layernorm_backward_fixed(_dout, _cache)",
    r"for _i, _name, _f, _a in [",
    r'    (1, "dgamma", lambda t: layernorm_forward(_x, t, _beta, {"eps":'
    r" 1e-5})[0], _gamma),",
    r'    (2, "dbeta", lambda t: layernorm_forward(_x, _gamma, t, {"eps":'
    r" 1e-5})[0], _beta),",
    r"]:",
    r"    _err = normwise_error(eval_numerical_gradient_array(_f,"
    r" _a.copy(), _dout), _got[_i])",
    r'    assert _err < 1e-8, f"{_name}: norm-wise error {_err:.1e},'
    r' expected < 1e-8"',
    r"",
    r"### BEGIN HIDDEN TESTS",
    r"_rng = _np.random.default_rng(3312)",
    r"for _shape in [(5, 6), (2, 3, 4), (4, 3, 5), (1, 2, 7)]:",
    r"    _x = 3 * _rng.standard_normal(_shape) + _rng.uniform(-5, 5)",
    r"    _gamma, _dout = _rng.standard_normal(_shape[-1]),"
    r" _rng.standard_normal(_shape)",
    r"    _cache, _ref = _ln_reference(_x, _gamma, _dout, 1e-5)",
    r"    _got = _call_without(_FORBIDDEN, layernorm_backward_fixed, _dout, _cache)",
    r'    assert len(_got) == 3, f"expected (dx, dgamma, dbeta), got'
    r' {len(_got)} values"',
    r"",
    r'    _compare(f"dgamma for shape {_shape}", _got[1], _ref[1], 1e-12)',
    r'    _compare(f"dbeta for shape {_shape}", _got[2], _ref[2], 1e-12)',
    r"### END HIDDEN TESTS",
    r'print("dgamma, dbeta: all tests passed")',
)

# 03-std-forward-readonly
_BOOK_EX4_FWD = _lines(
    r"def layernorm_std_forward(x, gamma, beta, eps=1e-6):",
    r"    # Variant: sample standard deviation (divide by D - 1), eps added"
    r" to the std.",
    r"    mu = x.mean(axis=-1, keepdims=True)",
    r"    c = x - mu",
    r"    s = np.sqrt((c**2).sum(axis=-1, keepdims=True) / (x.shape[-1] - 1))",
    r'    return gamma * c / (s + eps) + beta, {"c": c, "s": s, "gamma":'
    r' gamma, "eps": eps}',
)

# 03-ex4-derivation
_BOOK_EX4_DER = _lines(
    r":::{dropdown} Solution and mark scheme",
    r"Write $t=s+\epsilon$, $c_k=x_k-\mu$, $\hat x_j=c_j/t$ and"
    r" $g=\boldsymbol\gamma\odot d\mathbf y$.",
    r"",
    r"- Paths: direct ($\delta_{ij}/t$), through the mean ($-1/(Dt)$), and"
    r" through $s$. Since",
    r"  $s^2=\frac{1}{D-1}\sum_k c_k^2$, $\partial s/\partial"
    r" c_i=c_i/((D-1)s)$, and the route from",
    r"  the mean into $s$ vanishes as before, because $\sum_k c_k=0$. So",
    r"  $\partial s/\partial x_i=c_i/((D-1)s)$, and $\partial\hat"
    r" x_j/\partial s=-c_j/t^2$.",
    r"- Summing: $\dfrac{\partial\hat x_j}{\partial"
    r" x_i}=\dfrac1t\Big(\delta_{ij}-\dfrac1D\Big)",
    r"  -\dfrac{c_ic_j}{(D-1)\,s\,t^2}$, hence",
    r"",
    r"  $$d\mathbf x=\frac{g-\operatorname{mean}(g)}{t}-\mathbf c\,",
    r"  \frac{\sum_j g_jc_j}{(D-1)\,s\,t^2},$$",
    r"",
    r"  with $d\boldsymbol\gamma=\sum_{\text{rows}}d\mathbf y\odot\mathbf c/t$ and",
    r"  $d\boldsymbol\beta=\sum_{\text{rows}}d\mathbf y$.",
    r"- A constant row has $\mathbf c=0$ and $s=0$. The forward pass is"
    r" fine ($\mathbf y=\boldsymbol\beta$,",
    r"  thanks to $\epsilon$), but the third term is $0\cdot0/0$: in"
    r" floating point the backward",
    r"  pass returns NaN when the centred values are exactly zero (a row"
    r" such as $(3,3,3)$), and a",
    r"  meaningless tiny value when they are round-off (such as"
    r" $(0.1,0.1,0.1)$, whose computed",
    r"  mean is not exactly $0.1$). The derivative of $s$ does not exist"
    r" there ($s=\|\mathbf c\|/\sqrt{D-1}$ is a",
    r"  cone at $\mathbf c=0$), and $\epsilon$ outside the root cannot"
    r" help, because $s$ itself sits",
    r"  in a denominator of the backward formula. With $\epsilon$ inside"
    r" the root (as in LayerNorm)",
    r"  the denominator is $\sqrt{v+\epsilon}>0$ and the gradient is finite.",
    r"",
    r"**Mark scheme (3 points).** 1 pt: $\partial s/\partial"
    r" x_i=c_i/((D-1)s)$ with the argument",
    r"that the mean route vanishes. 1 pt: the assembled $d\mathbf x$ (three"
    r" terms with $t$ and",
    r"$(D-1)s$), plus $d\boldsymbol\gamma$ and $d\boldsymbol\beta$. 1 pt:"
    r" the constant row: $0/0$",
    r"(NaN) in the backward pass although the forward pass is finite, and"
    r" why $\epsilon$ outside the",
    r"root does not prevent it.",
    r":::",
)

# 03-ex4-solution
_BOOK_EX4_SOL = _lines(
    r"def layernorm_std_backward(dout, cache):",
    r"    ### BEGIN SOLUTION",
    r'    c, s, gamma, eps = cache["c"], cache["s"], cache["gamma"], cache["eps"]',
    r"    D = c.shape[-1]",
    r"    t = s + eps",
    r"    rows = tuple(range(dout.ndim - 1))",
    r"    dbeta = dout.sum(axis=rows)",
    r"    dgamma = (dout * c / t).sum(axis=rows)",
    r"    g = dout * gamma",
    r"    dx = (g - g.mean(axis=-1, keepdims=True)) / t",
    r"    dx -= c * (g * c).sum(axis=-1, keepdims=True) / (t**2 * (D - 1) * s)",
    r"    return dx, dgamma, dbeta",
    r"    ### END SOLUTION",
)


# --------------------------------------------------------------------------------------
# 03-ex1: a gradient checker that names the wrong gradient

_EX1_SIGNATURE = "`check_backward(forward, backward, inputs, seed=0, h=1e-5)`:"
_EX1_ESTIMATE = (
    "- estimate the gradient of every input with `eval_numerical_gradient_array` "
    "(centred, step\n  `h`), and return a list"
)
_EX1_FORWARD = (
    "- `forward(*inputs)` returns `(out, cache)`; `backward(dout, cache)` returns one "
    "gradient per\n  input, in the order of `inputs`;"
)
_EX1_VERDICT = """\
            assert _e < 1e-7, (
                f"{_label}: gradient {_i} is right, error {_e:.1e}, expected < 1e-7"
            )"""

_EX1_COMPLEX_SOL = """\
def check_backward(forward, backward, inputs, seed=0, h=1e-20):
    ### BEGIN SOLUTION
    # copies: the callers' arrays stay untouched
    inputs = [np.array(a, dtype=np.float64) for a in inputs]
    out, cache = forward(*inputs)
    dout = np.random.default_rng(seed).standard_normal(out.shape)
    grads = backward(dout, cache)
    errors = []
    for i, a in enumerate(inputs):
        args = [b.astype(np.complex128) for b in inputs]
        num = np.zeros_like(a)
        for ix in np.ndindex(a.shape):
            args[i][ix] = a[ix] + 1j * h  # the complex step: no subtraction
            num[ix] = np.sum(dout * forward(*args)[0].imag) / h
            args[i][ix] = a[ix]
        errors.append(normwise_error(num, np.asarray(grads[i], dtype=np.float64)))
    return errors
    ### END SOLUTION"""

_EX1_NAMED_SOL = """\
def check_backward(forward, backward, inputs, seed=0, h=1e-5):
    ### BEGIN SOLUTION
    # copies, by name: callers untouched
    inputs = {name: np.array(a, dtype=np.float64) for name, a in inputs.items()}
    out, cache = forward(**inputs)
    dout = np.random.default_rng(seed).standard_normal(out.shape)
    grads = backward(dout, cache)
    errors = {}
    for name, a in inputs.items():

        def f(t, name=name):
            return forward(**{**inputs, name: t})[0]

        num = eval_numerical_gradient_array(f, a.copy(), dout, h=h)
        grad = np.asarray(grads[name], dtype=np.float64)
        errors[name] = normwise_error(num, grad)
    return errors
    ### END SOLUTION"""

_EX1_MULTI_SOL = """\
def check_backward(forward, backward, inputs, seed=0, h=1e-5):
    ### BEGIN SOLUTION
    # copies: the callers' arrays stay untouched
    inputs = [np.array(a, dtype=np.float64) for a in inputs]
    outs, cache = forward(*inputs)
    rng = np.random.default_rng(seed)
    douts = tuple(rng.standard_normal(np.shape(o)) for o in outs)  # in output order
    grads = backward(douts, cache)
    errors = []
    for i, a in enumerate(inputs):
        num = np.zeros_like(a)
        for o, dout in enumerate(douts):  # every output contributes

            def f(t, i=i, o=o):
                args = list(inputs)
                args[i] = t
                return forward(*args)[0][o]

            num += eval_numerical_gradient_array(f, a.copy(), dout, h=h)
        errors.append(normwise_error(num, np.asarray(grads[i], dtype=np.float64)))
    return errors
    ### END SOLUTION"""

# -- inputs by name --------------------------------------------------------------------

_EX1_NAMED_LN = """\
def _ln_forward(x, gamma, beta):
    mu = x.mean(axis=-1, keepdims=True)
    c = x - mu
    rstd = 1.0 / ((c * c).mean(axis=-1, keepdims=True) + 1e-5) ** 0.5
    return gamma * c * rstd + beta, (c * rstd, rstd, gamma)


def _ln_backward(dout, cache, wrong=None):
    # wrong = "x", "gamma" or "beta" plants a realistic bug in that gradient.
    xhat, rstd, gamma = cache
    rows = tuple(range(dout.ndim - 1))
    g = dout * gamma
    dx = (
        g
        - g.mean(axis=-1, keepdims=True)
        - xhat * (g * xhat).mean(axis=-1, keepdims=True)
    )
    dx = g if wrong == "x" else dx  # naive: statistics held constant
    dgamma = dout.sum(axis=rows) if wrong == "gamma" else (dout * xhat).sum(axis=rows)
    dbeta = (dout * gamma).sum(axis=rows) if wrong == "beta" else dout.sum(axis=rows)
    return {"beta": dbeta, "x": dx * rstd, "gamma": dgamma}


def _verdict(_errors, _names, _wrong, _label):
    assert isinstance(_errors, dict), (
        f"{_label}: expected a dict {{name: error}}, got {type(_errors).__name__}"
    )
    assert set(_errors) == set(_names), (
        f"{_label}: errors for {sorted(_errors)}, expected {sorted(_names)}"
    )
    for _name in _names:
        _e = float(_errors[_name])
        if _name == _wrong:
            assert _e > 1e-2, (
                f"{_label}: gradient {_name} is wrong, error {_e:.1e}, expected > 1e-2"
            )
        else:
            assert _e < 1e-7, (
                f"{_label}: gradient {_name} is right, error {_e:.1e}, expected < 1e-7"
            )


# the chapter's analytic gradients: the checker must estimate them, not look them up
_FORBIDDEN = (
    "layernorm_backward",
    "layernorm_backward_staged",
    "layernorm_backward_naive",
    "torch_layernorm_grads",
)


def _run(_forward, _backward, _inputs, _wrong, _label, **_kw):
    _copies = {_n: _a.copy() for _n, _a in _inputs.items()}
    _errors = _call_without(
        _FORBIDDEN, check_backward, _forward, _backward, _inputs, **_kw
    )
    _verdict(_errors, list(_copies), _wrong, _label)
    _same = set(_inputs) == set(_copies) and all(
        (_inputs[_n] == _copies[_n]).all() for _n in _copies
    )
    assert _same, f"{_label}: check_backward changed the arrays passed in"


# the names come in another order than forward's parameters
_rng = _np.random.default_rng(311)
_inputs = {
    "gamma": _rng.standard_normal(5),
    "x": _rng.standard_normal((3, 5)),
    "beta": _rng.standard_normal(5),
}
_run(_ln_forward, _ln_backward, _inputs, None, "correct LayerNorm")
_bug = lambda dout, cache: _ln_backward(dout, cache, wrong="gamma")
_run(_ln_forward, _bug, _inputs, "gamma", "LayerNorm with a wrong dgamma")
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(3111)
for _shape in [(4, 6), (2, 3, 5), (7, 4)]:
    _x = 2 * _rng.standard_normal(_shape) + _rng.uniform(-3, 3)
    _arrays = [_x, _rng.standard_normal(_shape[-1]), _rng.standard_normal(_shape[-1])]
    _names = ["x", "gamma", "beta"]
    _order = _rng.permutation(3).tolist()
    _inputs = {_names[_j]: _arrays[_j] for _j in _order}
    _seed = int(_rng.integers(10**6))
    for _wrong in _rng.permutation([-1, 0, 1, 2]).tolist():  # -1: correct
        _wrong = None if _wrong < 0 else _names[_wrong]
        _bwd = lambda d, c, _w=_wrong: _ln_backward(d, c, _w)
        _run(
            _ln_forward, _bwd, _inputs, _wrong, f"wrong {_wrong}, {_shape}", seed=_seed
        )
### END HIDDEN TESTS
print("check_backward on LayerNorm: all tests passed")"""

_EX1_NAMED_MM = """\
_E = 2.718281828459045  # e, as a literal: np.e could be rebound


def _mm_forward(x, w):
    out = 2.0 / (1.0 + _E ** (-2.0 * (x @ w))) - 1.0  # tanh(x @ w)
    return out, (x, w, out)


def _mm_backward(dout, cache, wrong=None):
    x, w, out = cache
    da = dout * (1.0 - out * out)
    dx = (dout if wrong == "x" else da) @ w.T  # wrong == "x": forgets tanh' in dx
    dw = x.T @ (dout if wrong == "w" else da)  # wrong == "w": forgets tanh' in dw
    return {"w": dw, "x": dx}


_rng = _np.random.default_rng(312)
_inputs = {"w": _rng.standard_normal((3, 2)), "x": _rng.standard_normal((4, 3))}
_run(_mm_forward, _mm_backward, _inputs, None, "correct tanh(x @ w)")
_run(
    _mm_forward,
    lambda d, c: _mm_backward(d, c, "w"),
    _inputs,
    "w",
    "tanh(x @ w), wrong dw",
)
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(3112)
for _n, _k, _m in [(5, 4, 3), (2, 6, 5)]:
    _x, _w = _rng.standard_normal((_n, _k)), 0.5 * _rng.standard_normal((_k, _m))
    _inputs = {"x": _x, "w": _w} if _rng.random() < 0.5 else {"w": _w, "x": _x}
    _seed = int(_rng.integers(10**6))
    for _wrong in _rng.permutation([-1, 0, 1]).tolist():  # -1: correct
        _wrong = None if _wrong < 0 else ["x", "w"][_wrong]
        _bwd = lambda d, c, _w=_wrong: _mm_backward(d, c, _w)
        _run(
            _mm_forward,
            _bwd,
            _inputs,
            _wrong,
            f"tanh(x @ w), wrong {_wrong}",
            seed=_seed,
        )
### END HIDDEN TESTS
print("check_backward on tanh(x @ w): all tests passed")"""

# -- several outputs -------------------------------------------------------------------

_EX1_MULTI_LN = """\
def _ln_forward(x, gamma, beta):
    # two outputs: the layer's output and its normalized values xhat
    mu = x.mean(axis=-1, keepdims=True)
    c = x - mu
    rstd = 1.0 / ((c * c).mean(axis=-1, keepdims=True) + 1e-5) ** 0.5
    xhat = c * rstd
    return (gamma * xhat + beta, xhat), (xhat, rstd, gamma)


def _ln_backward(douts, cache, wrong=None):
    # wrong = 0, 1 or 2 plants a realistic bug in dx, dgamma or dbeta.
    dout, dxhat_out = douts
    xhat, rstd, gamma = cache
    rows = tuple(range(dout.ndim - 1))
    g = dout * gamma if wrong == 0 else dout * gamma + dxhat_out  # 0: forgets xhat's
    dx = (
        g
        - g.mean(axis=-1, keepdims=True)
        - xhat * (g * xhat).mean(axis=-1, keepdims=True)
    )
    dgamma = dout.sum(axis=rows) if wrong == 1 else (dout * xhat).sum(axis=rows)
    dbeta = (dout * gamma).sum(axis=rows) if wrong == 2 else dout.sum(axis=rows)
    return dx * rstd, dgamma, dbeta


def _verdict(_errors, _n, _wrong, _label):
    _errors = [float(_e) for _e in _errors]
    assert len(_errors) == _n, f"{_label}: expected {_n} errors, got {len(_errors)}"
    for _i, _e in enumerate(_errors):
        if _i == _wrong:
            assert _e > 1e-2, (
                f"{_label}: gradient {_i} is wrong, error {_e:.1e}, expected > 1e-2"
            )
        else:
            assert _e < 1e-7, (
                f"{_label}: gradient {_i} is right, error {_e:.1e}, expected < 1e-7"
            )


# the chapter's analytic gradients: the checker must estimate them, not look them up
_FORBIDDEN = (
    "layernorm_backward",
    "layernorm_backward_staged",
    "layernorm_backward_naive",
    "torch_layernorm_grads",
)


def _run(_forward, _backward, _inputs, _wrong, _label, **_kw):
    _copies = [_a.copy() for _a in _inputs]
    _errors = _call_without(
        _FORBIDDEN, check_backward, _forward, _backward, _inputs, **_kw
    )
    _verdict(_errors, len(_inputs), _wrong, _label)
    _same = all((_a == _b).all() for _a, _b in zip(_inputs, _copies))
    assert _same, f"{_label}: check_backward changed the arrays passed in"


_rng = _np.random.default_rng(311)
_inputs = [
    _rng.standard_normal((3, 5)),
    _rng.standard_normal(5),
    _rng.standard_normal(5),
]
_run(_ln_forward, _ln_backward, _inputs, None, "correct LayerNorm")
_bug = lambda douts, cache: _ln_backward(douts, cache, wrong=0)
_run(_ln_forward, _bug, _inputs, 0, "LayerNorm whose dx forgets the xhat output")
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(3111)
for _shape in [(4, 6), (2, 3, 5), (7, 4)]:
    _x = 2 * _rng.standard_normal(_shape) + _rng.uniform(-3, 3)
    _inputs = [_x, _rng.standard_normal(_shape[-1]), _rng.standard_normal(_shape[-1])]
    _seed = int(_rng.integers(10**6))
    for _wrong in _rng.permutation([-1, 0, 1, 2]).tolist():  # -1: correct
        _wrong = None if _wrong < 0 else _wrong
        _bwd = lambda d, c, _w=_wrong: _ln_backward(d, c, _w)
        _run(
            _ln_forward, _bwd, _inputs, _wrong, f"wrong {_wrong}, {_shape}", seed=_seed
        )
### END HIDDEN TESTS
print("check_backward on LayerNorm: all tests passed")"""

_EX1_MULTI_MM = """\
_E = 2.718281828459045  # e, as a literal: np.e could be rebound


def _mm_forward(x, w):
    # two outputs: tanh(x @ w) and the pre-activation x @ w
    a = x @ w
    out = 2.0 / (1.0 + _E ** (-2.0 * a)) - 1.0  # tanh(a)
    return (out, a), (x, w, out)


def _mm_backward(douts, cache, wrong=None):
    dout, da_out = douts
    x, w, out = cache
    da = dout * (1.0 - out * out) + da_out
    dx = (da - da_out if wrong == 0 else da) @ w.T  # 0: forgets the output a
    dw = x.T @ (dout + da_out if wrong == 1 else da)  # 1: forgets tanh' in dw
    return dx, dw


_rng = _np.random.default_rng(312)
_inputs = [_rng.standard_normal((4, 3)), _rng.standard_normal((3, 2))]
_run(_mm_forward, _mm_backward, _inputs, None, "correct tanh(x @ w)")
_run(
    _mm_forward, lambda d, c: _mm_backward(d, c, 1), _inputs, 1, "tanh(x @ w), wrong dw"
)
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(3112)
for _n, _k, _m in [(5, 4, 3), (2, 6, 5)]:
    _inputs = [_rng.standard_normal((_n, _k)), 0.5 * _rng.standard_normal((_k, _m))]
    _seed = int(_rng.integers(10**6))
    for _wrong in _rng.permutation([-1, 0, 1]).tolist():  # -1: correct
        _wrong = None if _wrong < 0 else _wrong
        _bwd = lambda d, c, _w=_wrong: _mm_backward(d, c, _w)
        _run(
            _mm_forward,
            _bwd,
            _inputs,
            _wrong,
            f"tanh(x @ w), wrong {_wrong}",
            seed=_seed,
        )
### END HIDDEN TESTS
print("check_backward on tanh(x @ w): all tests passed")"""

_EX1_VARIANTS = [
    Variant(
        "complex-step",
        "a gradient checker that estimates with the complex step, errors below 1e-13",
        (
            Edit(
                "f6f9e606",
                _EX1_SIGNATURE,
                "`check_backward(forward, backward, inputs, seed=0, h=1e-20)`, which "
                "estimates gradients\nwith the *complex step* instead of finite "
                "differences:",
            ),
            Edit(
                "f6f9e606",
                _EX1_ESTIMATE,
                "- estimate the gradient of every"
                " input entry by entry with the complex "
                "step: for the\n  entry $a_j$, run the"
                " forward pass on complex copies of "
                "the inputs in which $a_j$ is\n  replaced by $a_j+ih$, and take\n"
                "  $\\sum\\operatorname{Im}(\\text{out})\\odot\\text{dout}\\,/\\,h$. "
                "There is no subtraction, hence no\n  cancellation: with $h=10^{-20}$ "
                "the estimate is exact to rounding. (The tests'\n  forward passes use "
                "only operations that extend to complex numbers.) Return a list",
            ),
            Edit(
                "f6f9e606",
                "expect errors below $10^{-7}$ for the right\ngradients and above "
                "$10^{-2}$ for the wrong one.",
                "expect errors below $10^{-13}$ for the right\ngradients (which no "
                "finite difference reaches, {ref}`sec-03-gradcheck`) and above\n"
                "$10^{-2}$ for the wrong one.",
            ),
            Edit("03-ex1-solution", _BOOK_EX1_SOL, _EX1_COMPLEX_SOL),
            Edit(
                "03-ex1-layernorm",
                _EX1_VERDICT,
                _EX1_VERDICT.replace("1e-7", "1e-13"),
            ),
        ),
    ),
    Variant(
        "named-inputs",
        "a gradient checker for inputs and gradients passed as dicts by name",
        (
            Edit(
                "f6f9e606",
                _EX1_SIGNATURE,
                "`check_backward(forward, backward,"
                " inputs, seed=0, h=1e-5)` for inputs "
                "passed *by name*:",
            ),
            Edit(
                "f6f9e606",
                _EX1_FORWARD,
                "- `inputs` is a dict `{name: array}`; `forward(**inputs)` returns "
                "`(out, cache)`;\n  `backward(dout, cache)` returns a dict "
                "`{name: gradient}` with the same names (the\n  dicts' order need not "
                "be that of `forward`'s parameters);",
            ),
            Edit(
                "f6f9e606",
                "return a list of `normwise_error` values between each estimate and the"
                "\n  corresponding analytic gradient, one per input;",
                "return a dict `{name: normwise_error(...)}` between each estimate and "
                "the\n  analytic gradient of that name, one per input;",
            ),
            Edit("03-ex1-solution", _BOOK_EX1_SOL, _EX1_NAMED_SOL),
            Edit("03-ex1-layernorm", _BOOK_EX1_LN, _EX1_NAMED_LN),
            Edit("03-ex1-two-inputs", _BOOK_EX1_MM, _EX1_NAMED_MM),
        ),
    ),
    Variant(
        "several-outputs",
        "a gradient checker for forward passes with several outputs (one dout each)",
        (
            Edit(
                "f6f9e606",
                _EX1_SIGNATURE,
                "`check_backward(forward, backward,"
                " inputs, seed=0, h=1e-5)` for layers "
                "with *several\noutputs*:",
            ),
            Edit(
                "f6f9e606",
                _EX1_FORWARD,
                "- `forward(*inputs)` returns `(outs, cache)`, where `outs` is a tuple "
                "of output arrays (a\n  layer may return its normalized values or "
                "statistics beside its output);\n  `backward(douts, cache)` takes a "
                "tuple of upstream gradients, one per output, and\n  returns one "
                "gradient per input, in the order of `inputs`;",
            ),
            Edit(
                "f6f9e606",
                "- draw an upstream gradient `dout` of the output's shape with\n"
                "  `np.random.default_rng(seed).standard_normal`;",
                "- draw the upstream gradients in the"
                " order of the outputs, each of its "
                "output's shape,\n  from one generator `rng = "
                "np.random.default_rng(seed)` with `rng.standard_normal`;",
            ),
            Edit(
                "f6f9e606",
                _EX1_ESTIMATE,
                "- estimate the gradient of "
                "$\\sum_o\\langle d\\text{out}_o,\\text{out}_o\\rangle$ for every\n"
                "  input (every output contributes)"
                " with `eval_numerical_gradient_array` "
                "(centred,\n  step `h`), and return a list",
            ),
            Edit("03-ex1-solution", _BOOK_EX1_SOL, _EX1_MULTI_SOL),
            Edit("03-ex1-layernorm", _BOOK_EX1_LN, _EX1_MULTI_LN),
            Edit("03-ex1-two-inputs", _BOOK_EX1_MM, _EX1_MULTI_MM),
        ),
    ),
]


# --------------------------------------------------------------------------------------
# 03-ex2: the backward pass of a gated LayerNorm over the last k axes

_EX2_REF = """\
    gate = 1.0 / (1.0 + _E ** (-z))
    cache = {"xhat": xhat, "rstd": rstd, "gate": gate, "gamma": gamma, "k": k}
    g = dout * gamma * gate
    dx = g - g.mean(axis=pooled, keepdims=True)
    dx = (dx - xhat * (g * xhat).mean(axis=pooled, keepdims=True)) * rstd
    dz = dout * gamma * xhat * gate * (1.0 - gate)
    return cache, (dx, dz, (dout * xhat * gate).sum(axis=rows))
"""
_EX2_GIVEN = "`gated_layernorm_forward` is given below."
_EX2_FORMULA = (
    r"$$\mathbf y=\boldsymbol\gamma\odot\hat{\mathbf x}\odot s(\mathbf z),\qquad"
)

_EX2_SILU_FWD = """\
def gated_layernorm_forward(x, z, gamma, k=1, eps=1e-5):
    # y = gamma * LN(x) * silu(z), LN over the last k axes of x, no beta, where
    # silu(z) = z * sigmoid(z). x, z: same shape; gamma: x.shape[-k:]. The cache keeps
    # z and sigmoid(z) ("sig"), from which a backward pass gets the gate and its slope.
    axes = tuple(range(x.ndim - k, x.ndim))
    mu = x.mean(axis=axes, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=axes, keepdims=True)
    rstd = 1.0 / np.sqrt(var + eps)
    xhat = (x - mu) * rstd
    sig = 1.0 / (1.0 + np.exp(-z))
    out = gamma * xhat * z * sig
    cache = {"xhat": xhat, "rstd": rstd, "z": z, "sig": sig, "gamma": gamma, "k": k}
    return out, cache"""

_EX2_SILU_SOL = """\
def gated_layernorm_backward(dout, cache):
    ### BEGIN SOLUTION
    xhat, rstd, z, sig, gamma, k = (
        cache[n] for n in ("xhat", "rstd", "z", "sig", "gamma", "k")
    )
    pooled = tuple(range(dout.ndim - k, dout.ndim))  # the normalized block
    rows = tuple(range(dout.ndim - k))  # the axes gamma is shared over
    gate = z * sig  # silu(z)
    dgamma = (dout * xhat * gate).sum(axis=rows)
    dz = dout * gamma * xhat * sig * (1.0 + z * (1.0 - sig))  # silu'(z)
    g = dout * gamma * gate  # d xhat
    dx = g - g.mean(axis=pooled, keepdims=True)
    dx -= xhat * (g * xhat).mean(axis=pooled, keepdims=True)
    return dx * rstd, dz, dgamma
    ### END SOLUTION"""

_EX2_SILU_DER = r""":::{dropdown} Solution and mark scheme
Write $s=s(\mathbf z)$ for the sigmoid, $a=\mathbf z\odot s$ for the SiLU gate, and
treat the last $k$ axes of one block as a single row of $D=\prod_{a}S_a$ entries ($S$
the shape of those axes); the rows are indexed by the leading axes.

- $\boldsymbol\gamma$ is used once per row, at every position of the block:
  $d\boldsymbol\gamma=\sum_{\text{rows}}
  d\mathbf y\odot\hat{\mathbf x}\odot\mathbf z\odot s$,
  summed over the leading axes only, so it has the shape $S$ of $\boldsymbol\gamma$.
- $\mathbf z$ reaches the loss only through its own gate entry. The product rule and
  $s'=s(1-s)$ give $\frac{d}{dz}\,z\,s(z)=s+z\,s(1-s)=s\,(1+z(1-s))$, so
  $d\mathbf z=d\mathbf y\odot\boldsymbol\gamma\odot\hat{\mathbf x}\odot s\odot
  (1+\mathbf z\odot(1-s))$. Unlike the sigmoid gate this slope is not $a(1-a)$, and it
  is negative for $z$ below about $-1.28$.
- $\mathbf x$ reaches the loss only through $\hat{\mathbf x}$, with
  $d\hat{\mathbf x}=\boldsymbol\gamma\odot\mathbf z\odot s\odot d\mathbf y$. From
  $\hat{\mathbf x}$ back to $\mathbf x$ the three paths of LayerNorm are unchanged;
  pooling $k$ axes only means that the mean, the variance and the two row means in the
  formula run over all $D$ entries of the block:
  $d\mathbf x=\frac1\sigma\big(d\hat{\mathbf x}-\operatorname{mean}_S(d\hat{\mathbf x})
  -\hat{\mathbf x}\operatorname{mean}_S(d\hat{\mathbf x}\odot\hat{\mathbf x})\big)$.
  The gate does not depend on $\mathbf x$, so it only reweights the upstream gradient
  before the projection: $d\mathbf x$ is still orthogonal (per block) to $\mathbf 1$
  and, for $\epsilon=0$, to $\hat{\mathbf x}$.

Gradient check (model run): `check_backward` on shapes $(4,6)$ with $k=1$ and $(2,3,4)$
with $k=2$ gives norm-wise errors of order $10^{-10}$ for all three gradients.

**Mark scheme (4 points).** 1 pt: $d\boldsymbol\gamma$ with the SiLU gate factor, summed
over the leading axes only (shape of $\boldsymbol\gamma$). 1 pt: $d\mathbf z$ with the
SiLU slope $s(1+z(1-s))$. 1 pt: $d\mathbf x$ as the LayerNorm projection of
$\boldsymbol\gamma\odot\mathbf z\odot s\odot d\mathbf y$, with means over the $k$ pooled
axes ($D$ = product of their sizes). 1 pt: a gradient check of all three gradients on at
least two shapes and two values of $k$, errors reported and below $10^{-8}$.
:::"""

_EX2_BEFORE_FWD = """\
def gated_layernorm_forward(x, z, gamma, k=1, eps=1e-5):
    # y = gamma * LN(x * sigmoid(z)): the gate acts before the LayerNorm, whose
    # statistics pool the last k axes; no beta. x, z: same shape; gamma: x.shape[-k:].
    axes = tuple(range(x.ndim - k, x.ndim))
    gate = 1.0 / (1.0 + np.exp(-z))
    u = x * gate
    mu = u.mean(axis=axes, keepdims=True)
    var = ((u - mu) ** 2).mean(axis=axes, keepdims=True)
    rstd = 1.0 / np.sqrt(var + eps)
    uhat = (u - mu) * rstd
    out = gamma * uhat
    cache = {"x": x, "uhat": uhat, "rstd": rstd, "gate": gate, "gamma": gamma, "k": k}
    return out, cache"""

_EX2_BEFORE_SOL = """\
def gated_layernorm_backward(dout, cache):
    ### BEGIN SOLUTION
    x, uhat, rstd, gate, gamma, k = (
        cache[n] for n in ("x", "uhat", "rstd", "gate", "gamma", "k")
    )
    pooled = tuple(range(dout.ndim - k, dout.ndim))  # the normalized block
    rows = tuple(range(dout.ndim - k))  # the axes gamma is shared over
    dgamma = (dout * uhat).sum(axis=rows)
    g = dout * gamma  # d uhat
    du = g - g.mean(axis=pooled, keepdims=True)
    du = (du - uhat * (g * uhat).mean(axis=pooled, keepdims=True)) * rstd
    return du * gate, du * x * gate * (1.0 - gate), dgamma
    ### END SOLUTION"""

_EX2_BEFORE_DER = r""":::{dropdown} Solution and mark scheme
Write $s=s(\mathbf z)$ for the gate, $\mathbf u=\mathbf x\odot s$ for the gated input,
$\hat{\mathbf u}$ for its LayerNorm and $\sigma$ for its (per block) standard deviation,
and treat the last $k$ axes of one block as a single row of $D=\prod_{a}S_a$ entries.

- $\boldsymbol\gamma$ multiplies $\hat{\mathbf u}$ at every position of the block:
  $d\boldsymbol\gamma=\sum_{\text{rows}} d\mathbf y\odot\hat{\mathbf u}$, summed over
  the leading axes only (shape $S$). The gate enters only through $\hat{\mathbf u}$.
- Both inputs reach the loss only through $\mathbf u$, and from $\hat{\mathbf u}$ back
  to $\mathbf u$ the three paths of LayerNorm hold with means over the $D$ entries of
  the block:
  $d\mathbf u=\frac1\sigma\big(g-\operatorname{mean}_S(g)
  -\hat{\mathbf u}\operatorname{mean}_S(g\odot\hat{\mathbf u})\big)$ with
  $g=\boldsymbol\gamma\odot d\mathbf y$.
- Then each entry of $\mathbf u$ has two parents: $d\mathbf x=s\odot d\mathbf u$ and,
  with $s'=s(1-s)$, $d\mathbf z=\mathbf x\odot s\odot(1-s)\odot d\mathbf u$.
- The projection of {ref}`sec-03-geometry` now describes $d\mathbf u$, not $d\mathbf x$:
  $d\mathbf u$ is orthogonal (per block) to $\mathbf 1$ and, for $\epsilon=0$, to
  $\hat{\mathbf u}$. $d\mathbf x$ is $d\mathbf u$ reweighted by the gate, so it is no
  longer centred; what survives is $\langle d\mathbf x,\mathbf x\rangle=\langle d\mathbf
  u,\mathbf u\rangle=0$ for $\epsilon=0$ (the output does not change when $\mathbf x$ is
  scaled) and $\langle d\mathbf x,1/s\rangle=\langle d\mathbf u,\mathbf 1\rangle=0$ (nor
  when $\mathbf x$ moves along $1/s(\mathbf z)$).

Gradient check (model run): `check_backward` on shapes $(4,6)$ with $k=1$ and $(2,3,4)$
with $k=2$ gives norm-wise errors of order $10^{-10}$ for all three gradients.

**Mark scheme (4 points).** 1 pt:
$d\boldsymbol\gamma=\sum d\mathbf y\odot\hat{\mathbf u}$ over the leading axes only (no
gate factor). 1 pt: $d\mathbf z=\mathbf x\odot s(1-s)\odot d\mathbf u$, through the
normalization. 1 pt: $d\mathbf x=s\odot d\mathbf u$ with $d\mathbf u$ the LayerNorm
projection over the $k$ pooled axes, and the remark that the
projection describes $d\mathbf u$ ($d\mathbf x$ is not centred). 1 pt: a gradient check
of all three gradients on at least two shapes and two values of $k$, errors reported and
below $10^{-8}$.
:::"""

_EX2_BIAS_FWD = """\
def gated_layernorm_forward(x, z, gamma, beta, k=1, eps=1e-5):
    # y = (gamma * LN(x) + beta) * sigmoid(z), LN over the last k axes of x.
    # x, z: same shape; gamma, beta: x.shape[-k:]. The cache holds what a backward
    # pass needs.
    axes = tuple(range(x.ndim - k, x.ndim))
    mu = x.mean(axis=axes, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=axes, keepdims=True)
    rstd = 1.0 / np.sqrt(var + eps)
    xhat = (x - mu) * rstd
    gate = 1.0 / (1.0 + np.exp(-z))
    out = (gamma * xhat + beta) * gate
    cache = {"xhat": xhat, "rstd": rstd, "gate": gate, "gamma": gamma, "beta": beta}
    cache["k"] = k
    return out, cache"""

_EX2_BIAS_SOL = """\
def gated_layernorm_backward(dout, cache):
    ### BEGIN SOLUTION
    xhat, rstd, gate, gamma, beta, k = (
        cache[n] for n in ("xhat", "rstd", "gate", "gamma", "beta", "k")
    )
    pooled = tuple(range(dout.ndim - k, dout.ndim))  # the normalized block
    rows = tuple(range(dout.ndim - k))  # the axes gamma and beta are shared over
    dgamma = (dout * xhat * gate).sum(axis=rows)
    dbeta = (dout * gate).sum(axis=rows)
    dz = dout * (gamma * xhat + beta) * gate * (1.0 - gate)
    g = dout * gamma * gate  # d xhat
    dx = g - g.mean(axis=pooled, keepdims=True)
    dx -= xhat * (g * xhat).mean(axis=pooled, keepdims=True)
    return dx * rstd, dz, dgamma, dbeta
    ### END SOLUTION"""

_EX2_BIAS_DER = r""":::{dropdown} Solution and mark scheme
Write $s=s(\mathbf z)$ for the gate and $\mathbf n=\boldsymbol\gamma\odot\hat{\mathbf x}
+\boldsymbol\beta$ for the normalized values before the gate, and treat the last $k$
axes of one block as a single row of $D=\prod_{a}S_a$ entries ($S$ the shape of those
axes); the rows are indexed by the leading axes.

- $\boldsymbol\gamma$ and $\boldsymbol\beta$ are used once per row, at every position of
  the block, *before* the gate: $d\boldsymbol\gamma=\sum_{\text{rows}} d\mathbf y\odot
  \hat{\mathbf x}\odot s$ and $d\boldsymbol\beta=\sum_{\text{rows}} d\mathbf y\odot s$,
  summed over the leading axes only (shape $S$). The gate factor in $d\boldsymbol\beta$
  is the one that is easy to forget.
- $\mathbf z$ reaches the loss only through its own gate entry, and $s'(z)=s(1-s)$:
  $d\mathbf z=d\mathbf y\odot\mathbf n\odot s\odot(1-s)$, with the bias inside
  $\mathbf n$.
- $\mathbf x$ reaches the loss only through $\hat{\mathbf x}$ (the bias does not depend
  on it), with $d\hat{\mathbf x}=\boldsymbol\gamma\odot s\odot d\mathbf y$. From
  $\hat{\mathbf x}$ back to $\mathbf x$ the three paths of LayerNorm are unchanged, with
  means over all $D$ entries of the block:
  $d\mathbf x=\frac1\sigma\big(d\hat{\mathbf x}-\operatorname{mean}_S(d\hat{\mathbf x})
  -\hat{\mathbf x}\operatorname{mean}_S(d\hat{\mathbf x}\odot\hat{\mathbf x})\big)$.
  The gate and the bias do not change this projection: $d\mathbf x$ is still orthogonal
  (per block) to $\mathbf 1$ and, for $\epsilon=0$, to $\hat{\mathbf x}$.

Gradient check (model run): `check_backward` on shapes $(4,6)$ with $k=1$ and $(2,3,4)$
with $k=2$ gives norm-wise errors of order $10^{-10}$ for all four gradients.

**Mark scheme (4 points).** 1 pt: $d\boldsymbol\gamma$ and $d\boldsymbol\beta$, both
with the gate factor, summed over the leading axes only. 1 pt: $d\mathbf z$ with
$s(1-s)$ and the bias inside the gated value. 1 pt: $d\mathbf x$ as the LayerNorm
projection of $\boldsymbol\gamma\odot s\odot d\mathbf y$, with means over the $k$ pooled
axes. 1 pt: a gradient check of all four gradients on at least two shapes and two values
of $k$, errors reported and below $10^{-8}$.
:::"""

# The bias variant's grade cells, whole: every call passes beta, four gradients.
_EX2_BIAS_VISIBLE = """\
# Visible test: the chapter's gradient check on one seeded problem, (4, 6) with k = 1.
_rng = _np.random.default_rng(321)
_x, _z = _rng.standard_normal((4, 6)), _rng.standard_normal((4, 6))
_gamma, _dout = _rng.standard_normal(6), _rng.standard_normal((4, 6))
_beta = _rng.standard_normal(6)
_out, _cache = gated_layernorm_forward(_x, _z, _gamma, _beta, k=1)
_got = gated_layernorm_backward(_dout, _cache)
"""

_EX2_BIAS_LOOP = """\
for _shape, _k in [((5, 4), 1), ((2, 3, 4), 2), ((2, 2, 3, 4), 1), ((3, 2, 4), 3)]:
    _x = 2 * _rng.standard_normal(_shape) + _rng.uniform(-3, 3)
    _z = 2 * _rng.standard_normal(_shape)
    _gamma = _rng.standard_normal(_shape[len(_shape) - _k :])
    _beta = _rng.standard_normal(_shape[len(_shape) - _k :])
    _dout = _rng.standard_normal(_shape)
    _cache, _ref = _gated_reference(_x, _z, _gamma, _beta, _k, _dout)
    _got = _call_without(_FORBIDDEN, gated_layernorm_backward, _dout, _cache)
    assert len(_got) == 4, f"expected (dx, dz, dgamma, dbeta), got {len(_got)} values"
"""

_EX2_BIAS_DX = (
    "import numpy as _np\n\n"
    + _EX2_BIAS_VISIBLE
    + """\
_f = lambda t: gated_layernorm_forward(t, _z, _gamma, _beta)[0]
_num = eval_numerical_gradient_array(_f, _x.copy(), _dout)
_err = normwise_error(_num, _got[0])
assert _err < 1e-8, (
    f"dx: norm-wise error {_err:.1e} against finite differences, expected < 1e-8"
)

### BEGIN HIDDEN TESTS
# the chapter's backward passes and finite differences are unavailable while the
# student's function runs (autograd too, by the harness)
_FORBIDDEN = (
    "layernorm_backward",
    "layernorm_backward_staged",
    "layernorm_backward_naive",
    "torch_layernorm_grads",
    "eval_numerical_gradient_array",
    "check_backward",
)

_E = 2.718281828459045  # e, as a literal: np.e could be rebound


def _gated_reference(x, z, gamma, beta, k, dout, eps=1e-5):
    pooled = tuple(range(x.ndim - k, x.ndim))
    rows = tuple(range(x.ndim - k))
    c = x - x.mean(axis=pooled, keepdims=True)
    rstd = 1.0 / ((c * c).mean(axis=pooled, keepdims=True) + eps) ** 0.5
    xhat = c * rstd
    gate = 1.0 / (1.0 + _E ** (-z))
    cache = {"xhat": xhat, "rstd": rstd, "gate": gate, "gamma": gamma, "beta": beta}
    cache["k"] = k
    g = dout * gamma * gate
    dx = g - g.mean(axis=pooled, keepdims=True)
    dx = (dx - xhat * (g * xhat).mean(axis=pooled, keepdims=True)) * rstd
    dz = dout * (gamma * xhat + beta) * gate * (1.0 - gate)
    dgamma = (dout * xhat * gate).sum(axis=rows)
    return cache, (dx, dz, dgamma, (dout * gate).sum(axis=rows))


_rng = _np.random.default_rng(3211)
"""
    + _EX2_BIAS_LOOP
    + """\
    _compare(f"dx for shape {_shape}, k = {_k}", _got[0], _ref[0], 1e-12)
### END HIDDEN TESTS

print("dx: all tests passed")"""
)

_EX2_BIAS_DZ = (
    _EX2_BIAS_VISIBLE
    + """\
_f = lambda t: gated_layernorm_forward(_x, t, _gamma, _beta)[0]
_num = eval_numerical_gradient_array(_f, _z.copy(), _dout)
_err = normwise_error(_num, _got[1])
assert _err < 1e-8, (
    f"dz: norm-wise error {_err:.1e} against finite differences, expected < 1e-8"
)

### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(3212)
"""
    + _EX2_BIAS_LOOP
    + """\
    _compare(f"dz for shape {_shape}, k = {_k}", _got[1], _ref[1], 1e-12)
### END HIDDEN TESTS

print("dz: all tests passed")"""
)

_EX2_BIAS_DG = (
    _EX2_BIAS_VISIBLE
    + """\
for _i, _name, _f, _a in [
    (2, "dgamma", lambda t: gated_layernorm_forward(_x, _z, t, _beta)[0], _gamma),
    (3, "dbeta", lambda t: gated_layernorm_forward(_x, _z, _gamma, t)[0], _beta),
]:
    _err = normwise_error(eval_numerical_gradient_array(_f, _a.copy(), _dout), _got[_i])
    assert _err < 1e-8, f"{_name}: norm-wise error {_err:.1e}, expected < 1e-8"

### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(3213)
"""
    + _EX2_BIAS_LOOP
    + """\
    _compare(f"dgamma for shape {_shape}, k = {_k}", _got[2], _ref[2], 1e-12)
    _compare(f"dbeta for shape {_shape}, k = {_k}", _got[3], _ref[3], 1e-12)
### END HIDDEN TESTS

print("dgamma, dbeta: all tests passed")"""
)

_EX2_VARIANTS = [
    Variant(
        "silu-gate",
        "backward pass of LayerNorm over the last"
        " k axes times a SiLU gate z*sigmoid(z)",
        (
            Edit(
                "de22df8a",
                "and a sigmoid gate:",
                "and a SiLU gate $\\mathbf z\\odot"
                " s(\\mathbf z)$ (the gate of Mamba-style "
                "gated\nnormalizations), with $s$ the sigmoid:",
            ),
            Edit(
                "de22df8a",
                _EX2_FORMULA,
                r"$$\mathbf y=\boldsymbol\gamma\odot\hat{\mathbf x}\odot\mathbf z\odot "
                r"s(\mathbf z),\qquad",
            ),
            Edit(
                "de22df8a",
                _EX2_GIVEN,
                "`gated_layernorm_forward` is given"
                " below; its cache keeps $\\mathbf z$ "
                'and $s(\\mathbf z)$\n(keys `"z"` and `"sig"`) instead of the gate.',
            ),
            Edit("03-gated-forward-readonly", _BOOK_EX2_FWD, _EX2_SILU_FWD),
            Edit("03-ex2-derivation", _BOOK_EX2_DER, _EX2_SILU_DER),
            Edit("03-ex2-solution", _BOOK_EX2_SOL, _EX2_SILU_SOL),
            Edit(
                "03-ex2-dx",
                _EX2_REF,
                """\
    sig = 1.0 / (1.0 + _E ** (-z))
    gate = z * sig
    cache = {"xhat": xhat, "rstd": rstd, "z": z, "sig": sig, "gamma": gamma, "k": k}
    g = dout * gamma * gate
    dx = g - g.mean(axis=pooled, keepdims=True)
    dx = (dx - xhat * (g * xhat).mean(axis=pooled, keepdims=True)) * rstd
    dz = dout * gamma * xhat * (sig + z * sig * (1.0 - sig))
    return cache, (dx, dz, (dout * xhat * gate).sum(axis=rows))
""",
            ),
        ),
    ),
    Variant(
        "gate-before-norm",
        "backward pass of gamma * LN(x * sigmoid(z)): the gate acts before the norm",
        (
            Edit(
                "de22df8a",
                "multiplies the normalized values by a gate",
                "multiplies values by a gate",
            ),
            Edit(
                "de22df8a",
                "statistics pool the last $k$ axes of $\\mathbf x$",
                "statistics pool the last $k$ axes of its input",
            ),
            Edit(
                "de22df8a",
                "and a sigmoid gate:",
                "and a sigmoid gate that acts *before* the normalization (the order "
                "Mamba-2 calls\n`norm_before_gate=False`):",
            ),
            Edit(
                "de22df8a",
                _EX2_FORMULA,
                r"$$\mathbf u=\mathbf x\odot s(\mathbf z),\qquad"
                r"\mathbf y=\boldsymbol\gamma\odot\hat{\mathbf u},\qquad",
            ),
            Edit(
                "de22df8a",
                _EX2_GIVEN,
                "`gated_layernorm_forward` is given below ($\\hat{\\mathbf u}$ is the "
                'LayerNorm of\n$\\mathbf u$, cached as `"uhat"`).',
            ),
            Edit(
                "de22df8a",
                "and why\n   the projection of {ref}`sec-03-geometry` still describes "
                "$d\\mathbf x$.",
                "and which\n   gradient the projection of {ref}`sec-03-geometry` "
                "describes now.",
            ),
            Edit("03-gated-forward-readonly", _BOOK_EX2_FWD, _EX2_BEFORE_FWD),
            Edit("03-ex2-derivation", _BOOK_EX2_DER, _EX2_BEFORE_DER),
            Edit("03-ex2-solution", _BOOK_EX2_SOL, _EX2_BEFORE_SOL),
            Edit(
                "03-ex2-dx",
                """\
    c = x - x.mean(axis=pooled, keepdims=True)
    rstd = 1.0 / ((c * c).mean(axis=pooled, keepdims=True) + eps) ** 0.5
    xhat = c * rstd
"""
                + _EX2_REF,
                """\
    gate = 1.0 / (1.0 + _E ** (-z))
    u = x * gate
    c = u - u.mean(axis=pooled, keepdims=True)
    rstd = 1.0 / ((c * c).mean(axis=pooled, keepdims=True) + eps) ** 0.5
    uhat = c * rstd
    cache = {"x": x, "uhat": uhat, "rstd": rstd, "gate": gate, "gamma": gamma, "k": k}
    g = dout * gamma
    du = g - g.mean(axis=pooled, keepdims=True)
    du = (du - uhat * (g * uhat).mean(axis=pooled, keepdims=True)) * rstd
    dz = du * x * gate * (1.0 - gate)
    return cache, (du * gate, dz, (dout * uhat).sum(axis=rows))
""",
            ),
        ),
    ),
    Variant(
        "bias-in-gate",
        "backward pass of (gamma * LN(x) + beta) * sigmoid(z): four gradients",
        (
            Edit(
                "de22df8a", "Take a bias-free LayerNorm", "Take a LayerNorm with a bias"
            ),
            Edit(
                "de22df8a",
                _EX2_FORMULA,
                r"$$\mathbf y=(\boldsymbol\gamma\odot\hat{\mathbf x}+\boldsymbol\beta)"
                r"\odot s(\mathbf z),\qquad",
            ),
            Edit(
                "de22df8a",
                "with $\\boldsymbol\\gamma$ of the shape",
                "with $\\boldsymbol\\gamma$ and $\\boldsymbol\\beta$ of the shape",
            ),
            Edit(
                "de22df8a",
                _EX2_GIVEN,
                "`gated_layernorm_forward(x, z, gamma, beta, k, eps)` is given below.",
            ),
            Edit(
                "de22df8a",
                "**Derive** $d\\mathbf x$, $d\\mathbf z$ and $d\\boldsymbol\\gamma$",
                "**Derive** $d\\mathbf x$, $d\\mathbf z$, $d\\boldsymbol\\gamma$ and "
                "$d\\boldsymbol\\beta$",
            ),
            Edit(
                "de22df8a",
                "(dx, dz, dgamma)`, vectorized, for\n   any number",
                "(dx, dz, dgamma, dbeta)`,\n   vectorized, for any number",
            ),
            Edit("03-gated-forward-readonly", _BOOK_EX2_FWD, _EX2_BIAS_FWD),
            Edit("03-ex2-derivation", _BOOK_EX2_DER, _EX2_BIAS_DER),
            Edit("03-ex2-solution", _BOOK_EX2_SOL, _EX2_BIAS_SOL),
            Edit("03-ex2-dx", _BOOK_EX2_DX, _EX2_BIAS_DX),
            Edit("03-ex2-dz", _BOOK_EX2_DZ, _EX2_BIAS_DZ),
            Edit("03-ex2-dgamma", _BOOK_EX2_DG, _EX2_BIAS_DG),
        ),
    ),
]


# --------------------------------------------------------------------------------------
# 03-ex3: bug hunt. Each variant is another layer's backward pass with two other planted
# bugs that the colleague's check cannot see; the fixed function changes with the layer.

_EX3_COLLEAGUE = (
    "A colleague wrote `layernorm_backward_buggy` (below) for the cache of "
    "{doc}`02-layernorm` and checked\nit;"
)
_EX3_FIXED = (
    "2. Write `layernorm_backward_fixed(dout, cache)` with the same interface, "
    "correct for inputs\n   of shape $(N,D)$ and $(B,T,D)$."
)
_EX3_FORBIDDEN = """\
### BEGIN HIDDEN TESTS
# the chapter's backward passes and finite differences are unavailable while the
# student's function runs (autograd too, by the harness)
_FORBIDDEN = (
    "layernorm_backward",
    "layernorm_backward_staged",
    "layernorm_backward_naive",
    "torch_layernorm_grads",
    "eval_numerical_gradient_array",
    "check_backward",
)
"""

# -- RMSNorm, checked on one row -------------------------------------------------------

_EX3_RMS_BUG = """\
def rmsnorm_forward(x, gamma, eps=1e-5):
    # RMSNorm over the last axis: no centring, no bias; gamma: shape (D,).
    rstd = 1.0 / np.sqrt((x**2).mean(axis=-1, keepdims=True) + eps)
    xhat = x * rstd
    cache = {"x": x, "xhat": xhat, "rstd": rstd, "gamma": gamma, "eps": eps}
    return gamma * xhat, cache


def rmsnorm_backward_buggy(dout, cache):
    xhat, rstd, gamma = cache["xhat"], cache["rstd"], cache["gamma"]
    rows = tuple(range(dout.ndim - 1))
    dgamma = (dout * xhat).mean(axis=rows)
    dxhat = dout * gamma
    proj = (dxhat * xhat).sum(axis=-1, keepdims=True) / dout.size
    dx = (dxhat - xhat * proj) * rstd
    return dx, dgamma


# The colleague's check: one problem of shape (1, 8), both gradients.
x, gamma, _, dout = make_problem((1, 8), "randn", 2024)
dx, dgamma = rmsnorm_backward_buggy(dout, rmsnorm_forward(x, gamma)[1])
checks = [
    (dx, lambda t: rmsnorm_forward(t, gamma)[0], x),
    (dgamma, lambda t: rmsnorm_forward(x, t)[0], gamma),
]
passed = [
    normwise_error(eval_numerical_gradient_array(f, a, dout), g) < 1e-8
    for g, f, a in checks
]
print("colleague's check, dx / dgamma below 1e-8:", passed)"""

_EX3_RMS_DIAG = r""":::{dropdown} Solution and mark scheme
**Bug 1, the projection of `dx`:** `(dxhat * xhat).sum(axis=-1, keepdims=True) /
dout.size` divides each row's sum by the number of entries of the *whole batch*,
$N\cdot D$ (or $B\cdot T\cdot D$), instead of by the row length $D$: the coefficient of
$\hat{\mathbf x}$ is $N$ times too small, so the gradient keeps a component along
$\hat{\mathbf x}$ that RMSNorm projects away. With a single row `dout.size` *is* $D$, so
a $(1,D)$ check cannot see it; a $(4,8)$ check gives a norm-wise error of order
$10^{-1}$. Fix: `.mean(axis=-1, keepdims=True)` (or divide by `dout.shape[-1]`).

**Bug 2, `dgamma`:** `mean(axis=rows)` averages the per-row contributions instead of
summing them, so `dgamma` is $N$ (or $B\cdot T$) times too small; its shape is right, so
only its values betray it. With one row the mean of one term is the sum. Fix:
`.sum(axis=rows)`.

**Why the check missed both:** it used a single row, the one batch in which "divide by
the batch's size" and "divide by $D$", and "average over the rows" and "sum over the
rows", coincide. The recipe's step (5), several shapes including batches of more than
one row (and a $(B,T,D)$ tensor), finds both.

**Mark scheme (3 points).** 1 pt: bug 1 located and explained (division by the batch's
number of entries instead of $D$ in the projection term of `dx`). 1 pt: bug 2 located
and explained (mean instead of sum over the rows: `dgamma` too small by the number of
rows). 1 pt: why the one-row check could not see either, and a check that does (more
than one row).
:::"""

_EX3_RMS_SOL = """\
def rmsnorm_backward_fixed(dout, cache):
    ### BEGIN SOLUTION
    xhat, rstd, gamma = cache["xhat"], cache["rstd"], cache["gamma"]
    rows = tuple(range(dout.ndim - 1))
    dgamma = (dout * xhat).sum(axis=rows)
    dxhat = dout * gamma
    dx = dxhat - xhat * (dxhat * xhat).mean(axis=-1, keepdims=True)
    return dx * rstd, dgamma
    ### END SOLUTION"""

_EX3_RMS_VISIBLE = """\
# Visible test: the chapter's gradient check on one seeded (4, 8) problem.
_x, _gamma, _, _dout = make_problem((4, 8), "5*randn+12", 331)
_got = rmsnorm_backward_fixed(_dout, rmsnorm_forward(_x, _gamma)[1])
"""

_EX3_RMS_LOOP = """\
for _shape in [(5, 6), (2, 3, 4), (4, 3, 5), (1, 2, 7)]:
    _x = 3 * _rng.standard_normal(_shape) + _rng.uniform(-5, 5)
    _gamma, _dout = _rng.standard_normal(_shape[-1]), _rng.standard_normal(_shape)
    _cache, _ref = _rms_reference(_x, _gamma, _dout, 1e-5)
    _got = _call_without(_FORBIDDEN, rmsnorm_backward_fixed, _dout, _cache)
    assert len(_got) == 2, f"expected (dx, dgamma), got {len(_got)} values"

"""

_EX3_RMS_DX = (
    "import numpy as _np\n\n"
    + _EX3_RMS_VISIBLE
    + """\
_num = eval_numerical_gradient_array(
    lambda t: rmsnorm_forward(t, _gamma)[0], _x.copy(), _dout
)
_err = normwise_error(_num, _got[0])
assert _err < 1e-8, (
    f"dx: norm-wise error {_err:.1e} against finite differences, expected < 1e-8"
)

"""
    + _EX3_FORBIDDEN
    + """\


def _rms_reference(x, gamma, dout, eps):
    rows = tuple(range(x.ndim - 1))
    rstd = 1.0 / ((x * x).mean(axis=-1, keepdims=True) + eps) ** 0.5
    xhat = x * rstd
    cache = {"x": x, "xhat": xhat, "rstd": rstd, "gamma": gamma, "eps": eps}
    g = dout * gamma
    dx = (g - xhat * (g * xhat).mean(axis=-1, keepdims=True)) * rstd
    return cache, (dx, (dout * xhat).sum(axis=rows))


_rng = _np.random.default_rng(3311)
"""
    + _EX3_RMS_LOOP
    + """\
    _compare(f"dx for shape {_shape}", _got[0], _ref[0], 1e-12)
### END HIDDEN TESTS
print("dx: all tests passed")"""
)

_EX3_RMS_DP = (
    _EX3_RMS_VISIBLE
    + """\
_f = lambda t: rmsnorm_forward(_x, t)[0]
_err = normwise_error(eval_numerical_gradient_array(_f, _gamma.copy(), _dout), _got[1])
assert _err < 1e-8, f"dgamma: norm-wise error {_err:.1e}, expected < 1e-8"

### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(3312)
"""
    + _EX3_RMS_LOOP
    + """\
    _compare(f"dgamma for shape {_shape}", _got[1], _ref[1], 1e-12)
### END HIDDEN TESTS
print("dgamma: all tests passed")"""
)

# -- channels-first LayerNorm, checked on a 2-D input ----------------------------------

_EX3_CF_BUG = """\
def layernorm_cf_forward(x, gamma, beta, eps=1e-5):
    # LayerNorm over axis 1 (the channels) of x of shape (N, C, ...), at every
    # position; gamma, beta: shape (C,). rstd in the cache: shape (N, 1, ...).
    per_channel = (-1,) + (1,) * (x.ndim - 2)  # (C,) -> (C, 1, ..., 1)
    mu = x.mean(axis=1, keepdims=True)
    rstd = 1.0 / np.sqrt(((x - mu) ** 2).mean(axis=1, keepdims=True) + eps)
    xhat = (x - mu) * rstd
    out = gamma.reshape(per_channel) * xhat + beta.reshape(per_channel)
    return out, {"x": x, "xhat": xhat, "rstd": rstd, "gamma": gamma, "eps": eps}


def layernorm_cf_backward_buggy(dout, cache):
    xhat, rstd, gamma = cache["xhat"], cache["rstd"], cache["gamma"]
    dbeta = dout.sum(axis=0)
    dgamma = (dout * xhat).sum(axis=0)
    dxhat = dout * gamma.reshape((-1,) + (1,) * (dout.ndim - 2))
    dx = (
        dxhat
        - dxhat.mean(axis=-1, keepdims=True)
        - xhat * (dxhat * xhat).mean(axis=-1, keepdims=True)
    ) * rstd
    return dx, dgamma, dbeta


# The colleague's check: a batch of N = 4 samples with C = 8 channels, shape (4, 8).
x, gamma, beta, dout = make_problem((4, 8), "randn", 2024)
dx, dgamma, dbeta = layernorm_cf_backward_buggy(
    dout, layernorm_cf_forward(x, gamma, beta)[1]
)
checks = [
    (dx, lambda t: layernorm_cf_forward(t, gamma, beta)[0], x),
    (dgamma, lambda t: layernorm_cf_forward(x, t, beta)[0], gamma),
    (dbeta, lambda t: layernorm_cf_forward(x, gamma, t)[0], beta),
]
passed = [
    normwise_error(eval_numerical_gradient_array(f, a, dout), g) < 1e-8
    for g, f, a in checks
]
print("colleague's check, dx / dgamma / dbeta below 1e-8:", passed)"""

_EX3_CF_DIAG = r""":::{dropdown} Solution and mark scheme
**Bug 1, the two means of `dx`:** `mean(axis=-1, ...)` averages over the *last* axis,
but the statistics of this layer run over the channel axis 1. For an input $(N,C,L)$ it
projects each channel's sequence instead of each position's channel vector: the result
is wrong (norm-wise error of order $1$), and no error is raised, because both means keep
dimensions that broadcast. Fix: `.mean(axis=1, keepdims=True)` in both terms.

**Bug 2, the parameter gradients:** `sum(axis=0)` sums over the batch axis only, but
$\boldsymbol\gamma$ and $\boldsymbol\beta$ are shared by every sample *and every
position*: for $(N,C,L)$ it returns arrays of shape $(C,L)$ instead of $(C,)$, the
per-position gradients never summed over $L$. Fix: sum over every axis but 1,
`(0, *range(2, dout.ndim))`.

**Why the check missed both:** it used a 2-D input $(N,C)$, which has no spatial axes.
There the last axis *is* the channel axis and axis 0 is every axis but the channel axis,
so both wrong reductions coincide with the right ones. The recipe's step (5), several
shapes, here inputs with one or two spatial axes such as $(2,4,3)$ and $(2,4,3,2)$,
finds both.

**Mark scheme (3 points).** 1 pt: bug 1 located and explained (means over the last axis
instead of the channel axis 1 in `dx`). 1 pt: bug 2 located and explained (sum over axis
0 only; shape $(C,L)$ instead of $(C,)$ for inputs with spatial axes). 1 pt: why the 2-D
check could not see either, and a check that does (an input with spatial axes).
:::"""

_EX3_CF_SOL = """\
def layernorm_cf_backward_fixed(dout, cache):
    ### BEGIN SOLUTION
    xhat, rstd, gamma = cache["xhat"], cache["rstd"], cache["gamma"]
    others = (0, *range(2, dout.ndim))  # every axis but the channel axis 1
    dbeta = dout.sum(axis=others)
    dgamma = (dout * xhat).sum(axis=others)
    dxhat = dout * gamma.reshape((-1,) + (1,) * (dout.ndim - 2))
    dx = dxhat - dxhat.mean(axis=1, keepdims=True)
    dx -= xhat * (dxhat * xhat).mean(axis=1, keepdims=True)
    return dx * rstd, dgamma, dbeta
    ### END SOLUTION"""

_EX3_CF_VISIBLE = """\
# Visible test: the chapter's gradient check on one seeded (2, 4, 3) problem
# (N = 2 samples, C = 4 channels, L = 3 positions).
_rng = _np.random.default_rng(331)
_x = 5 * _rng.standard_normal((2, 4, 3)) + 12
_gamma, _beta = _rng.standard_normal(4), _rng.standard_normal(4)
_dout = _rng.standard_normal((2, 4, 3))
_got = layernorm_cf_backward_fixed(_dout, layernorm_cf_forward(_x, _gamma, _beta)[1])
"""

_EX3_CF_LOOP = """\
for _shape in [(5, 6), (2, 3, 4), (4, 3, 5), (2, 4, 3, 2), (1, 2, 7)]:
    _x = 3 * _rng.standard_normal(_shape) + _rng.uniform(-5, 5)
    _gamma, _dout = _rng.standard_normal(_shape[1]), _rng.standard_normal(_shape)
    _cache, _ref = _cf_reference(_x, _gamma, _dout, 1e-5)
    _got = _call_without(_FORBIDDEN, layernorm_cf_backward_fixed, _dout, _cache)
    assert len(_got) == 3, f"expected (dx, dgamma, dbeta), got {len(_got)} values"

"""

_EX3_CF_DX = (
    "import numpy as _np\n\n"
    + _EX3_CF_VISIBLE
    + """\
_num = eval_numerical_gradient_array(
    lambda t: layernorm_cf_forward(t, _gamma, _beta)[0], _x.copy(), _dout
)
_err = normwise_error(_num, _got[0])
assert _err < 1e-8, (
    f"dx: norm-wise error {_err:.1e} against finite differences, expected < 1e-8"
)

"""
    + _EX3_FORBIDDEN
    + """\


def _cf_reference(x, gamma, dout, eps):
    others = (0,) + tuple(range(2, x.ndim))
    g = dout * gamma.reshape((-1,) + (1,) * (x.ndim - 2))
    c = x - x.mean(axis=1, keepdims=True)
    rstd = 1.0 / ((c * c).mean(axis=1, keepdims=True) + eps) ** 0.5
    xhat = c * rstd
    cache = {"x": x, "xhat": xhat, "rstd": rstd, "gamma": gamma, "eps": eps}
    dx = g - g.mean(axis=1, keepdims=True)
    dx = dx - xhat * (g * xhat).mean(axis=1, keepdims=True)
    return cache, (dx * rstd, (dout * xhat).sum(axis=others), dout.sum(axis=others))


_rng = _np.random.default_rng(3311)
"""
    + _EX3_CF_LOOP
    + """\
    _compare(f"dx for shape {_shape}", _got[0], _ref[0], 1e-12)
### END HIDDEN TESTS
print("dx: all tests passed")"""
)

_EX3_CF_DP = (
    _EX3_CF_VISIBLE
    + """\
for _i, _name, _f, _a in [
    (1, "dgamma", lambda t: layernorm_cf_forward(_x, t, _beta)[0], _gamma),
    (2, "dbeta", lambda t: layernorm_cf_forward(_x, _gamma, t)[0], _beta),
]:
    _err = normwise_error(eval_numerical_gradient_array(_f, _a.copy(), _dout), _got[_i])
    assert _err < 1e-8, f"{_name}: norm-wise error {_err:.1e}, expected < 1e-8"

### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(3312)
"""
    + _EX3_CF_LOOP
    + """\
    _compare(f"dgamma for shape {_shape}", _got[1], _ref[1], 1e-12)
    _compare(f"dbeta for shape {_shape}", _got[2], _ref[2], 1e-12)
### END HIDDEN TESTS
print("dgamma, dbeta: all tests passed")"""
)

# -- zero-centred gain (1 + gamma), checked at initialization --------------------------

_EX3_1P_BUG = """\
def layernorm_1p_forward(x, gamma, beta, eps=1e-5):
    # LayerNorm over the last axis with a zero-centred gain: out = (1 + gamma) * xhat
    # + beta, so that gamma = 0, its initial value, is the identity gain.
    mu = x.mean(axis=-1, keepdims=True)
    rstd = 1.0 / np.sqrt(((x - mu) ** 2).mean(axis=-1, keepdims=True) + eps)
    xhat = (x - mu) * rstd
    out = (1.0 + gamma) * xhat + beta
    return out, {"x": x, "xhat": xhat, "rstd": rstd, "gamma": gamma, "eps": eps}


def layernorm_1p_backward_buggy(dout, cache):
    xhat, rstd, gamma = cache["xhat"], cache["rstd"], cache["gamma"]
    rows = tuple(range(dout.ndim - 1))
    dbeta = dout.sum(axis=rows)
    dgamma = (dout * xhat * (1.0 + gamma)).sum(axis=rows)
    dxhat = dout
    dx = (
        dxhat
        - dxhat.mean(axis=-1, keepdims=True)
        - xhat * (dxhat * xhat).mean(axis=-1, keepdims=True)
    ) * rstd
    return dx, dgamma, dbeta


# The colleague's check: the layer as initialized (gamma = beta = 0), on a batch of
# shape (4, 8) and on a (2, 3, 8) tensor, all three gradients.
passed = []
for shape in [(4, 8), (2, 3, 8)]:
    x, _, _, dout = make_problem(shape, "randn", 2024)
    gamma, beta = np.zeros(8), np.zeros(8)
    dx, dgamma, dbeta = layernorm_1p_backward_buggy(
        dout, layernorm_1p_forward(x, gamma, beta)[1]
    )
    checks = [
        (dx, lambda t: layernorm_1p_forward(t, gamma, beta)[0], x),
        (dgamma, lambda t: layernorm_1p_forward(x, t, beta)[0], gamma),
        (dbeta, lambda t: layernorm_1p_forward(x, gamma, t)[0], beta),
    ]
    passed += [
        normwise_error(eval_numerical_gradient_array(f, a, dout), g) < 1e-8
        for g, f, a in checks
    ]
print("colleague's check, dx / dgamma / dbeta below 1e-8, two shapes:", passed)"""

_EX3_1P_DIAG = r""":::{dropdown} Solution and mark scheme
**Bug 1, the gain in `dx`:** `dxhat = dout` drops the gain: since
$y_i=(1+\gamma_i)\hat x_i+\beta_i$, the gradient reaching $\hat{\mathbf x}$ is
$d\hat{\mathbf x}=(1+\boldsymbol\gamma)\odot d\mathbf y$. The result is `dx` for the
gain $1$, whatever $\boldsymbol\gamma$ is. Fix: `dxhat = dout * (1.0 + gamma)`.

**Bug 2, `dgamma`:** `(dout * xhat * (1.0 + gamma))` multiplies by the gain, as if the
gain's value entered its own derivative. $\partial y_i/\partial\gamma_i=\hat x_i$ (the
derivative of $1+\gamma_i$ is $1$), so `dgamma` $=\sum_{\text{rows}}d\mathbf y\odot
\hat{\mathbf x}$. Fix: drop the factor.

**Why the check missed both:** it checked the layer as initialized, at
$\boldsymbol\gamma=\mathbf 0$, where the gain $1+\boldsymbol\gamma$ is exactly $1$: a
forgotten factor $1+\gamma_i$ and a spurious one both multiply by $1$ there. More shapes
do not help (the check already had a batch and a 3-D input); a check at a random
$\boldsymbol\gamma$ (the recipe's step (5): several inputs, not only special values)
shows errors of order $10^{-1}$ in `dx` and `dgamma`. Bugs that vanish at the initial
parameters also escape a check of the first training step.

**Mark scheme (3 points).** 1 pt: bug 1 located and explained (gain $1+\gamma$ missing
from $d\hat{\mathbf x}$). 1 pt: bug 2 located and explained (spurious factor $1+\gamma$
in `dgamma`). 1 pt: why the check at $\boldsymbol\gamma=\mathbf 0$ could not see either,
and a check that does (random, nonzero $\boldsymbol\gamma$).
:::"""

_EX3_1P_SOL = """\
def layernorm_1p_backward_fixed(dout, cache):
    ### BEGIN SOLUTION
    xhat, rstd, gamma = cache["xhat"], cache["rstd"], cache["gamma"]
    rows = tuple(range(dout.ndim - 1))
    dbeta = dout.sum(axis=rows)
    dgamma = (dout * xhat).sum(axis=rows)
    dxhat = dout * (1.0 + gamma)
    dx = dxhat - dxhat.mean(axis=-1, keepdims=True)
    dx -= xhat * (dxhat * xhat).mean(axis=-1, keepdims=True)
    return dx * rstd, dgamma, dbeta
    ### END SOLUTION"""

_EX3_1P_VISIBLE = """\
# Visible test: the chapter's gradient check on one seeded (4, 8) problem.
_x, _gamma, _beta, _dout = make_problem((4, 8), "5*randn+12", 331)
_cache = layernorm_1p_forward(_x, _gamma, _beta)[1]
_got = layernorm_1p_backward_fixed(_dout, _cache)
"""

_EX3_1P_LOOP = """\
for _shape in [(5, 6), (2, 3, 4), (4, 3, 5), (1, 2, 7)]:
    _x = 3 * _rng.standard_normal(_shape) + _rng.uniform(-5, 5)
    _gamma, _dout = _rng.standard_normal(_shape[-1]), _rng.standard_normal(_shape)
    _cache, _ref = _ln1p_reference(_x, _gamma, _dout, 1e-5)
    _got = _call_without(_FORBIDDEN, layernorm_1p_backward_fixed, _dout, _cache)
    assert len(_got) == 3, f"expected (dx, dgamma, dbeta), got {len(_got)} values"

"""

_EX3_1P_DX = (
    "import numpy as _np\n\n"
    + _EX3_1P_VISIBLE
    + """\
_num = eval_numerical_gradient_array(
    lambda t: layernorm_1p_forward(t, _gamma, _beta)[0], _x.copy(), _dout
)
_err = normwise_error(_num, _got[0])
assert _err < 1e-8, (
    f"dx: norm-wise error {_err:.1e} against finite differences, expected < 1e-8"
)

"""
    + _EX3_FORBIDDEN
    + """\


def _ln1p_reference(x, gamma, dout, eps):
    rows = tuple(range(x.ndim - 1))
    c = x - x.mean(axis=-1, keepdims=True)
    rstd = 1.0 / ((c * c).mean(axis=-1, keepdims=True) + eps) ** 0.5
    xhat = c * rstd
    cache = {"x": x, "xhat": xhat, "rstd": rstd, "gamma": gamma, "eps": eps}
    g = dout * (1.0 + gamma)
    dx = (
        g
        - g.mean(axis=-1, keepdims=True)
        - xhat * (g * xhat).mean(axis=-1, keepdims=True)
    )
    return cache, (dx * rstd, (dout * xhat).sum(axis=rows), dout.sum(axis=rows))


_rng = _np.random.default_rng(3311)
"""
    + _EX3_1P_LOOP
    + """\
    _compare(f"dx for shape {_shape}", _got[0], _ref[0], 1e-12)
### END HIDDEN TESTS
print("dx: all tests passed")"""
)

_EX3_1P_DP = (
    _EX3_1P_VISIBLE
    + """\
for _i, _name, _f, _a in [
    (1, "dgamma", lambda t: layernorm_1p_forward(_x, t, _beta)[0], _gamma),
    (2, "dbeta", lambda t: layernorm_1p_forward(_x, _gamma, t)[0], _beta),
]:
    _err = normwise_error(eval_numerical_gradient_array(_f, _a.copy(), _dout), _got[_i])
    assert _err < 1e-8, f"{_name}: norm-wise error {_err:.1e}, expected < 1e-8"

### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(3312)
"""
    + _EX3_1P_LOOP
    + """\
    _compare(f"dgamma for shape {_shape}", _got[1], _ref[1], 1e-12)
    _compare(f"dbeta for shape {_shape}", _got[2], _ref[2], 1e-12)
### END HIDDEN TESTS
print("dgamma, dbeta: all tests passed")"""
)


def _ex3(name, summary, colleague, fixed, bug, diag, sol, dx, dparams):
    return Variant(
        name,
        summary,
        (
            Edit("76a17626", _EX3_COLLEAGUE, colleague),
            Edit("76a17626", _EX3_FIXED, fixed),
            Edit("03-bug-hunt-readonly", _BOOK_EX3_BUG, bug),
            Edit("03-ex3-diagnosis", _BOOK_EX3_DIAG, diag),
            Edit("03-ex3-solution", _BOOK_EX3_SOL, sol),
            Edit("03-ex3-dx", _BOOK_EX3_DX, dx),
            Edit("03-ex3-dparams", _BOOK_EX3_DP, dparams),
        ),
    )


_EX3_VARIANTS = [
    _ex3(
        "rmsnorm-one-row",
        "fix an RMSNorm backward pass (batch-size"
        " divisor, mean over rows) checked on 1 row",
        "A colleague wrote `rmsnorm_backward_buggy` (below), the backward pass of the "
        "RMSNorm\n`rmsnorm_forward` beside it"
        " ($\\hat x_i=x_i/\\sqrt{\\operatorname{mean}"
        "(\\mathbf x^2)+\\epsilon}$,\n$y_i=\\gamma_i\\hat"
        " x_i$: no centring, no bias; its "
        "cache has the keys of {doc}`02-layernorm`'s\nthat apply), and checked it;",
        "2. Write `rmsnorm_backward_fixed(dout, cache) -> (dx, dgamma)` with the same "
        "interface,\n   correct for inputs of shape $(N,D)$ and $(B,T,D)$.",
        _EX3_RMS_BUG,
        _EX3_RMS_DIAG,
        _EX3_RMS_SOL,
        _EX3_RMS_DX,
        _EX3_RMS_DP,
    ),
    _ex3(
        "channels-first",
        "fix a channels-first LayerNorm backward pass (axis 1) checked on a 2-D input",
        "A colleague wrote `layernorm_cf_backward_buggy`"
        " (below) for a *channels-first* "
        "LayerNorm,\n`layernorm_cf_forward` beside"
        " it: an input of shape $(N,C,\\dots)$ "
        "(images or sequences\nwith the channels first, as in ConvNeXt) is normalized "
        "over its channel axis 1 at every\nposition, with $\\boldsymbol\\gamma,"
        "\\boldsymbol\\beta$ of shape $(C,)$. The colleague checked\nit;",
        "2. Write `layernorm_cf_backward_fixed(dout, cache)` with the same interface, "
        "correct for\n   inputs of shape $(N,C)$, $(N,C,L)$ and $(N,C,H,W)$.",
        _EX3_CF_BUG,
        _EX3_CF_DIAG,
        _EX3_CF_SOL,
        _EX3_CF_DX,
        _EX3_CF_DP,
    ),
    _ex3(
        "one-plus-gain",
        "fix the backward pass of a LayerNorm with"
        " gain 1 + gamma, checked at gamma = 0",
        "A colleague wrote `layernorm_1p_backward_buggy`"
        " (below) for a LayerNorm with a "
        "zero-centred\ngain, `layernorm_1p_forward`"
        " beside it: $y_i=(1+\\gamma_i)\\hat x_i"
        "+\\beta_i$, so that the\ninitial"
        " $\\boldsymbol\\gamma=\\mathbf 0$ is the identity "
        "gain. The colleague checked\nit;",
        "2. Write `layernorm_1p_backward_fixed(dout, cache)` with the same interface, "
        "correct for\n   inputs of shape $(N,D)$ and $(B,T,D)$.",
        _EX3_1P_BUG,
        _EX3_1P_DIAG,
        _EX3_1P_SOL,
        _EX3_1P_DX,
        _EX3_1P_DP,
    ),
]


# --------------------------------------------------------------------------------------
# 03-ex4: the backward pass of a LayerNorm variant (sample std, eps outside the root)

_EX4_TASK_FIRST = (
    "Some implementations normalize with the *sample* standard deviation "
    "(divide by $D-1$) and\nadd $\\epsilon$ to the standard deviation instead of the "
    "variance:"
)
_EX4_S = r"$$s=\sqrt{\frac{1}{D-1}\sum_k(x_k-\mu)^2},\qquad"
_EX4_Y = r"y_i=\gamma_i\,\frac{x_i-\mu}{s+\epsilon}+\beta_i .$$"
_EX4_FWD_COMMENT = (
    "    # Variant: sample standard deviation (divide by D - 1), eps added to the"
    " std.\n"
)
_EX4_FWD_S = "    s = np.sqrt((c**2).sum(axis=-1, keepdims=True) / (x.shape[-1] - 1))\n"
_EX4_SOL_LAST = (
    "    dx -= c * (g * c).sum(axis=-1, keepdims=True) / (t**2 * (D - 1) * s)\n"
)
_EX4_REF = """\
    s = ((c * c).sum(axis=-1, keepdims=True) / (D - 1)) ** 0.5
    t = s + eps
    g = dout * gamma
    dx = (g - g.mean(axis=-1, keepdims=True)) / t
    dx = dx - c * (g * c).sum(axis=-1, keepdims=True) / (t * t * (D - 1) * s)
"""

_EX4_POP_DER = r""":::{dropdown} Solution and mark scheme
Write $t=s+\epsilon$, $c_k=x_k-\mu$, $\hat x_j=c_j/t$ and
$g=\boldsymbol\gamma\odot d\mathbf y$.

- Paths: direct ($\delta_{ij}/t$), through the mean ($-1/(Dt)$), and through $s$. Since
  $s^2=\frac1D\sum_k c_k^2$, $\partial s/\partial c_i=c_i/(Ds)$, and the route from the
  mean into $s$ vanishes as in LayerNorm, because $\sum_k c_k=0$. So
  $\partial s/\partial x_i=c_i/(Ds)$, and $\partial\hat x_j/\partial s=-c_j/t^2$.
- Summing:
  $\dfrac{\partial\hat x_j}{\partial x_i}=\dfrac1t\Big(\delta_{ij}-\dfrac1D\Big)
  -\dfrac{c_ic_j}{D\,s\,t^2}$, hence

  $$d\mathbf x=\frac{g-\operatorname{mean}(g)}{t}-\mathbf c\,
  \frac{\operatorname{mean}(g\odot\mathbf c)}{s\,t^2},$$

  with $d\boldsymbol\gamma=\sum_{\text{rows}}d\mathbf y\odot\mathbf c/t$ and
  $d\boldsymbol\beta=\sum_{\text{rows}}d\mathbf y$. With $\epsilon=0$ it is LayerNorm's
  formula; with $\epsilon>0$ the third term has $s\,t^2$, not $t^3$.
- A constant row has $\mathbf c=0$ and $s=0$. The forward pass is fine
  ($\mathbf y=\boldsymbol\beta$, thanks to $\epsilon$), but the third term is
  $0\cdot0/0$: in floating point the backward pass returns NaN when the centred values
  are exactly zero (a row such as $(3,3,3)$), and a meaningless value when they are
  round-off. The derivative of $s=\|\mathbf c\|/\sqrt D$ does not exist at $\mathbf c=0$
  (a cone), and $\epsilon$ outside the root cannot help, because $s$ itself sits in a
  denominator of the backward formula. With $\epsilon$ inside the root (LayerNorm) the
  denominator is $\sqrt{v+\epsilon}>0$ and the gradient is finite.

**Mark scheme (3 points).** 1 pt: $\partial s/\partial x_i=c_i/(Ds)$ with the argument
that the mean route vanishes. 1 pt: the assembled $d\mathbf x$ (three terms with $t$ and
$D\,s$), plus $d\boldsymbol\gamma$ and $d\boldsymbol\beta$. 1 pt: the constant row:
$0/0$ (NaN) in the backward pass although the forward pass is finite, and why $\epsilon$
outside the root does not prevent it.
:::"""

_EX4_INSIDE_DER = r""":::{dropdown} Solution and mark scheme
Write $t=\sqrt{s^2+\epsilon}$, $c_k=x_k-\mu$, $\hat x_j=c_j/t$ and
$g=\boldsymbol\gamma\odot d\mathbf y$.

- Paths: direct ($\delta_{ij}/t$), through the mean ($-1/(Dt)$), and through $t$. Since
  $t^2=\frac{1}{D-1}\sum_k c_k^2+\epsilon$, $\partial t/\partial c_i=c_i/((D-1)t)$, and
  the route from the mean into $t$ vanishes as before, because $\sum_k c_k=0$. So
  $\partial t/\partial x_i=c_i/((D-1)t)$, and $\partial\hat x_j/\partial t=-c_j/t^2$.
- Summing:
  $\dfrac{\partial\hat x_j}{\partial x_i}=\dfrac1t\Big(\delta_{ij}-\dfrac1D\Big)
  -\dfrac{c_ic_j}{(D-1)\,t^3}$, hence

  $$d\mathbf x=\frac{g-\operatorname{mean}(g)}{t}-\mathbf c\,
  \frac{\sum_j g_jc_j}{(D-1)\,t^3},$$

  with $d\boldsymbol\gamma=\sum_{\text{rows}}d\mathbf y\odot\mathbf c/t$ and
  $d\boldsymbol\beta=\sum_{\text{rows}}d\mathbf y$: LayerNorm's formula with $D-1$ in
  place of $D$ in the variance path ($t^2$ plays the role of $v+\epsilon$).
- A constant row has $\mathbf c=0$ and $s=0$, so $t=\sqrt\epsilon$: the third term is
  $0$ and $d\mathbf x=(g-\operatorname{mean}(g))/\sqrt\epsilon$, finite (large, of order
  $1/\sqrt\epsilon$, but no NaN, also for round-off rows such as $(0.1,0.1,0.1)$). Here
  $\epsilon$ protects the backward pass as well as the forward pass: with $\epsilon$
  inside the root, $t=\sqrt{\|\mathbf c\|^2/(D-1)+\epsilon}$ is a smooth function of
  $\mathbf c$ that never reaches zero, and no denominator of the backward formula
  contains $s$ alone (with $\epsilon$ outside the root, $s$ would sit in a denominator
  and give $0/0$).

**Mark scheme (3 points).** 1 pt: $\partial t/\partial x_i=c_i/((D-1)t)$ with the
argument that the mean route vanishes. 1 pt: the assembled $d\mathbf x$ (three terms,
$t^3$ and $D-1$ in the last), plus $d\boldsymbol\gamma$ and $d\boldsymbol\beta$. 1 pt:
the constant row: $d\mathbf x=(g-\operatorname{mean}(g))/\sqrt\epsilon$, finite, because
$\epsilon$ inside the root keeps every denominator $\ge\sqrt\epsilon$ and makes $t$
differentiable.
:::"""

_EX4_MAD_DER = r""":::{dropdown} Solution and mark scheme
Write $t=s+\epsilon$, $c_k=x_k-\mu$, $\hat x_j=c_j/t$,
$g=\boldsymbol\gamma\odot d\mathbf y$ and $\sigma_k=\operatorname{sign}(c_k)$ (inputs
with an entry exactly at the mean have probability zero).

- Paths: direct ($\delta_{ij}/t$), through the mean ($-1/(Dt)$), and through $s$, and
  now the route from the mean into $s$ does **not** vanish:
  $\partial s/\partial c_k=\sigma_k/D$ and $\partial c_k/\partial x_i=\delta_{ki}-1/D$
  give
  $\partial s/\partial x_i=\big(\sigma_i-\operatorname{mean}(\boldsymbol\sigma)\big)/D$.
  The mean's contribution $-\operatorname{mean}(\boldsymbol\sigma)/D$ is zero only when
  as many entries lie above the mean as below it ($\sum_k\sigma_k=0$, unlike
  $\sum_k c_k=0$, is not an identity). Also $\partial\hat x_j/\partial s=-c_j/t^2$.
- Summing:
  $\dfrac{\partial\hat x_j}{\partial x_i}=\dfrac1t\Big(\delta_{ij}-\dfrac1D\Big)
  -\dfrac{c_j\,(\sigma_i-\operatorname{mean}(\boldsymbol\sigma))}{D\,t^2}$, hence

  $$d\mathbf x=\frac{g-\operatorname{mean}(g)}{t}-\big(\boldsymbol\sigma-
  \operatorname{mean}(\boldsymbol\sigma)\big)\frac{\sum_j g_jc_j}{D\,t^2},$$

  with $d\boldsymbol\gamma=\sum_{\text{rows}}d\mathbf y\odot\mathbf c/t$ and
  $d\boldsymbol\beta=\sum_{\text{rows}}d\mathbf y$. The third term points along the
  centred signs, not along $\mathbf c$: the Jacobian is no longer symmetric.
- A constant row has $\mathbf c=0$, $s=0$ and $t=\epsilon$. No denominator contains $s$
  alone, so there is no $0/0$: the third term is $0\cdot$(bounded signs) and
  $d\mathbf x=(g-\operatorname{mean}(g))/\epsilon$, finite (with NumPy's
  $\operatorname{sign}(0)=0$; round-off rows give signs $\pm1$ times a vanishing
  factor). So $\epsilon$ protects the backward pass from NaN, but the gradient there is
  of order $1/\epsilon$, and $s=\operatorname{mean}|\mathbf c|$ has a kink wherever an
  entry crosses the mean, so the formula is a one-sided (sub)gradient at such points.

**Mark scheme (3 points).** 1 pt: $\partial s/\partial x_i=(\sigma_i-
\operatorname{mean}(\boldsymbol\sigma))/D$, with the statement that the mean route does
not vanish (and why). 1 pt: the assembled $d\mathbf x$ (third term along the centred
signs, with $D\,t^2$), plus $d\boldsymbol\gamma$ and $d\boldsymbol\beta$. 1 pt: the
constant row: a finite $(g-\operatorname{mean}(g))/\epsilon$, no NaN because only
$t=s+\epsilon\ge\epsilon$ is divided by, with the kink of $|\cdot|$ noted.
:::"""

_EX4_VARIANTS = [
    Variant(
        "population-std",
        "backward pass of LayerNorm with the population std (divide by D), eps outside",
        (
            Edit(
                "1d13d6c5",
                "the *sample* standard deviation (divide by $D-1$) and\nadd",
                "the *population* standard deviation"
                " (divide by $D$, as\nLayerNorm does) "
                "and add",
            ),
            Edit("1d13d6c5", _EX4_S, r"$$s=\sqrt{\frac{1}{D}\sum_k(x_k-\mu)^2},\qquad"),
            Edit(
                "03-std-forward-readonly",
                _EX4_FWD_COMMENT,
                "    # Variant: population standard"
                " deviation (divide by D), eps added to"
                " the std.\n",
            ),
            Edit(
                "03-std-forward-readonly",
                _EX4_FWD_S,
                "    s = np.sqrt((c**2).mean(axis=-1, keepdims=True))\n",
            ),
            Edit("03-ex4-derivation", _BOOK_EX4_DER, _EX4_POP_DER),
            Edit(
                "03-ex4-solution",
                _EX4_SOL_LAST,
                "    dx -= c * (g * c).mean(axis=-1, keepdims=True) / (t**2 * s)\n",
            ),
            Edit(
                "03-ex4-dx",
                _EX4_REF,
                """\
    s = (c * c).mean(axis=-1, keepdims=True) ** 0.5
    t = s + eps
    g = dout * gamma
    dx = (g - g.mean(axis=-1, keepdims=True)) / t
    dx = dx - c * (g * c).sum(axis=-1, keepdims=True) / (t * t * D * s)
""",
            ),
        ),
    ),
    Variant(
        "eps-inside-root",
        "backward pass of LayerNorm with the sample variance and eps inside the root",
        (
            Edit(
                "1d13d6c5",
                "add $\\epsilon$ to the standard deviation instead of the variance:",
                "add $\\epsilon$ to the sample variance, inside the root:",
            ),
            Edit(
                "1d13d6c5",
                _EX4_Y,
                r"y_i=\gamma_i\,\frac{x_i-\mu}{\sqrt{s^2+\epsilon}}+\beta_i .$$",
            ),
            Edit("1d13d6c5", "with $t=s+\\epsilon$", "with $t=\\sqrt{s^2+\\epsilon}$"),
            Edit(
                "03-std-forward-readonly",
                _EX4_FWD_COMMENT,
                "    # Variant: sample variance (divide"
                " by D - 1), eps inside the root.\n",
            ),
            Edit(
                "03-std-forward-readonly",
                "gamma * c / (s + eps) + beta",
                "gamma * c / np.sqrt(s**2 + eps) + beta",
            ),
            Edit("03-ex4-derivation", _BOOK_EX4_DER, _EX4_INSIDE_DER),
            Edit(
                "03-ex4-solution", "    t = s + eps\n", "    t = np.sqrt(s**2 + eps)\n"
            ),
            Edit(
                "03-ex4-solution",
                _EX4_SOL_LAST,
                "    dx -= c * (g * c).sum(axis=-1,"
                " keepdims=True) / (t**3 * (D - 1))\n",
            ),
            Edit(
                "03-ex4-dx",
                _EX4_REF,
                """\
    s = ((c * c).sum(axis=-1, keepdims=True) / (D - 1)) ** 0.5
    t = (s * s + eps) ** 0.5
    g = dout * gamma
    dx = (g - g.mean(axis=-1, keepdims=True)) / t
    dx = dx - c * (g * c).sum(axis=-1, keepdims=True) / (t * t * t * (D - 1))
""",
            ),
        ),
    ),
    Variant(
        "mean-abs-dev",
        "backward pass of a LayerNorm that divides"
        " by the mean absolute deviation + eps",
        (
            Edit(
                "1d13d6c5",
                _EX4_TASK_FIRST,
                "Some implementations normalize with the *mean absolute deviation* $s$ "
                "(cheaper than the\nstandard deviation,"
                " and less sensitive to outliers) "
                "and add $\\epsilon$ to it:",
            ),
            Edit("1d13d6c5", _EX4_S, r"$$s=\frac{1}{D}\sum_k|x_k-\mu|,\qquad"),
            Edit(
                "1d13d6c5",
                "Hint: with $t=s+\\epsilon$ the result"
                " has the same three-term shape as "
                "LayerNorm's.",
                "Hint: with $t=s+\\epsilon$ the result again has three terms; use\n"
                "$\\frac{d}{du}|u|=\\operatorname{sign}(u)$"
                " (an entry exactly at the row "
                "mean has\nprobability zero).",
            ),
            Edit(
                "03-std-forward-readonly",
                _EX4_FWD_COMMENT,
                "    # Variant: mean absolute deviation, eps added to it.\n",
            ),
            Edit(
                "03-std-forward-readonly",
                _EX4_FWD_S,
                "    s = np.abs(c).mean(axis=-1, keepdims=True)\n",
            ),
            Edit("03-ex4-derivation", _BOOK_EX4_DER, _EX4_MAD_DER),
            Edit(
                "03-ex4-solution",
                _EX4_SOL_LAST,
                """\
    sign = np.sign(c)  # d|c|/dc; the mean's route into s does not vanish
    proj = (g * c).sum(axis=-1, keepdims=True) / (D * t**2)
    dx -= (sign - sign.mean(axis=-1, keepdims=True)) * proj
""",
            ),
            Edit(
                "03-ex4-dx",
                _EX4_REF,
                """\
    sgn = (c > 0) * 2.0 - 1.0  # sign(c): no entry sits exactly at the mean
    s = (c * sgn).mean(axis=-1, keepdims=True)
    t = s + eps
    g = dout * gamma
    dx = (g - g.mean(axis=-1, keepdims=True)) / t
    sgn = sgn - sgn.mean(axis=-1, keepdims=True)
    dx = dx - sgn * (g * c).sum(axis=-1, keepdims=True) / (t * t * D)
""",
            ),
        ),
    ),
]


BANK = {
    "03-ex1": _EX1_VARIANTS,
    "03-ex2": _EX2_VARIANTS,
    "03-ex3": _EX3_VARIANTS,
    "03-ex4": _EX4_VARIANTS,
}
