"""Variants of chapter 11's coding exercises (grading/bank/__init__.py)."""

from grading.bank import Edit, Variant

# Exercise 11.1: the book's Task, the cells it names, and the lines of its tests that a
# variant rewrites.
TASK = "d7a308ca"
SOLUTION, NORM, BLOCK = "11-ex1-solution", "11-ex1-norm", "11-ex1-block"

BOOK_TASK = """\
Write `rms_norm_1p(x, w, eps)`, RMSNorm over the last axis with the gain $1 + \\mathbf w$, and
`sandwich_block(x, attend, mlp, w, eps)`, one Gemma 3 decoder layer: `w` is a dict of four
weights of shape `(d,)` named `"in"`, `"post_attn"`, `"pre_mlp"` and `"post_mlp"`, `attend`
and `mlp` are functions from `(..., d)` to `(..., d)`. Compute in the type of `x`. The
tests use random shapes, weights and sublayers, with the chapter's `rms_norm` and `block`
and PyTorch's own RMSNorm unavailable: 2 points for `rms_norm_1p`, 3 for the block.
"""

BOOK_NORM_SOLUTION = (
    "    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * (1 + w)\n"
)

BOOK_BLOCK_SOLUTION = """\
def sandwich_block(x, attend, mlp, w, eps):
    ### BEGIN SOLUTION
    h = x + rms_norm_1p(attend(rms_norm_1p(x, w["in"], eps)), w["post_attn"], eps)
    out = mlp(rms_norm_1p(h, w["pre_mlp"], eps))
    return h + rms_norm_1p(out, w["post_mlp"], eps)
    ### END SOLUTION"""

BOOK_REF_NORM = (
    "    return _x / ((_x * _x).mean(-1, keepdim=True) + _eps) ** 0.5 * (1 + _w)\n"
)
BOOK_REF_BLOCK_NORM = (
    "        return _z / ((_z * _z).mean(-1, keepdim=True) + _eps) ** 0.5 * (1 + _v)\n"
)
BOOK_REF_SANDWICH = """\
    _h = _x + _n(_attend(_n(_x, _w["in"])), _w["post_attn"])
    return _h + _n(_mlp(_n(_h, _w["pre_mlp"])), _w["post_mlp"])
"""
BOOK_KEYS = '        for _k in ["in", "post_attn", "pre_mlp", "post_mlp"]\n'
BOOK_BLOCK_CALL = """\
    _got = _call_without(_FORBIDDEN, sandwich_block, _x, _attend, _mlp, _w, _eps)
    _ref = _ref_block(_x, _attend, _mlp, _w, _eps).numpy()
    _compare(
        f"sandwich_block {_shape}",
        _tensor_to_numpy("sandwich_block", _got, _x),
"""


def norm_tests_renamed(name):
    """The norm cell's tests of `rms_norm_1p` rewritten for a norm called `name`."""
    return [
        Edit(
            NORM,
            "    _got = _call_without(_FORBIDDEN, rms_norm_1p, _x, _w, 1e-6)\n",
            f"    _got = _call_without(_FORBIDDEN, {name}, _x, _w, 1e-6)\n",
        ),
        Edit(
            NORM,
            '        f"rms_norm_1p {_shape}", _tensor_to_numpy("rms_norm_1p", _got, _x), '
            "_ref, 1e-10\n",
            f'        f"{name} {{_shape}}",\n'
            f'        _tensor_to_numpy("{name}", _got, _x),\n'
            "        _ref,\n"
            "        1e-10,\n",
        ),
        Edit(
            NORM,
            "    _got = _call_without(_FORBIDDEN, rms_norm_1p, _x * 0.01, _w, _eps)\n",
            f"    _got = _call_without(_FORBIDDEN, {name}, _x * 0.01, _w, _eps)\n",
        ),
        Edit(
            NORM,
            '        f"rms_norm_1p d={_d}", _tensor_to_numpy("rms_norm_1p", _got, _x), '
            "_ref, 1e-10\n",
            f'        f"{name} d={{_d}}",\n'
            f'        _tensor_to_numpy("{name}", _got, _x),\n'
            "        _ref,\n"
            "        1e-10,\n",
        ),
    ]


