"""Variants of chapter 08's coding exercises (grading/bank/__init__.py)."""

from grading.bank import Edit, Variant

# The book's model answer of Exercise 8.1(b) (the text inside the dropdown).
_BOOK_ANSWER = r"""RMS normalization gives $\operatorname{mean}(\hat q^2) = m/(m+\epsilon) < 1$ for
$\hat q = q/\sqrt{m + \epsilon}$, $m = \operatorname{mean}(q^2)$, so $\lVert \hat q \rVert <
\sqrt{d_{\text{head}}}$ and $\lVert \tilde q \rVert \le \max|g_q|\, \lVert \hat q \rVert <
\sqrt{d_{\text{head}}}\max|g_q|$; likewise for $\tilde k$. Cauchy–Schwarz gives
$|\tilde q \cdot \tilde k| \le \lVert \tilde q\rVert \lVert \tilde k\rVert < d_{\text{head}}
\max|g_q|\max|g_k|$, and dividing by $\sqrt{d_{\text{head}}}$ gives the bound. It is nearly attained
with unit gains and $k_j = q_i$ (any scale): then $s_{ii} = \sqrt{d_{\text{head}}}\, m/(m+\epsilon)$.

The softmax depends only on differences of logits: $p_{ij}/p_{ij'} = e^{s_{ij} - s_{ij'}}$. Bounded
logits bound every such ratio by $e^{2B}$, so no attention row can collapse onto a single key and the
softmax's Jacobian $\operatorname{diag}(p) - pp^\top$ cannot vanish. Bounding $q$ and $k$ alone would
not suffice, because the logits also grow with the weights $W_q$, $W_k$; after QK-norm they depend
on those weights only through the direction of $q$ and $k$, and their scale is set by the gains.

**Mark scheme (2 points).** 1 pt: the norm bound on $\tilde q$, $\tilde k$ and Cauchy–Schwarz,
with a case that attains it. 1 pt: the softmax argument (differences of logits, saturation and
vanishing gradient) and why normalizing $q$ and $k$ rather than bounding them helps."""

_TASK_GAINS = r"""$\tilde q = q / \sqrt{\operatorname{mean}(q^2) + \epsilon} \odot g_q$, the mean
over the last axis, and likewise $\tilde k$ with $g_k$."""
_TASK_BOUND = (
    r"$|s_{ij}| \le \sqrt{d_{\text{head}}}\, \max_m |g_{q,m}|\, \max_m |g_{k,m}|$"
)
_SOLUTION_NORM = """\
        q = q * torch.rsqrt(q.pow(2).mean(-1, keepdim=True) + eps) * g_q
        k = k * torch.rsqrt(k.pow(2).mean(-1, keepdim=True) + eps) * g_k"""
_DOC_NORM = "q and k are first RMS-normalized over d_head and multiplied by their gain."
_REF_NORM = """\
    _qt = _qn / _np.sqrt((_qn**2).mean(-1, keepdims=True) + 1e-6) * _gq
    _kt = _kn / _np.sqrt((_kn**2).mean(-1, keepdims=True) + 1e-6) * _gk"""
_TIGHT = '    assert _err < 1e-4, f"d_head={_dh}: diagonal / sqrt(d_head) off by {_err:.1e}"\n'
_BOUND = "    _bound = _dh**0.5 * abs(_gq).max() * abs(_gk).max()"

_SOFTMAX = r"""The softmax depends only on differences of logits: $p_{ij}/p_{ij'} = e^{s_{ij} - s_{ij'}}$. Bounded
logits bound every such ratio by $e^{2B}$, so no attention row can collapse onto a single key and the
softmax's Jacobian $\operatorname{diag}(p) - pp^\top$ cannot vanish. Bounding $q$ and $k$ alone would
not suffice, because the logits also grow with the weights $W_q$, $W_k$; after QK-norm they depend
on those weights only through the direction of $q$ and $k$, and their scale is set by the gains."""

