"""Variants of chapter 04's coding exercises (grading/bank/__init__.py)."""

from grading.bank import Edit, Variant

# The book's text of the cells that variants rewrite whole (the edits' `old`).
_BOOK = {
    "d48208b3": (
        "### Exercise 4.2: the backward pass with ε outside the root (6 points)\n"
        "\n"
        "```{admonition} Task\n"
        "The PyTorch snippet in the authors' repository puts $\\epsilon$"
        " outside the root:\n"
        "\n"
        "$$\n"
        "\\mathbf y = \\boldsymbol\\gamma\\odot\\frac{\\mathbf x}{s},\\qquad s ="
        " \\rho+\\epsilon,\\qquad\n"
        "\\rho = \\sqrt{\\tfrac1d\\textstyle\\sum_j x_j^2} .\n"
        "$$\n"
        "{ref}`sec-04-backward` derived the backward pass with $\\epsilon$"
        " inside; this one is different.\n"
        "\n"
        "1. In the answer cell, derive $\\partial L/\\partial\\mathbf x$ and"
        " $\\partial L/\\partial\\boldsymbol\\gamma$\n"
        "   for one row, in vector form with $\\mathbf g ="
        " \\boldsymbol\\gamma\\odot\\mathbf g^{\\mathbf y}$,\n"
        "   $\\rho$ and $s$. Say where the result differs from the inside"
        " version and what happens at\n"
        "   $\\mathbf x = \\mathbf 0$. (2 points)\n"
        "2. Implement `rmsnorm_outside_backward(dout, x, gamma, eps)`"
        " returning `(dx, dgamma)` for inputs\n"
        "   of any leading shape, e.g. `(N, D)` or `(B, T, C)`, in NumPy:"
        " without calling\n"
        "   `rmsnorm_backward` and without autograd. In the same cell,"
        " gradient-check it with\n"
        "   `eval_numerical_gradient_array` on a `(B, T, C)` input whose RMS"
        " is comparable to\n"
        "   $\\epsilon$ (so that a formula with $\\epsilon$ in the wrong place"
        " fails). dx: 3 points,\n"
        "   dgamma: 1 point.\n"
        "```"
    ),
    "04-ex2-derivation": (
        ":::{dropdown} Solution and mark scheme\n"
        "For one row, $y_i = \\gamma_i x_i/s$ and $\\partial s/\\partial x_j ="
        " \\partial\\rho/\\partial x_j =\n"
        "\\dfrac{x_j}{d\\,\\rho}$. The quotient rule gives\n"
        "\n"
        "$$\n"
        "\\frac{\\partial (x_i/s)}{\\partial x_j} = \\frac{\\delta_{ij}}{s} -"
        " \\frac{x_i x_j}{d\\,\\rho\\,s^2},\n"
        "$$\n"
        "so, with $g_i = \\gamma_i g^y_i$,\n"
        "\n"
        "$$\n"
        "\\frac{\\partial L}{\\partial\\mathbf x} = \\frac{\\mathbf g}{s} - \\mathbf"
        " x\\,\n"
        "\\frac{\\mathbf x^\\top\\mathbf g}{d\\,\\rho\\,s^2}\n"
        "= \\frac1s\\Big(\\mathbf g - \\hat{\\mathbf"
        " x}\\,\\operatorname{mean}(\\mathbf g\\odot\\hat{\\mathbf x})\\,\n"
        "\\frac{s}{\\rho}\\Big),\\quad \\hat{\\mathbf x} = \\frac{\\mathbf x}{s},\n"
        "\\qquad\n"
        "\\frac{\\partial L}{\\partial\\boldsymbol\\gamma} ="
        " \\sum_{\\text{rows}}\\mathbf g^{\\mathbf y}\\odot\\frac{\\mathbf x}{s}.\n"
        "$$\n"
        "Compared with the inside version, the radial term carries the extra"
        " factor\n"
        "$s/\\rho = 1+\\epsilon/\\rho$, because $\\epsilon$ no longer enters the"
        " derivative of the statistic. With\n"
        "$\\epsilon > 0$, $\\mathbf x^\\top\\partial L/\\partial\\mathbf x ="
        " \\frac{\\epsilon}{s^2}\\,\\mathbf x^\\top\\mathbf g$,\n"
        "not zero. At $\\mathbf x = \\mathbf 0$ the layer is continuous"
        " ($\\mathbf y \\to \\mathbf 0$) but not\n"
        "differentiable, because $\\rho = \\lVert\\mathbf x\\rVert/\\sqrt d$ is"
        " not; the inside version is smooth\n"
        "there.\n"
        "\n"
        "**Mark scheme (2 points).** 1 pt: the Jacobian entry with"
        " $\\partial\\rho/\\partial x_j = x_j/(d\\rho)$\n"
        "(not $x_j/(d s)$). 1 pt: the vector form of $\\partial"
        " L/\\partial\\mathbf x$ and\n"
        "$\\partial L/\\partial\\boldsymbol\\gamma$ (summed over rows), with the"
        " factor $s/\\rho$ or the\n"
        "non-differentiability at $\\mathbf 0$ named.\n"
        ":::"
    ),
    "04-ex2-solution": (
        "def rmsnorm_outside_backward(dout, x, gamma, eps):\n"
        "    # y = gamma * x / (rho + eps), rho = sqrt(mean(x**2)). Returns"
        " (dx, dgamma).\n"
        "    ### BEGIN SOLUTION\n"
        "    rho = np.sqrt(np.mean(x * x, axis=-1, keepdims=True))\n"
        "    s = rho + eps\n"
        "    g = dout * gamma\n"
        "    dgamma = np.sum(dout * x / s, axis=tuple(range(x.ndim - 1)))\n"
        "    d = x.shape[-1]\n"
        "    dx = g / s - x * np.sum(g * x, axis=-1, keepdims=True) / (d * rho"
        " * s**2)\n"
        "    return dx, dgamma\n"
        "    ### END SOLUTION\n"
        "\n"
        "\n"
        "### BEGIN SOLUTION\n"
        "def rmsnorm_outside_forward(x, gamma, eps):\n"
        "    rho = np.sqrt(np.mean(x * x, axis=-1, keepdims=True))\n"
        "    return gamma * x / (rho + eps)\n"
        "\n"
        "\n"
        "rng_check = np.random.default_rng(SEEDS[0])\n"
        "x_check = 0.05 * rng_check.standard_normal((2, 3, 6))  # RMS about"
        " 0.05\n"
        "gamma_check = rng_check.uniform(0.5, 1.5, 6)\n"
        "dout_check = rng_check.standard_normal((2, 3, 6))\n"
        "dx, dgamma = rmsnorm_outside_backward(dout_check, x_check,"
        " gamma_check, 0.05)\n"
        "dx_num = eval_numerical_gradient_array(\n"
        "    lambda v: rmsnorm_outside_forward(v, gamma_check, 0.05), x_check,"
        " dout_check\n"
        ")\n"
        "dgamma_num = eval_numerical_gradient_array(\n"
        "    lambda g: rmsnorm_outside_forward(x_check, g, 0.05), gamma_check,"
        " dout_check\n"
        ")\n"
        "print(\n"
        '    f"normwise error dx {normwise_error(dx, dx_num):.1e}, "\n'
        '    f"dgamma {normwise_error(dgamma, dgamma_num):.1e}"\n'
        ")\n"
        "### END SOLUTION"
    ),
    "91b5135c": (
        "### Exercise 4.3: bug hunt, a backward pass that passes at"
        " initialization (5 points)\n"
        "\n"
        "```{admonition} Task\n"
        "A colleague wrote the backward pass of the $(1+\\boldsymbol\\gamma)$"
        " RMSNorm of\n"
        "{ref}`sec-04-variants`, $\\mathbf y ="
        " (1+\\boldsymbol\\gamma)\\odot\\mathbf x/r$ with\n"
        "$r = \\sqrt{\\operatorname{mean}(\\mathbf x^2)+\\epsilon}$. It passes"
        " their gradient check, which\n"
        "they ran on a freshly initialized layer. The cell below runs that"
        " check, and a second one.\n"
        "\n"
        "1. In the answer cell, name the bug, explain why the check at"
        " initialization cannot see it, and\n"
        "   say how to choose parameter values for a gradient check so that it"
        " would. (2 points)\n"
        "2. Write the corrected `rmsnorm_unit_offset_backward(dout, x, gamma,"
        " eps)` returning\n"
        "   `(dx, dgamma)`, without calling `rmsnorm_backward` and without"
        " autograd. (3 points)\n"
        "```"
    ),
    "04-ex3-buggy-readonly": (
        "def rmsnorm_unit_offset_backward_buggy(dout, x, gamma, eps=1e-6):\n"
        "    # y = (1 + gamma) * x / r, r = sqrt(mean(x**2) + eps). Returns"
        " (dx, dgamma).\n"
        "    r = np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)\n"
        "    xhat = x / r\n"
        "    dgamma = np.sum(dout * xhat, axis=tuple(range(x.ndim - 1)))\n"
        "    dxhat = dout - xhat * np.mean(dout * xhat, axis=-1, keepdims=True)\n"
        "    dx = (1 + gamma) * dxhat / r\n"
        "    return dx, dgamma\n"
        "\n"
        "\n"
        "def check_unit_offset(backward, gamma, seed=SEEDS[0]):\n"
        "    # Normwise errors of (dx, dgamma) against centred differences.\n"
        "    rng = np.random.default_rng(seed)\n"
        "    x = rng.standard_normal((4, 8)) + 0.3\n"
        "    dout = rng.standard_normal((4, 8))\n"
        "    dx, dgamma = backward(dout, x, gamma)\n"
        "    dx_num = eval_numerical_gradient_array(\n"
        "        lambda v: rms_norm_unit_offset(v, gamma), x, dout\n"
        "    )\n"
        "    dgamma_num = eval_numerical_gradient_array(\n"
        "        lambda g: rms_norm_unit_offset(x, g), gamma.copy(), dout\n"
        "    )\n"
        "    return normwise_error(dx, dx_num), normwise_error(dgamma,"
        " dgamma_num)\n"
        "\n"
        "\n"
        "at_init = check_unit_offset(rmsnorm_unit_offset_backward_buggy,"
        " np.zeros(8))\n"
        "trained = check_unit_offset(\n"
        "    rmsnorm_unit_offset_backward_buggy,"
        " np.random.default_rng(1).normal(0, 0.5, 8)\n"
        ")\n"
        'print(f"gamma = 0 (initialization): dx error {at_init[0]:.0e}, dgamma'
        ' {at_init[1]:.0e}")\n'
        'print(f"gamma random:               dx error {trained[0]:.0e}, dgamma'
        ' {trained[1]:.0e}")'
    ),
    "04-ex3-buggy-readonly-checks": (
        "# scan: SEEDS[0] = 0..203: at initialization at most 3.9e-11, trained"
        " at least 0.020\n"
        "# (seed 87)\n"
        "assert max(at_init) < 1e-8 and trained[0] > 1e-3"
    ),
    "04-ex3-answer": (
        ":::{dropdown} Solution and mark scheme\n"
        "The gain is applied **after** the projection: the code projects"
        " `dout` (removing its component\n"
        "along $\\hat{\\mathbf x}$) and multiplies by $1+\\boldsymbol\\gamma$"
        " afterwards. The chain rule goes the\n"
        "other way: $\\mathbf g = (1+\\boldsymbol\\gamma)\\odot\\mathbf g^{\\mathbf"
        " y}$ is the gradient with respect\n"
        "to $\\hat{\\mathbf x}$, and it is $\\mathbf g$ that passes through $J ="
        " \\frac1r(I -\n"
        "\\hat{\\mathbf x}\\hat{\\mathbf x}^\\top/d)$:\n"
        "$\\partial L/\\partial\\mathbf x = \\frac1r(\\mathbf g - \\hat{\\mathbf"
        " x}\\operatorname{mean}(\\mathbf g\\odot\\hat{\\mathbf x}))$.\n"
        "The two orders agree only when the gain is the same in every"
        " coordinate, because then it commutes\n"
        "with the projection. At initialization $\\boldsymbol\\gamma = \\mathbf"
        " 0$, the gain is exactly\n"
        "$\\mathbf 1$, so the buggy and the correct code compute the same"
        " numbers and no check can tell them\n"
        "apart. (`dgamma` is right.) A gradient check must use generic"
        " parameter values: random, non-zero,\n"
        "different per coordinate ($\\boldsymbol\\gamma \\sim \\mathcal N(0,"
        " 0.5^2)$, say), never the\n"
        "initialization, whose symmetries hide whole classes of bugs.\n"
        "\n"
        "**Mark scheme (2 points).** 1 pt: the bug (gain applied after the"
        " projection / outside $J^\\top$),\n"
        "with the correct order. 1 pt: why $\\boldsymbol\\gamma = \\mathbf 0$"
        " hides it (a uniform gain commutes\n"
        "with the projection) and the remedy (check at random,"
        " coordinate-dependent parameters).\n"
        ":::"
    ),
    "04-ex3-solution": (
        "def rmsnorm_unit_offset_backward(dout, x, gamma, eps=1e-6):\n"
        "    # Corrected backward of y = (1 + gamma) * x / r. Returns (dx,"
        " dgamma).\n"
        "    ### BEGIN SOLUTION\n"
        "    r = np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)\n"
        "    xhat = x / r\n"
        "    dgamma = np.sum(dout * xhat, axis=tuple(range(x.ndim - 1)))\n"
        "    g = (1 + gamma) * dout\n"
        "    dx = (g - xhat * np.mean(g * xhat, axis=-1, keepdims=True)) / r\n"
        "    return dx, dgamma\n"
        "    ### END SOLUTION\n"
        "\n"
        "\n"
        "### BEGIN SOLUTION\n"
        "print(\n"
        '    "corrected, gamma random: dx error {:.0e}, dgamma {:.0e}".format(\n'
        "        *check_unit_offset(\n"
        "            rmsnorm_unit_offset_backward,"
        " np.random.default_rng(1).normal(0, 0.5, 8)\n"
        "        )\n"
        "    )\n"
        ")\n"
        "### END SOLUTION"
    ),
    "04-ex3-backward": (
        '_FORBIDDEN = ("rmsnorm_backward",)\n'
        "\n"
        "\n"
        "def _ex3_reference(_dout, _x, _gamma, _eps):\n"
        "    _xt = _torch.tensor(_x, requires_grad=True)\n"
        "    _gt = _torch.tensor(_gamma, requires_grad=True)\n"
        "    _r = (_xt.pow(2).mean(-1, keepdim=True) + _eps).sqrt()\n"
        "    ((1 + _gt) * _xt / _r).backward(_torch.tensor(_dout))\n"
        "    return _xt.grad.numpy(), _gt.grad.numpy()\n"
        "\n"
        "\n"
        "def _ex3_check(_rng, _shapes):\n"
        "    for _shape in _shapes:\n"
        "        _eps = float(_rng.choice([1e-6, 1e-2]))\n"
        "        _x = _rng.standard_normal(_shape) * _rng.uniform(0.1, 3) +"
        " _rng.uniform(-1, 1)\n"
        "        _gamma = _rng.normal(0, 0.5, _shape[-1])\n"
        "        _dout = _rng.standard_normal(_shape)\n"
        "        _dx_ref, _dg_ref = _ex3_reference(_dout, _x, _gamma, _eps)\n"
        "        _dx, _dg = _call_without(\n"
        "            _FORBIDDEN, rmsnorm_unit_offset_backward, _dout, _x,"
        " _gamma, _eps\n"
        "        )\n"
        '        _compare(f"dx {_shape}", _dx, _dx_ref, 1e-10)\n'
        '        _compare(f"dgamma {_shape}", _dg, _dg_ref, 1e-10)\n'
        "\n"
        "\n"
        "_ex3_check(_np.random.default_rng(406), [(4, 8), (2, 3, 5)])\n"
        "### BEGIN HIDDEN TESTS\n"
        "_ex3_check(_np.random.default_rng(4106), [(3, 7), (1, 64), (2, 4, 6),"
        " (5, 2)])\n"
        "### END HIDDEN TESTS"
    ),
    "53290aaa": (
        "### Exercise 4.4: QK-norm, how peaked can attention get? (5 points)\n"
        "\n"
        "```{admonition} Task\n"
        "With QK-norm every logit of a query against $T$ keys satisfies"
        " $|\\ell_j| \\le B =\n"
        "\\max_i|\\gamma_{q,i}\\gamma_{k,i}|\\sqrt{d_h}$ ({ref}`sec-04-qknorm`)."
        " The attention weights are\n"
        "$p_j = e^{\\ell_j}/\\sum_{t=1}^T e^{\\ell_t}$.\n"
        "\n"
        "1. In the answer cell, derive the largest possible weight"
        " $p_{\\max}(B, T)$ and the smallest\n"
        "   possible weight, show that both are attained (for $\\epsilon = 0$)"
        " by a configuration of queries\n"
        "   and keys you describe, and evaluate $p_{\\max}$ for $d_h = 64$,"
        " unit gains, $T = 128$. (2 points)\n"
        "2. Implement `max_weight_bound(gq, gk, T)`, the largest weight any"
        " key can receive among $T$ keys\n"
        "   for gains `gq`, `gk` (arrays of length $d_h$). (1 point)\n"
        "3. Implement `min_gain_for_weight(p, T, d_head)`: the smallest $c \\ge"
        " 0$ such that with\n"
        "   $\\boldsymbol\\gamma_q = \\boldsymbol\\gamma_k = c\\,\\mathbf 1$ some"
        " key can receive weight at least\n"
        "   $p$ among $T$ keys (return 0.0 if no gain is needed). (2 points)\n"
        "\n"
        "Do not use `qk_norm_logits` or `qk_bound`.\n"
        "```"
    ),
    "04-ex4-answer": (
        ":::{dropdown} Solution and mark scheme\n"
        "The weight $p_j = 1/(1 + \\sum_{t\\ne j} e^{\\ell_t - \\ell_j})$ grows"
        " with $\\ell_j$ and falls with every\n"
        "other logit. With all logits in $[-B, B]$ it is largest for $\\ell_j ="
        " B$ and $\\ell_t = -B$\n"
        "($t \\ne j$), and smallest in the opposite case:\n"
        "\n"
        "$$\n"
        "p_{\\max} = \\frac{1}{1 + (T-1)\\,e^{-2B}},\\qquad p_{\\min} = \\frac{1}{1"
        " + (T-1)\\,e^{2B}} .\n"
        "$$\n"
        "Both are attained: with $i^*$ the coordinate of the largest"
        " $|\\gamma_{q,i}\\gamma_{k,i}|$ (say\n"
        "$\\gamma_{q,i^*}\\gamma_{k,i^*} > 0$), let the query and key $j$ be"
        " $\\mathbf e_{i^*}$ and every other\n"
        "key $-\\mathbf e_{i^*}$; the logits are exactly $B$ and $-B$"
        " ({ref}`sec-04-qknorm`), and swapping\n"
        "the signs gives $p_{\\min}$. For $d_h = 64$ and unit gains $B = 8$, so"
        " $p_{\\max} = 1/(1 +\n"
        "127e^{-16}) \\approx 1 - 1.4\\times10^{-5}$: nearly one-hot attention"
        " remains possible, but only\n"
        "because the gains allow it; to reach weight $p$ the gains must satisfy\n"
        "$c^2\\sqrt{d_h} \\ge \\frac12\\ln\\frac{p(T-1)}{1-p}$.\n"
        "\n"
        "**Mark scheme (2 points).** 1 pt: $p_{\\max}$ and $p_{\\min}$ with the"
        " monotonicity argument.\n"
        "1 pt: the attaining configuration and the value for $d_h = 64$, $T ="
        " 128$.\n"
        ":::"
    ),
    "04-ex4-solution": (
        "def max_weight_bound(gq, gk, T):\n"
        "    # Largest attention weight one of T keys can get under QK-norm"
        " with these gains.\n"
        "    ### BEGIN SOLUTION\n"
        "    B = np.max(np.abs(gq * gk)) * np.sqrt(len(gq))\n"
        "    return float(1.0 / (1.0 + (T - 1) * np.exp(-2.0 * B)))\n"
        "    ### END SOLUTION\n"
        "\n"
        "\n"
        "def min_gain_for_weight(p, T, d_head):\n"
        "    # Smallest constant gain c (gq = gk = c) that lets one key reach"
        " weight p among T.\n"
        "    ### BEGIN SOLUTION\n"
        "    if p <= 1.0 / T:\n"
        "        return 0.0\n"
        "    B = 0.5 * np.log(p * (T - 1) / (1.0 - p))\n"
        "    return float(np.sqrt(B / np.sqrt(d_head)))\n"
        "    ### END SOLUTION"
    ),
    "04-ex4-bound": (
        '_FORBIDDEN = ("qk_norm_logits", "qk_bound")\n'
        "\n"
        "\n"
        "def _weights_of_extreme_case(_gq, _gk, _T):\n"
        "    # Query and key 0 on the coordinate of the largest |gq * gk|,"
        " other keys opposite.\n"
        "    _d = len(_gq)\n"
        "    _i = int(abs(_gq * _gk).argmax())\n"
        "    _sign = 1.0 if _gq[_i] * _gk[_i] > 0 else -1.0\n"
        "    _u = _np.zeros(_d)\n"
        "    _u[_i] = _d**0.5  # RMS-normalized one-hot vector\n"
        "    _logits = _np.full(_T, -1.0) * (_gq * _gk * _u * _u).sum() /"
        " _d**0.5 * _sign\n"
        "    _logits[0] *= -1.0\n"
        "    _e = _np.exp(_logits - _logits.max())\n"
        "    return _e / _e.sum()\n"
        "\n"
        "\n"
        "_rng = _np.random.default_rng(407)\n"
        "for _d, _T in [(16, 8), (64, 128)]:\n"
        "    _gq, _gk = _rng.normal(1, 0.3, _d), _rng.normal(0.5, 0.3, _d)\n"
        "    _b = _call_without(_FORBIDDEN, max_weight_bound, _gq, _gk, _T)\n"
        "    assert type(_b) in (float, _np.float64) and 1.0 / _T < _b <= 1.0,"
        " (\n"
        '        "a weight in (1/T, 1]"\n'
        "    )\n"
        "    _attained = float(_weights_of_extreme_case(_gq, _gk, _T).max())\n"
        "    _err = abs(_b - _attained) / _attained\n"
        "    assert _err < 1e-10, (\n"
        '        f"d={_d}, T={_T}: bound {_b:.6g} is not attained'
        ' ({_attained:.6g})"\n'
        "    )\n"
        "### BEGIN HIDDEN TESTS\n"
        "_rng = _np.random.default_rng(4107)\n"
        "for _ in range(5):\n"
        "    _d, _T = int(_rng.choice([4, 16, 64, 128])), int(_rng.integers(2,"
        " 3000))\n"
        "    _gq, _gk = _rng.normal(0, 0.6, _d), _rng.normal(0, 0.6, _d)\n"
        "    _b = _call_without(_FORBIDDEN, max_weight_bound, _gq, _gk, _T)\n"
        "    _ref = 1.0 / (1.0 + (_T - 1) * _np.exp(-2 * abs(_gq * _gk).max()"
        " * _d**0.5))\n"
        '    assert abs(_b - _ref) <= 1e-10 * _ref, f"d={_d}, T={_T}: {_b} vs'
        ' {_ref}"\n'
        "### END HIDDEN TESTS"
    ),
    "04-ex4-gain": (
        "def _weight_at_gain(_c, _T, _d):\n"
        "    return float(_weights_of_extreme_case(_np.full(_d, _c),"
        " _np.full(_d, _c), _T).max())\n"
        "\n"
        "\n"
        "_cases = [(0.9, 128, 64), (0.5, 10, 16)]\n"
        "### BEGIN HIDDEN TESTS\n"
        "_rng = _np.random.default_rng(4108)\n"
        "_cases += [\n"
        "    (\n"
        "        float(_rng.uniform(0.05, 0.999)),\n"
        "        int(_rng.integers(2, 5000)),\n"
        "        int(_rng.choice([8, 32, 128])),\n"
        "    )\n"
        "    for _ in range(6)\n"
        "]\n"
        "_cases += [(0.01, 50, 64)]  # below 1/T: no gain needed\n"
        "### END HIDDEN TESTS\n"
        "for _p, _T, _d in _cases:\n"
        "    _c = _call_without(_FORBIDDEN, min_gain_for_weight, _p, _T, _d)\n"
        '    assert type(_c) in (float, _np.float64) and _c >= 0, "a'
        ' non-negative float expected"\n'
        "    if _p <= 1.0 / _T:\n"
        '        assert _c == 0.0, f"p = {_p} <= 1/T needs no gain, got {_c}"\n'
        "        continue\n"
        "    _w = _weight_at_gain(_c, _T, _d)\n"
        "    assert abs(_w - _p) <= 1e-9, (\n"
        '        f"p={_p:.3f}, T={_T}, d={_d}: gain {_c:.6g} gives {_w:.9f}"\n'
        "    )"
    ),
}