def block_call_renamed(name):
    return Edit(
        BLOCK,
        BOOK_BLOCK_CALL,
        BOOK_BLOCK_CALL.replace("sandwich_block", name),
    )


EPS_OUTSIDE = Variant(
    "eps-outside",
    "Gemma 3's sandwich layer from an RMSNorm with ε added outside the root",
    (
        Edit(
            TASK,
            BOOK_TASK,
            """\
Write `rms_norm_1p(x, w, eps)`, RMSNorm over the last axis with the gain $1 + \\mathbf w$
and $\\epsilon$ added to the RMS *outside* the root,
$\\mathbf x/\\big(\\sqrt{\\operatorname{mean}_j x_j^2}+\\epsilon\\big)\\odot(1+\\mathbf w)$,
and `sandwich_block(x, attend, mlp, w, eps)`, one Gemma 3 decoder layer built from this
norm: `w` is a dict of four weights of shape `(d,)` named `"in"`, `"post_attn"`,
`"pre_mlp"` and `"post_mlp"`, `attend` and `mlp` are functions from `(..., d)` to
`(..., d)`. Compute in the type of `x`. The tests use random shapes, weights and
sublayers, with the chapter's `rms_norm` and `block` and PyTorch's own RMSNorm
unavailable: 2 points for `rms_norm_1p`, 3 for the block.
""",
        ),
        Edit(
            SOLUTION,
            BOOK_NORM_SOLUTION,
            "    return x / (x.pow(2).mean(-1, keepdim=True).sqrt() + eps) * (1 + w)\n",
        ),
        Edit(
            NORM,
            BOOK_REF_NORM,
            "    return _x / ((_x * _x).mean(-1, keepdim=True) ** 0.5 + _eps) * (1 + _w)\n",
        ),
        Edit(
            BLOCK,
            BOOK_REF_BLOCK_NORM,
            "        _rms = (_z * _z).mean(-1, keepdim=True) ** 0.5\n"
            "        return _z / (_rms + _eps) * (1 + _v)\n",
        ),
    ),
)

LAYERNORM = Variant(
    "layernorm",
    "Gemma 3's sandwich layer with a bias-free LayerNorm of gain 1 + w for its norms",
    (
        Edit(
            TASK,
            BOOK_TASK,
            """\
Write `layer_norm_1p(x, w, eps)`, LayerNorm over the last axis without a bias and
with the gain $1 + \\mathbf w$:
$(\\mathbf x-\\mu)/\\sqrt{\\sigma^2+\\epsilon}\\odot(1+\\mathbf w)$, with $\\mu$ the
mean and $\\sigma^2$ the population variance of the last axis. Then write
`sandwich_block(x, attend, mlp, w, eps)`, one Gemma 3 decoder layer with this LayerNorm
in the place of each of its four RMSNorms: `w` is a dict of four weights of shape `(d,)`
named `"in"`, `"post_attn"`, `"pre_mlp"` and `"post_mlp"`, `attend` and `mlp` are
functions from `(..., d)` to `(..., d)`. Compute in the type of `x`. The tests use
random shapes, weights and sublayers, with the chapter's `rms_norm` and `block` and
PyTorch's own LayerNorm unavailable: 2 points for `layer_norm_1p`, 3 for the block.
""",
        ),
        Edit(SOLUTION, "def rms_norm_1p(x, w, eps):", "def layer_norm_1p(x, w, eps):"),
        Edit(
            SOLUTION,
            BOOK_NORM_SOLUTION,
            "    c = x - x.mean(-1, keepdim=True)\n"
            "    return c * torch.rsqrt(c.pow(2).mean(-1, keepdim=True) + eps) * (1 + w)\n",
        ),
        Edit(
            SOLUTION,
            BOOK_BLOCK_SOLUTION,
            """\
def sandwich_block(x, attend, mlp, w, eps):
    ### BEGIN SOLUTION
    n = layer_norm_1p
    h = x + n(attend(n(x, w["in"], eps)), w["post_attn"], eps)
    return h + n(mlp(n(h, w["pre_mlp"], eps)), w["post_mlp"], eps)
    ### END SOLUTION""",
        ),
        Edit(
            NORM,
            '"torch.nn.functional.rms_norm", "torch.rms_norm"]',
            '"torch.nn.functional.layer_norm", "torch.layer_norm"]',
        ),
        Edit(
            NORM,
            BOOK_REF_NORM,
            "    _c = _x - _x.mean(-1, keepdim=True)\n"
            "    return _c / ((_c * _c).mean(-1, keepdim=True) + _eps) ** 0.5 * (1 + _w)\n",
        ),
        *norm_tests_renamed("layer_norm_1p"),
        Edit(
            BLOCK,
            BOOK_REF_BLOCK_NORM,
            "        _c = _z - _z.mean(-1, keepdim=True)\n"
            "        return _c / ((_c * _c).mean(-1, keepdim=True) + _eps) ** 0.5 "
            "* (1 + _v)\n",
        ),
    ),
)

