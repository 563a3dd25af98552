"""Variants of chapter 10's coding exercises (grading/bank/__init__.py)."""

from grading.bank import Edit, Variant

# ---------------------------------------------------------------------------------------
# Exercise 10.1: RMSNorm's backward kernel
# ---------------------------------------------------------------------------------------

_TASK = r"""Write `rms_backward_kernel(DY, X, W, Rstd, DX, DW_part, N, D, ROWS, BLOCK)`, a Triton kernel
with the interface of `_rms_norm_bwd` above (without `W_IN_LOOP`, `SPLIT` and `PIPELINE`;
here `ROWS` and `BLOCK` are both `tl.constexpr`, so a `for` loop over the rows will do):
program `pid` handles rows `pid * ROWS` to `pid * ROWS + ROWS - 1` (those
below `N`), writes their $\partial\mathbf x$ into `DX`, and writes the sum of
$\partial\mathbf y \odot \hat{\mathbf x}$ over its rows into row `pid` of `DW_part`
($P \times D$, float32). Derive $\partial\mathbf x$ for RMSNorm yourself, or from
{doc}`04-rmsnorm`. The tests call `launch_rms_backward`, given below your kernel in the
same cell, on random shapes (under the interpreter without a GPU), with the chapter's
backward kernels unavailable: 4 points for $\partial\mathbf x$, 2 for the partial sums."""

_SOLUTION = """\
@triton.jit
def rms_backward_kernel(
    DY, X, W, Rstd, DX, DW_part, N, D, ROWS: tl.constexpr, BLOCK: tl.constexpr
):
    ### BEGIN SOLUTION
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < D
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(ROWS):
        row = pid * ROWS + i
        live = mask & (row < N)
        offs = row.to(tl.int64) * D + cols
        x = tl.load(X + offs, mask=live, other=0.0).to(tl.float32)
        dy = tl.load(DY + offs, mask=live, other=0.0).to(tl.float32)
        r = tl.load(Rstd + row, mask=row < N, other=0.0)
        xhat = x * r
        g = dy * w
        dx = (g - xhat * (tl.sum(g * xhat, axis=0) / D)) * r
        tl.store(DX + offs, dx.to(DX.dtype.element_ty), mask=live)
        acc += dy * xhat
    tl.store(DW_part + pid * D + cols, acc, mask=mask)
    ### END SOLUTION


def launch_rms_backward(x, dy, w, rstd, rows):
    # Exercise 10.1's kernel on NumPy float32 inputs, `rows` rows per program; returns
    # dx and the partial sums as NumPy arrays. The outputs start as NaN, so that an
    # element the kernel does not write shows.
    x, dy, w, rstd = (
        torch.from_numpy(np.ascontiguousarray(a, dtype=np.float32)).to(DEVICE)
        for a in (x, dy, w, rstd)
    )
    n, d = x.shape
    programs = -(-n // rows)
    dx = torch.full_like(x, float("nan"))
    part = torch.full((programs, d), float("nan"), device=DEVICE)
    block = triton.next_power_of_2(d)
    rms_backward_kernel[(programs,)](
        dy, x, w, rstd, dx, part, n, d, ROWS=rows, BLOCK=block
    )
    return dx.cpu().numpy(), part.cpu().numpy()"""

_CASE = """\
def _ex1_case(_rng, _n, _d, _rows):
    # The student's kernel on a random problem, and float64 references.
    _x = (1.5 * _rng.standard_normal((_n, _d)) + 0.3).astype(_np.float32)
    _dy = _rng.standard_normal((_n, _d)).astype(_np.float32)
    _w = (1 + 0.3 * _rng.standard_normal(_d)).astype(_np.float32)
    _x64, _dy64, _w64 = (_a.astype(_np.float64) for _a in (_x, _dy, _w))
    _r64 = 1 / ((_x64 * _x64).mean(axis=1, keepdims=True) + 1e-6) ** 0.5
    _rstd = _r64[:, 0].astype(_np.float32)
    _dx, _part = _call_without(
        _FORBIDDEN, launch_rms_backward, _x, _dy, _w, _rstd, _rows
    )
    _xhat = _x64 * _r64
    _g = _dy64 * _w64
    _dx_ref = _r64 * (_g - _xhat * (_g * _xhat).mean(axis=1, keepdims=True))"""