LAST_K = Variant(
    "last-k",
    "pRMSNorm that estimates the RMS from the last k features",
    (
        Edit("6cf86898", "from only the first\n$k$", "from only the last\n$k$"),
        Edit("6cf86898", "its first $k$ features", "its last $k$ features"),
        Edit(
            "04-ex1-solution",
            "    # Partial RMSNorm over the last axis: RMS from the first k",
            "    # Partial RMSNorm over the last axis: RMS from the last k",
        ),
        Edit("04-ex1-solution", "x[..., :k]", "x[..., -k:]"),
        Edit(
            "04-ex1-prmsnorm",
            """\
    # only the first k features set the scale: scaling the others scales only them
    _k = max(1, int(0.25 * _shape[-1]))
    _x2 = _x.copy()
    _x2[..., _k:] *= 10.0
    _out2 = prmsnorm(_x2, _g, 0.25, eps=1e-6)
    _err = _normwise_error(_out2[..., :_k], _out[..., :_k])
    assert _err < 1e-12, "features after the first k must not change the scale"
    _err = _normwise_error(_out2[..., _k:], 10.0 * _out[..., _k:])
    assert _err < 1e-12, "features after the first k are divided by the same estimate"
""",
            """\
    # only the last k features set the scale: scaling the others scales only them
    _k = max(1, int(0.25 * _shape[-1]))
    _x2 = _x.copy()
    _x2[..., :-_k] *= 10.0
    _out2 = prmsnorm(_x2, _g, 0.25, eps=1e-6)
    _err = _normwise_error(_out2[..., -_k:], _out[..., -_k:])
    assert _err < 1e-12, "features before the last k must not change the scale"
    _err = _normwise_error(_out2[..., :-_k], 10.0 * _out[..., :-_k])
    assert _err < 1e-12, "features before the last k are divided by the same estimate"
""",
        ),
        Edit("04-ex1-prmsnorm", "_x[..., :_k] ** 2", "_x[..., -_k:] ** 2"),
        Edit("04-ex1-error", "_x[:, :_k] ** 2", "_x[:, -_k:] ** 2"),
        Edit(
            "04-ex1-answer",
            "over the first $k$ features",
            "over the last $k$ features",
        ),
    ),
)