REORDERED = Variant(
    "olmo2-reordered",
    "OLMo 2's reordered layer: an RMSNorm of plain gain w after each sublayer",
    (
        Edit(TASK, "a sandwich block (5 points)", "a reordered block (5 points)"),
        Edit(
            TASK,
            BOOK_TASK,
            """\
Write `rms_norm_g(x, w, eps)`, RMSNorm over the last axis with the plain gain
$\\mathbf w$ (not $1 + \\mathbf w$), and `reordered_block(x, attend, mlp, w, eps)`, one
OLMo 2 decoder layer, $\\mathbf x_{l+1} = \\mathbf x_l + N(F(\\mathbf x_l))$ for
attention and then for the MLP (see {ref}`sec-11-placements`): `w` is a dict of two
weights of shape `(d,)` named `"post_attn"` and `"post_mlp"`, `attend` and `mlp` are
functions from `(..., d)` to `(..., d)`. Compute in the type of `x`. The tests use
random shapes, weights and sublayers, with the chapter's `rms_norm` and `block` and
PyTorch's own RMSNorm unavailable: 2 points for `rms_norm_g`, 3 for the block.
""",
        ),
        Edit(SOLUTION, "def rms_norm_1p(x, w, eps):", "def rms_norm_g(x, w, eps):"),
        Edit(
            SOLUTION,
            BOOK_NORM_SOLUTION,
            "    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w\n",
        ),
        Edit(
            SOLUTION,
            BOOK_BLOCK_SOLUTION,
            """\
def reordered_block(x, attend, mlp, w, eps):
    ### BEGIN SOLUTION
    h = x + rms_norm_g(attend(x), w["post_attn"], eps)
    return h + rms_norm_g(mlp(h), w["post_mlp"], eps)
    ### END SOLUTION""",
        ),
        Edit(
            NORM,
            BOOK_REF_NORM,
            "    return _x / ((_x * _x).mean(-1, keepdim=True) + _eps) ** 0.5 * _w\n",
        ),
        *norm_tests_renamed("rms_norm_g"),
        Edit(
            BLOCK,
            BOOK_REF_BLOCK_NORM,
            "        return _z / ((_z * _z).mean(-1, keepdim=True) + _eps) ** 0.5 * _v\n",
        ),
        Edit(
            BLOCK,
            BOOK_REF_SANDWICH,
            """\
    _h = _x + _n(_attend(_x), _w["post_attn"])
    return _h + _n(_mlp(_h), _w["post_mlp"])
""",
        ),
        Edit(BLOCK, BOOK_KEYS, '        for _k in ["post_attn", "post_mlp"]\n'),
        block_call_renamed("reordered_block"),
    ),
)

