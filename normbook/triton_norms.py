# LayerNorm and RMSNorm in Triton (chapter 10), forward and backward, over the last axis
# of a 2-D tensor (rows, D) that is contiguous. Inputs may be float32 or bfloat16; every
# sum is taken in float32, and the outputs have the input's dtype. The forward saves the
# row statistics (mean and rstd, float32) for the backward. The backward computes dgamma
# and dbeta without atomics: each program sums its own block of rows into one row of a
# partial-sum buffer, and a second kernel adds the partial rows up.
# On a machine without a GPU, set TRITON_INTERPRET=1 before importing triton: the same
# kernels then run on CPU tensors (slowly, for checking on small shapes).
import torch
import triton
import triton.language as tl


@triton.jit
def _layer_norm_fwd(X, Y, W, B, Mean, Rstd, D, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)  # row * D overflows int32 on large tensors
    cols = tl.arange(0, BLOCK)
    mask = cols < D
    x = tl.load(X + row * D + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / D
    xc = tl.where(mask, x - mean, 0.0)  # padding lanes must not enter the variance
    rstd = 1.0 / tl.sqrt(tl.sum(xc * xc, axis=0) / D + eps)
    w = tl.load(W + cols, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(B + cols, mask=mask, other=0.0).to(tl.float32)
    y = xc * rstd * w + b
    tl.store(Y + row * D + cols, y.to(Y.dtype.element_ty), mask=mask)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)


@triton.jit
def _rms_norm_fwd(X, Y, W, Rstd, D, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < D
    x = tl.load(X + row * D + cols, mask=mask, other=0.0).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / D + eps)
    w = tl.load(W + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(Y + row * D + cols, (x * rstd * w).to(Y.dtype.element_ty), mask=mask)
    tl.store(Rstd + row, rstd)


@triton.jit
def _add_pairs(a1, a2, b1, b2):
    return a1 + b1, a2 + b2


@triton.jit
def _layer_norm_bwd_row(
    DY, X, W, Mean, Rstd, DX, N, D, row, part, cols, mask, w, dw, db,
    BLOCK: tl.constexpr, W_IN_LOOP: tl.constexpr, SPLIT: tl.constexpr,
):  # fmt: skip
    # One row: dx of this program's columns, and dy * xhat and dy added to dw and db.
    start = row.to(tl.int64) * D
    mean = tl.load(Mean + row, mask=row < N, other=0.0)
    rstd = tl.load(Rstd + row, mask=row < N, other=0.0)
    # The partners' columns, summed elementwise into two arrays of BLOCK (one
    # reduction below takes them with this program's own).
    part_g = tl.zeros([BLOCK], dtype=tl.float32)
    part_gx = tl.zeros([BLOCK], dtype=tl.float32)
    for k in tl.static_range(1, SPLIT):
        other = (part + k) % SPLIT * BLOCK + tl.arange(0, BLOCK)
        seen = (other < D) & (row < N)
        ox = tl.load(X + start + other, mask=seen, other=0.0).to(tl.float32)
        og = tl.load(DY + start + other, mask=seen, other=0.0).to(tl.float32)
        og *= tl.load(W + other, mask=other < D, other=0.0).to(tl.float32)
        part_g += og
        part_gx += og * tl.where(seen, (ox - mean) * rstd, 0.0)
    live = mask & (row < N)  # the last programs may run past the last row
    x = tl.load(X + start + cols, mask=live, other=0.0).to(tl.float32)
    dy = tl.load(DY + start + cols, mask=live, other=0.0).to(tl.float32)
    xhat = tl.where(live, (x - mean) * rstd, 0.0)
    if W_IN_LOOP:
        g = dy * tl.load(W + cols, mask=mask, other=0.0).to(tl.float32)
    else:
        g = dy * w
    # Both row sums in one reduction: one round of the warps through shared memory.
    c1, c2 = tl.reduce((g + part_g, g * xhat + part_gx), 0, _add_pairs)
    c1 /= D
    c2 /= D
    dx = (g - c1 - xhat * c2) * rstd
    tl.store(DX + start + cols, dx.to(DX.dtype.element_ty), mask=live)
    return dw + dy * xhat, db + dy


@triton.jit
def _layer_norm_bwd(
    DY, X, W, Mean, Rstd, DX, DW_part, DB_part, N, D, ROWS, BLOCK: tl.constexpr,
    W_IN_LOOP: tl.constexpr, SPLIT: tl.constexpr, PIPELINE: tl.constexpr,
):  # fmt: skip
    # dx = rstd * (w*dy - mean(w*dy) - xhat * mean(w*dy * xhat)), one row at a time;
    # this program's rows also add dy * xhat and dy into its partial sums (registers).
    # W_IN_LOOP: re-read w (from the cache) for every row instead of holding it in
    # registers. SPLIT: SPLIT programs share a block of rows, each owning BLOCK of the
    # columns, so that a wide row's arrays fit in registers; each program also reads
    # the rest of every row (its partners read it too: mostly from the cache), but only
    # for the two row sums, and before it loads its own columns, so that the two are
    # never in registers at once. ROWS is a run-time number (as a compile-time constant,
    # 32 at D = 16384, the compiler spilled registers of the wide rows). PIPELINE (on a
    # GPU): a tl.range loop, which Triton's software pipeliner can give two stages, so
    # that the next row's loads are under way while this row is reduced; a while loop
    # is never pipelined, but it is what the interpreter (CPU) runs: there a run-time
    # range bound fails (Triton 3.6 with NumPy 2).
    pid = tl.program_id(0)
    rows0 = (pid // SPLIT) * ROWS
    part = pid % SPLIT
    cols = part * BLOCK + tl.arange(0, BLOCK)
    mask = cols < D
    w = tl.load(W + cols, mask=mask, other=0.0).to(tl.float32)
    dw = tl.zeros([BLOCK], dtype=tl.float32)
    db = tl.zeros([BLOCK], dtype=tl.float32)
    if PIPELINE:
        for i in tl.range(0, ROWS, num_stages=2):
            dw, db = _layer_norm_bwd_row(
                DY, X, W, Mean, Rstd, DX, N, D, rows0 + i, part, cols, mask, w, dw,
                db, BLOCK, W_IN_LOOP, SPLIT,
            )  # fmt: skip
    else:
        i = 0
        while i < ROWS:
            dw, db = _layer_norm_bwd_row(
                DY, X, W, Mean, Rstd, DX, N, D, rows0 + i, part, cols, mask, w, dw,
                db, BLOCK, W_IN_LOOP, SPLIT,
            )  # fmt: skip
            i += 1
    tl.store(DW_part + (pid // SPLIT) * D + cols, dw, mask=mask)
    tl.store(DB_part + (pid // SPLIT) * D + cols, db, mask=mask)


@triton.jit
def _rms_norm_bwd_row(
    DY, X, W, Rstd, DX, N, D, row, part, cols, mask, w, dw,
    BLOCK: tl.constexpr, W_IN_LOOP: tl.constexpr, SPLIT: tl.constexpr,
):  # fmt: skip
    start = row.to(tl.int64) * D
    rstd = tl.load(Rstd + row, mask=row < N, other=0.0)
    part_gx = tl.zeros([BLOCK], dtype=tl.float32)
    for k in tl.static_range(1, SPLIT):
        other = (part + k) % SPLIT * BLOCK + tl.arange(0, BLOCK)
        seen = (other < D) & (row < N)
        ox = tl.load(X + start + other, mask=seen, other=0.0).to(tl.float32)
        og = tl.load(DY + start + other, mask=seen, other=0.0).to(tl.float32)
        og *= tl.load(W + other, mask=other < D, other=0.0).to(tl.float32)
        part_gx += og * ox * rstd
    live = mask & (row < N)
    x = tl.load(X + start + cols, mask=live, other=0.0).to(tl.float32)
    dy = tl.load(DY + start + cols, mask=live, other=0.0).to(tl.float32)
    xhat = x * rstd
    if W_IN_LOOP:
        g = dy * tl.load(W + cols, mask=mask, other=0.0).to(tl.float32)
    else:
        g = dy * w
    c2 = tl.sum(g * xhat + part_gx, axis=0) / D
    dx = (g - xhat * c2) * rstd
    tl.store(DX + start + cols, dx.to(DX.dtype.element_ty), mask=live)
    return dw + dy * xhat


@triton.jit
def _rms_norm_bwd(
    DY, X, W, Rstd, DX, DW_part, N, D, ROWS, BLOCK: tl.constexpr,
    W_IN_LOOP: tl.constexpr, SPLIT: tl.constexpr, PIPELINE: tl.constexpr,
):  # fmt: skip
    # dx = rstd * (w*dy - xhat * mean(w*dy * xhat)); LayerNorm's without the mean terms.
    pid = tl.program_id(0)
    rows0 = (pid // SPLIT) * ROWS
    part = pid % SPLIT
    cols = part * BLOCK + tl.arange(0, BLOCK)
    mask = cols < D
    w = tl.load(W + cols, mask=mask, other=0.0).to(tl.float32)
    dw = tl.zeros([BLOCK], dtype=tl.float32)
    if PIPELINE:
        for i in tl.range(0, ROWS, num_stages=2):
            dw = _rms_norm_bwd_row(
                DY, X, W, Rstd, DX, N, D, rows0 + i, part, cols, mask, w, dw, BLOCK,
                W_IN_LOOP, SPLIT,
            )  # fmt: skip
    else:
        i = 0
        while i < ROWS:
            dw = _rms_norm_bwd_row(
                DY, X, W, Rstd, DX, N, D, rows0 + i, part, cols, mask, w, dw, BLOCK,
                W_IN_LOOP, SPLIT,
            )  # fmt: skip
            i += 1
    tl.store(DW_part + (pid // SPLIT) * D + cols, dw, mask=mask)


@triton.jit
def _sum_partials(Part, Out, D, P, BLOCK_P: tl.constexpr, BLOCK_D: tl.constexpr):
    # Out[k, j] = sum over p of Part[k, p, j]: a program per block of columns and k.
    # P is a run-time number: one compiled kernel for every row count.
    k = tl.program_id(1)
    cols = tl.program_id(0) * BLOCK_D + tl.arange(0, BLOCK_D)
    acc = tl.zeros([BLOCK_P, BLOCK_D], dtype=tl.float32)
    p0 = 0
    while p0 < P:  # not a range: the interpreter cannot take a run-time bound
        rows = p0 + tl.arange(0, BLOCK_P)
        mask = (rows[:, None] < P) & (cols[None, :] < D)
        at = Part + k * P * D + rows[:, None] * D + cols[None, :]
        acc += tl.load(at, mask=mask, other=0.0)
        p0 += BLOCK_P
    total = tl.sum(acc, axis=0)
    tl.store(Out + k * D + cols, total.to(Out.dtype.element_ty), mask=cols < D)


def _launch_shape(D):
    """The block (the row padded to a power of two) and the warps that hold it."""
    BLOCK = triton.next_power_of_2(D)
    if BLOCK * 4 > 65536:
        raise ValueError(f"D = {D}: a row must fit in 64 KiB of float32 (D <= 16384)")
    return BLOCK, min(max(BLOCK // 256, 1), 16)


def _backward_launch(D, layer, num_warps=None, w_in_loop=None, split=None):
    """(BLOCK, warps, W_IN_LOOP, SPLIT) of layer's backward ("layer_norm" or
    "rms_norm"): one program a row, with 8 warps up to 4096 columns and 32 above; w
    re-read for every row from 8192 columns on; rows of 16384 split over 2 programs,
    of 16 warps for LayerNorm and 8 for RMSNorm. The best float32 choices on an H200
    among those measure/bench_gpu.py sweeps (chapter 10)."""
    row = _launch_shape(D)[0]
    if split is None:
        split = 2 if row >= 16384 else 1
    split = min(split, row)  # a program owns at least one column
    BLOCK = row // split
    if num_warps is None and split > 1:
        num_warps = 16 if layer == "layer_norm" else 8
    elif num_warps is None:
        num_warps = 8 if BLOCK <= 4096 else 32
    if w_in_loop is None:
        w_in_loop = row >= 8192
    return BLOCK, num_warps, w_in_loop, split


def _check(x, *params):
    if x.ndim != 2 or not x.is_contiguous():
        raise ValueError("x must be a contiguous 2-D tensor (rows, D)")
    for p in params:
        if p.shape != (x.shape[1],):
            raise ValueError(f"a parameter has shape {tuple(p.shape)}, not (D,)")


def _programs(x, programs=None):
    """How many programs share the rows in a backward: enough to fill the GPU, but at
    least 32 rows each, so that the partial sums stay a few per cent of the traffic
    (`programs` overrides it, to test many partial rows)."""
    if programs is not None:
        return max(1, min(programs, x.shape[0]))
    if x.is_cuda:
        sms = torch.cuda.get_device_properties(x.device).multi_processor_count
    else:
        sms = 2
    return max(1, min(4 * sms, triton.cdiv(x.shape[0], 32)))


def layer_norm_fwd(x, w, b, eps=1e-5):
    """y = (x - mean) * rstd * w + b over each row; returns (y, mean, rstd)."""
    _check(x, w, b)
    N, D = x.shape
    BLOCK, warps = _launch_shape(D)
    y = torch.empty_like(x)
    mean = torch.empty(N, device=x.device, dtype=torch.float32)
    rstd = torch.empty(N, device=x.device, dtype=torch.float32)
    _layer_norm_fwd[(N,)](x, y, w, b, mean, rstd, D, eps, BLOCK=BLOCK, num_warps=warps)
    return y, mean, rstd


def rms_norm_fwd(x, w, eps=1e-6):
    """y = x * rstd * w over each row, rstd = 1 / sqrt(mean(x^2) + eps); (y, rstd)."""
    _check(x, w)
    N, D = x.shape
    BLOCK, warps = _launch_shape(D)
    y = torch.empty_like(x)
    rstd = torch.empty(N, device=x.device, dtype=torch.float32)
    _rms_norm_fwd[(N,)](x, y, w, rstd, D, eps, BLOCK=BLOCK, num_warps=warps)
    return y, rstd


def _reduce(part, dtype):
    """The partial sums (K, P, D) added up over P, all K arrays in one launch."""
    K, P, D = part.shape
    out = torch.empty(K, D, device=part.device, dtype=dtype)
    _sum_partials[(triton.cdiv(D, 32), K)](part, out, D, P, BLOCK_P=64, BLOCK_D=32)
    return out


def layer_norm_bwd(
    dy, x, w, mean, rstd, num_warps=None, w_in_loop=None, split=None, programs=None
):
    """Gradients (dx, dw, db) of layer_norm_fwd, given the upstream gradient dy.
    num_warps, w_in_loop, split and programs override the launch choices (to measure
    and test them)."""
    _check(x, w)
    N, D = x.shape
    BLOCK, warps, w_in_loop, split = _backward_launch(
        D, "layer_norm", num_warps, w_in_loop, split
    )
    P = _programs(x, programs)
    dx = torch.empty_like(x)
    part = torch.empty(2, P, D, device=x.device, dtype=torch.float32)  # dw, db
    _layer_norm_bwd[(P * split,)](
        dy, x, w, mean, rstd, dx, part[0], part[1], N, D, ROWS=triton.cdiv(N, P),
        BLOCK=BLOCK, W_IN_LOOP=w_in_loop, SPLIT=split, PIPELINE=x.is_cuda,
        num_warps=warps,
    )  # fmt: skip
    dw, db = _reduce(part, w.dtype)
    return dx, dw, db


def rms_norm_bwd(
    dy, x, w, rstd, num_warps=None, w_in_loop=None, split=None, programs=None
):
    """Gradients (dx, dw) of rms_norm_fwd, given the upstream gradient dy."""
    _check(x, w)
    N, D = x.shape
    BLOCK, warps, w_in_loop, split = _backward_launch(
        D, "rms_norm", num_warps, w_in_loop, split
    )
    P = _programs(x, programs)
    dx = torch.empty_like(x)
    part = torch.empty(1, P, D, device=x.device, dtype=torch.float32)
    _rms_norm_bwd[(P * split,)](
        dy, x, w, rstd, dx, part[0], N, D, ROWS=triton.cdiv(N, P),
        BLOCK=BLOCK, W_IN_LOOP=w_in_loop, SPLIT=split, PIPELINE=x.is_cuda,
        num_warps=warps,
    )  # fmt: skip
    return dx, _reduce(part, w.dtype)[0]