_PARTIALS = """\
_rng = _np.random.default_rng(1010)
for _n, _d, _rows in [(7, 24, 3), (4, 9, 4)]:
    _, _, _part, _part_ref = _ex1_case(_rng, _n, _d, _rows)
    _compare(f"DW_part ({_n}, {_d})", _part, _part_ref, 1e-6, _np.float32)
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(1011)
for _ in range(3):
    _n, _d = int(_rng.integers(1, 40)), int(_rng.integers(2, 300))
    _, _, _part, _part_ref = _ex1_case(_rng, _n, _d, int(_rng.integers(1, 8)))
    _compare(f"DW_part ({_n}, {_d})", _part, _part_ref, 1e-6, _np.float32)
### END HIDDEN TESTS"""

_LAYERNORM = Variant(
    "layernorm",
    "LayerNorm's backward kernel: dx, and partial sums of dy * xhat and of dy",
    (
        Edit(
            "ceeb223e",
            "### Exercise 10.1: RMSNorm's backward kernel (6 points)",
            "### Exercise 10.1: LayerNorm's backward kernel (6 points)",
        ),
        Edit(
            "ceeb223e",
            _TASK,
            r"""Write `ln_backward_kernel(DY, X, W, Mean, Rstd, DX, DW_part, DB_part, N, D, ROWS, BLOCK)`,
a Triton kernel with the interface of `_layer_norm_bwd` above (without `W_IN_LOOP`, `SPLIT`
and `PIPELINE`; here `ROWS` and `BLOCK` are both `tl.constexpr`, so a `for` loop over the
rows will do): program `pid` handles rows `pid * ROWS` to `pid * ROWS + ROWS - 1` (those
below `N`), reads their mean and $1/\sigma$ from `Mean` and `Rstd`, writes their
$\partial\mathbf x$ into `DX`, and writes the sums of $\partial\mathbf y \odot \hat{\mathbf x}$
and of $\partial\mathbf y$ over its rows into row `pid` of `DW_part` and of `DB_part` (each
$P \times D$, float32). Derive $\partial\mathbf x$ for LayerNorm yourself, or from
{doc}`03-layernorm-backward`. The tests call `launch_ln_backward`, given below your kernel in
the same cell, on random shapes (under the interpreter without a GPU), with the chapter's
backward kernels unavailable: 4 points for $\partial\mathbf x$, 2 for the partial sums.""",
        ),
        Edit(
            "10-ex1-solution",
            _SOLUTION,
            """\
@triton.jit
def ln_backward_kernel(
    DY, X, W, Mean, Rstd, DX, DW_part, DB_part, N, D,
    ROWS: tl.constexpr, BLOCK: tl.constexpr,
):  # fmt: skip
    ### BEGIN SOLUTION
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < D
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    acc_w = tl.zeros([BLOCK], dtype=tl.float32)
    acc_b = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(ROWS):
        row = pid * ROWS + i
        live = mask & (row < N)
        offs = row.to(tl.int64) * D + cols
        x = tl.load(X + offs, mask=live, other=0.0).to(tl.float32)
        dy = tl.load(DY + offs, mask=live, other=0.0).to(tl.float32)
        m = tl.load(Mean + row, mask=row < N, other=0.0)
        r = tl.load(Rstd + row, mask=row < N, other=0.0)
        xhat = tl.where(live, (x - m) * r, 0.0)
        g = dy * w
        c1 = tl.sum(g, axis=0) / D  # the mean path
        c2 = tl.sum(g * xhat, axis=0) / D  # the variance path
        dx = (g - c1 - xhat * c2) * r
        tl.store(DX + offs, dx.to(DX.dtype.element_ty), mask=live)
        acc_w += dy * xhat
        acc_b += dy
    tl.store(DW_part + pid * D + cols, acc_w, mask=mask)
    tl.store(DB_part + pid * D + cols, acc_b, mask=mask)
    ### END SOLUTION


def launch_ln_backward(x, dy, w, mean, rstd, rows):
    # Exercise 10.1's kernel on NumPy float32 inputs, `rows` rows per program; returns
    # dx and the partial sums of dw and db as NumPy arrays. The outputs start as NaN,
    # so that an element the kernel does not write shows.
    x, dy, w, mean, rstd = (
        torch.from_numpy(np.ascontiguousarray(a, dtype=np.float32)).to(DEVICE)
        for a in (x, dy, w, mean, rstd)
    )
    n, d = x.shape
    programs = -(-n // rows)
    dx = torch.full_like(x, float("nan"))
    part_w, part_b = (
        torch.full((programs, d), float("nan"), device=DEVICE) for _ in range(2)
    )
    block = triton.next_power_of_2(d)
    ln_backward_kernel[(programs,)](
        dy, x, w, mean, rstd, dx, part_w, part_b, n, d, ROWS=rows, BLOCK=block
    )
    return dx.cpu().numpy(), part_w.cpu().numpy(), part_b.cpu().numpy()""",
        ),
        Edit(
            "10-ex1-dx",
            _CASE,
            """\
def _ex1_case(_rng, _n, _d, _rows):
    # The student's kernel on a random problem, and float64 references.
    _x = (1.5 * _rng.standard_normal((_n, _d)) + 0.3).astype(_np.float32)
    _dy = _rng.standard_normal((_n, _d)).astype(_np.float32)
    _w = (1 + 0.3 * _rng.standard_normal(_d)).astype(_np.float32)
    _x64, _dy64, _w64 = (_a.astype(_np.float64) for _a in (_x, _dy, _w))
    _mu64 = _x64.mean(axis=1, keepdims=True)
    _mean = _mu64[:, 0].astype(_np.float32)
    _xc = _x64 - _mean.astype(_np.float64)[:, None]  # the mean the kernel reads
    _r64 = 1 / ((_xc * _xc).mean(axis=1, keepdims=True) + 1e-5) ** 0.5
    _rstd = _r64[:, 0].astype(_np.float32)
    _dx, _pw, _pb = _call_without(
        _FORBIDDEN, launch_ln_backward, _x, _dy, _w, _mean, _rstd, _rows
    )
    _part = _np.stack([_pw, _pb])
    _xhat = _xc * _r64
    _g = _dy64 * _w64
    _g1 = _g.mean(axis=1, keepdims=True)
    _g2 = (_g * _xhat).mean(axis=1, keepdims=True)
    _dx_ref = _r64 * (_g - _g1 - _xhat * _g2)""",
        ),
        Edit(
            "10-ex1-dx",
            """\
    _contrib = _np.zeros((_p * _rows, _d))
    _contrib[:_n] = _dy64 * _xhat
    return _dx, _dx_ref, _part, _contrib.reshape(_p, _rows, _d).sum(axis=1)""",
            """\
    _contrib = _np.zeros((2, _p * _rows, _d))
    _contrib[0, :_n], _contrib[1, :_n] = _dy64 * _xhat, _dy64
    return _dx, _dx_ref, _part, _contrib.reshape(2, _p, _rows, _d).sum(axis=2)""",
        ),
        Edit(
            "10-ex1-partials",
            _PARTIALS,
            _PARTIALS.replace('f"DW_part (', 'f"DW_part, DB_part ('),
        ),
    ),
)