# --- 04-ex1 ---------------------------------------------------------------------------

_EX1_P1_BOOK = """\
    # p = 1 is ordinary RMSNorm
    _full = _torch.nn.functional.rms_norm(
        _torch.from_numpy(_x), (_shape[-1],), _torch.from_numpy(_g), eps=1e-6
    ).numpy()
    _err = _normwise_error(prmsnorm(_x, _g, 1.0, eps=1e-6), _full)
    assert _err < 1e-12, (
        f"p = 1: normwise error {_err:.1e} from RMSNorm, expected < 1e-12"
    )
"""

_EX1_SCALE_BOOK = """\
    _k = max(1, int(0.25 * _shape[-1]))
    _x2 = _x.copy()
    _x2[..., _k:] *= 10.0
    _out2 = prmsnorm(_x2, _g, 0.25, eps=1e-6)
    _err = _normwise_error(_out2[..., :_k], _out[..., :_k])
"""

_EX1_HIDDEN_REF_BOOK = """\
        _ref = (
            _g * _x / ((_x[..., :_k] ** 2).mean(axis=-1, keepdims=True) + _eps) ** 0.5
        )
"""

EPS_OUTSIDE = Variant(
    "eps-outside",
    "pRMSNorm with eps outside the root, x / (RMS_k + eps)",
    (
        Edit(
            "6cf86898",
            r"\frac{\mathbf x}{\sqrt{\overline{\operatorname{RMS}}(\mathbf x)^2"
            r" + \epsilon}} .",
            r"\frac{\mathbf x}{\overline{\operatorname{RMS}}(\mathbf x) + \epsilon} .",
        ),
        Edit(
            "6cf86898",
            r"and $\epsilon$ inside the square root. (2 points)",
            r"and $\epsilon$ outside the square root, added to the estimate as in the "
            "authors'\n   PyTorch snippet. (2 points)",
        ),
        Edit(
            "04-ex1-solution",
            "    # Partial RMSNorm over the last axis: RMS from the first k",
            "    # pRMSNorm, eps outside the root: RMS from the first k",
        ),
        Edit(
            "04-ex1-solution",
            "return gamma * x / np.sqrt(ms + eps)",
            "return gamma * x / (np.sqrt(ms) + eps)",
        ),
        Edit(
            "04-ex1-prmsnorm",
            _EX1_P1_BOOK,
            """\
    # p = 1 is RMSNorm with eps outside the root, x / (RMS + eps)
    for _eps in [1e-6, 0.1]:
        _rms = ((_x * _x).mean(axis=-1, keepdims=True)) ** 0.5
        _full = _g * _x / (_rms + _eps)
        _err = _normwise_error(prmsnorm(_x, _g, 1.0, eps=_eps), _full)
        assert _err < 1e-12, (
            f"p = 1, eps = {_eps:g}: normwise error {_err:.1e} from RMSNorm with "
            "eps outside the root, expected < 1e-12"
        )
""",
        ),
        Edit(
            "04-ex1-prmsnorm",
            _EX1_HIDDEN_REF_BOOK,
            """\
        _rms_k = ((_x[..., :_k] ** 2).mean(axis=-1, keepdims=True)) ** 0.5
        _ref = _g * _x / (_rms_k + _eps)
""",
        ),
    ),
)

FEATURES_FIRST = Variant(
    "features-first",
    "pRMSNorm over the first axis of a (d, ...) array, features first",
    (
        Edit(
            "6cf86898",
            "1. Implement `prmsnorm(x, gamma, p, eps)` over the last axis of an array "
            "of any shape, with\n",
            "1. Implement `prmsnorm(x, gamma, p, eps)` over the **first** axis of an "
            "array of shape\n   $(d, \\dots)$ (features first, as in a channels-first "
            "layout; `gamma` has shape\n   $(d,)$), with\n",
        ),
        Edit(
            "6cf86898",
            "2. Implement `prms_error(x, p)`: the mean over rows of",
            "2. Implement `prms_error(x, p)` for `x` of shape $(d, N)$: the mean over "
            "columns of",
        ),
        Edit("6cf86898", "print it for rows of 768", "print it for columns of 768"),
        Edit(
            "6cf86898", "the error of one row equals", "the error of one column equals"
        ),
        Edit(
            "04-ex1-solution",
            "    # Partial RMSNorm over the last axis: RMS from the first k = max(1, "
            "int(p * d)).",
            "    # Partial RMSNorm over axis 0 (features first): RMS from the first k "
            "features.",
        ),
        Edit(
            "04-ex1-solution",
            """\
    d = x.shape[-1]
    k = max(1, int(p * d))
    ms = np.mean(x[..., :k] ** 2, axis=-1, keepdims=True)
    return gamma * x / np.sqrt(ms + eps)
""",
            """\
    d = x.shape[0]
    k = max(1, int(p * d))
    ms = np.mean(x[:k] ** 2, axis=0, keepdims=True)
    g = np.reshape(gamma, (d,) + (1,) * (x.ndim - 1))  # gamma along axis 0
    return g * x / np.sqrt(ms + eps)
""",
        ),
        Edit(
            "04-ex1-solution",
            """\
    # Mean over rows of ||pRMSNorm(x) - RMSNorm(x)|| / ||RMSNorm(x)||; gamma 1, eps 0.
    ### BEGIN SOLUTION
    full = rms_norm(x, eps=0.0)
    part = prmsnorm(x, np.ones(x.shape[-1]), p, eps=0.0)
    errs = np.linalg.norm(part - full, axis=-1) / np.linalg.norm(full, axis=-1)
""",
            """\
    # Mean over the columns of x (d, N) of ||pRMSNorm - RMSNorm|| / ||RMSNorm||;
    # gamma 1, eps 0.
    ### BEGIN SOLUTION
    full = x / np.sqrt(np.mean(x**2, axis=0, keepdims=True))
    part = prmsnorm(x, np.ones(x.shape[0]), p, eps=0.0)
    errs = np.linalg.norm(part - full, axis=0) / np.linalg.norm(full, axis=0)
""",
        ),
        Edit(
            "04-ex1-solution",
            "standard_normal((2000, 768))",
            "standard_normal((768, 2000))",
        ),
        Edit(
            "04-ex1-prmsnorm",
            "for _shape in [(5, 40), (2, 3, 16)]:",
            "for _shape in [(40, 5), (16, 2, 3)]:",
        ),
        Edit(
            "04-ex1-prmsnorm",
            "    _g = _rng.uniform(0.5, 1.5, _shape[-1])\n",
            "    _g = _rng.uniform(0.5, 1.5, _shape[0])\n"
            "    _gb = _g.reshape((-1,) + (1,) * (len(_shape) - 1))  # along axis 0\n",
        ),
        Edit(
            "04-ex1-prmsnorm",
            _EX1_P1_BOOK,
            """\
    # p = 1 is ordinary RMSNorm over axis 0
    _full = _gb * _x / ((_x * _x).mean(axis=0, keepdims=True) + 1e-6) ** 0.5
    _err = _normwise_error(prmsnorm(_x, _g, 1.0, eps=1e-6), _full)
    assert _err < 1e-12, (
        f"p = 1: normwise error {_err:.1e} from RMSNorm over axis 0, expected < 1e-12"
    )
""",
        ),
        Edit(
            "04-ex1-prmsnorm",
            _EX1_SCALE_BOOK,
            """\
    _k = max(1, int(0.25 * _shape[0]))
    _x2 = _x.copy()
    _x2[_k:] *= 10.0
    _out2 = prmsnorm(_x2, _g, 0.25, eps=1e-6)
    _err = _normwise_error(_out2[:_k], _out[:_k])
""",
        ),
        Edit(
            "04-ex1-prmsnorm",
            "_normwise_error(_out2[..., _k:], 10.0 * _out[..., _k:])",
            "_normwise_error(_out2[_k:], 10.0 * _out[_k:])",
        ),
        Edit(
            "04-ex1-prmsnorm",
            "for _shape in [(7, 100), (3, 4, 33), (1, 768)]:",
            "for _shape in [(100, 7), (33, 3, 4), (768, 1)]:",
        ),
        Edit(
            "04-ex1-prmsnorm",
            "    _g = _rng.uniform(-2, 2, _shape[-1])\n",
            "    _g = _rng.uniform(-2, 2, _shape[0])\n"
            "    _gb = _g.reshape((-1,) + (1,) * (len(_shape) - 1))\n",
        ),
        Edit(
            "04-ex1-prmsnorm",
            "_k = max(1, int(_p * _shape[-1]))",
            "_k = max(1, int(_p * _shape[0]))",
        ),
        Edit(
            "04-ex1-prmsnorm",
            _EX1_HIDDEN_REF_BOOK,
            """\
        _ms_k = (_x[:_k] ** 2).mean(axis=0, keepdims=True)
        _ref = _gb * _x / (_ms_k + _eps) ** 0.5
""",
        ),
        Edit(
            "04-ex1-error",
            "_x = _rng.standard_normal((500, 256))",
            "_x = _rng.standard_normal((256, 500))  # (d, N): one column per vector",
        ),
        Edit(
            "04-ex1-error",
            "for _shape in [(300, 96), (40, 500)]:",
            "for _shape in [(96, 300), (500, 40)]:",
        ),
        Edit(
            "04-ex1-error",
            """\
    _x = _rng.standard_normal(_shape) * _rng.uniform(0.5, 3, (_shape[0], 1))
    _x += _rng.uniform(-1, 1, (_shape[0], 1))
""",
            """\
    _x = _rng.standard_normal(_shape) * _rng.uniform(0.5, 3, (1, _shape[1]))
    _x += _rng.uniform(-1, 1, (1, _shape[1]))
""",
        ),
        Edit(
            "04-ex1-error",
            "_k = max(1, int(_p * _shape[-1]))",
            "_k = max(1, int(_p * _shape[0]))",
        ),
        Edit(
            "04-ex1-error",
            """\
        _rms = ((_x**2).mean(axis=-1)) ** 0.5
        _rms_k = ((_x[:, :_k] ** 2).mean(axis=-1)) ** 0.5
""",
            """\
        _rms = ((_x**2).mean(axis=0)) ** 0.5
        _rms_k = ((_x[:_k] ** 2).mean(axis=0)) ** 0.5
""",
        ),
        Edit("04-ex1-answer", "**One row.**", "**One column** (one feature vector)."),
    ),
)


# --- 04-ex2 ---------------------------------------------------------------------------

_EX2_REF_BOOK = """\
    _rho = _xt.pow(2).mean(-1, keepdim=True).sqrt()
    (_gt * _xt / (_rho + _eps)).backward(_torch.tensor(_dout))
"""

_EX2_CALL_BOOK = "_FORBIDDEN, rmsnorm_outside_backward, _dout, _x, _gamma, _eps"