_LN_ANSWER = (
    r"""LayerNorm gives $\hat q = (q - \bar q)/\sqrt{v + \epsilon}$ with $\bar q = \operatorname{mean}(q)$
and $v = \operatorname{mean}((q - \bar q)^2)$, so $\operatorname{mean}(\hat q^2) = v/(v+\epsilon) < 1$:
centring removes the mean but leaves the same norm, $\lVert \hat q \rVert < \sqrt{d_{\text{head}}}$,
and $\lVert \tilde q \rVert \le \max|g_q|\, \lVert \hat q \rVert < \sqrt{d_{\text{head}}}\max|g_q|$;
likewise for $\tilde k$. Cauchy–Schwarz gives $|\tilde q \cdot \tilde k| \le \lVert \tilde q\rVert
\lVert \tilde k\rVert < d_{\text{head}} \max|g_q|\max|g_k|$, and dividing by $\sqrt{d_{\text{head}}}$
gives the bound. It is nearly attained with unit gains and $k_j = q_i$ (any scale and offset, $q_i$
not constant): then $s_{ii} = \sqrt{d_{\text{head}}}\, v/(v+\epsilon)$. Unlike RMS normalization, the
logits do not change when a constant is added to every feature of a query or a key.

"""
    + _SOFTMAX
    + r"""

**Mark scheme (2 points).** 1 pt: the norm bound on the centred and normalized $\tilde q$,
$\tilde k$ and Cauchy–Schwarz, with a case that attains it. 1 pt: the softmax argument
(differences of logits, saturation and vanishing gradient) and why normalizing $q$ and $k$ rather
than bounding them helps."""
)

_ONE_PLUS_ANSWER = (
    r"""RMS normalization gives $\operatorname{mean}(\hat q^2) = m/(m+\epsilon) < 1$ for
$\hat q = q/\sqrt{m + \epsilon}$, $m = \operatorname{mean}(q^2)$, so $\lVert \hat q \rVert <
\sqrt{d_{\text{head}}}$ and, the gain being $1 + g_q$, $\lVert \tilde q \rVert \le \max|1 + g_q|\,
\lVert \hat q \rVert < \sqrt{d_{\text{head}}}\max|1 + g_q|$; likewise for $\tilde k$. Cauchy–Schwarz
gives $|\tilde q \cdot \tilde k| \le \lVert \tilde q\rVert \lVert \tilde k\rVert < d_{\text{head}}
\max|1 + g_q|\max|1 + g_k|$, and dividing by $\sqrt{d_{\text{head}}}$ gives the bound. It is nearly
attained with zero gains (the initialization, a gain of 1) and $k_j = q_i$ (any scale): then
$s_{ii} = \sqrt{d_{\text{head}}}\, m/(m+\epsilon)$. What bounds the logits is the effective gain
$1 + g$, not the parameter $g$: $g = -1$ switches a feature off.

"""
    + _SOFTMAX
    + r"""

**Mark scheme (2 points).** 1 pt: the norm bound on $\tilde q$, $\tilde k$ with the effective
gains $1 + g$ and Cauchy–Schwarz, with a case that attains it. 1 pt: the softmax argument
(differences of logits, saturation and vanishing gradient) and why normalizing $q$ and $k$ rather
than bounding them helps."""
)

_L2_ANSWER = (
    r"""L2 normalization gives $\lVert \hat q \rVert^2 = n/(n+\epsilon) < 1$ for
$\hat q = q/\sqrt{n + \epsilon}$, $n = \lVert q \rVert^2$, so $\lVert \tilde q \rVert \le
\max|g_q|\, \lVert \hat q \rVert < \max|g_q|$; likewise for $\tilde k$. Cauchy–Schwarz gives
$|\tilde q \cdot \tilde k| \le \lVert \tilde q\rVert \lVert \tilde k\rVert < \max|g_q|\max|g_k|$,
and dividing by $\sqrt{d_{\text{head}}}$ gives the bound. It is nearly attained with unit gains and
$k_j = q_i$ (any scale): then $s_{ii} = n/(n+\epsilon)/\sqrt{d_{\text{head}}}$. Compared with RMS
normalization the bound is $d_{\text{head}}$ times smaller: with unit gains every logit is at most
$1/\sqrt{d_{\text{head}}}$ (a cosine similarity divided by $\sqrt{d_{\text{head}}}$), so the
softmax is nearly uniform unless the gains learn a large scale (a temperature).

"""
    + _SOFTMAX
    + r"""

**Mark scheme (2 points).** 1 pt: the norm bound $\lVert\tilde q\rVert < \max|g_q|$ (likewise
$\tilde k$) and Cauchy–Schwarz, with a case that attains it. 1 pt: the softmax argument
(differences of logits, saturation and vanishing gradient) and why normalizing $q$ and $k$ rather
than bounding them helps."""
)