_ONE_PLUS_W = Variant(
    "one-plus-w",
    "the backward kernel of RMSNorm with the gain 1 + w (w stored as its offset from 1)",
    (
        Edit(
            "ceeb223e",
            "### Exercise 10.1: RMSNorm's backward kernel (6 points)",
            "### Exercise 10.1: the backward kernel of an RMSNorm with gain $1 + w$ (6 points)",
        ),
        Edit(
            "ceeb223e",
            "($P \\times D$, float32). Derive $\\partial\\mathbf x$ for RMSNorm yourself, or from\n"
            "{doc}`04-rmsnorm`.",
            "($P \\times D$, float32). The layer is not the chapter's: its gain is\n"
            "$1 + \\mathbf w$, with $\\mathbf w$ stored as its offset from one (as in Gemma's\n"
            "RMSNorm, so that $\\mathbf w = \\mathbf 0$ is the identity gain):\n"
            "$\\mathbf y = \\hat{\\mathbf x} \\odot (1 + \\mathbf w)$,\n"
            "$\\hat{\\mathbf x} = \\mathbf x \\cdot$ `Rstd`. Derive its $\\partial\\mathbf x$ "
            "yourself (RMSNorm's is in\n{doc}`04-rmsnorm`).",
        ),
        Edit(
            "10-ex1-solution",
            "    w = tl.load(W + cols, mask=mask).to(tl.float32)",
            "    w = 1.0 + tl.load(W + cols, mask=mask, other=0.0).to(tl.float32)  # the gain",
        ),
        Edit(
            "10-ex1-dx",
            "    _w = (1 + 0.3 * _rng.standard_normal(_d)).astype(_np.float32)",
            "    _w = (0.3 * _rng.standard_normal(_d)).astype(_np.float32)  # gain: 1 + w",
        ),
        Edit("10-ex1-dx", "    _g = _dy64 * _w64", "    _g = _dy64 * (1.0 + _w64)"),
    ),
)