UNIT_OFFSET_OUTSIDE = Variant(
    "unit-offset",
    "backward of (1 + gamma) * x / (rho + eps): eps outside the root, a (1+gamma) gain",
    (
        Edit(
            "d48208b3",
            "the backward pass with ε outside the root (6 points)",
            "the backward pass with ε outside the root and a (1+γ) gain (6 points)",
        ),
        Edit(
            "d48208b3",
            r"The PyTorch snippet in the authors' repository puts $\epsilon$ outside "
            "the root:",
            r"The PyTorch snippet in the authors' repository puts $\epsilon$ outside "
            r"""the root.
Combine it with the $(1+\boldsymbol\gamma)$ gain of {ref}`sec-04-variants`: the layer
stores $\boldsymbol\gamma$, initialized at $\mathbf 0$, and multiplies by
$1+\boldsymbol\gamma$:""",
        ),
        Edit(
            "d48208b3",
            r"\mathbf y = \boldsymbol\gamma\odot\frac{\mathbf x}{s}",
            r"\mathbf y = (1+\boldsymbol\gamma)\odot\frac{\mathbf x}{s}",
        ),
        Edit(
            "d48208b3",
            r"derived the backward pass with $\epsilon$ inside; this one is different.",
            r"derived the backward pass with $\epsilon$ inside and the gain"
            "\n"
            r"$\boldsymbol\gamma$; this one is different.",
        ),
        Edit(
            "d48208b3",
            r"with $\mathbf g = \boldsymbol\gamma\odot\mathbf g^{\mathbf y}$",
            r"with $\mathbf g = (1+\boldsymbol\gamma)\odot\mathbf g^{\mathbf y}$",
        ),
        Edit(
            "04-ex2-derivation",
            r"For one row, $y_i = \gamma_i x_i/s$",
            r"For one row, $y_i = (1+\gamma_i)\,x_i/s$",
        ),
        Edit(
            "04-ex2-derivation",
            r"so, with $g_i = \gamma_i g^y_i$,",
            r"so, with $g_i = (1+\gamma_i)\,g^y_i$ (and "
            r"$\partial y_i/\partial\gamma_i = x_i/s$),",
        ),
        Edit(
            "04-ex2-derivation",
            r"1 pt: the vector form of $\partial L/\partial\mathbf x$",
            r"1 pt: the vector form, with the gain $1+\boldsymbol\gamma$ in "
            r"$\mathbf g$ only, of $\partial L/\partial\mathbf x$",
        ),
        Edit(
            "04-ex2-solution",
            "    # y = gamma * x / (rho + eps), rho = sqrt(mean(x**2)). Returns",
            "    # y = (1 + gamma) * x / (rho + eps), rho = sqrt(mean(x**2)). Returns",
        ),
        Edit(
            "04-ex2-solution", "    g = dout * gamma\n", "    g = dout * (1 + gamma)\n"
        ),
        Edit(
            "04-ex2-solution",
            "    return gamma * x / (rho + eps)",
            "    return (1 + gamma) * x / (rho + eps)",
        ),
        Edit(
            "04-ex2-dx",
            "    (_gt * _xt / (_rho + _eps)).backward",
            "    ((1 + _gt) * _xt / (_rho + _eps)).backward",
        ),
    ),
)

_EX2_TASK_MEANABS = (
    ("### Exercise 4.2: the backward pass of a mean-absolute-value norm (6 points)")
    + r"""

```{admonition} Task
A cheaper relative of RMSNorm divides by the mean absolute value of the features instead
of their RMS, with $\epsilon$ added outside, as in the authors' PyTorch snippet:

$$
\mathbf y = \boldsymbol\gamma\odot\frac{\mathbf x}{s},\qquad s = m+\epsilon,\qquad
m = \tfrac1d\textstyle\sum_j |x_j| .
$$
{ref}`sec-04-backward` derived the backward pass of RMSNorm; this statistic is
different.

1. In the answer cell, derive $\partial L/\partial\mathbf x$ and
   $\partial L/\partial\boldsymbol\gamma$ for one row, in vector form with
   $\mathbf g = \boldsymbol\gamma\odot\mathbf g^{\mathbf y}$, $m$, $s$ and
   $\operatorname{sign}(\mathbf x)$. Say where the result differs from RMSNorm's and
   where the layer is not differentiable. (2 points)
2. Implement `meanabs_norm_backward(dout, x, gamma, eps)` returning `(dx, dgamma)` for
   inputs of any leading shape, e.g. `(N, D)` or `(B, T, C)`, in NumPy: without calling
   `rmsnorm_backward` and without autograd (take $\operatorname{sign}(0) = 0$ as the
   derivative of $|x|$ at 0, as `np.sign` and PyTorch do). In the same cell,
   gradient-check it with `eval_numerical_gradient_array` on a `(B, T, C)` input whose
   mean absolute value is comparable to $\epsilon$ (so that a formula with $\epsilon$ in
   the wrong place fails). dx: 3 points, dgamma: 1 point.
```"""
)

_EX2_DERIVATION_MEANABS = r""":::{dropdown} Solution and mark scheme
For one row, $y_i = \gamma_i x_i/s$ and $\partial s/\partial x_j = \partial m/\partial
x_j = \dfrac{\operatorname{sign}(x_j)}{d}$ (for $x_j \ne 0$). The quotient rule gives

$$
\frac{\partial (x_i/s)}{\partial x_j} = \frac{\delta_{ij}}{s} -
\frac{x_i\operatorname{sign}(x_j)}{d\,s^2},
$$
so, with $g_i = \gamma_i g^y_i$,

$$
\frac{\partial L}{\partial\mathbf x} = \frac{\mathbf g}{s} -
\operatorname{sign}(\mathbf x)\,\frac{\mathbf x^\top\mathbf g}{d\,s^2}
= \frac1s\Big(\mathbf g - \operatorname{sign}(\mathbf x)\,
\operatorname{mean}(\mathbf g\odot\hat{\mathbf x})\Big),\quad
\hat{\mathbf x} = \frac{\mathbf x}{s},
\qquad
\frac{\partial L}{\partial\boldsymbol\gamma} =
\sum_{\text{rows}}\mathbf g^{\mathbf y}\odot\frac{\mathbf x}{s}.
$$
Compared with RMSNorm, the second term points along $\operatorname{sign}(\mathbf x)$
instead of $\hat{\mathbf x}$: the Jacobian is no longer symmetric and the gradient is no
longer a scaled orthogonal projection. Since $\mathbf x^\top\operatorname{sign}(\mathbf
x) = d\,m$, still $\mathbf x^\top\partial L/\partial\mathbf x =
\frac{\epsilon}{s^2}\,\mathbf x^\top\mathbf g$, zero for $\epsilon = 0$ (the layer is
then scale invariant). The layer is continuous, but not differentiable wherever a
coordinate $x_j$ is 0, not only at $\mathbf x = \mathbf 0$: $|x_j|$ has a kink there,
and $\operatorname{sign}(0) = 0$ picks one subgradient (the one autograd uses).

**Mark scheme (2 points).** 1 pt: the Jacobian entry with
$\partial m/\partial x_j = \operatorname{sign}(x_j)/d$ (not $x_j/(d\rho)$). 1 pt: the
vector form of $\partial L/\partial\mathbf x$ and $\partial L/\partial\boldsymbol\gamma$
(summed over rows), with the second term along $\operatorname{sign}(\mathbf x)$ or the
kinks at vanishing coordinates named.
:::"""

_EX2_SOLUTION_MEANABS = """\
def meanabs_norm_backward(dout, x, gamma, eps):
    # y = gamma * x / (m + eps), m = mean(|x|). Returns (dx, dgamma).
    ### BEGIN SOLUTION
    m = np.mean(np.abs(x), axis=-1, keepdims=True)
    s = m + eps
    g = dout * gamma
    dgamma = np.sum(dout * x / s, axis=tuple(range(x.ndim - 1)))
    d = x.shape[-1]
    dx = g / s - np.sign(x) * np.sum(g * x, axis=-1, keepdims=True) / (d * s**2)
    return dx, dgamma
    ### END SOLUTION


### BEGIN SOLUTION
def meanabs_norm_forward(x, gamma, eps):
    return gamma * x / (np.mean(np.abs(x), axis=-1, keepdims=True) + eps)


rng_check = np.random.default_rng(SEEDS[0])
x_check = 0.05 * rng_check.standard_normal((2, 3, 6))  # mean |x| about 0.04
gamma_check = rng_check.uniform(0.5, 1.5, 6)
dout_check = rng_check.standard_normal((2, 3, 6))
dx, dgamma = meanabs_norm_backward(dout_check, x_check, gamma_check, 0.05)
dx_num = eval_numerical_gradient_array(
    lambda v: meanabs_norm_forward(v, gamma_check, 0.05), x_check, dout_check
)
dgamma_num = eval_numerical_gradient_array(
    lambda g: meanabs_norm_forward(x_check, g, 0.05), gamma_check, dout_check
)
print(
    f"normwise error dx {normwise_error(dx, dx_num):.1e}, "
    f"dgamma {normwise_error(dgamma, dgamma_num):.1e}"
)
### END SOLUTION"""

MEAN_ABS = Variant(
    "mean-abs",
    "backward of gamma * x / (mean|x| + eps), a mean-absolute-value statistic",
    (
        Edit("d48208b3", _BOOK["d48208b3"], _EX2_TASK_MEANABS),
        Edit("04-ex2-derivation", _BOOK["04-ex2-derivation"], _EX2_DERIVATION_MEANABS),
        Edit("04-ex2-solution", _BOOK["04-ex2-solution"], _EX2_SOLUTION_MEANABS),
        Edit(
            "04-ex2-dx",
            _EX2_REF_BOOK,
            """\
    _m = _xt.abs().mean(-1, keepdim=True)
    (_gt * _xt / (_m + _eps)).backward(_torch.tensor(_dout))
""",
        ),
        Edit(
            "04-ex2-dx",
            _EX2_CALL_BOOK,
            "_FORBIDDEN, meanabs_norm_backward, _dout, _x, _gamma, _eps",
        ),
    ),
)

_EX2_TASK_CENTRED = (
    (
        "### Exercise 4.2: the backward pass of LayerNorm with ε outside the root "
        "(6 points)"
    )
    + r"""

```{admonition} Task
Many LayerNorm implementations (the Annotated Transformer's, for one) add $\epsilon$ to
the standard deviation, outside the root, as the PyTorch snippet of the RMSNorm authors
does to the RMS. With the population standard deviation:

$$
\mathbf y = \boldsymbol\gamma\odot\frac{\mathbf c}{s},\qquad
\mathbf c = \mathbf x - \mu\mathbf 1,\qquad s = \sigma+\epsilon,\qquad
\sigma = \sqrt{\tfrac1d\textstyle\sum_j c_j^2},\qquad
\mu = \tfrac1d\textstyle\sum_j x_j .
$$
{ref}`sec-04-backward` derived the backward pass of RMSNorm with $\epsilon$ inside; this
layer also centres.

1. In the answer cell, derive $\partial L/\partial\mathbf x$ and
   $\partial L/\partial\boldsymbol\gamma$ for one row, in vector form with
   $\mathbf g = \boldsymbol\gamma\odot\mathbf g^{\mathbf y}$, $\mathbf c$, $\sigma$ and
   $s$. Say where the result differs from RMSNorm with $\epsilon$ outside, and what
   happens when all features of a row are equal. (2 points)
2. Implement `layernorm_outside_backward(dout, x, gamma, eps)` returning `(dx, dgamma)`
   for inputs of any leading shape, e.g. `(N, D)` or `(B, T, C)`, in NumPy: without
   calling `rmsnorm_backward` and without autograd. In the same cell, gradient-check it
   with `eval_numerical_gradient_array` on a `(B, T, C)` input whose standard deviation
   is comparable to $\epsilon$ (so that a formula with $\epsilon$ in the wrong place
   fails). dx: 3 points, dgamma: 1 point.
```"""
)