_EX1 = [
    Variant(
        "layernorm-qk",
        "causal logits with QK-LayerNorm (mean-centred, variance) instead of RMS",
        (
            Edit(
                "f12efff9",
                _TASK_GAINS,
                r"""$\tilde q = (q - \operatorname{mean}(q)) / \sqrt{\operatorname{var}(q) + \epsilon}
\odot g_q$, a LayerNorm without bias (mean and population variance over the last axis), and
likewise $\tilde k$ with $g_k$.""",
            ),
            Edit(
                "f12efff9",
                "together with its tightness (1 point)",
                "together with its tightness and the invariance of the\nlogits to a "
                "constant added to every feature of $q$ (1 point)",
            ),
            Edit(
                "08-ex1-solution",
                _DOC_NORM,
                "q and k are first layer-normalized over d_head (no bias) and multiplied\n"
                "    by their gain.",
            ),
            Edit(
                "08-ex1-solution",
                _SOLUTION_NORM,
                """\
        q = q - q.mean(-1, keepdim=True)
        k = k - k.mean(-1, keepdim=True)
        q = q * torch.rsqrt(q.pow(2).mean(-1, keepdim=True) + eps) * g_q
        k = k * torch.rsqrt(k.pow(2).mean(-1, keepdim=True) + eps) * g_k""",
            ),
            Edit(
                "08-ex1-qknorm",
                _REF_NORM,
                """\
    _qc = _qn - _qn.mean(-1, keepdims=True)
    _kc = _kn - _kn.mean(-1, keepdims=True)
    _qt = _qc / _np.sqrt((_qc**2).mean(-1, keepdims=True) + 1e-6) * _gq
    _kt = _kc / _np.sqrt((_kc**2).mean(-1, keepdims=True) + 1e-6) * _gk""",
            ),
            Edit(
                "08-ex1-bound",
                "    _err = float(abs(_diag / _dh**0.5 - 1).max())\n" + _TIGHT,
                """\
    _v = _qn.var(-1)  # with LayerNorm the diagonal is sqrt(d_head) v / (v + eps)
    _err = float(abs(_diag / (_dh**0.5 * _v / (_v + 1e-6)) - 1).max())
    assert _err < 1e-8, f"d_head={_dh}: diagonal off by {_err:.1e}"
"""
                + """\
    # centring: a constant added to every feature of a query changes no logit
    _sh = _rng.uniform(-5, 5, (2, _T, 1))
    _o2 = causal_logits(
        _torch.from_numpy(_qn + _sh), _torch.from_numpy(_qn.copy()), _one, _one
    )
    _fin = _np.isfinite(_o.detach().numpy())
    _err = float(abs(_o2.detach().numpy()[_fin] - _o.detach().numpy()[_fin]).max())
    assert _err < 1e-8, f"d_head={_dh}: shifting q changed the logits by {_err:.1e}"
""",
            ),
            Edit(
                "08-ex1-bound",
                "the diagonal logit equals sqrt(d_head)",
                "the diagonal logit is nearly sqrt(d_head)",
            ),
            Edit("08-ex1-answer", _BOOK_ANSWER, _LN_ANSWER),
        ),
    ),
    Variant(
        "one-plus-gain",
        "causal logits with RMS QK-norm and zero-centred gains 1 + g",
        (
            Edit(
                "f12efff9",
                "With gains (vectors of length\n$d_{\\text{head}}$), " + _TASK_GAINS,
                r"""With gains (vectors of length
$d_{\text{head}}$, zero at initialization),
$\tilde q = q / \sqrt{\operatorname{mean}(q^2) + \epsilon} \odot (1 + g_q)$, the mean over the
last axis, and likewise $\tilde k$ with $1 + g_k$.""",
            ),
            Edit(
                "f12efff9",
                _TASK_BOUND,
                r"$|s_{ij}| \le \sqrt{d_{\text{head}}}\, \max_m |1 + g_{q,m}|\, "
                r"\max_m |1 + g_{k,m}|$",
            ),
            Edit(
                "08-ex1-solution",
                _DOC_NORM,
                "q and k are first RMS-normalized over d_head and multiplied by 1 + gain.",
            ),
            Edit(
                "08-ex1-solution",
                _SOLUTION_NORM,
                """\
        q = q * torch.rsqrt(q.pow(2).mean(-1, keepdim=True) + eps) * (1 + g_q)
        k = k * torch.rsqrt(k.pow(2).mean(-1, keepdim=True) + eps) * (1 + g_k)""",
            ),
            Edit(
                "08-ex1-qknorm",
                "QK-norm with unit gains keeps every logit",
                "zero gains (1 + g = 1) keep every logit",
            ),
            Edit(
                "08-ex1-qknorm",
                "    _q, _k, torch.ones(8, dtype=torch.float64), "
                "torch.ones(8, dtype=torch.float64)",
                "    _q, _k, torch.zeros(8, dtype=torch.float64), "
                "torch.zeros(8, dtype=torch.float64)",
            ),
            Edit(
                "08-ex1-qknorm",
                _REF_NORM,
                """\
    _qt = _qn / _np.sqrt((_qn**2).mean(-1, keepdims=True) + 1e-6) * (1 + _gq)
    _kt = _kn / _np.sqrt((_kn**2).mean(-1, keepdims=True) + 1e-6) * (1 + _gk)""",
            ),
            Edit(
                "08-ex1-bound",
                """\
_ones = torch.ones(8, dtype=torch.float64)
_a, _b = causal_logits(_q, _k, _ones, _ones), causal_logits(1e4 * _q, _k, _ones, _ones)""",
                """\
_zero = torch.zeros(8, dtype=torch.float64)  # gains 1 + 0
_a, _b = causal_logits(_q, _k, _zero, _zero), causal_logits(1e4 * _q, _k, _zero, _zero)""",
            ),
            Edit(
                "08-ex1-bound",
                "with k = q and unit gains, the diagonal",
                "k = q, zero gains (1 + g = 1): the diagonal",
            ),
            Edit(
                "08-ex1-bound",
                "    _one = _torch.ones(_dh, dtype=_torch.float64)",
                "    _one = _torch.zeros(_dh, dtype=_torch.float64)  # gains 1 + 0",
            ),
            Edit(
                "08-ex1-bound",
                "    # the bound sqrt(d_head) max|g_q| max|g_k| holds",
                "    # the bound sqrt(d_head) max|1 + g_q| max|1 + g_k| holds",
            ),
            Edit(
                "08-ex1-bound",
                _BOUND,
                "    _bound = _dh**0.5 * abs(1 + _gq).max() * abs(1 + _gk).max()",
            ),
            Edit("08-ex1-answer", _BOOK_ANSWER, _ONE_PLUS_ANSWER),
        ),
    ),
    Variant(
        "l2-norm",
        "causal logits with L2-normalized (not RMS) queries and keys and gains",
        (
            Edit(
                "f12efff9",
                _TASK_GAINS,
                r"""$\tilde q = q / \sqrt{\lVert q \rVert^2 + \epsilon} \odot g_q$, the Euclidean
norm over the last axis (not the RMS), and likewise $\tilde k$ with $g_k$.""",
            ),
            Edit(
                "f12efff9",
                _TASK_BOUND,
                r"$|s_{ij}| \le \max_m |g_{q,m}|\, \max_m |g_{k,m}| / "
                r"\sqrt{d_{\text{head}}}$",
            ),
            Edit(
                "08-ex1-solution",
                _DOC_NORM,
                "q and k are first L2-normalized over d_head and multiplied by their gain.",
            ),
            Edit(
                "08-ex1-solution",
                _SOLUTION_NORM,
                """\
        q = q * torch.rsqrt(q.pow(2).sum(-1, keepdim=True) + eps) * g_q
        k = k * torch.rsqrt(k.pow(2).sum(-1, keepdim=True) + eps) * g_k""",
            ),
            Edit(
                "08-ex1-qknorm",
                "QK-norm with unit gains keeps every logit within sqrt(d_head).",
                "unit gains keep every logit within 1/sqrt(d_head).",
            ),
            Edit(
                "08-ex1-qknorm",
                "assert float(_fin.abs().max()) <= 8**0.5,",
                "assert float(_fin.abs().max()) <= 8**-0.5,",
            ),
            Edit(
                "08-ex1-qknorm",
                _REF_NORM,
                """\
    _qt = _qn / _np.sqrt((_qn**2).sum(-1, keepdims=True) + 1e-6) * _gq
    _kt = _kn / _np.sqrt((_kn**2).sum(-1, keepdims=True) + 1e-6) * _gk""",
            ),
            Edit(
                "08-ex1-bound",
                "the diagonal logit equals sqrt(d_head)",
                "the diagonal logit equals 1/sqrt(d_head)",
            ),
            Edit(
                "08-ex1-bound",
                """\
    _err = float(abs(_diag / _dh**0.5 - 1).max())
"""
                + _TIGHT,
                """\
    _err = float(abs(_diag * _dh**0.5 - 1).max())
    assert _err < 1e-4, f"d_head={_dh}: diagonal * sqrt(d_head) off by {_err:.1e}"
""",
            ),
            Edit(
                "08-ex1-bound",
                "    # the bound sqrt(d_head) max|g_q| max|g_k| holds",
                "    # the bound max|g_q| max|g_k| / sqrt(d_head) holds",
            ),
            Edit(
                "08-ex1-bound",
                _BOUND,
                "    _bound = abs(_gq).max() * abs(_gk).max() / _dh**0.5",
            ),
            Edit("08-ex1-answer", _BOOK_ANSWER, _L2_ANSWER),
        ),
    ),
]

BANK = {"08-ex1": _EX1}