LNS = Variant(
    "layernorm-scaling",
    "a pre-norm layer with LayerNorm Scaling: each norm's output divided by √layer",
    (
        Edit(
            TASK,
            "a sandwich block (5 points)",
            "a block with LayerNorm Scaling (5 points)",
        ),
        Edit(
            TASK,
            BOOK_TASK,
            """\
Write `rms_norm_1p(x, w, eps)`, RMSNorm over the last axis with the gain
$1 + \\mathbf w$, and `lns_block(x, attend, mlp, w, eps, layer)`, a pre-norm decoder
layer with LayerNorm Scaling {cite:p}`sun2025curse`:
$\\mathbf x_{l+1} = \\mathbf x_l + F(N(\\mathbf x_l)/\\sqrt l)$ for attention and then
for the MLP, with $N$ your `rms_norm_1p` and $l$ the block's depth `layer` (counted
from 1, the same for both sublayers). `w` is a dict of two weights of shape `(d,)` named
`"in"` (the norm before attention) and `"pre_mlp"`, `attend` and `mlp` are functions
from `(..., d)` to `(..., d)`. Compute in the type of `x`. The tests use random shapes,
weights, depths and sublayers, with the chapter's `rms_norm` and `block` and PyTorch's
own RMSNorm unavailable: 2 points for `rms_norm_1p`, 3 for the block.
""",
        ),
        Edit(
            SOLUTION,
            BOOK_BLOCK_SOLUTION,
            """\
def lns_block(x, attend, mlp, w, eps, layer):
    ### BEGIN SOLUTION
    scale = layer**-0.5
    h = x + attend(rms_norm_1p(x, w["in"], eps) * scale)
    return h + mlp(rms_norm_1p(h, w["pre_mlp"], eps) * scale)
    ### END SOLUTION""",
        ),
        Edit(
            BLOCK,
            "def _ref_block(_x, _attend, _mlp, _w, _eps):",
            "def _ref_block(_x, _attend, _mlp, _w, _eps, _layer):",
        ),
        Edit(
            BLOCK,
            BOOK_REF_SANDWICH,
            """\
    _h = _x + _attend(_n(_x, _w["in"]) / _layer**0.5)
    return _h + _mlp(_n(_h, _w["pre_mlp"]) / _layer**0.5)
""",
        ),
        Edit(
            BLOCK,
            "def _ex1_case(_g, _shape, _eps):",
            "def _ex1_case(_g, _shape, _eps, _layer):",
        ),
        Edit(BLOCK, BOOK_KEYS, '        for _k in ["in", "pre_mlp"]\n'),
        Edit(
            BLOCK,
            BOOK_BLOCK_CALL,
            """\
    _got = _call_without(_FORBIDDEN, lns_block, _x, _attend, _mlp, _w, _eps, _layer)
    _ref = _ref_block(_x, _attend, _mlp, _w, _eps, _layer).numpy()
    _compare(
        f"lns_block {_shape}, layer {_layer}",
        _tensor_to_numpy("lns_block", _got, _x),
""",
        ),
        Edit(
            BLOCK,
            "for _shape in [(5, 8), (2, 6, 12)]:\n    _ex1_case(_g, _shape, 1e-6)\n",
            "for _shape, _layer in [((5, 8), 4), ((2, 6, 12), 11)]:\n"
            "    _ex1_case(_g, _shape, 1e-6, _layer)\n",
        ),
        Edit(
            BLOCK,
            "    _ex1_case(_g, (3, int(_torch.randint(1, 9, (1,), generator=_g)), _d), "
            "1e-5)\n",
            "    _shape = (3, int(_torch.randint(1, 9, (1,), generator=_g)), _d)\n"
            "    _layer = int(_torch.randint(2, 17, (1,), generator=_g))\n"
            "    _ex1_case(_g, _shape, 1e-5, _layer)\n",
        ),
    ),
)

BANK = {"11-ex1": [EPS_OUTSIDE, LAYERNORM, REORDERED, LNS]}