_EX2_DERIVATION_CENTRED = r""":::{dropdown} Solution and mark scheme
For one row, $y_i = \gamma_i c_i/s$ with $\partial c_i/\partial x_j = \delta_{ij} -
\frac1d$ and, since $\sum_i c_i = 0$, $\partial s/\partial x_j = \partial\sigma/\partial
x_j = \dfrac{c_j}{d\,\sigma}$. The quotient rule gives

$$
\frac{\partial (c_i/s)}{\partial x_j} = \frac{\delta_{ij} - 1/d}{s} -
\frac{c_i c_j}{d\,\sigma\,s^2},
$$
so, with $g_i = \gamma_i g^y_i$,

$$
\frac{\partial L}{\partial\mathbf x} =
\frac{\mathbf g - \operatorname{mean}(\mathbf g)\,\mathbf 1}{s} - \mathbf c\,
\frac{\mathbf c^\top\mathbf g}{d\,\sigma\,s^2}
= \frac1s\Big(\mathbf g - \operatorname{mean}(\mathbf g)\,\mathbf 1 - \hat{\mathbf c}\,
\operatorname{mean}(\mathbf g\odot\hat{\mathbf c})\,\frac{s}{\sigma}\Big),\quad
\hat{\mathbf c} = \frac{\mathbf c}{s},
\qquad
\frac{\partial L}{\partial\boldsymbol\gamma} =
\sum_{\text{rows}}\mathbf g^{\mathbf y}\odot\frac{\mathbf c}{s}.
$$
Compared with RMSNorm with $\epsilon$ outside, the centring adds the term
$-\operatorname{mean}(\mathbf g)\,\mathbf 1/s$, so every row of $\partial
L/\partial\mathbf x$ sums to zero (the layer ignores a common shift of $\mathbf x$), and
the radial term runs along $\mathbf c$ instead of $\mathbf x$, still with the factor
$s/\sigma = 1+\epsilon/\sigma$. When all features of a row are equal, $\mathbf c =
\mathbf 0$ and $\sigma = 0$: the layer is continuous there ($\mathbf y \to \mathbf 0$)
but not differentiable, because $\sigma = \lVert\mathbf c\rVert/\sqrt d$ is not; with
$\epsilon$ inside the root it would be smooth.

**Mark scheme (2 points).** 1 pt: the Jacobian entry with
$\partial c_i/\partial x_j = \delta_{ij} - 1/d$ and
$\partial\sigma/\partial x_j = c_j/(d\sigma)$ (not $c_j/(d s)$). 1 pt: the vector form
of $\partial L/\partial\mathbf x$ (with the mean of $\mathbf g$ subtracted) and of
$\partial L/\partial\boldsymbol\gamma$ (summed over rows), with the factor $s/\sigma$ or
the non-differentiability at constant rows named.
:::"""

_EX2_SOLUTION_CENTRED = """\
def layernorm_outside_backward(dout, x, gamma, eps):
    # y = gamma * c / (sigma + eps), c = x - mean(x), sigma = sqrt(mean(c**2)).
    # Returns (dx, dgamma).
    ### BEGIN SOLUTION
    c = x - np.mean(x, axis=-1, keepdims=True)
    sigma = np.sqrt(np.mean(c * c, axis=-1, keepdims=True))
    s = sigma + eps
    g = dout * gamma
    dgamma = np.sum(dout * c / s, axis=tuple(range(x.ndim - 1)))
    d = x.shape[-1]
    dx = (g - np.mean(g, axis=-1, keepdims=True)) / s
    dx -= c * np.sum(g * c, axis=-1, keepdims=True) / (d * sigma * s**2)
    return dx, dgamma
    ### END SOLUTION


### BEGIN SOLUTION
def layernorm_outside_forward(x, gamma, eps):
    c = x - np.mean(x, axis=-1, keepdims=True)
    return gamma * c / (np.sqrt(np.mean(c * c, axis=-1, keepdims=True)) + eps)


rng_check = np.random.default_rng(SEEDS[0])
x_check = 0.05 * rng_check.standard_normal((2, 3, 6)) + 1.0  # std about 0.05
gamma_check = rng_check.uniform(0.5, 1.5, 6)
dout_check = rng_check.standard_normal((2, 3, 6))
dx, dgamma = layernorm_outside_backward(dout_check, x_check, gamma_check, 0.05)
dx_num = eval_numerical_gradient_array(
    lambda v: layernorm_outside_forward(v, gamma_check, 0.05), x_check, dout_check
)
dgamma_num = eval_numerical_gradient_array(
    lambda g: layernorm_outside_forward(x_check, g, 0.05), gamma_check, dout_check
)
print(
    f"normwise error dx {normwise_error(dx, dx_num):.1e}, "
    f"dgamma {normwise_error(dgamma, dgamma_num):.1e}"
)
### END SOLUTION"""

CENTRED_OUTSIDE = Variant(
    "layernorm-outside",
    "backward of LayerNorm gamma * (x - mu) / (sigma + eps): eps outside the root",
    (
        Edit("d48208b3", _BOOK["d48208b3"], _EX2_TASK_CENTRED),
        Edit("04-ex2-derivation", _BOOK["04-ex2-derivation"], _EX2_DERIVATION_CENTRED),
        Edit("04-ex2-solution", _BOOK["04-ex2-solution"], _EX2_SOLUTION_CENTRED),
        Edit(
            "04-ex2-dx",
            _EX2_REF_BOOK,
            """\
    _c = _xt - _xt.mean(-1, keepdim=True)
    _sigma = _c.pow(2).mean(-1, keepdim=True).sqrt()
    (_gt * _c / (_sigma + _eps)).backward(_torch.tensor(_dout))
""",
        ),
        Edit(
            "04-ex2-dx",
            _EX2_CALL_BOOK,
            "_FORBIDDEN, layernorm_outside_backward, _dout, _x, _gamma, _eps",
        ),
    ),
)


# --- 04-ex3 ---------------------------------------------------------------------------

_EX3_TASK = (
    (
        "### Exercise 4.3: bug hunt, a backward pass that passes at initialization "
        "(5 points)"
    )
    + r"""

```{admonition} Task
A colleague wrote the backward pass of %(layer)s
It passes their gradient check, which they ran on a freshly initialized layer. The cell
below runs that check, and a second one.

1. In the answer cell, name the bug, explain why the check at initialization cannot see
   it, and say how to choose parameter values for a gradient check so that it would.
   (2 points)
2. Write the corrected %(function)s, without calling `rmsnorm_backward` and without
   autograd. (3 points)
```"""
)

_EX3_CHECKS = """\
# scan: SEEDS[0] = 0..203: at initialization at most %s, trained at least %s
assert max(at_init) < 1e-8 and trained[%d] > 1e-3
"""

# plain gain, initialized at 1: dgamma from the cached output -------------------------

_EX3_BUGGY_PLAIN = """\
def rmsnorm_gain_backward_buggy(dout, x, gamma, eps=1e-6):
    # y = gamma * x / r, r = sqrt(mean(x**2) + eps). Returns (dx, dgamma).
    r = np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)
    y = gamma * x / r  # the output, as the forward pass caches it
    xhat = x / r
    g = gamma * dout
    dx = (g - xhat * np.mean(g * xhat, axis=-1, keepdims=True)) / r
    dgamma = np.sum(dout * y, axis=tuple(range(x.ndim - 1)))
    return dx, dgamma


def check_gain(backward, gamma, seed=SEEDS[0]):
    # Normwise errors of (dx, dgamma) against centred differences.
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((4, 8)) + 0.3
    dout = rng.standard_normal((4, 8))
    dx, dgamma = backward(dout, x, gamma)
    dx_num = eval_numerical_gradient_array(lambda v: rms_norm(v, gamma, 1e-6), x, dout)
    dgamma_num = eval_numerical_gradient_array(
        lambda g: rms_norm(x, g, 1e-6), gamma.copy(), dout
    )
    return normwise_error(dx, dx_num), normwise_error(dgamma, dgamma_num)


at_init = check_gain(rmsnorm_gain_backward_buggy, np.ones(8))
trained = check_gain(
    rmsnorm_gain_backward_buggy, np.random.default_rng(1).normal(1, 0.5, 8)
)
print(f"gamma = 1 (initialization): dx error {at_init[0]:.0e}, dgamma {at_init[1]:.0e}")
print(f"gamma random: dx error {trained[0]:.0e}, dgamma {trained[1]:.0e}")"""

_EX3_ANSWER_PLAIN = r""":::{dropdown} Solution and mark scheme
The bug is in `dgamma`: it multiplies the upstream gradient by the cached **output**
$\mathbf y = \boldsymbol\gamma\odot\hat{\mathbf x}$ instead of the normalized input
$\hat{\mathbf x} = \mathbf x/r$. Since $\partial y_i/\partial\gamma_i = \hat x_i$, the
correct gradient is $\partial L/\partial\boldsymbol\gamma = \sum_{\text{rows}}
\mathbf g^{\mathbf y}\odot\hat{\mathbf x}$; the code returns $\boldsymbol\gamma$ times
it. (`dx` is right.) At initialization $\boldsymbol\gamma = \mathbf 1$, so
$\mathbf y = \hat{\mathbf x}$ and the buggy and the correct code compute the same
numbers: no check at that point can tell them apart. The error appears with the first
optimizer step that moves a gain away from 1. A gradient check must use generic
parameter values: random, different per coordinate and away from the special values 0
and 1 ($\boldsymbol\gamma \sim \mathcal N(1, 0.5^2)$, say), never the initialization,
whose symmetries hide whole classes of bugs.

**Mark scheme (2 points).** 1 pt: the bug (`dgamma` uses the output $\mathbf y$ instead
of $\hat{\mathbf x}$, an extra factor $\boldsymbol\gamma$), with the correct formula. 1
pt: why $\boldsymbol\gamma = \mathbf 1$ hides it ($\mathbf y = \hat{\mathbf x}$ there)
and the remedy (check at random, coordinate-dependent parameters).
:::"""

_EX3_SOLUTION_PLAIN = """\
def rmsnorm_gain_backward(dout, x, gamma, eps=1e-6):
    # Corrected backward of y = gamma * x / r. Returns (dx, dgamma).
    ### BEGIN SOLUTION
    r = np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)
    xhat = x / r
    dgamma = np.sum(dout * xhat, axis=tuple(range(x.ndim - 1)))
    g = gamma * dout
    dx = (g - xhat * np.mean(g * xhat, axis=-1, keepdims=True)) / r
    return dx, dgamma
    ### END SOLUTION


### BEGIN SOLUTION
print(
    "corrected, gamma random: dx error {:.0e}, dgamma {:.0e}".format(
        *check_gain(rmsnorm_gain_backward, np.random.default_rng(1).normal(1, 0.5, 8))
    )
)
### END SOLUTION"""

PLAIN_GAIN = Variant(
    "plain-gain",
    "bug hunt: RMSNorm with gain gamma (init 1) whose dgamma uses the cached output",
    (
        Edit(
            "91b5135c",
            _BOOK["91b5135c"],
            _EX3_TASK
            % {
                "layer": r"""RMSNorm with a gain,
$\mathbf y = \boldsymbol\gamma\odot\mathbf x/r$ with
$r = \sqrt{\operatorname{mean}(\mathbf x^2)+\epsilon}$, a layer initialized at
$\boldsymbol\gamma = \mathbf 1$; their forward pass caches its output $\mathbf y$.""",
                "function": "`rmsnorm_gain_backward(dout, x, gamma, eps)` returning\n"
                "   `(dx, dgamma)`",
            },
        ),
        Edit("04-ex3-buggy-readonly", _BOOK["04-ex3-buggy-readonly"], _EX3_BUGGY_PLAIN),
        Edit(
            "04-ex3-buggy-readonly-checks",
            _BOOK["04-ex3-buggy-readonly-checks"],
            _EX3_CHECKS % ("3.9e-11", "0.095", 1),
        ),
        Edit("04-ex3-answer", _BOOK["04-ex3-answer"], _EX3_ANSWER_PLAIN),
        Edit("04-ex3-solution", _BOOK["04-ex3-solution"], _EX3_SOLUTION_PLAIN),
        Edit(
            "04-ex3-backward",
            "    ((1 + _gt) * _xt / _r).backward(_torch.tensor(_dout))",
            "    (_gt * _xt / _r).backward(_torch.tensor(_dout))",
        ),
        Edit(
            "04-ex3-backward",
            "_gamma = _rng.normal(0, 0.5, _shape[-1])",
            "_gamma = _rng.normal(1, 0.5, _shape[-1])",
        ),
        Edit(
            "04-ex3-backward",
            "_FORBIDDEN, rmsnorm_unit_offset_backward, _dout,",
            "_FORBIDDEN, rmsnorm_gain_backward, _dout,",
        ),
    ),
)

# (1 + gamma) with a bias: the gain forgotten in dx ----------------------------------

_EX3_BUGGY_BIAS = """\
def rmsnorm_unit_offset_bias_backward_buggy(dout, x, gamma, beta, eps=1e-6):
    # y = (1 + gamma) * x / r + beta, r = sqrt(mean(x**2) + eps).
    # Returns (dx, dgamma, dbeta).
    r = np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)
    xhat = x / r
    rows = tuple(range(x.ndim - 1))
    dgamma = np.sum(dout * xhat, axis=rows)
    dbeta = np.sum(dout, axis=rows)
    dx = (dout - xhat * np.mean(dout * xhat, axis=-1, keepdims=True)) / r
    return dx, dgamma, dbeta


def rms_norm_unit_offset_bias(x, gamma, beta, eps=1e-6):
    return rms_norm_unit_offset(x, gamma, eps) + beta


def check_unit_offset_bias(backward, gamma, beta, seed=SEEDS[0]):
    # Normwise errors of (dx, dgamma, dbeta) against centred differences.
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((4, 8)) + 0.3
    dout = rng.standard_normal((4, 8))
    grads = backward(dout, x, gamma, beta)
    numerical = (
        eval_numerical_gradient_array(
            lambda v: rms_norm_unit_offset_bias(v, gamma, beta), x, dout
        ),
        eval_numerical_gradient_array(
            lambda g: rms_norm_unit_offset_bias(x, g, beta), gamma.copy(), dout
        ),
        eval_numerical_gradient_array(
            lambda b: rms_norm_unit_offset_bias(x, gamma, b), beta.copy(), dout
        ),
    )
    return tuple(normwise_error(a, b) for a, b in zip(grads, numerical))


at_init = check_unit_offset_bias(
    rmsnorm_unit_offset_bias_backward_buggy, np.zeros(8), np.zeros(8)
)
rng_trained = np.random.default_rng(1)
trained = check_unit_offset_bias(
    rmsnorm_unit_offset_bias_backward_buggy,
    rng_trained.normal(0, 0.5, 8),
    rng_trained.normal(0, 0.5, 8),
)
print(
    "gamma = beta = 0 (initialization): dx error {:.0e}, dgamma {:.0e}, "
    "dbeta {:.0e}".format(*at_init)
)
print(
    "gamma, beta random:                dx error {:.0e}, dgamma {:.0e}, "
    "dbeta {:.0e}".format(*trained)
)"""