_RECOMPUTE = Variant(
    "recompute-rstd",
    "RMSNorm's backward kernel that recomputes 1/rms from x (no Rstd saved), eps given",
    (
        Edit(
            "ceeb223e",
            "### Exercise 10.1: RMSNorm's backward kernel (6 points)",
            "### Exercise 10.1: RMSNorm's backward kernel, recomputing $1/\\operatorname{rms}$ "
            "(6 points)",
        ),
        Edit(
            "ceeb223e",
            _TASK,
            r"""Write `rms_backward_recompute_kernel(DY, X, W, DX, DW_part, N, D, eps, ROWS, BLOCK)`, a
Triton kernel with the interface of `_rms_norm_bwd` above but without its `Rstd` (and
without `W_IN_LOOP`, `SPLIT` and `PIPELINE`; here `ROWS` and `BLOCK` are both
`tl.constexpr`, so a `for` loop over the rows will do): the forward saved no statistics, so
the kernel recomputes each row's $1/\operatorname{rms} = 1/\sqrt{\overline{x^2} + \epsilon}$
from $\mathbf x$, in float32, with the run-time number `eps`. Program `pid` handles rows
`pid * ROWS` to `pid * ROWS + ROWS - 1` (those below `N`), writes their
$\partial\mathbf x$ into `DX`, and writes the sum of $\partial\mathbf y \odot \hat{\mathbf x}$
over its rows into row `pid` of `DW_part` ($P \times D$, float32). Derive $\partial\mathbf x$
for RMSNorm yourself, or from {doc}`04-rmsnorm`. The tests call
`launch_rms_backward_recompute`, given below your kernel in the same cell, on random shapes
and values of $\epsilon$ (under the interpreter without a GPU), with the chapter's backward
kernels unavailable: 4 points for $\partial\mathbf x$, 2 for the partial sums.""",
        ),
        Edit(
            "10-ex1-solution",
            _SOLUTION,
            """\
@triton.jit
def rms_backward_recompute_kernel(
    DY, X, W, DX, DW_part, N, D, eps, ROWS: tl.constexpr, BLOCK: tl.constexpr
):
    ### BEGIN SOLUTION
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < D
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(ROWS):
        row = pid * ROWS + i
        live = mask & (row < N)
        offs = row.to(tl.int64) * D + cols
        x = tl.load(X + offs, mask=live, other=0.0).to(tl.float32)
        dy = tl.load(DY + offs, mask=live, other=0.0).to(tl.float32)
        r = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / D + eps)  # the forward's 1/rms
        xhat = x * r
        g = dy * w
        dx = (g - xhat * (tl.sum(g * xhat, axis=0) / D)) * r
        tl.store(DX + offs, dx.to(DX.dtype.element_ty), mask=live)
        acc += dy * xhat
    tl.store(DW_part + pid * D + cols, acc, mask=mask)
    ### END SOLUTION


def launch_rms_backward_recompute(x, dy, w, eps, rows):
    # Exercise 10.1's kernel on NumPy float32 inputs, `rows` rows per program; returns
    # dx and the partial sums as NumPy arrays. The outputs start as NaN, so that an
    # element the kernel does not write shows.
    x, dy, w = (
        torch.from_numpy(np.ascontiguousarray(a, dtype=np.float32)).to(DEVICE)
        for a in (x, dy, w)
    )
    n, d = x.shape
    programs = -(-n // rows)
    dx = torch.full_like(x, float("nan"))
    part = torch.full((programs, d), float("nan"), device=DEVICE)
    block = triton.next_power_of_2(d)
    rms_backward_recompute_kernel[(programs,)](
        dy, x, w, dx, part, n, d, float(eps), ROWS=rows, BLOCK=block
    )
    return dx.cpu().numpy(), part.cpu().numpy()""",
        ),
        Edit(
            "10-ex1-dx",
            """\
    _r64 = 1 / ((_x64 * _x64).mean(axis=1, keepdims=True) + 1e-6) ** 0.5
    _rstd = _r64[:, 0].astype(_np.float32)
    _dx, _part = _call_without(
        _FORBIDDEN, launch_rms_backward, _x, _dy, _w, _rstd, _rows
    )""",
            """\
    _eps = float(_rng.choice([1e-6, 1e-3, 0.1]))
    _r64 = 1 / ((_x64 * _x64).mean(axis=1, keepdims=True) + _eps) ** 0.5
    _dx, _part = _call_without(
        _FORBIDDEN, launch_rms_backward_recompute, _x, _dy, _w, _eps, _rows
    )""",
        ),
    ),
)

BANK = {"10-ex1": [_LAYERNORM, _ONE_PLUS_W, _RECOMPUTE]}