_EX3_ANSWER_BIAS = r""":::{dropdown} Solution and mark scheme
The gain is **missing from `dx`**: the code passes the upstream gradient $\mathbf
g^{\mathbf y}$ itself through the Jacobian $J = \frac1r(I - \hat{\mathbf x}\hat{\mathbf
x}^\top/d)$ of $\mathbf x \mapsto \hat{\mathbf x}$. The gradient with respect to
$\hat{\mathbf x}$ is $\mathbf g = (1+\boldsymbol\gamma)\odot\mathbf g^{\mathbf y}$, and
it is $\mathbf g$ that passes through $J$:
$\partial L/\partial\mathbf x = \frac1r(\mathbf g - \hat{\mathbf
x}\operatorname{mean}(\mathbf g\odot\hat{\mathbf x}))$. At initialization
$\boldsymbol\gamma = \mathbf 0$, the gain is exactly $\mathbf 1$, so $\mathbf g =
\mathbf g^{\mathbf y}$ and the buggy code computes the right numbers. The bias is no
help: $\boldsymbol\beta$ only shifts the output, enters no gradient but its own
(`dgamma` and `dbeta` $= \sum_{\text{rows}}\mathbf g^{\mathbf y}$ are right), and a
check at $\boldsymbol\beta \ne \mathbf 0$ alone would still pass. A gradient check must
use generic values of every parameter: random, non-zero, different per coordinate
($\boldsymbol\gamma, \boldsymbol\beta \sim \mathcal N(0, 0.5^2)$, say), never the
initialization, whose symmetries hide whole classes of bugs.

**Mark scheme (2 points).** 1 pt: the bug (the factor $1+\boldsymbol\gamma$ missing from
`dx`; $\mathbf g^{\mathbf y}$ instead of $\mathbf g$ through $J$), with the correct
formula. 1 pt: why $\boldsymbol\gamma = \mathbf 0$ hides it (the gain is 1 there;
$\boldsymbol\beta$ plays no part) and the remedy (check at random, coordinate-dependent
parameters).
:::"""

_EX3_SOLUTION_BIAS = """\
def rmsnorm_unit_offset_bias_backward(dout, x, gamma, beta, eps=1e-6):
    # Corrected backward of y = (1 + gamma) * x / r + beta.
    # Returns (dx, dgamma, dbeta).
    ### BEGIN SOLUTION
    r = np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)
    xhat = x / r
    rows = tuple(range(x.ndim - 1))
    dgamma = np.sum(dout * xhat, axis=rows)
    dbeta = np.sum(dout, axis=rows)
    g = (1 + gamma) * dout
    dx = (g - xhat * np.mean(g * xhat, axis=-1, keepdims=True)) / r
    return dx, dgamma, dbeta
    ### END SOLUTION


### BEGIN SOLUTION
rng_demo = np.random.default_rng(1)
errors = check_unit_offset_bias(
    rmsnorm_unit_offset_bias_backward,
    rng_demo.normal(0, 0.5, 8),
    rng_demo.normal(0, 0.5, 8),
)
print("corrected, random: dx error {:.0e}, dgamma {:.0e}, dbeta {:.0e}".format(*errors))
### END SOLUTION"""

_EX3_TEST_DEFS_BOOK = """\
def _ex3_reference(_dout, _x, _gamma, _eps):
    _xt = _torch.tensor(_x, requires_grad=True)
    _gt = _torch.tensor(_gamma, requires_grad=True)
    _r = (_xt.pow(2).mean(-1, keepdim=True) + _eps).sqrt()
    ((1 + _gt) * _xt / _r).backward(_torch.tensor(_dout))
    return _xt.grad.numpy(), _gt.grad.numpy()


def _ex3_check(_rng, _shapes):
    for _shape in _shapes:
        _eps = float(_rng.choice([1e-6, 1e-2]))
        _x = _rng.standard_normal(_shape) * _rng.uniform(0.1, 3) + _rng.uniform(-1, 1)
        _gamma = _rng.normal(0, 0.5, _shape[-1])
        _dout = _rng.standard_normal(_shape)
        _dx_ref, _dg_ref = _ex3_reference(_dout, _x, _gamma, _eps)
        _dx, _dg = _call_without(
            _FORBIDDEN, rmsnorm_unit_offset_backward, _dout, _x, _gamma, _eps
        )
        _compare(f"dx {_shape}", _dx, _dx_ref, 1e-10)
        _compare(f"dgamma {_shape}", _dg, _dg_ref, 1e-10)
"""

_EX3_TEST_DEFS_BIAS = """\
def _ex3_reference(_dout, _x, _gamma, _beta, _eps):
    _xt = _torch.tensor(_x, requires_grad=True)
    _gt = _torch.tensor(_gamma, requires_grad=True)
    _bt = _torch.tensor(_beta, requires_grad=True)
    _r = (_xt.pow(2).mean(-1, keepdim=True) + _eps).sqrt()
    ((1 + _gt) * _xt / _r + _bt).backward(_torch.tensor(_dout))
    return _xt.grad.numpy(), _gt.grad.numpy(), _bt.grad.numpy()


def _ex3_check(_rng, _shapes):
    for _shape in _shapes:
        _eps = float(_rng.choice([1e-6, 1e-2]))
        _x = _rng.standard_normal(_shape) * _rng.uniform(0.1, 3) + _rng.uniform(-1, 1)
        _gamma = _rng.normal(0, 0.5, _shape[-1])
        _beta = _rng.normal(0, 0.5, _shape[-1])
        _dout = _rng.standard_normal(_shape)
        _refs = _ex3_reference(_dout, _x, _gamma, _beta, _eps)
        _got = _call_without(
            _FORBIDDEN,
            rmsnorm_unit_offset_bias_backward,
            *(_dout, _x, _gamma, _beta, _eps),
        )
        assert len(_got) == 3, f"expected (dx, dgamma, dbeta), got {len(_got)} values"
        for _name, _g, _ref in zip(("dx", "dgamma", "dbeta"), _got, _refs):
            _compare(f"{_name} {_shape}", _g, _ref, 1e-10)
"""

UNIT_OFFSET_BIAS = Variant(
    "bias-gain-missing",
    "bug hunt: (1 + gamma) RMSNorm with a bias, the gain missing from dx",
    (
        Edit(
            "91b5135c",
            _BOOK["91b5135c"],
            _EX3_TASK
            % {
                "layer": r"""the $(1+\boldsymbol\gamma)$ RMSNorm of
{ref}`sec-04-variants` with a bias,
$\mathbf y = (1+\boldsymbol\gamma)\odot\mathbf x/r + \boldsymbol\beta$ with
$r = \sqrt{\operatorname{mean}(\mathbf x^2)+\epsilon}$, a layer initialized at
$\boldsymbol\gamma = \boldsymbol\beta = \mathbf 0$.""",
                "function": "`rmsnorm_unit_offset_bias_backward(dout, x, gamma, beta, "
                "eps)`\n   returning `(dx, dgamma, dbeta)`",
            },
        ),
        Edit("04-ex3-buggy-readonly", _BOOK["04-ex3-buggy-readonly"], _EX3_BUGGY_BIAS),
        Edit(
            "04-ex3-buggy-readonly-checks",
            _BOOK["04-ex3-buggy-readonly-checks"],
            _EX3_CHECKS % ("3.9e-11", "0.11", 0),
        ),
        Edit("04-ex3-answer", _BOOK["04-ex3-answer"], _EX3_ANSWER_BIAS),
        Edit("04-ex3-solution", _BOOK["04-ex3-solution"], _EX3_SOLUTION_BIAS),
        Edit("04-ex3-backward", _EX3_TEST_DEFS_BOOK, _EX3_TEST_DEFS_BIAS),
    ),
)

# (1 + gamma) LayerNorm: the centring term without the gain --------------------------

_EX3_BUGGY_LN = """\
def layernorm_unit_offset_backward_buggy(dout, x, gamma, eps=1e-6):
    # y = (1 + gamma) * (x - mu) / r, r = sqrt(var(x) + eps). Returns (dx, dgamma).
    c = x - np.mean(x, axis=-1, keepdims=True)
    r = np.sqrt(np.mean(c * c, axis=-1, keepdims=True) + eps)
    xhat = c / r
    dgamma = np.sum(dout * xhat, axis=tuple(range(x.ndim - 1)))
    g = (1 + gamma) * dout
    dx = g - np.mean(dout, axis=-1, keepdims=True)
    dx = (dx - xhat * np.mean(g * xhat, axis=-1, keepdims=True)) / r
    return dx, dgamma


def check_unit_offset_ln(backward, gamma, seed=SEEDS[0]):
    # Normwise errors of (dx, dgamma) against centred differences.
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((4, 8)) + 0.3
    dout = rng.standard_normal((4, 8))
    dx, dgamma = backward(dout, x, gamma)
    dx_num = eval_numerical_gradient_array(
        lambda v: layer_norm(v, 1.0 + gamma, None, 1e-6), x, dout
    )
    dgamma_num = eval_numerical_gradient_array(
        lambda g: layer_norm(x, 1.0 + g, None, 1e-6), gamma.copy(), dout
    )
    return normwise_error(dx, dx_num), normwise_error(dgamma, dgamma_num)


at_init = check_unit_offset_ln(layernorm_unit_offset_backward_buggy, np.zeros(8))
trained = check_unit_offset_ln(
    layernorm_unit_offset_backward_buggy, np.random.default_rng(1).normal(0, 0.5, 8)
)
print(f"gamma = 0 (initialization): dx error {at_init[0]:.0e}, dgamma {at_init[1]:.0e}")
print(f"gamma random: dx error {trained[0]:.0e}, dgamma {trained[1]:.0e}")"""

_EX3_ANSWER_LN = r""":::{dropdown} Solution and mark scheme
The bug is in the **centring term** of `dx`. With $\hat{\mathbf x} = (\mathbf x -
\mu\mathbf 1)/r$ and $\mathbf g = (1+\boldsymbol\gamma)\odot\mathbf g^{\mathbf y}$, the
gradient with respect to $\hat{\mathbf x}$, LayerNorm's backward pass is
$\partial L/\partial\mathbf x = \frac1r\big(\mathbf g - \operatorname{mean}(\mathbf g)\,
\mathbf 1 - \hat{\mathbf x}\operatorname{mean}(\mathbf g\odot\hat{\mathbf x})\big)$:
both the centring and the radial term act on $\mathbf g$. The code uses $\mathbf g$ in
the radial term but subtracts the mean of the raw upstream gradient,
$\operatorname{mean}(\mathbf g^{\mathbf y})$; its error is
$\frac1r\operatorname{mean}(\boldsymbol\gamma\odot\mathbf g^{\mathbf y})\,\mathbf 1$. At
initialization $\boldsymbol\gamma = \mathbf 0$, the gain is exactly $\mathbf 1$, so
$\mathbf g = \mathbf g^{\mathbf y}$ and the buggy code computes the right numbers: no
check there can tell them apart. (`dgamma` is right.) A gradient check must use generic
parameter values: random, non-zero, different per coordinate
($\boldsymbol\gamma \sim \mathcal N(0, 0.5^2)$, say), never the initialization, whose
symmetries hide whole classes of bugs.

**Mark scheme (2 points).** 1 pt: the bug (the centring term subtracts
$\operatorname{mean}(\mathbf g^{\mathbf y})$ instead of $\operatorname{mean}(\mathbf
g)$), with the correct formula. 1 pt: why $\boldsymbol\gamma = \mathbf 0$ hides it (the
gain is 1 there, so $\mathbf g = \mathbf g^{\mathbf y}$) and the remedy (check at
random, coordinate-dependent parameters).
:::"""

_EX3_SOLUTION_LN = """\
def layernorm_unit_offset_backward(dout, x, gamma, eps=1e-6):
    # Corrected backward of y = (1 + gamma) * (x - mu) / r. Returns (dx, dgamma).
    ### BEGIN SOLUTION
    c = x - np.mean(x, axis=-1, keepdims=True)
    r = np.sqrt(np.mean(c * c, axis=-1, keepdims=True) + eps)
    xhat = c / r
    dgamma = np.sum(dout * xhat, axis=tuple(range(x.ndim - 1)))
    g = (1 + gamma) * dout
    dx = g - np.mean(g, axis=-1, keepdims=True)
    dx = (dx - xhat * np.mean(g * xhat, axis=-1, keepdims=True)) / r
    return dx, dgamma
    ### END SOLUTION


### BEGIN SOLUTION
print(
    "corrected, gamma random: dx error {:.0e}, dgamma {:.0e}".format(
        *check_unit_offset_ln(
            layernorm_unit_offset_backward, np.random.default_rng(1).normal(0, 0.5, 8)
        )
    )
)
### END SOLUTION"""

LAYERNORM_CENTRING = Variant(
    "layernorm-centring",
    "bug hunt: (1 + gamma) LayerNorm whose centring term ignores the gain",
    (
        Edit(
            "91b5135c",
            _BOOK["91b5135c"],
            _EX3_TASK
            % {
                "layer": r"""LayerNorm with the $(1+\boldsymbol\gamma)$
gain of {ref}`sec-04-variants` and no bias,
$\mathbf y = (1+\boldsymbol\gamma)\odot(\mathbf x - \mu\mathbf 1)/r$ with
$\mu = \operatorname{mean}(\mathbf x)$ and
$r = \sqrt{\operatorname{mean}((\mathbf x - \mu\mathbf 1)^2)+\epsilon}$, a layer
initialized at $\boldsymbol\gamma = \mathbf 0$.""",
                "function": "`layernorm_unit_offset_backward(dout, x, gamma, eps)`\n"
                "   returning `(dx, dgamma)`",
            },
        ),
        Edit("04-ex3-buggy-readonly", _BOOK["04-ex3-buggy-readonly"], _EX3_BUGGY_LN),
        Edit(
            "04-ex3-buggy-readonly-checks",
            _BOOK["04-ex3-buggy-readonly-checks"],
            _EX3_CHECKS % ("7.8e-11", "0.010", 0),
        ),
        Edit("04-ex3-answer", _BOOK["04-ex3-answer"], _EX3_ANSWER_LN),
        Edit("04-ex3-solution", _BOOK["04-ex3-solution"], _EX3_SOLUTION_LN),
        Edit(
            "04-ex3-backward",
            """\
    _r = (_xt.pow(2).mean(-1, keepdim=True) + _eps).sqrt()
    ((1 + _gt) * _xt / _r).backward(_torch.tensor(_dout))
""",
            """\
    _c = _xt - _xt.mean(-1, keepdim=True)
    _r = (_c.pow(2).mean(-1, keepdim=True) + _eps).sqrt()
    ((1 + _gt) * _c / _r).backward(_torch.tensor(_dout))
""",
        ),
        Edit(
            "04-ex3-backward",
            "_FORBIDDEN, rmsnorm_unit_offset_backward, _dout,",
            "_FORBIDDEN, layernorm_unit_offset_backward, _dout,",
        ),
    ),
)


# --- 04-ex4 ---------------------------------------------------------------------------

_EX4_MONOTONE = r"""The weight $p_j = 1/(1 + \sum_{t\ne j} e^{\ell_t - \ell_j})$
grows with $\ell_j$ and falls with every other logit. With all logits in $[-B, B]$ it is
largest for $\ell_j = B$ and $\ell_t = -B$ ($t \ne j$), and smallest in the opposite
case:

$$
p_{\max} = \frac{1}{1 + (T-1)\,e^{-2B}},\qquad p_{\min} = \frac{1}{1 + (T-1)\,e^{2B}} .
$$
"""

# full-width QK-norm (OLMo 2) ----------------------------------------------------------

_EX4_TASK_FULL = (
    ("### Exercise 4.4: full-width QK-norm, how peaked can attention get? (5 points)")
    + r"""

```{admonition} Task
With full-width QK-norm (OLMo 2: the whole projection of $H$ heads is RMS-normalized,
then split into heads of $d_h$ coordinates), every logit of a query against $T$ keys in
any head satisfies $|\ell_j| \le B = H\max_i|\gamma_{q,i}\gamma_{k,i}|\sqrt{d_h}$, the
maximum running over all $H d_h$ gains ({ref}`sec-04-qknorm`). The attention weights of
a head are $p_j = e^{\ell_j}/\sum_{t=1}^T e^{\ell_t}$.

1. In the answer cell, derive the largest possible weight $p_{\max}(B, T)$ and the
   smallest possible weight, show that both are attained (for $\epsilon = 0$) by a
   configuration of queries and keys you describe, and evaluate $p_{\max}$ for $H = 4$
   heads of $d_h = 64$, unit gains, $T = 128$. (2 points)
2. Implement `max_weight_bound(gq, gk, T, n_heads)`, the largest weight any key can
   receive among $T$ keys, in any head, for gains `gq`, `gk` (arrays of length
   $H d_h$). (1 point)
3. Implement `min_gain_for_weight(p, T, d_head, n_heads)`: the smallest $c \ge 0$ such
   that with $\boldsymbol\gamma_q = \boldsymbol\gamma_k = c\,\mathbf 1$ (of length
   $H d_h$) some key can receive weight at least $p$ among $T$ keys (return 0.0 if no
   gain is needed). (2 points)

Do not use `qk_norm_logits`, `qk_bound` or `full_width_logits`.
```"""
)

_EX4_ANSWER_FULL = (
    ":::{dropdown} Solution and mark scheme\n"
    + _EX4_MONOTONE
    + r"""Both are attained: with $i^*$ the coordinate of the largest
$|\gamma_{q,i}\gamma_{k,i}|$ over the full width (say $\gamma_{q,i^*}\gamma_{k,i^*} >
0$), let the query and key $j$ be $\mathbf e_{i^*}$ and every other key $-\mathbf
e_{i^*}$. Normalized over the full width, they get $u_{i^*} = \pm\sqrt{H d_h}$, all of
their length in the head that holds $i^*$, whose logits are then
$\pm\gamma_{q,i^*}\gamma_{k,i^*}\,H d_h/\sqrt{d_h} = \pm B$ ({ref}`sec-04-qknorm`);
swapping the signs gives $p_{\min}$. For $H = 4$, $d_h = 64$ and unit gains $B = 32$,
four times the per-head bound, so $p_{\max} = 1/(1 + 127e^{-64}) \approx 1 -
2\times10^{-26}$: one-hot attention to double precision. To reach weight $p$ the gains
must satisfy $c^2 H\sqrt{d_h} \ge \frac12\ln\frac{p(T-1)}{1-p}$, a gain $\sqrt H$ times
smaller than with per-head QK-norm.

**Mark scheme (2 points).** 1 pt: $p_{\max}$ and $p_{\min}$ with the monotonicity
argument. 1 pt: the attaining configuration (all the length on one coordinate of one
head) and the value for $H = 4$, $d_h = 64$, $T = 128$.
:::"""
)

_EX4_SOLUTION_FULL = """\
def max_weight_bound(gq, gk, T, n_heads):
    # Largest attention weight one of T keys can get under full-width QK-norm.
    ### BEGIN SOLUTION
    d_head = len(gq) // n_heads
    B = n_heads * np.max(np.abs(gq * gk)) * np.sqrt(d_head)
    return float(1.0 / (1.0 + (T - 1) * np.exp(-2.0 * B)))
    ### END SOLUTION


def min_gain_for_weight(p, T, d_head, n_heads):
    # Smallest constant gain c (gq = gk = c) that lets one key reach weight p among T.
    ### BEGIN SOLUTION
    if p <= 1.0 / T:
        return 0.0
    B = 0.5 * np.log(p * (T - 1) / (1.0 - p))
    return float(np.sqrt(B / (n_heads * np.sqrt(d_head))))
    ### END SOLUTION"""

_EX4_BOUND_FULL = """\
_FORBIDDEN = ("qk_norm_logits", "qk_bound", "full_width_logits")


def _weights_of_extreme_case(_gq, _gk, _T, _H):
    # Query and key 0 on the coordinate of the largest |gq * gk| of the full width,
    # other keys opposite; the head holding it divides by sqrt(d_h).
    _w = len(_gq)
    _i = int(abs(_gq * _gk).argmax())
    _sign = 1.0 if _gq[_i] * _gk[_i] > 0 else -1.0
    _u = _np.zeros(_w)
    _u[_i] = _w**0.5  # one-hot vector, RMS-normalized over the full width
    _logit = (_gq * _gk * _u * _u).sum() / (_w // _H) ** 0.5 * _sign
    _logits = _np.full(_T, -1.0) * _logit
    _logits[0] *= -1.0
    _e = _np.exp(_logits - _logits.max())
    return _e / _e.sum()


_rng = _np.random.default_rng(407)
for _d, _T, _H in [(16, 8, 2), (32, 128, 4)]:
    _gq, _gk = _rng.normal(0.5, 0.2, _d * _H), _rng.normal(0.3, 0.2, _d * _H)
    _b = _call_without(_FORBIDDEN, max_weight_bound, _gq, _gk, _T, _H)
    assert type(_b) in (float, _np.float64) and 1.0 / _T < _b <= 1.0, (
        "a weight in (1/T, 1]"
    )
    _attained = float(_weights_of_extreme_case(_gq, _gk, _T, _H).max())
    _err = abs(_b - _attained) / _attained
    assert _err < 1e-10, (
        f"d={_d}, H={_H}, T={_T}: bound {_b:.6g} is not attained ({_attained:.6g})"
    )
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(4107)
for _ in range(6):
    _d, _T = int(_rng.choice([4, 16, 64, 128])), int(_rng.integers(2, 3000))
    _H = int(_rng.choice([1, 2, 4, 8]))
    _gq, _gk = _rng.normal(0, 0.3, _d * _H), _rng.normal(0, 0.3, _d * _H)
    _b = _call_without(_FORBIDDEN, max_weight_bound, _gq, _gk, _T, _H)
    _B = _H * abs(_gq * _gk).max() * _d**0.5
    _ref = 1.0 / (1.0 + (_T - 1) * _np.exp(-2 * _B))
    assert abs(_b - _ref) <= 1e-10 * _ref, f"d={_d}, H={_H}, T={_T}: {_b} vs {_ref}"
### END HIDDEN TESTS"""

_EX4_GAIN_FULL = """\
def _weight_at_gain(_c, _T, _d, _H):
    _g = _np.full(_d * _H, _c)
    return float(_weights_of_extreme_case(_g, _g, _T, _H).max())


_cases = [(0.9, 128, 64, 4), (0.5, 10, 16, 2)]
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(4108)
_cases += [
    (
        float(_rng.uniform(0.05, 0.999)),
        int(_rng.integers(2, 5000)),
        int(_rng.choice([8, 32, 128])),
        int(_rng.choice([1, 2, 4, 8])),
    )
    for _ in range(6)
]
_cases += [(0.01, 50, 64, 4)]  # below 1/T: no gain needed
### END HIDDEN TESTS
for _p, _T, _d, _H in _cases:
    _c = _call_without(_FORBIDDEN, min_gain_for_weight, _p, _T, _d, _H)
    assert type(_c) in (float, _np.float64) and _c >= 0, "a non-negative float expected"
    if _p <= 1.0 / _T:
        assert _c == 0.0, f"p = {_p} <= 1/T needs no gain, got {_c}"
        continue
    _w = _weight_at_gain(_c, _T, _d, _H)
    assert abs(_w - _p) <= 1e-9, (
        f"p={_p:.3f}, T={_T}, d={_d}, H={_H}: gain {_c:.6g} gives {_w:.9f}"
    )"""

FULL_WIDTH = Variant(
    "full-width",
    "full-width QK-norm over H heads: largest weight and the gain that reaches p",
    (
        Edit("53290aaa", _BOOK["53290aaa"], _EX4_TASK_FULL),
        Edit("04-ex4-answer", _BOOK["04-ex4-answer"], _EX4_ANSWER_FULL),
        Edit("04-ex4-solution", _BOOK["04-ex4-solution"], _EX4_SOLUTION_FULL),
        Edit("04-ex4-bound", _BOOK["04-ex4-bound"], _EX4_BOUND_FULL),
        Edit("04-ex4-gain", _BOOK["04-ex4-gain"], _EX4_GAIN_FULL),
    ),
)

# the smallest weight: how far QK-norm lets attention ignore a key ---------------------

_EX4_TASK_MIN = (
    ("### Exercise 4.4: QK-norm, how completely can attention ignore a key? (5 points)")
    + r"""

```{admonition} Task
With QK-norm every logit of a query against $T$ keys satisfies $|\ell_j| \le B =
\max_i|\gamma_{q,i}\gamma_{k,i}|\sqrt{d_h}$ ({ref}`sec-04-qknorm`). The attention
weights are $p_j = e^{\ell_j}/\sum_{t=1}^T e^{\ell_t}$.

1. In the answer cell, derive the smallest possible weight $p_{\min}(B, T)$ and the
   largest possible weight, show that both are attained (for $\epsilon = 0$) by a
   configuration of queries and keys you describe, and evaluate $p_{\min}$ for
   $d_h = 64$, unit gains, $T = 128$. (2 points)
2. Implement `min_weight_bound(gq, gk, T)`, the smallest weight any key can receive
   among $T$ keys for gains `gq`, `gk` (arrays of length $d_h$). (1 point)
3. Implement `min_gain_for_suppression(p, T, d_head)`: the smallest $c \ge 0$ such that
   with $\boldsymbol\gamma_q = \boldsymbol\gamma_k = c\,\mathbf 1$ some key can receive
   weight at most $p$ among $T$ keys (return 0.0 if no gain is needed). (2 points)

Do not use `qk_norm_logits` or `qk_bound`.
```"""
)

_EX4_ANSWER_MIN = (
    ":::{dropdown} Solution and mark scheme\n"
    + _EX4_MONOTONE
    + r"""Both are attained: with $i^*$ the coordinate of the largest
$|\gamma_{q,i}\gamma_{k,i}|$ (say $\gamma_{q,i^*}\gamma_{k,i^*} > 0$), let the query be
$\mathbf e_{i^*}$, key $j$ be $-\mathbf e_{i^*}$ and every other key $\mathbf e_{i^*}$;
the logits are exactly $-B$ for key $j$ and $B$ for the others ({ref}`sec-04-qknorm`),
and swapping the signs gives $p_{\max}$. For $d_h = 64$ and unit gains $B = 8$, so
$p_{\min} = 1/(1 + 127e^{16}) \approx 8.9\times10^{-10}$: with unit gains a head can
already silence a key almost completely. To push a key down to weight $p < 1/T$ the
gains must satisfy $c^2\sqrt{d_h} \ge \frac12\ln\frac{1-p}{p(T-1)}$; for $p \ge 1/T$ no
gain is needed, since equal logits give every key $1/T$.

**Mark scheme (2 points).** 1 pt: $p_{\min}$ and $p_{\max}$ with the monotonicity
argument. 1 pt: the attaining configuration and the value for $d_h = 64$, $T = 128$.
:::"""
)

_EX4_SOLUTION_MIN = """\
def min_weight_bound(gq, gk, T):
    # Smallest attention weight one of T keys can get under QK-norm with these gains.
    ### BEGIN SOLUTION
    B = np.max(np.abs(gq * gk)) * np.sqrt(len(gq))
    return float(1.0 / (1.0 + (T - 1) * np.exp(2.0 * B)))
    ### END SOLUTION


def min_gain_for_suppression(p, T, d_head):
    # Smallest constant gain c (gq = gk = c) that lets one key fall to weight p among T.
    ### BEGIN SOLUTION
    if p >= 1.0 / T:
        return 0.0
    B = 0.5 * np.log((1.0 - p) / (p * (T - 1)))
    return float(np.sqrt(B / np.sqrt(d_head)))
    ### END SOLUTION"""

_EX4_BOUND_MIN = """\
_FORBIDDEN = ("qk_norm_logits", "qk_bound")


def _suppressed_weight(_gq, _gk, _T):
    # Query on the coordinate of the largest |gq * gk|, key 0 opposite to it, the other
    # keys aligned: the weight of key 0.
    _d = len(_gq)
    _i = int(abs(_gq * _gk).argmax())
    _sign = 1.0 if _gq[_i] * _gk[_i] > 0 else -1.0
    _u = _np.zeros(_d)
    _u[_i] = _d**0.5  # RMS-normalized one-hot vector
    _logits = _np.full(_T, 1.0) * (_gq * _gk * _u * _u).sum() / _d**0.5 * _sign
    _logits[0] *= -1.0
    _e = _np.exp(_logits - _logits.max())
    return float(_e[0] / _e.sum())


_rng = _np.random.default_rng(407)
for _d, _T in [(16, 8), (64, 128)]:
    _gq, _gk = _rng.normal(1, 0.3, _d), _rng.normal(0.5, 0.3, _d)
    _b = _call_without(_FORBIDDEN, min_weight_bound, _gq, _gk, _T)
    assert type(_b) in (float, _np.float64) and 0.0 < _b < 1.0 / _T, (
        "a weight in (0, 1/T)"
    )
    _attained = _suppressed_weight(_gq, _gk, _T)
    _err = abs(_b - _attained) / _attained
    assert _err < 1e-10, (
        f"d={_d}, T={_T}: bound {_b:.6g} is not attained ({_attained:.6g})"
    )
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(4107)
for _ in range(5):
    _d, _T = int(_rng.choice([4, 16, 64, 128])), int(_rng.integers(2, 3000))
    _gq, _gk = _rng.normal(0, 0.6, _d), _rng.normal(0, 0.6, _d)
    _b = _call_without(_FORBIDDEN, min_weight_bound, _gq, _gk, _T)
    _ref = 1.0 / (1.0 + (_T - 1) * _np.exp(2 * abs(_gq * _gk).max() * _d**0.5))
    assert abs(_b - _ref) <= 1e-10 * _ref, f"d={_d}, T={_T}: {_b} vs {_ref}"
### END HIDDEN TESTS"""

_EX4_GAIN_MIN = """\
def _weight_at_gain(_c, _T, _d):
    return _suppressed_weight(_np.full(_d, _c), _np.full(_d, _c), _T)


_cases = [(1e-4, 128, 64), (0.05, 10, 16)]
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(4108)
for _ in range(6):
    _T = int(_rng.integers(2, 5000))
    _p = float(10 ** _rng.uniform(-8, -0.01)) / _T  # below 1/T
    _cases.append((_p, _T, int(_rng.choice([8, 32, 128]))))
_cases += [(0.2, 50, 64)]  # at least 1/T: no gain needed
### END HIDDEN TESTS
for _p, _T, _d in _cases:
    _c = _call_without(_FORBIDDEN, min_gain_for_suppression, _p, _T, _d)
    assert type(_c) in (float, _np.float64) and _c >= 0, "a non-negative float expected"
    if _p >= 1.0 / _T:
        assert _c == 0.0, f"p = {_p} >= 1/T needs no gain, got {_c}"
        continue
    _w = _weight_at_gain(_c, _T, _d)
    assert abs(_w - _p) <= 1e-9 * _p, (
        f"p={_p:.3g}, T={_T}, d={_d}: gain {_c:.6g} gives {_w:.9g}"
    )"""

MIN_WEIGHT = Variant(
    "min-weight",
    "QK-norm: smallest weight a key can get and the gain that pushes it down to p",
    (
        Edit("53290aaa", _BOOK["53290aaa"], _EX4_TASK_MIN),
        Edit("04-ex4-answer", _BOOK["04-ex4-answer"], _EX4_ANSWER_MIN),
        Edit("04-ex4-solution", _BOOK["04-ex4-solution"], _EX4_SOLUTION_MIN),
        Edit("04-ex4-bound", _BOOK["04-ex4-bound"], _EX4_BOUND_MIN),
        Edit("04-ex4-gain", _BOOK["04-ex4-gain"], _EX4_GAIN_MIN),
    ),
)

# logits without the division by sqrt(d_h) ---------------------------------------------

_EX4_TASK_UNSCALED = (
    (
        "### Exercise 4.4: QK-norm without the 1/√d_h, how peaked can attention get? "
        "(5 points)"
    )
    + r"""

```{admonition} Task
Some implementations drop the division by $\sqrt{d_h}$ after QK-norm and let the gains
learn the temperature: $\ell = \tilde{\mathbf q}^\top\tilde{\mathbf k}$. The two
inequalities of {ref}`sec-04-qknorm` then give, for every logit of a query against $T$
keys, $|\ell_j| \le B = \max_i|\gamma_{q,i}\gamma_{k,i}|\,d_h$. The attention weights
are $p_j = e^{\ell_j}/\sum_{t=1}^T e^{\ell_t}$.

1. In the answer cell, derive the largest possible weight $p_{\max}(B, T)$ and the
   smallest possible weight, show that both are attained (for $\epsilon = 0$) by a
   configuration of queries and keys you describe, and evaluate $p_{\max}$ for
   $d_h = 64$, unit gains, $T = 128$. (2 points)
2. Implement `max_weight_bound(gq, gk, T)`, the largest weight any key can receive among
   $T$ keys for gains `gq`, `gk` (arrays of length $d_h$), with these unscaled logits.
   (1 point)
3. Implement `min_gain_for_weight(p, T, d_head)`: the smallest $c \ge 0$ such that with
   $\boldsymbol\gamma_q = \boldsymbol\gamma_k = c\,\mathbf 1$ some key can receive
   weight at least $p$ among $T$ keys (return 0.0 if no gain is needed). (2 points)

Do not use `qk_norm_logits` or `qk_bound`.
```"""
)

_EX4_ANSWER_UNSCALED = (
    ":::{dropdown} Solution and mark scheme\n"
    + _EX4_MONOTONE
    + r"""Both are attained: with $i^*$ the coordinate of the largest
$|\gamma_{q,i}\gamma_{k,i}|$ (say $\gamma_{q,i^*}\gamma_{k,i^*} > 0$), let the query and
key $j$ be $\mathbf e_{i^*}$ and every other key $-\mathbf e_{i^*}$; then
$u_{i^*} = v_{i^*} = \pm\sqrt{d_h}$ and the logits are exactly
$\pm\gamma_{q,i^*}\gamma_{k,i^*}\,d_h = \pm B$, and swapping the signs gives $p_{\min}$.
For $d_h = 64$ and unit gains $B = 64$, $\sqrt{d_h} = 8$ times the bound with the
division, so $p_{\max} = 1/(1 + 127e^{-128}) \approx 1 - 3\times10^{-54}$: exactly
one-hot in double precision, with unit gains. To reach weight $p$ the gains must satisfy
$c^2 d_h \ge \frac12\ln\frac{p(T-1)}{1-p}$: for $p = 0.9$, $T = 128$ that is $c \approx
0.23$ instead of $0.66$.

**Mark scheme (2 points).** 1 pt: $p_{\max}$ and $p_{\min}$ with the monotonicity
argument. 1 pt: the attaining configuration and the value for $d_h = 64$, $T = 128$
(with $B = d_h$, not $\sqrt{d_h}$).
:::"""
)

UNSCALED = Variant(
    "unscaled",
    "QK-norm with logits not divided by sqrt(d_h): largest weight and gain for p",
    (
        Edit("53290aaa", _BOOK["53290aaa"], _EX4_TASK_UNSCALED),
        Edit("04-ex4-answer", _BOOK["04-ex4-answer"], _EX4_ANSWER_UNSCALED),
        Edit(
            "04-ex4-solution",
            "    B = np.max(np.abs(gq * gk)) * np.sqrt(len(gq))",
            "    B = np.max(np.abs(gq * gk)) * len(gq)  # no division by sqrt(d_h)",
        ),
        Edit(
            "04-ex4-solution",
            "return float(np.sqrt(B / np.sqrt(d_head)))",
            "return float(np.sqrt(B / d_head))",
        ),
        Edit(
            "04-ex4-bound",
            "(_gq * _gk * _u * _u).sum() / _d**0.5 * _sign",
            "(_gq * _gk * _u * _u).sum() * _sign  # unscaled",
        ),
        Edit(
            "04-ex4-bound",
            "_gq, _gk = _rng.normal(1, 0.3, _d), _rng.normal(0.5, 0.3, _d)",
            "_gq, _gk = _rng.normal(0.3, 0.1, _d), _rng.normal(0.2, 0.1, _d)",
        ),
        Edit(
            "04-ex4-bound",
            "_gq, _gk = _rng.normal(0, 0.6, _d), _rng.normal(0, 0.6, _d)",
            "_gq, _gk = _rng.normal(0, 0.15, _d), _rng.normal(0, 0.15, _d)",
        ),
        Edit(
            "04-ex4-bound",
            "_np.exp(-2 * abs(_gq * _gk).max() * _d**0.5)",
            "_np.exp(-2 * abs(_gq * _gk).max() * _d)",
        ),
    ),
)


BANK = {
    "04-ex1": [LAST_K, EPS_OUTSIDE, FEATURES_FIRST],
    "04-ex2": [UNIT_OFFSET_OUTSIDE, MEAN_ABS, CENTRED_OUTSIDE],
    "04-ex3": [PLAIN_GAIN, UNIT_OFFSET_BIAS, LAYERNORM_CENTRING],
    "04-ex4": [FULL_WIDTH, MIN_WEIGHT, UNSCALED],
}
