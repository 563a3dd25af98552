"""Variants of chapter 02's coding exercises (grading/bank/__init__.py)."""

from grading.bank import Edit, Variant

# The book's cells (or their ends) that the variants replace, verbatim.

_T1 = """\
### Exercise 2.1: Merging partial statistics (7 points)

````{admonition} Task
:class: note
A parallel kernel splits a row into chunks, computes each chunk's count $n$, mean \
$m$ and sum of
squared deviations $M=\\sum(x-m)^2$, and then merges two partial results \
$(n_A,m_A,M_A)$ and
$(n_B,m_B,M_B)$ into the statistics of their union, *without seeing the data again*
({ref}`sec-02-precision`).

1. **Derive** (answer cell below, 3 points) the merged $n$, $m$ and $M$ in terms of \
the two
   partial results only. Hint: split $\\sum_{A\\cup B}(x-m)^2$ by chunk and write
   $x-m=(x-m_A)+(m_A-m)$ for $x$ in $A$.
2. **Implement** `merge_moments(a, b)` for `a = (n_a, mean_a, m2_a)` and
   `b = (n_b, mean_b, m2_b)`: `n` a Python int, `mean` and `m2` arrays with one \
entry per row,
   of any float dtype (keep it). Either side, or both, may be empty (`n = 0`, \
`mean` and `m2`
   zero). Return `(n, mean, m2)`.

The tests give your function partial statistics only, with means far from zero, so \
an exact and
stable merge formula is needed: merged mean (1 point), merged `m2` (2 points), \
empty parts
(1 point). Computing $\\sum x^2$ from the parts and subtracting $n m^2$ loses \
digits and fails.
````"""

_D1 = """\
:::{dropdown} Solution and mark scheme
With $n=n_A+n_B$, the merged mean is the count-weighted average
$m=(n_Am_A+n_Bm_B)/n=m_A+\\Delta\\,n_B/n$, with $\\Delta=m_B-m_A$. For $M$, split \
the sum by chunk
and write $x-m=(x-m_A)+(m_A-m)$ for $x\\in A$:

$$
\\begin{aligned}
\\sum_{x\\in A}(x-m)^2
&=\\sum_{x\\in A}(x-m_A)^2+2(m_A-m)\\sum_{x\\in A}(x-m_A)+n_A(m_A-m)^2\\\\
&=M_A+n_A(m_A-m)^2,
\\end{aligned}
$$

because deviations from a chunk's own mean sum to zero. Likewise for $B$. With
$m_A-m=-\\Delta\\,n_B/n$ and $m_B-m=\\Delta\\,n_A/n$,

$$
M=M_A+M_B+\\frac{n_An_B^2+n_Bn_A^2}{n^2}\\,\\Delta^2=M_A+M_B+\\Delta^2\\,\\frac{\
n_An_B}{n}.
$$

This is the formula of {cite:t}`chan1983algorithms`. Welford's update is the \
special case
$n_B=1$, $M_B=0$. It combines only deviations and the difference of two means, so \
nothing large
cancels. For $n=0$ the result is the empty state (guard the division).

**Mark scheme (3 points).** 1 pt: the merged mean as a count-weighted average (any \
equivalent
form); 1 pt: splitting the sum by chunk and showing that the cross term vanishes; 1 \
pt: the final
$M=M_A+M_B+\\Delta^2n_An_B/n$ with $\\Delta$ defined.
:::"""

_S1 = '''\
def merge_moments(a, b):
    """Merge partial statistics a = (n_a, mean_a, m2_a) and b = (n_b, mean_b, \
m2_b)."""
    ### BEGIN SOLUTION
    n_a, mean_a, m2_a = a
    n_b, mean_b, m2_b = b
    n = n_a + n_b
    if n == 0:
        return 0, mean_a * 0, m2_a * 0
    delta = mean_b - mean_a
    mean = mean_a + delta * (n_b / n)
    m2 = m2_a + m2_b + delta * delta * (n_a * n_b / n)
    return n, mean, m2
    ### END SOLUTION'''

_MEAN1 = """\
def _stats(_x):  # (n, mean, m2) of the rows of a data block, float64
    return (
        _x.shape[-1],
        _x.mean(axis=-1),
        ((_x - _x.mean(axis=-1, keepdims=True)) ** 2).sum(-1),
    )


# visible test: two chunks of real data, merged statistics = statistics of the whole
_x = _np.random.default_rng(21).normal(size=(4, 13)) * 3 + 50
_n, _mean, _m2 = merge_moments(_stats(_x[:, :5]), _stats(_x[:, 5:]))
assert int(_n) == 13, f"n = {_n}, expected 13"
_compare("mean", _mean, _x.mean(axis=-1), 1e-12)
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(2011)
for _trial in range(50):
    _rows = int(_rng.integers(1, 9))
    _na, _nb = (int(v) for v in _rng.integers(1, 2000, size=2))
    _ma = _rng.normal(size=_rows) * 10 ** _rng.uniform(-2, 4)
    _mb = _ma + _rng.normal(size=_rows) * 10 ** _rng.uniform(-3, 2)
    _Ma, _Mb = _rng.uniform(0, 1e3, size=(2, _rows))
    _n, _mean, _m2 = merge_moments((_na, _ma, _Ma), (_nb, _mb, _Mb))
    assert int(_n) == _na + _nb, f"n = {_n}, expected {_na + _nb}"
    _ref = _ma + (_mb - _ma) * _nb / (_na + _nb)
    _compare("mean", _mean, _ref, 1e-12)
### END HIDDEN TESTS
print("merged mean: correct")"""

_M2_1 = """\
# visible test: two chunks of real data, merged statistics = statistics of the whole
_x = _np.random.default_rng(22).normal(size=(4, 13)) * 3 + 50
_n, _mean, _m2 = merge_moments(_stats(_x[:, :5]), _stats(_x[:, 5:]))
_compare("m2", _m2, _stats(_x)[2], 1e-12)
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(2012)
for _trial in range(50):
    _rows = int(_rng.integers(1, 9))
    _na, _nb = (int(v) for v in _rng.integers(1, 2000, size=2))
    _ma = _rng.normal(size=_rows) * 10 ** _rng.uniform(-2, 4)
    _mb = _ma + _rng.normal(size=_rows) * 10 ** _rng.uniform(-3, 2)
    _Ma, _Mb = _rng.uniform(0, 1e3, size=(2, _rows))
    _n, _mean, _m2 = merge_moments((_na, _ma, _Ma), (_nb, _mb, _Mb))
    _ref = _Ma + _Mb + (_mb - _ma) ** 2 * _na * _nb / (_na + _nb)
    _compare("m2", _m2, _ref, 1e-12)
### END HIDDEN TESTS
print("merged m2: correct")"""

_EMPTY1 = """\
# an empty part changes nothing, and two empty parts give an empty result (no NaN)
_x = _np.random.default_rng(23).normal(size=(3, 7)) + 10
_empty = (0, _np.zeros(3), _np.zeros(3))
for _merged in (merge_moments(_empty, _stats(_x)), merge_moments(_stats(_x), \
_empty)):
    assert int(_merged[0]) == 7, f"n = {_merged[0]}, expected 7"
    _compare("mean, one part empty", _merged[1], _x.mean(-1), 1e-14)
    _compare("m2, one part empty", _merged[2], _stats(_x)[2], 1e-13)
_n, _mean, _m2 = merge_moments(_empty, _empty)
assert int(_n) == 0, f"n = {_n}, expected 0"
# two empty parts must give mean 0 and m2 0, exactly
_compare("mean of two empty parts", _mean, _np.zeros(3), 1e-300)
_compare("m2 of two empty parts", _m2, _np.zeros(3), 1e-300)
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(2013)
for _trial in range(10):
    _rows = int(_rng.integers(1, 6))
    _b = (
        int(_rng.integers(1, 50)),
        _rng.normal(size=_rows) * 100,
        _rng.uniform(0, 9, _rows),
    )
    _empty = (0, _np.zeros(_rows), _np.zeros(_rows))
    for _merged in (merge_moments(_empty, _b), merge_moments(_b, _empty)):
        assert int(_merged[0]) == _b[0]
        _compare("mean, one part empty", _merged[1], _b[1], 1e-14)
        _compare("m2, one part empty", _merged[2], _b[2], 1e-13)
### END HIDDEN TESTS
print("empty parts: correct")"""

_T2 = """\
### Exercise 2.2: A streaming variance in float32 (3 points)

````{admonition} Task
:class: note
A stream delivers each row's values in blocks of varying size, and the kernel may \
keep only a
running state `(n, mean, m2)` per row (as in Exercise 2.1) between blocks. Implement
`stream_update(state, block)`: `block` is an array of shape `(rows, k)` with \
$k\\ge1$ new values
per row; return the new state, with `mean` and `m2` in the block's dtype (float32 \
stays
float32). You may use your `merge_moments`.

The tests feed two interleaved streams (so everything must live in `state`) and \
check:
exactness in float64 on random block sizes (1 point), and a float32 stream at an \
offset of
about $10^4$ standard deviations (2 points), where the variance must be within 0.5% \
of the
float64 variance of the same float32 values. Running sums of $x$ and $x^2$ are off \
by more than
100% there; a correct streaming update is off by about $10^{-4}$.
````"""

_S2 = '''\
def stream_update(state, block):
    """Add a block of shape (rows, k) to the running state (n, mean, m2)."""
    ### BEGIN SOLUTION
    k = block.shape[-1]
    mean_b = block.mean(axis=-1)
    dev = block - mean_b[..., None]
    return merge_moments(state, (k, mean_b, (dev * dev).sum(axis=-1)))
    ### END SOLUTION'''

_F64 = '''\
def _run_streams(_xs, _cuts):
    """Feed the streams in _xs block by block, alternating; return the final \
states."""
    _states = [
        (0, _np.zeros(len(_x), _x.dtype), _np.zeros(len(_x), _x.dtype)) for _x in \
_xs
    ]
    for _i, _j in zip(_cuts[:-1], _cuts[1:]):
        for _s, _x in enumerate(_xs):
            _states[_s] = stream_update(_states[_s], _x[:, _i:_j].copy())
    return _states


def _check(_state, _x, _tol_mean, _tol_var):
    _n, _mean, _m2 = _state
    assert int(_n) == _x.shape[1], f"n = {_n}, expected {_x.shape[1]}"
    _x64, _dtype = _x.astype(_np.float64), _x.dtype.type  # the stream's own dtype
    _compare("mean", _mean, _x64.mean(axis=1), _tol_mean, _dtype)
    _compare("m2", _m2, _x64.var(axis=1) * _x.shape[1], _tol_var, _dtype)


def _random_cuts(_rng, _length, _kmax):
    _cuts = _np.cumsum(_rng.integers(1, _kmax + 1, size=_length))
    return _np.concatenate([[0], _cuts[_cuts < _length], [_length]])


# visible test: float64, blocks of 1 to 5 values, two streams
_rng = _np.random.default_rng(31)
_xs = [_rng.normal(size=(3, 40)) * 2 + 7, _rng.normal(size=(2, 40)) - 300]
for _state, _x in zip(_run_streams(_xs, _random_cuts(_rng, 40, 5)), _xs):
    _check(_state, _x, 1e-12, 1e-10)
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(2021)
for _trial in range(5):
    _L = int(_rng.integers(2, 300))
    _xs = [
        _rng.normal(size=(int(_rng.integers(1, 6)), _L)) * _rng.uniform(0.1, 10)
        + _rng.normal() * 10 ** _rng.uniform(0, 3)
        for _ in range(2)
    ]
    _cuts = _random_cuts(_rng, _L, int(_rng.integers(1, 20)))
    for _state, _x in zip(_run_streams(_xs, _cuts), _xs):
        _check(_state, _x, 1e-12, 1e-10)
### END HIDDEN TESTS
print("float64 streams: exact")'''

_F32 = """\
# visible test: float32 at offset 1e4, blocks of 1 to 16 values, two streams
_rng = _np.random.default_rng(32)
_xs = [
    (1e4 + _rng.normal(size=(4, 2048))).astype(_np.float32),
    (-3e3 + 0.5 * _rng.normal(size=(4, 2048))).astype(_np.float32),
]
for _state, _x in zip(_run_streams(_xs, _random_cuts(_rng, 2048, 16)), _xs):
    _check(_state, _x, 1e-5, 5e-3)
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(2022)
for _kmax in (1, 16):
    _sigma = _rng.uniform(0.5, 2, size=2)
    _offset = _rng.choice([-1, 1], size=2) * _rng.uniform(5e3, 2e4, size=2) * _sigma
    _xs = [
        (_offset[_s] + _sigma[_s] * _rng.normal(size=(6, 3000))).astype(_np.float32)
        for _s in range(2)
    ]
    for _state, _x in zip(_run_streams(_xs, _random_cuts(_rng, 3000, _kmax)), _xs):
        _check(_state, _x, 1e-5, 5e-3)
### END HIDDEN TESTS
print("float32 streams at a large offset: accurate")"""

_T3 = """\
### Exercise 2.3: LayerNorm over the last k axes (3 points)

````{admonition} Task
:class: note
`nn.LayerNorm(normalized_shape)` accepts a tuple: with `normalized_shape=(H, W)` \
one mean and
one variance are computed over the last two axes together, and \
$\\boldsymbol\\gamma$,
$\\boldsymbol\\beta$ have shape `(H, W)`. Implement `layer_norm_lastk(x, gamma, \
beta, k,
eps=1e-5)` in NumPy for any `1 <= k <= x.ndim`, and raise a `ValueError` if `gamma` \
or `beta`
does not have shape `x.shape[-k:]`. PyTorch's normalization functions are not \
available while
the tests run your function. Tests: values on random shapes and every $k$ (2 \
points), the shape
errors (1 point).
````"""

_S3 = '''\
def layer_norm_lastk(x, gamma, beta, k, eps=1e-5):
    """LayerNorm with one mean and variance over the last k axes of x."""
    ### BEGIN SOLUTION
    shape = x.shape[x.ndim - k :]
    if np.shape(gamma) != shape or np.shape(beta) != shape:
        raise ValueError(
            f"gamma and beta must have shape {shape}, got {np.shape(gamma)}"
            f" and {np.shape(beta)}"
        )
    axes = tuple(range(x.ndim - k, x.ndim))
    mu = x.mean(axis=axes, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=axes, keepdims=True)
    return gamma * (x - mu) / np.sqrt(var + eps) + beta
    ### END SOLUTION'''

_E3 = """\
_x = _np.random.default_rng(42).normal(size=(2, 3, 4, 5))
for _bad in (_np.ones(5), _np.ones((5, 4)), _np.ones((1, 4, 5)), _np.ones((3, 4, \
5))):
    for _args in ((_bad, _np.zeros((4, 5))), (_np.ones((4, 5)), _bad)):
        try:
            _call(layer_norm_lastk, _x, *_args, 2)
        except ValueError:
            pass
        else:
            raise AssertionError(
                f"shape {_bad.shape} was accepted for k = 2 (expected (4, 5))"
            )
_call(layer_norm_lastk, _x, _np.ones((4, 5)), _np.zeros((4, 5)), 2)  # the right \
shape
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(2032)
_x = _rng.normal(size=(3, 2, 6))
for _k, _bad in ((1, (1,)), (1, (2, 6)), (2, (6,)), (3, (2, 6)), (2, (6, 2))):
    try:
        _call(layer_norm_lastk, _x, _np.ones(_bad), _np.zeros(_x.shape[-_k:]), _k)
    except ValueError:
        pass
    else:
        raise AssertionError(f"gamma of shape {_bad} was accepted for k = {_k}")
### END HIDDEN TESTS
print("layer_norm_lastk: shape errors raised")"""

_T4 = """\
### Exercise 2.4: Bug hunt: a LayerNorm ported from PyTorch (6 points)

````{admonition} Task
:class: note
A colleague ported a LayerNorm from PyTorch code to NumPy (below, read-only). It \
runs, it has the
right shapes, and a network trained with it works. Compare it with the definition in
{ref}`sec-02-definition`.

1. **Find and explain** (answer cell, 4 points) the two places where it deviates \
from the
   definition. For each, say for which rows it matters and by how much: relate its \
output to the
   correct one for $\\epsilon\\to0$ and give the relative change for $D=2$, $20$ \
and $768$; compare
   the two for a constant row and for a row with $\\sigma=10^{-3}$ at \
$\\epsilon=10^{-5}$. Why can
   the first deviation survive training unnoticed, and why does the comparison of
   {ref}`sec-02-torch` catch it at once?
2. **Fix** it: write `layernorm_forward_fixed(x, gamma, beta, ln_param)`, returning
   `(out, cache)` like `layernorm_forward`, without calling the chapter's \
`layer_norm`,
   `layernorm_forward` or a library normalization (they are unavailable while the \
tests run).
   Tests: loud rows with few features (1 point) and quiet rows with many features \
(1 point).
````"""

_P4 = '''\
def layernorm_forward_ported(x, gamma, beta, ln_param):
    """LayerNorm forward over the last axis, ported from a PyTorch \
implementation."""
    eps = ln_param.get("eps", 1e-5)
    mu = x.mean(axis=-1, keepdims=True)
    std = x.std(axis=-1, ddof=1, keepdims=True)  # as torch.std(x, -1, keepdim=True)
    xhat = (x - mu) / (std + eps)
    out = gamma * xhat + beta
    cache = {"x": x, "xhat": xhat, "mu": mu, "std": std, "gamma": gamma, "eps": eps}
    return out, cache'''

_X4 = """\
:::{dropdown} Solution and mark scheme
**Deviation 1: the unbiased standard deviation** (`ddof=1`, PyTorch's default for \
`torch.std`).
It divides by $s=\\sqrt{D/(D-1)}\\,\\sigma$, so for $\\epsilon\\to0$ the output is
$\\sqrt{(D-1)/D}\\,\\hat{\\mathbf x}$: the correct output times a constant. The \
relative change
$1-\\sqrt{1-1/D}\\approx1/(2D)$ is $29\\%$ for $D=2$, $2.5\\%$ for $D=20$ and \
$0.065\\%$ for $D=768$.
It matters for every row, most for small $D$.

**Deviation 2: $\\epsilon$ added to the standard deviation**, outside the square \
root. For loud
rows ($\\sigma\\gg\\sqrt\\epsilon\\approx0.003$) both versions divide by \
essentially $\\sigma$. A
constant row gives $0$ either way ($\\mathbf x-\\mu=\\mathbf 0$). For \
$\\sigma=10^{-3}$ the correct
layer scales the pattern by \
$\\sigma/\\sqrt{\\sigma^2+\\epsilon}=10^{-3}/\\sqrt{1.1\\times10^{-5}}
\\approx0.30$, the ported one by $\\sigma/(\\sigma+\\epsilon)\\approx0.99$: quiet \
rows are blown up to
unit scale instead of damped, about 3.3 times too large; the noise floor moves from
$\\sigma\\approx3\\times10^{-3}$ down to $\\sigma\\approx10^{-5}$.

**Why the first one survives training:** for loud rows it is one constant factor on \
every output,
and the learned $\\boldsymbol\\gamma$ absorbs it; nothing looks wrong. **Why the \
float64 comparison
catches it:** $2.5\\%$ of an output of order one at $D=20$ is $10^{-2}$, ten orders \
of magnitude
above the $10^{-12}$ tolerance.

**Mark scheme (4 points).** 1 pt: both deviations identified; 1 pt: the factor
$\\sqrt{(D-1)/D}$ with the three percentages (about $29\\%$, $2.5\\%$, $0.07\\%$); \
1 pt: the
$\\epsilon$ placement analysed for the constant row and for $\\sigma=10^{-3}$ \
(about $0.30$ against
$0.99$); 1 pt: $\\boldsymbol\\gamma$ absorbs the constant factor, and the tolerance \
argument.
:::"""

_S4 = '''\
def layernorm_forward_fixed(x, gamma, beta, ln_param):
    """The ported LayerNorm with both deviations fixed; returns (out, cache)."""
    ### BEGIN SOLUTION
    eps = ln_param.get("eps", 1e-5)
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    xhat = (x - mu) / np.sqrt(var + eps)
    out = gamma * xhat + beta
    cache = {"x": x, "xhat": xhat, "mu": mu, "var": var, "gamma": gamma, "eps": eps}
    return out, cache
    ### END SOLUTION'''

_Q4 = """\
# visible test: a quiet row (sigma = 1e-3, eps = 1e-5) is damped, not blown up:
# its output has standard deviation sigma / sqrt(sigma^2 + eps)
_x = _np.random.default_rng(43).normal(size=(1, 2048))
_x = 1e-3 * (_x - _x.mean()) / _x.std() + 5.0
_std = float(_out_of(_x, _np.ones(2048), _np.zeros(2048), 1e-5).std())
_want = 1e-3 / _np.sqrt(1e-6 + 1e-5)
assert abs(_std / _want - 1) < 1e-3, (
    f"quiet row: output std {_std:.4f}, expected {_want:.4f}"
)
### BEGIN HIDDEN TESTS
# quiet rows (sigma^2 near eps), many features: the unbiased variance changes the
# output by < 5e-4 here, the placement of eps by 10% or more (normwise errors);
# tolerance 2e-3 tells them apart
_rng = _np.random.default_rng(2042)
for _eps in (1e-5, 1e-3):
    _D = int(_rng.integers(1024, 4097))
    _x = _rng.normal(size=(6, _D))
    _sig = _np.sqrt(_eps) * 10 ** _rng.uniform(-1, 1, size=(6, 1))
    _x = _sig * _x / _x.std(axis=-1, keepdims=True) + _rng.normal(size=(6, 1))
    _g, _b = _rng.normal(size=_D), _rng.normal(size=_D)
    _mu = _x.mean(axis=-1, keepdims=True)
    _ref = (
        _g * (_x - _mu) / _np.sqrt(((_x - _mu) ** 2).mean(-1, keepdims=True) + _eps)
        + _b
    )
    _compare(f"eps = {_eps}, quiet rows", _out_of(_x, _g, _b, _eps), _ref, 2e-3)
### END HIDDEN TESTS
print("quiet rows: correct")"""

_V3 = '''\
def _check_norm(_x, _k, _out, _gamma, _beta, _eps=1e-5):
    """Visible check by properties: (out - beta) / gamma has, over the last k axes,
    mean 0 and variance sigma^2 / (sigma^2 + eps)."""
    assert isinstance(_out, _np.ndarray) and _out.shape == _x.shape, (
        "wrong output shape"
    )
    _axes = tuple(range(_x.ndim - _k, _x.ndim))
    _z = (_out - _beta) / _gamma
    _s2 = _x.var(axis=_axes)
    _err = float(abs(_z.mean(axis=_axes)).max())
    assert _err < 1e-10, f"mean over the last {_k} axes is {_err:.1e}, expected 0"
    _err = float(abs(_z.var(axis=_axes) - _s2 / (_s2 + _eps)).max())
    assert _err < 1e-10, f"variance over the last {_k} axes off by {_err:.1e}"


_rng = _np.random.default_rng(41)
_x = _rng.normal(size=(2, 3, 4, 5)) * 2 + 1
for _k in (1, 2, 3, 4):
    _g, _b = _rng.uniform(0.5, 2, size=_x.shape[-_k:]), \
_rng.normal(size=_x.shape[-_k:])
    _check_norm(_x, _k, _call(layer_norm_lastk, _x, _g, _b, _k), _g, _b)
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(2031)
for _trial in range(12):
    _shape = tuple(int(v) for v in _rng.integers(1, 6, size=int(_rng.integers(1, \
5))))
    _shape = _shape[:-1] + (max(2, _shape[-1]),)
    _k = int(_rng.integers(1, len(_shape) + 1))
    _x = _rng.normal(size=_shape) * _rng.uniform(0.1, 10) + _rng.normal() * 10
    _g, _b = _rng.normal(size=_shape[-_k:]), _rng.normal(size=_shape[-_k:])
    _eps = float(_rng.choice([1e-5, 1e-3, 0.1]))
    _axes = tuple(range(len(_shape) - _k, len(_shape)))
    _mu = _x.mean(axis=_axes, keepdims=True)
    _ref = (
        _g
        * (_x - _mu)
        / _np.sqrt(((_x - _mu) ** 2).mean(axis=_axes, keepdims=True) + _eps)
        + _b
    )
    _out = _call(layer_norm_lastk, _x, _g, _b, _k, eps=_eps)
    _compare(f"shape {_shape}, k = {_k}", _out, _ref, 1e-12)
### END HIDDEN TESTS
print("layer_norm_lastk: values correct")'''

_L4 = """\
def _out_of(_x, _gamma, _beta, _eps):
    _res = _call(layernorm_forward_fixed, _x, _gamma, _beta, {"eps": _eps})
    assert isinstance(_res, tuple) and len(_res) == 2, "return (out, cache)"
    return _res[0]


# visible test: x = (1, 2, 3, 4), the worked example of section 2
_out = _out_of(_np.array([[1.0, 2.0, 3.0, 4.0]]), _np.ones(4), _np.zeros(4), 1e-5)
_want = _np.array([[-1.341635, -0.447212, 0.447212, 1.341635]])
_compare("x = (1, 2, 3, 4)", _out, _want, 1e-6)
### BEGIN HIDDEN TESTS
# loud rows (sigma between 3 and 30), few features: the placement of eps changes the
# output by < 2e-6 here, the unbiased variance by about 1% or more (normwise \
errors);
# tolerance 1e-4 tells them apart
_rng = _np.random.default_rng(2041)
for _D in (2, 3, 5, 16):
    _x = _rng.normal(size=(int(_rng.integers(1, 5)), 3, _D))
    _x = (
        _x
        / _x.std(axis=-1, keepdims=True)
        * _rng.uniform(3, 30, size=(*_x.shape[:-1], 1))
    )
    _g, _b = _rng.normal(size=_D), _rng.normal(size=_D)
    _mu = _x.mean(axis=-1, keepdims=True)
    _ref = (
        _g * (_x - _mu) / _np.sqrt(((_x - _mu) ** 2).mean(-1, keepdims=True) + 1e-5)
        + _b
    )
    _compare(f"D = {_D}, loud rows", _out_of(_x, _g, _b, 1e-5), _ref, 1e-4)
### END HIDDEN TESTS
print("loud rows: correct")"""
# ---------------------------------------------------------------- Exercise 2.1

_T1_VAR = r"""### Exercise 2.1: Merging partial statistics (7 points)

````{admonition} Task
:class: note
A parallel kernel splits a row into chunks, computes each chunk's count $n$, mean $m$
and population variance $v=\frac1n\sum(x-m)^2$, and then merges two partial results
$(n_A,m_A,v_A)$ and $(n_B,m_B,v_B)$ into the statistics of their union, *without seeing
the data again* ({ref}`sec-02-precision`).

1. **Derive** (answer cell below, 3 points) the merged $n$, $m$ and $v$ in terms of the
   two partial results only. Hint: split $\sum_{A\cup B}(x-m)^2$ by chunk and write
   $x-m=(x-m_A)+(m_A-m)$ for $x$ in $A$.
2. **Implement** `merge_moments(a, b)` for `a = (n_a, mean_a, var_a)` and `b = (n_b,
   mean_b, var_b)`: `n` a Python int, `mean` and `var` arrays with one entry per row, of
   any float dtype (keep it). Either side, or both, may be empty (`n = 0`, `mean` and
   `var` zero). Return `(n, mean, var)`, `var` the population variance of the union.

The tests give your function partial statistics only, with means far from zero, so an
exact and stable merge formula is needed: merged mean (1 point), merged `var` (2
points), empty parts (1 point). Computing $\sum x^2$ from the parts and subtracting $n
m^2$ loses digits and fails.
````"""

_D1_VAR = r""":::{dropdown} Solution and mark scheme
With $n=n_A+n_B$, the merged mean is the count-weighted average
$m=(n_Am_A+n_Bm_B)/n=m_A+\Delta\,n_B/n$, with $\Delta=m_B-m_A$. For the variance, work
with the sums of squared deviations $n_Av_A$ and $n_Bv_B$: split $\sum_{A\cup B}(x-m)^2$
by chunk and write $x-m=(x-m_A)+(m_A-m)$ for $x\in A$:

$$
\begin{aligned}
\sum_{x\in A}(x-m)^2
&=\sum_{x\in A}(x-m_A)^2+2(m_A-m)\sum_{x\in A}(x-m_A)+n_A(m_A-m)^2\\
&=n_Av_A+n_A(m_A-m)^2,
\end{aligned}
$$

because deviations from a chunk's own mean sum to zero. Likewise for $B$. With
$m_A-m=-\Delta\,n_B/n$ and $m_B-m=\Delta\,n_A/n$, and dividing by $n$,

$$
v=\frac{n_Av_A+n_Bv_B}{n}+\Delta^2\,\frac{n_An_B}{n^2}
=w_Av_A+w_Bv_B+w_Aw_B\,\Delta^2,\qquad w_A=\frac{n_A}{n},\ w_B=\frac{n_B}{n}:
$$

the average of the two chunks' variances plus the variance of their two means. This is
the formula of {cite:t}`chan1983algorithms` divided by $n$. It combines only variances
and the difference of two means, so nothing large cancels. For $n=0$ the result is the
empty state (guard the division).

**Mark scheme (3 points).** 1 pt: the merged mean as a count-weighted average (any
equivalent form); 1 pt: splitting the sum by chunk and showing that the cross term
vanishes; 1 pt: the final $v=(n_Av_A+n_Bv_B)/n+\Delta^2n_An_B/n^2$ with $\Delta$
defined.
:::"""

_S1_VAR = '''\
def merge_moments(a, b):
    """Merge partial statistics a = (n_a, mean_a, var_a), b = (n_b, mean_b, var_b)."""
    ### BEGIN SOLUTION
    n_a, mean_a, var_a = a
    n_b, mean_b, var_b = b
    n = n_a + n_b
    if n == 0:
        return 0, mean_a * 0, var_a * 0
    w_a, w_b = n_a / n, n_b / n
    delta = mean_b - mean_a
    mean = mean_a + delta * w_b
    var = var_a * w_a + var_b * w_b + delta * delta * (w_a * w_b)
    return n, mean, var
    ### END SOLUTION'''

_T1_REMOVE = r"""### Exercise 2.1: Removing partial statistics (7 points)

````{admonition} Task
:class: note
A sliding-window kernel keeps, for every row, the statistics of a window of its values:
the count $n$, the mean $m$ and the sum of squared deviations $M=\sum(x-m)^2$. When the
oldest chunk $B$ leaves the window, it removes $B$'s statistics $(n_B,m_B,M_B)$ from the
window's $(n,m,M)$, which leaves the statistics $(n_A,m_A,M_A)$ of the rest $A$,
*without seeing the data again* ({ref}`sec-02-precision`).

1. **Derive** (answer cell below, 3 points) $n_A$, $m_A$ and $M_A$ in terms of $(n,m,M)$
   and $(n_B,m_B,M_B)$ only. Hint: first find how the statistics of $A$ and $B$ merge
   into those of $A\cup B$ (split $\sum_{A\cup B}(x-m)^2$ by chunk and write
   $x-m=(x-m_A)+(m_A-m)$ for $x$ in $A$), then solve for $A$'s.
2. **Implement** `remove_moments(ab, b)` for `ab = (n, mean, m2)`, the whole window, and
   `b = (n_b, mean_b, m2_b)`, a chunk of it: `n` a Python int, `mean` and `m2` arrays
   with one entry per row, of any float dtype (keep it). The chunk may be empty (`n_b =
   0`, `mean_b` and `m2_b` zero) or the whole window. Return `(n_a, mean_a, m2_a)`, the
   empty state (`0`, zeros) when nothing is left.

The tests give your function statistics only, with means far from zero, so an exact
formula in means and deviations is needed: remaining mean (1 point), remaining `m2` (2
points), an empty chunk and an empty rest (1 point). Going through $\sum x^2=M+nm^2$
loses digits and fails.
````"""

_D1_REMOVE = r""":::{dropdown} Solution and mark scheme
**The merge.** With $n=n_A+n_B$ the mean of the union is the count-weighted average
$m=(n_Am_A+n_Bm_B)/n$. Split $\sum_{A\cup B}(x-m)^2$ by chunk and write
$x-m=(x-m_A)+(m_A-m)$ for $x\in A$:

$$
\sum_{x\in A}(x-m)^2
=\sum_{x\in A}(x-m_A)^2+2(m_A-m)\sum_{x\in A}(x-m_A)+n_A(m_A-m)^2=M_A+n_A(m_A-m)^2,
$$

because deviations from a chunk's own mean sum to zero; likewise for $B$. With
$m_A-m=-(m_B-m_A)\,n_B/n$ and $m_B-m=(m_B-m_A)\,n_A/n$ this gives
$M=M_A+M_B+(m_B-m_A)^2\,n_An_B/n$ ({cite:t}`chan1983algorithms`).

**Solving for $A$.** $n_A=n-n_B$ and, from $n_Am_A=nm-n_Bm_B$, with $\delta=m_B-m$:
$m_A=m-\delta\,n_B/n_A$. Then $m_B-m_A=\delta+\delta\,n_B/n_A=\delta\,n/n_A$, so

$$
M_A=M-M_B-(m_B-m_A)^2\frac{n_An_B}{n}=M-M_B-\delta^2\,\frac{n\,n_B}{n_A}.
$$

Only deviations and the difference of two means enter, never $\sum x^2$. (Unlike a
merge, the removal subtracts: when the rest's spread is much smaller than the window's,
$M_A$ is a small difference of larger numbers and loses digits; kernels recompute the
window now and then.) For $n_A=0$ the result is the empty state (guard the division).

**Mark scheme (3 points).** 1 pt: the merged mean as a count-weighted average and $m_A$
solved from it; 1 pt: splitting the sum by chunk and showing that the cross term
vanishes; 1 pt: the final $M_A=M-M_B-\delta^2n\,n_B/n_A$ (or the equivalent form in
$m_B-m_A$) with $\delta$ defined.
:::"""

_S1_REMOVE = '''\
def remove_moments(ab, b):
    """Remove chunk statistics b = (n_b, mean_b, m2_b) from ab = (n, mean, m2)."""
    ### BEGIN SOLUTION
    n, mean, m2 = ab
    n_b, mean_b, m2_b = b
    n_a = n - n_b
    if n_a == 0:
        return 0, mean * 0, m2 * 0
    delta = mean_b - mean
    mean_a = mean - delta * (n_b / n_a)
    m2_a = m2 - m2_b - delta * delta * (n * n_b / n_a)
    return n_a, mean_a, m2_a
    ### END SOLUTION'''

_MEAN1_REMOVE = """\
def _stats(_x):  # (n, mean, m2) of the rows of a data block, float64
    return (
        _x.shape[-1],
        _x.mean(axis=-1),
        ((_x - _x.mean(axis=-1, keepdims=True)) ** 2).sum(-1),
    )


def _union(_na, _ma, _Ma, _nb, _mb, _Mb):  # (n, mean, m2) of A and B together
    _n = _na + _nb
    _d = _mb - _ma
    return _n, _ma + _d * (_nb / _n), _Ma + _Mb + _d * _d * (_na * _nb / _n)


def _parts(_rng):  # statistics of two chunks A and B, means far from zero
    _rows = int(_rng.integers(1, 9))
    _na, _nb = (int(v) for v in _rng.integers(1, 2000, size=2))
    _ma = _rng.normal(size=_rows) * 10 ** _rng.uniform(-2, 4)
    _mb = _ma + _rng.normal(size=_rows) * 10 ** _rng.uniform(-3, 0)
    _Ma, _Mb = _rng.uniform(1e2, 1e3, size=(2, _rows))
    return _na, _ma, _Ma, _nb, _mb, _Mb


# visible test: a window of real data, the first 5 values remain when the rest leaves
_x = _np.random.default_rng(21).normal(size=(4, 13)) * 3 + 50
_n, _mean, _m2 = remove_moments(_stats(_x), _stats(_x[:, 5:]))
assert int(_n) == 5, f"n = {_n}, expected 5"
_compare("mean", _mean, _x[:, :5].mean(axis=-1), 1e-12)
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(2011)
for _trial in range(50):
    _na, _ma, _Ma, _nb, _mb, _Mb = _parts(_rng)
    _ab = _union(_na, _ma, _Ma, _nb, _mb, _Mb)
    _n, _mean, _m2 = remove_moments(_ab, (_nb, _mb, _Mb))
    assert int(_n) == _na, f"n = {_n}, expected {_na}"
    _compare("mean", _mean, _ma, 1e-12)
### END HIDDEN TESTS
print("remaining mean: correct")"""

_M2_1_REMOVE = """\
# visible test: a window of real data, the first 5 values remain when the rest leaves
_x = _np.random.default_rng(22).normal(size=(4, 13)) * 3 + 50
_n, _mean, _m2 = remove_moments(_stats(_x), _stats(_x[:, 5:]))
_compare("m2", _m2, _stats(_x[:, :5])[2], 1e-11)
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(2012)
for _trial in range(50):
    _na, _ma, _Ma, _nb, _mb, _Mb = _parts(_rng)
    _ab = _union(_na, _ma, _Ma, _nb, _mb, _Mb)
    _n, _mean, _m2 = remove_moments(_ab, (_nb, _mb, _Mb))
    _compare("m2", _m2, _Ma, 1e-11)
### END HIDDEN TESTS
print("remaining m2: correct")"""

_EMPTY1_REMOVE = """\
# an empty chunk changes nothing, and removing the whole window leaves the empty state
_x = _np.random.default_rng(23).normal(size=(3, 7)) + 10
_empty = (0, _np.zeros(3), _np.zeros(3))
_left = remove_moments(_stats(_x), _empty)
assert int(_left[0]) == 7, f"n = {_left[0]}, expected 7"
_compare("mean, empty chunk removed", _left[1], _x.mean(-1), 1e-14)
_compare("m2, empty chunk removed", _left[2], _stats(_x)[2], 1e-13)
_n, _mean, _m2 = remove_moments(_stats(_x), _stats(_x))
assert int(_n) == 0, f"n = {_n}, expected 0"
# nothing left must give mean 0 and m2 0, exactly
_compare("mean of nothing", _mean, _np.zeros(3), 1e-300)
_compare("m2 of nothing", _m2, _np.zeros(3), 1e-300)
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(2013)
for _trial in range(10):
    _rows = int(_rng.integers(1, 6))
    _b = (
        int(_rng.integers(1, 50)),
        _rng.normal(size=_rows) * 100,
        _rng.uniform(0, 9, _rows),
    )
    _left = remove_moments(_b, (0, _np.zeros(_rows), _np.zeros(_rows)))
    assert int(_left[0]) == _b[0]
    _compare("mean, empty chunk removed", _left[1], _b[1], 1e-14)
    _compare("m2, empty chunk removed", _left[2], _b[2], 1e-13)
    _left = remove_moments(_b, _b)
    assert int(_left[0]) == 0
    _compare("mean of nothing", _left[1], _np.zeros(_rows), 1e-300)
    _compare("m2 of nothing", _left[2], _np.zeros(_rows), 1e-300)
### END HIDDEN TESTS
print("empty chunk and empty rest: correct")"""

_T1_MASKED = r"""### Exercise 2.1: Merging partial statistics of padded rows (7 points)

````{admonition} Task
:class: note
A parallel kernel splits a batch of padded rows into chunks; within a chunk, each row
has its own number of real (unpadded) values. For every row it computes the chunk's
count $n$, mean $m$ and sum of squared deviations $M=\sum(x-m)^2$ over the real values
only, and then merges two partial results $(n_A,m_A,M_A)$ and $(n_B,m_B,M_B)$ into the
statistics of their union, *without seeing the data again* ({ref}`sec-02-precision`).

1. **Derive** (answer cell below, 3 points) the merged $n$, $m$ and $M$ of one row in
   terms of the two partial results only, and say what the merge must return for a row
   that has no real value in either chunk. Hint: split $\sum_{A\cup B}(x-m)^2$ by chunk
   and write $x-m=(x-m_A)+(m_A-m)$ for $x$ in $A$.
2. **Implement** `merge_moments(a, b)` for `a = (n_a, mean_a, m2_a)` and `b = (n_b,
   mean_b, m2_b)`: now `n`, `mean` and `m2` are all float64 arrays with one entry per
   row, and a row may be empty on either side or on both (`n`, `mean` and `m2` zero in
   that row) while other rows are not. Return `(n, mean, m2)`, with `mean` and `m2` zero
   (no NaN) in the rows that stay empty.

The tests give your function partial statistics only, with means far from zero, so an
exact and stable merge formula is needed: merged mean (1 point), merged `m2` (2 points),
empty rows (1 point). Computing $\sum x^2$ from the parts and subtracting $n m^2$ loses
digits and fails.
````"""

_D1_MASKED = r""":::{dropdown} Solution and mark scheme
Row by row, with $n=n_A+n_B$, the merged mean is the count-weighted average
$m=(n_Am_A+n_Bm_B)/n=m_A+\Delta\,n_B/n$, with $\Delta=m_B-m_A$. For $M$, split the sum
by chunk and write $x-m=(x-m_A)+(m_A-m)$ for $x\in A$:

$$
\sum_{x\in A}(x-m)^2
=\sum_{x\in A}(x-m_A)^2+2(m_A-m)\sum_{x\in A}(x-m_A)+n_A(m_A-m)^2=M_A+n_A(m_A-m)^2,
$$

because deviations from a chunk's own mean sum to zero. Likewise for $B$, and with
$m_A-m=-\Delta\,n_B/n$ and $m_B-m=\Delta\,n_A/n$,

$$
M=M_A+M_B+\Delta^2\,\frac{n_An_B}{n}
$$

({cite:t}`chan1983algorithms`). The counts now differ from row to row, so the guard for
$n=0$ must be per row (`np.where`, a denominator of 1 in the empty rows), not one `if`:
an empty row stays the empty state $(0,0,0)$, and one empty side leaves the other side's
statistics unchanged ($n_A=0$ gives $m=m_B$ and $M=M_B$).

**Mark scheme (3 points).** 1 pt: the merged mean as a count-weighted average (any
equivalent form); 1 pt: splitting the sum by chunk and showing that the cross term
vanishes; 1 pt: the final $M=M_A+M_B+\Delta^2n_An_B/n$ with $\Delta$ defined, and the
empty row handled row by row.
:::"""

_S1_MASKED = '''\
def merge_moments(a, b):
    """Merge per-row partial statistics a = (n_a, mean_a, m2_a), b = (n_b, ...)."""
    ### BEGIN SOLUTION
    n_a, mean_a, m2_a = a
    n_b, mean_b, m2_b = b
    n = n_a + n_b
    safe = np.where(n > 0, n, 1.0)  # empty rows: both sides are (0, 0, 0)
    delta = mean_b - mean_a
    mean = mean_a + delta * (n_b / safe)
    m2 = m2_a + m2_b + delta * delta * (n_a * n_b / safe)
    return n, mean, m2
    ### END SOLUTION'''

_MEAN1_MASKED = """\
def _stats(_x, _real):  # (n, mean, m2) of the real values of each row, float64
    _n = _real.sum(axis=-1).astype(float)
    _mean = _np.where(_real, _x, 0.0).sum(-1) / _np.where(_n > 0, _n, 1.0)
    _dev = _np.where(_real, _x - _mean[:, None], 0.0)
    return _n, _mean, (_dev * _dev).sum(-1)


def _parts(_rng):  # per-row statistics of two chunks, some rows empty, means far from 0
    _rows = int(_rng.integers(2, 9))
    _na, _nb = _rng.integers(0, 2000, size=(2, _rows)).astype(float)
    _na[_rng.random(_rows) < 0.3] = 0.0
    _nb[_rng.random(_rows) < 0.3] = 0.0
    _ma = _rng.normal(size=_rows) * 10 ** _rng.uniform(-2, 4)
    _mb = _ma + _rng.normal(size=_rows) * 10 ** _rng.uniform(-3, 2)
    _Ma, _Mb = _rng.uniform(0, 1e3, size=(2, _rows))
    _ma, _Ma = _np.where(_na > 0, _ma, 0.0), _np.where(_na > 0, _Ma, 0.0)
    _mb, _Mb = _np.where(_nb > 0, _mb, 0.0), _np.where(_nb > 0, _Mb, 0.0)
    return (_na, _ma, _Ma), (_nb, _mb, _Mb)


# visible test: two chunks of padded data, merged statistics = statistics of the whole
_rng = _np.random.default_rng(21)
_x = _rng.normal(size=(4, 13)) * 3 + 50
_real = _rng.random((4, 13)) < 0.7
_real[0, :5] = False  # row 0: nothing real in the first chunk
_real[:, 0] = _real[:, 12] = True
_n, _mean, _m2 = merge_moments(
    _stats(_x[:, :5], _real[:, :5]), _stats(_x[:, 5:], _real[:, 5:])
)
_compare("n", _n, _real.sum(-1).astype(float), 1e-300)
_compare("mean", _mean, _stats(_x, _real)[1], 1e-12)
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(2011)
for _trial in range(50):
    (_na, _ma, _Ma), (_nb, _mb, _Mb) = _parts(_rng)
    _n, _mean, _m2 = merge_moments((_na, _ma, _Ma), (_nb, _mb, _Mb))
    _compare("n", _n, _na + _nb, 1e-300)
    _ref = _ma + (_mb - _ma) * _nb / _np.where(_na + _nb > 0, _na + _nb, 1.0)
    _compare("mean", _mean, _ref, 1e-12)
### END HIDDEN TESTS
print("merged mean: correct")"""

_M2_1_MASKED = """\
# visible test: two chunks of padded data, merged statistics = statistics of the whole
_rng = _np.random.default_rng(22)
_x = _rng.normal(size=(4, 13)) * 3 + 50
_real = _rng.random((4, 13)) < 0.7
_real[1, 5:] = False  # row 1: nothing real in the second chunk
_real[:, 0] = _real[:, 1] = True
_n, _mean, _m2 = merge_moments(
    _stats(_x[:, :5], _real[:, :5]), _stats(_x[:, 5:], _real[:, 5:])
)
_compare("m2", _m2, _stats(_x, _real)[2], 1e-12)
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(2012)
for _trial in range(50):
    (_na, _ma, _Ma), (_nb, _mb, _Mb) = _parts(_rng)
    _n, _mean, _m2 = merge_moments((_na, _ma, _Ma), (_nb, _mb, _Mb))
    _n0 = _np.where(_na + _nb > 0, _na + _nb, 1.0)
    _ref = _Ma + _Mb + (_mb - _ma) ** 2 * _na * _nb / _n0
    _compare("m2", _m2, _ref, 1e-12)
### END HIDDEN TESTS
print("merged m2: correct")"""

_EMPTY1_MASKED = """\
# empty rows: an empty side changes nothing, and a row empty on both sides stays empty
_rng = _np.random.default_rng(23)
_x = _rng.normal(size=(3, 7)) + 10
_full = _stats(_x, _np.ones((3, 7), bool))
_empty = (_np.zeros(3), _np.zeros(3), _np.zeros(3))
for _merged in (merge_moments(_empty, _full), merge_moments(_full, _empty)):
    _compare("n, one side empty", _merged[0], _full[0], 1e-300)
    _compare("mean, one side empty", _merged[1], _full[1], 1e-14)
    _compare("m2, one side empty", _merged[2], _full[2], 1e-13)
_n, _mean, _m2 = merge_moments(_empty, _empty)
# rows empty on both sides must give n, mean and m2 0, exactly
_compare("n of two empty rows", _n, _np.zeros(3), 1e-300)
_compare("mean of two empty rows", _mean, _np.zeros(3), 1e-300)
_compare("m2 of two empty rows", _m2, _np.zeros(3), 1e-300)
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(2013)
for _trial in range(10):
    _rows = int(_rng.integers(2, 6))
    _on = _rng.random(_rows) < 0.5  # rows that are not empty in b
    _b = (
        _np.where(_on, _rng.integers(1, 50, _rows), 0).astype(float),
        _np.where(_on, _rng.normal(size=_rows) * 100, 0.0),
        _np.where(_on, _rng.uniform(0, 9, _rows), 0.0),
    )
    _empty = (_np.zeros(_rows), _np.zeros(_rows), _np.zeros(_rows))
    for _merged in (merge_moments(_empty, _b), merge_moments(_b, _empty)):
        _compare("n, one side empty", _merged[0], _b[0], 1e-300)
        _compare("mean, one side empty", _merged[1], _b[1], 1e-14)
        _compare("m2, one side empty", _merged[2], _b[2], 1e-13)
### END HIDDEN TESTS
print("empty rows: correct")"""

_EX1 = [
    Variant(
        "variance-state",
        "merge partial (count, mean, population variance) states, not (n, mean, m2)",
        (
            Edit("d3144f94", _T1, _T1_VAR),
            Edit("02-ex1-derivation", _D1, _D1_VAR),
            Edit("02-ex1-solution", _S1, _S1_VAR),
            Edit("02-ex1-mean", "# (n, mean, m2) of", "# (n, mean, var) of"),
            Edit("02-ex1-mean", "** 2).sum(-1),", "** 2).mean(-1),"),
            Edit(
                "02-ex1-m2",
                '_compare("m2", _m2, _stats(_x)[2]',
                '_compare("var", _m2, _stats(_x)[2]',
            ),
            Edit(
                "02-ex1-m2",
                "    _ref = _Ma + _Mb + (_mb - _ma) ** 2 * _na * _nb / (_na + _nb)\n"
                '    _compare("m2", _m2, _ref, 1e-12)',
                "    _n = _na + _nb\n"
                "    _ref = (_na * _Ma + _nb * _Mb) / _n"
                " + (_mb - _ma) ** 2 * (_na * _nb / _n**2)\n"
                '    _compare("var", _m2, _ref, 1e-12)',
            ),
            Edit(
                "02-ex1-m2",
                'print("merged m2: correct")',
                'print("merged var: correct")',
            ),
        ),
    ),
    Variant(
        "remove-chunk",
        "remove a chunk's (n, mean, m2) from a sliding window's statistics (downdate)",
        (
            Edit("d3144f94", _T1, _T1_REMOVE),
            Edit("02-ex1-derivation", _D1, _D1_REMOVE),
            Edit("02-ex1-solution", _S1, _S1_REMOVE),
            Edit("02-ex1-mean", _MEAN1, _MEAN1_REMOVE),
            Edit("02-ex1-m2", _M2_1, _M2_1_REMOVE),
            Edit("02-ex1-empty", _EMPTY1, _EMPTY1_REMOVE),
        ),
    ),
    Variant(
        "padded-rows",
        "merge (n, mean, m2) of padded rows: per-row counts, rows empty on either side",
        (
            Edit("d3144f94", _T1, _T1_MASKED),
            Edit("02-ex1-derivation", _D1, _D1_MASKED),
            Edit("02-ex1-solution", _S1, _S1_MASKED),
            Edit("02-ex1-mean", _MEAN1, _MEAN1_MASKED),
            Edit("02-ex1-m2", _M2_1, _M2_1_MASKED),
            Edit("02-ex1-empty", _EMPTY1, _EMPTY1_MASKED),
        ),
    ),
]
# ---------------------------------------------------------------- Exercise 2.2

_T2_STD = r"""### Exercise 2.2: A streaming standard deviation in float32 (3 points)

````{admonition} Task
:class: note
A stream delivers each row's values in blocks of varying size, and the kernel may keep
only a running state `(n, mean, std)` per row between blocks, `std` the population
standard deviation (the $1/n$ one) of all the values seen so far. Implement
`stream_update(state, block)`: `block` is an array of shape `(rows, k)` with $k\ge1$ new
values per row; return the new state, with `mean` and `std` in the block's dtype
(float32 stays float32). The merge of Exercise 2.1 is the tool, but this state holds a
standard deviation, not a sum of squared deviations.

The tests feed two interleaved streams (so everything must live in `state`) and check:
exactness in float64 on random block sizes (1 point), and a float32 stream at an offset
of about $10^4$ standard deviations (2 points), where the standard deviation must be
within 0.25% of the float64 standard deviation of the same float32 values. Running sums
of $x$ and $x^2$ are off by more than 100% there; a correct streaming update is off by
about $10^{-4}$.
````"""

_S2_STD = '''\
def stream_update(state, block):
    """Add a block of shape (rows, k) to the running state (n, mean, std)."""
    ### BEGIN SOLUTION
    n, mean, std = state
    k = block.shape[-1]
    mean_b = block.mean(axis=-1)
    dev = block - mean_b[..., None]
    total = n + k
    delta = mean_b - mean
    mean = mean + delta * (k / total)
    m2 = std * std * n + (dev * dev).sum(axis=-1) + delta * delta * (n * k / total)
    return total, mean, np.sqrt(m2 / total)
    ### END SOLUTION'''

_T2_MASKED = (
    "### Exercise 2.2: A streaming variance of padded rows in float32 (3"
    " points)\n"
    r"""
````{admonition} Task
:class: note
A stream delivers each row's values in blocks of varying size, padded: with every block
comes a boolean `mask` of its shape, `True` where a value is real and `False` where it
is padding (which may hold anything, even NaN). The kernel may keep only a running state
`(n, mean, m2)` per row between blocks, over the real values only; `n` is an integer
array, one count per row, since rows get different numbers of real values. Implement
`stream_update(state, block, mask)`: `block` has shape `(rows, k)` with $k\ge1$, and a
row may have no real value in a block (its state then stays as it was). Return the new
state, with `mean` and `m2` in the block's dtype (float32 stays float32). The merge of
Exercise 2.1 is the tool; a stream starts from the state `(np.zeros(rows, int), zeros,
zeros)`.

The tests feed two interleaved streams (so everything must live in `state`) and check:
exactness in float64 on random block sizes (1 point), and a float32 stream at an offset
of about $10^4$ standard deviations (2 points), where the variance must be within 0.5%
of the float64 variance of the same float32 values (the real ones). Running sums of $x$
and $x^2$ are off by more than 100% there; a correct streaming update is off by about
$10^{-4}$.
````"""
)

_S2_MASKED = '''\
def stream_update(state, block, mask):
    """Add the real values (mask True) of a block (rows, k) to (n, mean, m2)."""
    ### BEGIN SOLUTION
    n, mean, m2 = state
    k = mask.sum(axis=-1)  # real values per row in this block
    total = n + k
    kf = k.astype(block.dtype)  # counts in the block's dtype: the dtype is kept
    mean_b = np.where(mask, block, 0).sum(axis=-1) / np.maximum(kf, 1)
    dev = np.where(mask, block - mean_b[:, None], 0)
    share = kf / np.maximum(total, 1).astype(block.dtype)  # 0 where nothing is real
    delta = mean_b - mean
    mean = mean + delta * share
    m2 = m2 + (dev * dev).sum(axis=-1) + delta * delta * (n.astype(block.dtype) * share)
    return total, mean, m2
    ### END SOLUTION'''

_F64_MASKED = '''\
def _run_streams(_xs, _reals, _cuts):
    """Feed the padded streams block by block, alternating; return the final states."""
    _states = [
        (_np.zeros(len(_x), int), *_np.zeros((2, len(_x)), _x.dtype)) for _x in _xs
    ]
    for _i, _j in zip(_cuts[:-1], _cuts[1:]):
        for _s, (_x, _r) in enumerate(zip(_xs, _reals)):
            _block, _mask = _x[:, _i:_j].copy(), _r[:, _i:_j].copy()
            _states[_s] = stream_update(_states[_s], _block, _mask)
    return _states


def _padded(_rng, _x):
    """_x with about 30% of its entries padding (NaN); every row keeps real values."""
    _real = _rng.random(_x.shape) < 0.7
    _real[:, 0] = True
    return _np.where(_real, _x, _np.nan).astype(_x.dtype), _real


def _check(_state, _x, _real, _tol_mean, _tol_var):
    _n, _mean, _m2 = _state
    _count = _real.sum(axis=1)
    assert (_np.asarray(_n) == _count).all(), f"n = {_n}, expected {_count}"
    _x64 = _np.where(_real, _x, 0).astype(_np.float64)
    _mu = _x64.sum(axis=1) / _count
    _dev = _np.where(_real, _x64 - _mu[:, None], 0.0)
    _compare("mean", _mean, _mu, _tol_mean, _x.dtype.type)
    _compare("m2", _m2, (_dev * _dev).sum(axis=1), _tol_var, _x.dtype.type)


def _random_cuts(_rng, _length, _kmax):
    _cuts = _np.cumsum(_rng.integers(1, _kmax + 1, size=_length))
    return _np.concatenate([[0], _cuts[_cuts < _length], [_length]])


def _feed(_xs, _reals, _cuts, _tol_mean, _tol_var):
    for _state, _x, _r in zip(_run_streams(_xs, _reals, _cuts), _xs, _reals):
        _check(_state, _x, _r, _tol_mean, _tol_var)


# visible test: float64, blocks of 1 to 5 values, two padded streams
_rng = _np.random.default_rng(31)
_xs, _reals = zip(
    *[
        _padded(_rng, _rng.normal(size=(3, 40)) * 2 + 7),
        _padded(_rng, _rng.normal(size=(2, 40)) - 300),
    ]
)
_feed(_xs, _reals, _random_cuts(_rng, 40, 5), 1e-12, 1e-10)
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(2021)
for _trial in range(5):
    _L = int(_rng.integers(2, 300))
    _xs, _reals = zip(
        *[
            _padded(
                _rng,
                _rng.normal(size=(int(_rng.integers(1, 6)), _L)) * _rng.uniform(0.1, 10)
                + _rng.normal() * 10 ** _rng.uniform(0, 3),
            )
            for _ in range(2)
        ]
    )
    _feed(_xs, _reals, _random_cuts(_rng, _L, int(_rng.integers(1, 20))), 1e-12, 1e-10)
### END HIDDEN TESTS
print("float64 padded streams: exact")'''

_F32_MASKED = """\
# visible test: float32 at offset 1e4, blocks of 1 to 16 values, two padded streams
_rng = _np.random.default_rng(32)
_xs, _reals = zip(
    *[
        _padded(_rng, (1e4 + _rng.normal(size=(4, 2048))).astype(_np.float32)),
        _padded(_rng, (-3e3 + 0.5 * _rng.normal(size=(4, 2048))).astype(_np.float32)),
    ]
)
_feed(_xs, _reals, _random_cuts(_rng, 2048, 16), 1e-5, 5e-3)
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(2022)
for _kmax in (1, 16):
    _sigma = _rng.uniform(0.5, 2, size=2)
    _offset = _rng.choice([-1, 1], size=2) * _rng.uniform(5e3, 2e4, size=2) * _sigma
    _xs, _reals = zip(
        *[
            _padded(
                _rng,
                (_offset[_s] + _sigma[_s] * _rng.normal(size=(6, 3000))).astype(
                    _np.float32
                ),
            )
            for _s in range(2)
        ]
    )
    _feed(_xs, _reals, _random_cuts(_rng, 3000, _kmax), 1e-5, 5e-3)
### END HIDDEN TESTS
print("float32 padded streams at a large offset: accurate")"""

_T2_EMA = r"""### Exercise 2.2: An exponentially weighted variance in float32 (3 points)

````{admonition} Task
:class: note
A stream delivers each row's values in blocks of varying size, and the kernel keeps,
between blocks, a running state `(n, mean, var)` per row that forgets old values: an
exponentially weighted mean and variance with rate $\alpha$. The $t$-th value of the
stream ($t=1,2,\dots$, counted over all blocks) updates the state with
$a_t=\max(\alpha,1/t)$:

$$
\delta=x_t-m,\qquad m\leftarrow m+a_t\,\delta,\qquad
v\leftarrow(1-a_t)\,(v+a_t\,\delta^2).
$$

For $t\le1/\alpha$ this is Welford's exact running mean and population variance; after
that, value $x_i$ keeps the weight $w_i=a_i\prod_{j>i}(1-a_j)$, and $m=\sum_iw_ix_i$,
$v=\sum_iw_i(x_i-m)^2$. Implement `stream_update(state, block, alpha)`: `block` is an
array of shape `(rows, k)` with $k\ge1$ new values per row; return the new state, `n`
the number of values seen so far, `mean` and `var` in the block's dtype (float32 stays
float32). A stream starts from `(0, zeros, zeros)`.

The tests feed two interleaved streams (so everything must live in `state`) and compare
with $\sum_iw_ix_i$ and $\sum_iw_i(x_i-m)^2$ computed directly in float64: exactness in
float64 on random block sizes (1 point), and a float32 stream at an offset of about
$10^4$ standard deviations (2 points), where the variance must be within 0.5% of the
float64 one of the same float32 values. Exponentially weighted averages of $x$ and $x^2$
are off by more than 100% there; the update above is off by about $10^{-4}$.
````"""

_S2_EMA = '''\
def stream_update(state, block, alpha):
    """Add a block of shape (rows, k) to the exponentially weighted (n, mean, var)."""
    ### BEGIN SOLUTION
    n, mean, var = state
    for j in range(block.shape[-1]):
        n += 1
        a = max(alpha, 1 / n)
        delta = block[:, j] - mean
        mean = mean + a * delta
        var = (1 - a) * (var + a * delta * delta)
    return n, mean, var
    ### END SOLUTION'''

_F64_EMA = '''\
def _run_streams(_xs, _cuts, _alpha):
    """Feed the streams in _xs block by block, alternating; return the final states."""
    _states = [
        (0, _np.zeros(len(_x), _x.dtype), _np.zeros(len(_x), _x.dtype)) for _x in _xs
    ]
    for _i, _j in zip(_cuts[:-1], _cuts[1:]):
        for _s, _x in enumerate(_xs):
            _states[_s] = stream_update(_states[_s], _x[:, _i:_j].copy(), _alpha)
    return _states


def _weights(_length, _alpha):  # the weight of each value in the final state, float64
    _a = _np.maximum(_alpha, 1 / _np.arange(1, _length + 1))
    _keep = _np.cumprod((1 - _a)[::-1])[::-1]  # _keep[i]: product of 1 - a_j, j >= i
    return _a * _np.append(_keep[1:], 1.0)


def _check(_state, _x, _alpha, _tol_mean, _tol_var):
    _n, _mean, _var = _state
    assert int(_n) == _x.shape[1], f"n = {_n}, expected {_x.shape[1]}"
    _w, _x64 = _weights(_x.shape[1], _alpha), _x.astype(_np.float64)
    _mu = _x64 @ _w
    _compare("mean", _mean, _mu, _tol_mean, _x.dtype.type)
    _compare("var", _var, ((_x64 - _mu[:, None]) ** 2) @ _w, _tol_var, _x.dtype.type)


def _random_cuts(_rng, _length, _kmax):
    _cuts = _np.cumsum(_rng.integers(1, _kmax + 1, size=_length))
    return _np.concatenate([[0], _cuts[_cuts < _length], [_length]])


# visible test: float64, alpha = 0.05, blocks of 1 to 5 values, two streams
_rng = _np.random.default_rng(31)
_xs = [_rng.normal(size=(3, 60)) * 2 + 7, _rng.normal(size=(2, 60)) - 300]
for _state, _x in zip(_run_streams(_xs, _random_cuts(_rng, 60, 5), 0.05), _xs):
    _check(_state, _x, 0.05, 1e-12, 1e-10)
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(2021)
for _trial in range(5):
    _L = int(_rng.integers(2, 300))
    _alpha = float(_rng.uniform(0.005, 0.2))
    _xs = [
        _rng.normal(size=(int(_rng.integers(1, 6)), _L)) * _rng.uniform(0.1, 10)
        + _rng.normal() * 10 ** _rng.uniform(0, 3)
        for _ in range(2)
    ]
    _cuts = _random_cuts(_rng, _L, int(_rng.integers(1, 20)))
    for _state, _x in zip(_run_streams(_xs, _cuts, _alpha), _xs):
        _check(_state, _x, _alpha, 1e-12, 1e-10)
### END HIDDEN TESTS
print("float64 weighted streams: exact")'''

_F32_EMA = """\
# visible test: float32 at offset 1e4, alpha = 0.02, blocks of 1 to 16 values
_rng = _np.random.default_rng(32)
_xs = [
    (1e4 + _rng.normal(size=(4, 2048))).astype(_np.float32),
    (-3e3 + 0.5 * _rng.normal(size=(4, 2048))).astype(_np.float32),
]
for _state, _x in zip(_run_streams(_xs, _random_cuts(_rng, 2048, 16), 0.02), _xs):
    _check(_state, _x, 0.02, 1e-5, 5e-3)
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(2022)
for _kmax in (1, 16):
    _alpha = float(_rng.uniform(0.005, 0.05))
    _sigma = _rng.uniform(0.5, 2, size=2)
    _offset = _rng.choice([-1, 1], size=2) * _rng.uniform(5e3, 2e4, size=2) * _sigma
    _xs = [
        (_offset[_s] + _sigma[_s] * _rng.normal(size=(6, 3000))).astype(_np.float32)
        for _s in range(2)
    ]
    _cuts = _random_cuts(_rng, 3000, _kmax)
    for _state, _x in zip(_run_streams(_xs, _cuts, _alpha), _xs):
        _check(_state, _x, _alpha, 1e-5, 5e-3)
### END HIDDEN TESTS
print("float32 weighted streams at a large offset: accurate")"""

_EX2 = [
    Variant(
        "std-state",
        "stream (n, mean, std) with the population standard deviation, not m2",
        (
            Edit("50c25789", _T2, _T2_STD),
            Edit("02-ex2-solution", _S2, _S2_STD),
            Edit(
                "02-ex2-float64",
                '_compare("m2", _m2, _x64.var(axis=1) * _x.shape[1],',
                '_compare("std", _m2, _x64.std(axis=1),',
            ),
            Edit(
                "02-ex2-float32",
                "\n    _check(_state, _x, 1e-5, 5e-3)\n### BEGIN",
                "\n    _check(_state, _x, 1e-5, 2.5e-3)\n### BEGIN",
            ),
            Edit(
                "02-ex2-float32",
                "        _check(_state, _x, 1e-5, 5e-3)\n### END",
                "        _check(_state, _x, 1e-5, 2.5e-3)\n### END",
            ),
        ),
    ),
    Variant(
        "padded-stream",
        "stream (n, mean, m2) over the real values of padded blocks, given a mask",
        (
            Edit("50c25789", _T2, _T2_MASKED),
            Edit("02-ex2-solution", _S2, _S2_MASKED),
            Edit("02-ex2-float64", _F64, _F64_MASKED),
            Edit("02-ex2-float32", _F32, _F32_MASKED),
        ),
    ),
    Variant(
        "ewm-variance",
        "stream an exponentially weighted mean and variance with rate alpha",
        (
            Edit("50c25789", _T2, _T2_EMA),
            Edit("02-ex2-solution", _S2, _S2_EMA),
            Edit("02-ex2-float64", _F64, _F64_EMA),
            Edit("02-ex2-float32", _F32, _F32_EMA),
        ),
    ),
]
# ---------------------------------------------------------------- Exercise 2.3

_T3_FIRST = (
    "### Exercise 2.3: LayerNorm over the axes after the batch axis (3"
    " points)\n"
    r"""
````{admonition} Task
:class: note
Convolutional networks store activations channels-first, as `(N, C, H, W)`. A LayerNorm
there normalizes over the first $k$ axes after the batch axis: with $k=1$ one mean and
one variance over the $C$ channels of every pixel (ConvNeXt's "channels_first"
LayerNorm), with $k=3$ over the whole `(C, H, W)` of each example. $\boldsymbol\gamma$
and $\boldsymbol\beta$ have shape `x.shape[1:k+1]` and are broadcast over the remaining
trailing axes. Implement `layer_norm_firstk(x, gamma, beta, k, eps=1e-5)` in NumPy for
any `1 <= k <= x.ndim - 1`, and raise a `ValueError` if `gamma` or `beta` does not have
shape `x.shape[1:k+1]`. PyTorch's normalization functions are not available while the
tests run your function. Tests: values on random shapes and every $k$ (2 points), the
shape errors (1 point).
````"""
)

_S3_FIRST = '''\
def layer_norm_firstk(x, gamma, beta, k, eps=1e-5):
    """LayerNorm with one mean and variance over axes 1..k of x (batch axis first)."""
    ### BEGIN SOLUTION
    shape = x.shape[1 : k + 1]
    if np.shape(gamma) != shape or np.shape(beta) != shape:
        raise ValueError(
            f"gamma and beta must have shape {shape}, got {np.shape(gamma)}"
            f" and {np.shape(beta)}"
        )
    rest = (1,) * (x.ndim - 1 - k)  # broadcast over the trailing axes
    gamma, beta = np.reshape(gamma, shape + rest), np.reshape(beta, shape + rest)
    axes = tuple(range(1, k + 1))
    mu = x.mean(axis=axes, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=axes, keepdims=True)
    return gamma * (x - mu) / np.sqrt(var + eps) + beta
    ### END SOLUTION'''

_V3_FIRST = '''\
def _shaped(_p, _x, _k):  # gamma or beta (x.shape[1:k+1]) against the trailing axes
    return _p.reshape(_p.shape + (1,) * (_x.ndim - 1 - _k))


def _check_norm(_x, _k, _out, _gamma, _beta, _eps=1e-5):
    """Visible check by properties: (out - beta) / gamma has, over axes 1 to k,
    mean 0 and variance sigma^2 / (sigma^2 + eps)."""
    assert isinstance(_out, _np.ndarray) and _out.shape == _x.shape, (
        "wrong output shape"
    )
    _axes = tuple(range(1, _k + 1))
    _z = (_out - _shaped(_beta, _x, _k)) / _shaped(_gamma, _x, _k)
    _s2 = _x.var(axis=_axes)
    _err = float(abs(_z.mean(axis=_axes)).max())
    assert _err < 1e-10, f"mean over axes 1 to {_k} is {_err:.1e}, expected 0"
    _err = float(abs(_z.var(axis=_axes) - _s2 / (_s2 + _eps)).max())
    assert _err < 1e-10, f"variance over axes 1 to {_k} off by {_err:.1e}"


_rng = _np.random.default_rng(41)
_x = _rng.normal(size=(2, 3, 4, 5)) * 2 + 1
for _k in (1, 2, 3):
    _p = _x.shape[1 : _k + 1]
    _g, _b = _rng.uniform(0.5, 2, size=_p), _rng.normal(size=_p)
    _check_norm(_x, _k, _call(layer_norm_firstk, _x, _g, _b, _k), _g, _b)
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(2031)
for _trial in range(12):
    _shape = tuple(int(v) for v in _rng.integers(1, 6, size=int(_rng.integers(2, 6))))
    _shape = _shape[:1] + (max(2, _shape[1]),) + _shape[2:]
    _k = int(_rng.integers(1, len(_shape)))
    _x = _rng.normal(size=_shape) * _rng.uniform(0.1, 10) + _rng.normal() * 10
    _g, _b = _rng.normal(size=_shape[1 : _k + 1]), _rng.normal(size=_shape[1 : _k + 1])
    _eps = float(_rng.choice([1e-5, 1e-3, 0.1]))
    _axes = tuple(range(1, _k + 1))
    _mu = _x.mean(axis=_axes, keepdims=True)
    _ref = (
        _shaped(_g, _x, _k)
        * (_x - _mu)
        / _np.sqrt(((_x - _mu) ** 2).mean(axis=_axes, keepdims=True) + _eps)
        + _shaped(_b, _x, _k)
    )
    _out = _call(layer_norm_firstk, _x, _g, _b, _k, eps=_eps)
    _compare(f"shape {_shape}, k = {_k}", _out, _ref, 1e-12)
### END HIDDEN TESTS
print("layer_norm_firstk: values correct")'''

_E3_FIRST = """\
_x = _np.random.default_rng(42).normal(size=(2, 3, 4, 5))
_bads = (_np.ones(3), _np.ones((4, 3)), _np.ones((4, 5)), _np.ones((1, 3, 4)))
for _bad in (*_bads, _np.ones((2, 3, 4))):
    for _args in ((_bad, _np.zeros((3, 4))), (_np.ones((3, 4)), _bad)):
        try:
            _call(layer_norm_firstk, _x, *_args, 2)
        except ValueError:
            pass
        else:
            raise AssertionError(
                f"shape {_bad.shape} was accepted for k = 2 (expected (3, 4))"
            )
_call(layer_norm_firstk, _x, _np.ones((3, 4)), _np.zeros((3, 4)), 2)  # the right shape
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(2032)
_x = _rng.normal(size=(3, 2, 6))
for _k, _bad in ((1, (1,)), (1, (6,)), (2, (6,)), (2, (2,)), (2, (6, 2)), (1, (3, 2))):
    _beta = _np.zeros(_x.shape[1 : _k + 1])
    try:
        _call(layer_norm_firstk, _x, _np.ones(_bad), _beta, _k)
    except ValueError:
        pass
    else:
        raise AssertionError(f"gamma of shape {_bad} was accepted for k = {_k}")
### END HIDDEN TESTS
print("layer_norm_firstk: shape errors raised")"""

_T3_RMS = r"""### Exercise 2.3: RMSNorm over the last k axes (3 points)

````{admonition} Task
:class: note
`nn.LayerNorm(normalized_shape)` accepts a tuple: with `normalized_shape=(H, W)` the
statistics are computed over the last two axes together, and $\boldsymbol\gamma$,
$\boldsymbol\beta$ have shape `(H, W)`. Do the same for RMSNorm ({doc}`04-rmsnorm`),
here with a bias: $\boldsymbol\gamma\odot\mathbf
x/\sqrt{\overline{x^2}+\epsilon}+\boldsymbol\beta$, with one mean square
$\overline{x^2}$ over the last $k$ axes together and no mean subtracted. Implement
`rms_norm_lastk(x, gamma, beta, k, eps=1e-5)` in NumPy for any `1 <= k <= x.ndim`, and
raise a `ValueError` if `gamma` or `beta` does not have shape `x.shape[-k:]`. PyTorch's
normalization functions are not available while the tests run your function. Tests:
values on random shapes and every $k$ (2 points), the shape errors (1 point).
````"""

_S3_RMS = '''\
def rms_norm_lastk(x, gamma, beta, k, eps=1e-5):
    """RMSNorm (with a bias) with one mean square over the last k axes of x."""
    ### BEGIN SOLUTION
    shape = x.shape[x.ndim - k :]
    if np.shape(gamma) != shape or np.shape(beta) != shape:
        raise ValueError(
            f"gamma and beta must have shape {shape}, got {np.shape(gamma)}"
            f" and {np.shape(beta)}"
        )
    axes = tuple(range(x.ndim - k, x.ndim))
    ms = (x * x).mean(axis=axes, keepdims=True)
    return gamma * x / np.sqrt(ms + eps) + beta
    ### END SOLUTION'''

_V3_RMS = '''\
def _check_norm(_x, _k, _out, _gamma, _beta, _eps=1e-5):
    """Visible check by properties: z = (out - beta) / gamma is x times one positive
    number per slice, with mean square m / (m + eps), m = mean square of x, over the
    last k axes."""
    assert isinstance(_out, _np.ndarray) and _out.shape == _x.shape, (
        "wrong output shape"
    )
    _axes = tuple(range(_x.ndim - _k, _x.ndim))
    _z = (_out - _beta) / _gamma
    _m = (_x * _x).mean(axis=_axes)
    _err = float(abs((_z * _z).mean(axis=_axes) - _m / (_m + _eps)).max())
    assert _err < 1e-10, f"mean square over the last {_k} axes off by {_err:.1e}"
    _c = (_z * _x).sum(axis=_axes, keepdims=True) / (_x * _x).sum(
        axis=_axes, keepdims=True
    )
    _err = float(abs(_z - _c * _x).max())
    assert _err < 1e-10, f"not a multiple of x over the last {_k} axes: {_err:.1e}"


_rng = _np.random.default_rng(41)
_x = _rng.normal(size=(2, 3, 4, 5)) * 2 + 1
for _k in (1, 2, 3, 4):
    _g, _b = _rng.uniform(0.5, 2, size=_x.shape[-_k:]), _rng.normal(size=_x.shape[-_k:])
    _check_norm(_x, _k, _call(rms_norm_lastk, _x, _g, _b, _k), _g, _b)
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(2031)
for _trial in range(12):
    _shape = tuple(int(v) for v in _rng.integers(1, 6, size=int(_rng.integers(1, 5))))
    _k = int(_rng.integers(1, len(_shape) + 1))
    _x = _rng.normal(size=_shape) * _rng.uniform(0.1, 10) + _rng.normal() * 3
    _g, _b = _rng.normal(size=_shape[-_k:]), _rng.normal(size=_shape[-_k:])
    _eps = float(_rng.choice([1e-5, 1e-3, 0.1]))
    _axes = tuple(range(len(_shape) - _k, len(_shape)))
    _ms = (_x**2).mean(axis=_axes, keepdims=True)
    _ref = _g * _x / _np.sqrt(_ms + _eps) + _b
    _out = _call(rms_norm_lastk, _x, _g, _b, _k, eps=_eps)
    _compare(f"shape {_shape}, k = {_k}", _out, _ref, 1e-12)
### END HIDDEN TESTS
print("rms_norm_lastk: values correct")'''

_T3_GAIN = (
    "### Exercise 2.3: LayerNorm over the last k axes, with a (1 + γ) gain"
    " (3 points)\n"
    r"""
````{admonition} Task
:class: note
`nn.LayerNorm(normalized_shape)` accepts a tuple: with `normalized_shape=(H, W)` one
mean and one variance are computed over the last two axes together, and
$\boldsymbol\gamma$, $\boldsymbol\beta$ have shape `(H, W)`. Some codebases store the
gain as an offset from one, so that the parameter starts at zero like the bias (and
weight decay pulls the gain towards 1, not 0): the layer computes $(\mathbf
1+\boldsymbol\gamma)\odot\hat{\mathbf x}+\boldsymbol\beta$. Implement this form,
`layer_norm_lastk(x, gamma, beta, k, eps=1e-5)`, in NumPy for any `1 <= k <= x.ndim`,
and raise a `ValueError` if `gamma` or `beta` does not have shape `x.shape[-k:]`.
PyTorch's normalization functions are not available while the tests run your function.
Tests: values on random shapes and every $k$ (2 points), the shape errors (1 point).
````"""
)

_EX3 = [
    Variant(
        "channels-first",
        "LayerNorm over axes 1..k after the batch axis (channels-first layouts)",
        (
            Edit("32ced478", _T3, _T3_FIRST),
            Edit("02-ex3-solution", _S3, _S3_FIRST),
            Edit("02-ex3-values", _V3, _V3_FIRST),
            Edit("02-ex3-errors", _E3, _E3_FIRST),
        ),
    ),
    Variant(
        "rms-lastk",
        "RMSNorm with a bias over the last k axes: one mean square, no centring",
        (
            Edit("32ced478", _T3, _T3_RMS),
            Edit("02-ex3-solution", _S3, _S3_RMS),
            Edit("02-ex3-values", _V3, _V3_RMS),
            Edit(
                "02-ex3-errors", _E3, _E3.replace("layer_norm_lastk", "rms_norm_lastk")
            ),
        ),
    ),
    Variant(
        "one-plus-gain",
        "LayerNorm over the last k axes with the gain stored as an offset: (1 + gamma)",
        (
            Edit("32ced478", _T3, _T3_GAIN),
            Edit(
                "02-ex3-solution",
                "    return gamma * (x - mu) / np.sqrt(var + eps) + beta",
                "    return (1 + gamma) * (x - mu) / np.sqrt(var + eps) + beta",
            ),
            Edit(
                "02-ex3-solution",
                '"""LayerNorm with one mean and variance over the last k axes of x."""',
                '"""LayerNorm over the last k axes of x, with the gain 1 + gamma."""',
            ),
            Edit(
                "02-ex3-values",
                "(out - beta) / gamma has, over the last k axes,",
                "(out - beta) / (1 + gamma) has, over\n    the last k axes,",
            ),
            Edit(
                "02-ex3-values",
                "    _z = (_out - _beta) / _gamma",
                "    _z = (_out - _beta) / (1 + _gamma)",
            ),
            Edit(
                "02-ex3-values",
                "_rng.uniform(0.5, 2, size=_x.shape[-_k:])",
                "_rng.uniform(-0.5, 1, _x.shape[-_k:])",
            ),
            Edit(
                "02-ex3-values",
                "        _g\n        * (_x - _mu)",
                "        (1 + _g)\n        * (_x - _mu)",
            ),
        ),
    ),
]
# ---------------------------------------------------------------- Exercise 2.4

_T4_CF = (
    "### Exercise 2.4: Bug hunt: a channels-first LayerNorm ported from"
    " PyTorch (6 points)\n"
    r"""
````{admonition} Task
:class: note
A colleague ported a channels-first LayerNorm (as in ConvNeXt: for every position of an
`(N, C, L)` array, one mean and one variance over its $C$ channels, with
$\boldsymbol\gamma$ and $\boldsymbol\beta$ of shape `(C,)`) from PyTorch code to NumPy
(below, read-only). It runs, it has the right shapes, and a network trained with it
works. Compare it with the definition in {ref}`sec-02-definition`, applied to the $C$
values of each position.

1. **Find and explain** (answer cell, 4 points) the two places where it deviates from
   the definition. For the first, say for which positions it matters: estimate the
   relative error of the variance in float64 at a position whose channels have mean
   $10^6$ and $\sigma=1$, and from which ratio $\lvert\mu\rvert/\sigma$ on it loses
   every digit in float32. For the second, compare the output's scale with the correct
   one for $\sigma^2=\epsilon/10$, $\sigma^2=\epsilon$ and $\sigma^2=10\epsilon$, and
   for a constant position. Which of the two does the float64 comparison of
   {ref}`sec-02-torch` (standard normal inputs, channels moved last) catch at once, and
   why not the other?
2. **Fix** it: write `layernorm_forward_fixed(x, gamma, beta, ln_param)` for `x` of
   shape `(N, C, L)`, normalizing over axis 1 as the ported function intends and
   returning `(out, cache)` like `layernorm_forward`, without calling the chapter's
   `layer_norm`, `layernorm_forward` or a library normalization (they are unavailable
   while the tests run). Tests: positions far from zero (1 point) and quiet positions (1
   point).
````"""
)

_P4_CF = '''\
def layernorm_forward_ported(x, gamma, beta, ln_param):
    """Channels-first LayerNorm: for x of shape (N, C, L), one mean and variance over
    the C channels of every position; ported from a PyTorch implementation."""
    eps = ln_param.get("eps", 1e-5)
    mu = x.mean(axis=1, keepdims=True)
    var = (x * x).mean(axis=1, keepdims=True) - mu * mu  # E[x^2] - E[x]^2
    xhat = (x - mu) / np.sqrt(np.maximum(var, eps))  # as torch.clamp(var, min=eps)
    out = gamma[:, None] * xhat + beta[:, None]
    cache = {"x": x, "xhat": xhat, "mu": mu, "var": var, "gamma": gamma, "eps": eps}
    return out, cache'''

_X4_CF = r""":::{dropdown} Solution and mark scheme
**Deviation 1: the one-pass variance** $\overline{x^2}-\mu^2$. It equals $\sigma^2$ in
exact arithmetic, but both terms are of size $\mu^2+\sigma^2$, and their rounding
errors, about $u(\mu^2+\sigma^2)$, survive the cancellation: the variance has a relative
error of about $u\kappa^2$, $\kappa^2=1+\mu^2/\sigma^2$ ({ref}`sec-02-precision`). For
$\mu=10^6$, $\sigma=1$: $\kappa^2\approx10^{12}$ and $u\approx1.1\times10^{-16}$, so
about $10^{-4}$ in float64 instead of $10^{-16}$ (half of it in the output). In float32
($u\approx6\times10^{-8}$) every digit is gone once $u\kappa^2\approx1$, at
$\lvert\mu\rvert/\sigma\approx4\times10^3$; the computed variance may even be negative,
which the clamp then silently turns into $\epsilon$. It matters for positions whose
channels share a common value that is large against their spread (unnormalized inputs,
large activations); for centred data it is harmless.

**Deviation 2: $\epsilon$ as a floor (a clamp) instead of added**: it divides by
$\sqrt{\max(\sigma^2,\epsilon)}$, not by $\sqrt{\sigma^2+\epsilon}$. For loud positions
the relative change is $\epsilon/(2\sigma^2)$. The output's scale, ported against
correct: for $\sigma^2=10\epsilon$, $1$ against $1/\sqrt{1.1}\approx0.95$; for
$\sigma^2=\epsilon$, $1$ against $0.71$ (41% too large); for $\sigma^2=\epsilon/10$,
$\sqrt{0.1}\approx0.32$ against $\sqrt{0.1/1.1}\approx0.30$. A constant position gives
$0$ either way ($\mathbf x-\mu=\mathbf 0$). There is still a noise floor, but positions
with $\sigma^2$ near $\epsilon$ come out too large.

**What the comparison catches:** on standard normal inputs $\sigma^2\approx1$, so the
clamp changes every output by $\epsilon/(2\sigma^2)\approx5\times10^{-6}$, far above the
$10^{-12}$ tolerance: caught at once (in training, a change of $5\times10^{-6}$ goes
unnoticed). The one-pass variance errs by about $u\kappa^2\approx10^{-16}$ there
($\mu\approx0$, so $\kappa^2\approx1$): it passes, and only inputs far from zero expose
it.

**Mark scheme (4 points).** 1 pt: both deviations identified; 1 pt: the one-pass error
$u\kappa^2$, about $10^{-4}$ at $\mu=10^6$, and the float32 limit near
$\lvert\mu\rvert/\sigma\approx4\times10^3$ (within a factor of a few); 1 pt: the clamp
analysed for the three variances and the constant position (about $1$ against $0.95$ and
$0.71$, $0.32$ against $0.30$, $0$); 1 pt: the comparison catches the clamp
($5\times10^{-6}\gg10^{-12}$) but not the one-pass variance on centred inputs, with the
reason.
:::"""

_S4_CF = '''\
def layernorm_forward_fixed(x, gamma, beta, ln_param):
    """The ported channels-first LayerNorm with both deviations fixed; (out, cache)."""
    ### BEGIN SOLUTION
    eps = ln_param.get("eps", 1e-5)
    mu = x.mean(axis=1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=1, keepdims=True)
    xhat = (x - mu) / np.sqrt(var + eps)
    out = gamma[:, None] * xhat + beta[:, None]
    cache = {"x": x, "xhat": xhat, "mu": mu, "var": var, "gamma": gamma, "eps": eps}
    return out, cache
    ### END SOLUTION'''

_L4_CF = """\
def _out_of(_x, _gamma, _beta, _eps):
    _res = _call(layernorm_forward_fixed, _x, _gamma, _beta, {"eps": _eps})
    assert isinstance(_res, tuple) and len(_res) == 2, "return (out, cache)"
    return _res[0]


def _ref_of(_x, _gamma, _beta, _eps):  # channels-first LayerNorm, two-pass, float64
    _mu = _x.mean(axis=1, keepdims=True)
    _var = ((_x - _mu) ** 2).mean(axis=1, keepdims=True)
    return _gamma[:, None] * (_x - _mu) / _np.sqrt(_var + _eps) + _beta[:, None]


# visible test: x = (1, 2, 3, 4) over C = 4 channels at two positions, the second
# shifted by 10^6: both give the worked example of section 2
_x = _np.array([[1.0, 2.0, 3.0, 4.0]]).T[None] + _np.array([0.0, 1e6])
_out = _out_of(_x, _np.ones(4), _np.zeros(4), 1e-5)
_want = _np.array([[-1.341635, -0.447212, 0.447212, 1.341635]]).T[None] + _np.zeros(2)
_compare("x = (1, 2, 3, 4) and 10^6 + (1, 2, 3, 4)", _out, _want, 1e-6)
### BEGIN HIDDEN TESTS
# positions far from zero (|mean| / sigma between 1e6 and 1e7, sigma between 10 and
# 30): the clamp of eps changes the output by < 1e-7 here, the one-pass variance by
# 1e-5 or more (normwise errors); tolerance 1e-6 tells them apart
_rng = _np.random.default_rng(2041)
for _C in (2, 3, 8, 64):
    _L = int(_rng.integers(2, 6))
    _x = _rng.normal(size=(int(_rng.integers(1, 4)), _C, _L))
    _x = (_x - _x.mean(axis=1, keepdims=True)) / _x.std(axis=1, keepdims=True)
    _sig = _rng.uniform(10, 30, size=(len(_x), 1, _L))
    _off = _rng.choice([-1, 1], size=_sig.shape) * 10 ** _rng.uniform(6, 7, _sig.shape)
    _x = _sig * (_x + _off)
    _g, _b = _rng.normal(size=_C), _rng.normal(size=_C)
    _out, _ref = _out_of(_x, _g, _b, 1e-5), _ref_of(_x, _g, _b, 1e-5)
    _compare(f"C = {_C}, far from zero", _out, _ref, 1e-6)
### END HIDDEN TESTS
print("positions far from zero: correct")"""

_Q4_CF = """\
# visible test: quiet positions (sigma = 1e-3, eps = 1e-5) are damped, not blown up:
# their output has standard deviation sigma / sqrt(sigma^2 + eps) over the channels
_x = _np.random.default_rng(43).normal(size=(1, 2048, 3))
_x = 1e-3 * (_x - _x.mean(axis=1, keepdims=True)) / _x.std(axis=1, keepdims=True) + 5.0
_std = _out_of(_x, _np.ones(2048), _np.zeros(2048), 1e-5).std(axis=1)
_want = 1e-3 / _np.sqrt(1e-6 + 1e-5)
assert abs(_std / _want - 1).max() < 1e-3, (
    f"quiet positions: output std {_std.ravel()}, expected {_want:.4f}"
)
### BEGIN HIDDEN TESTS
# quiet positions (sigma^2 between eps / 10 and 10 eps), many channels, means of order
# one: the one-pass variance changes the output by < 1e-6 here, the clamp of eps by 4%
# or more (normwise errors); tolerance 2e-3 tells them apart
_rng = _np.random.default_rng(2042)
for _eps in (1e-5, 1e-3):
    _C = int(_rng.integers(1024, 4097))
    _x = _rng.normal(size=(2, _C, 3))
    _sig = _np.sqrt(_eps) * 10 ** _rng.uniform(-0.5, 0.5, size=(2, 1, 3))
    _x = _sig * (_x - _x.mean(axis=1, keepdims=True)) / _x.std(axis=1, keepdims=True)
    _x = _x + _rng.normal(size=(2, 1, 3))
    _g, _b = _rng.normal(size=_C), _rng.normal(size=_C)
    _out, _ref = _out_of(_x, _g, _b, _eps), _ref_of(_x, _g, _b, _eps)
    _compare(f"eps = {_eps}, quiet positions", _out, _ref, 2e-3)
### END HIDDEN TESTS
print("quiet positions: correct")"""

_T4_RMS = r"""### Exercise 2.4: Bug hunt: an RMSNorm ported from PyTorch (6 points)

````{admonition} Task
:class: note
A colleague ported an RMSNorm ({doc}`04-rmsnorm`: $\boldsymbol\gamma\odot\mathbf
x/\sqrt{\overline{x^2}+\epsilon}$ over the last axis, with
$\overline{x^2}=\frac1D\sum_jx_j^2$, no mean subtracted and no bias) from PyTorch code
to NumPy (below, read-only). It runs, it has the right shapes, and a network trained
with it works.

1. **Find and explain** (answer cell, 4 points) the two places where it deviates from
   this definition. For the first, relate its output to the correct one for
   $\epsilon\to0$ for a row with mean $\mu$ and standard deviation $\sigma$, give the
   factor for $\mu=0$, $\mu=\sigma$ and $\mu=10\sigma$, and say what it does to a
   constant row. For the second, compare the two for a zero-mean row with
   $\sqrt{\overline{x^2}}=10^{-3}$ at $\epsilon=10^{-5}$. How large is the first
   deviation on rows of $D=768$ standard normal values, and why does a float64
   comparison with `torch.nn.RMSNorm` still catch it at once?
2. **Fix** it: write `rmsnorm_forward_fixed(x, gamma, ln_param)`, returning `(out,
   cache)`, without calling the chapter's `layer_norm`, `layernorm_forward` or a library
   normalization (they are unavailable while the tests run). Tests: loud rows with few
   features and a mean (1 point), and quiet zero-mean rows with many features (1 point).
````"""

_P4_RMS = '''\
def rmsnorm_forward_ported(x, gamma, ln_param):
    """RMSNorm forward over the last axis, ported from a PyTorch implementation."""
    eps = ln_param.get("eps", 1e-6)
    rms = np.sqrt(x.var(axis=-1, keepdims=True))  # as x.var(-1, unbiased=False).sqrt()
    xhat = x / (rms + eps)
    out = gamma * xhat
    cache = {"x": x, "xhat": xhat, "rms": rms, "gamma": gamma, "eps": eps}
    return out, cache'''

_X4_RMS = r""":::{dropdown} Solution and mark scheme
**Deviation 1: a mean-centred statistic.** `x.var` is $\sigma^2=\overline{x^2}-\mu^2$,
the LayerNorm statistic, so the layer divides by $\sigma$ instead of the root mean
square $\sqrt{\overline{x^2}}=\sqrt{\sigma^2+\mu^2}$. For $\epsilon\to0$ its output is
the correct one times $\sqrt{1+\mu^2/\sigma^2}$: $1$ for $\mu=0$, $\sqrt2\approx1.41$
for $\mu=\sigma$ and $\sqrt{101}\approx10.05$ for $\mu=10\sigma$. It matters for every
row whose mean is not small against its spread. A constant row $c\mathbf 1$ has
$\sigma=0$: the ported layer returns $c/\epsilon$ per entry ($10^6c$ at
$\epsilon=10^{-6}$), where RMSNorm gives $c/\sqrt{c^2+\epsilon}\approx\pm1$.

**Deviation 2: $\epsilon$ added to the RMS**, outside the square root. For loud rows
($\overline{x^2}\gg\epsilon$) both divide by essentially the RMS. For a zero-mean row
with RMS $r=10^{-3}$ at $\epsilon=10^{-5}$ the correct layer scales it by
$r/\sqrt{r^2+\epsilon}=10^{-3}/\sqrt{1.1\times10^{-5}}\approx0.30$, the ported one by
$r/(r+\epsilon)\approx0.99$: quiet rows are blown up to unit scale instead of damped,
about 3.3 times too large; the noise floor moves from $r\approx3\times10^{-3}$ down to
$r\approx10^{-5}$.

**$D=768$ standard normal values:** the row mean is about $\mathcal N(0,1/D)$, so
$\mu^2/\sigma^2\approx1/D$ and the factor is about $1+1/(2D)\approx1+6.5\times10^{-4}$:
invisible by eye or in a loss curve, but nine orders of magnitude above a float64
tolerance of $10^{-12}$, so the comparison fails at once.

**Mark scheme (4 points).** 1 pt: both deviations identified; 1 pt: the factor
$\sqrt{1+\mu^2/\sigma^2}$ with $1$, $1.41$, $10.05$, and the constant row blown up to
$c/\epsilon$; 1 pt: the $\epsilon$ placement for $r=10^{-3}$ (about $0.30$ against
$0.99$); 1 pt: about $1/(2D)\approx6.5\times10^{-4}$ at $D=768$, and the tolerance
argument.
:::"""

_S4_RMS = '''\
def rmsnorm_forward_fixed(x, gamma, ln_param):
    """The ported RMSNorm with both deviations fixed; returns (out, cache)."""
    ### BEGIN SOLUTION
    eps = ln_param.get("eps", 1e-6)
    ms = (x * x).mean(axis=-1, keepdims=True)
    rstd = 1 / np.sqrt(ms + eps)
    xhat = x * rstd
    out = gamma * xhat
    cache = {"x": x, "xhat": xhat, "rstd": rstd, "gamma": gamma, "eps": eps}
    return out, cache
    ### END SOLUTION'''

_L4_RMS = """\
def _out_of(_x, _gamma, _eps):
    _res = _call(rmsnorm_forward_fixed, _x, _gamma, {"eps": _eps})
    assert isinstance(_res, tuple) and len(_res) == 2, "return (out, cache)"
    return _res[0]


def _ref_of(_x, _gamma, _eps):  # RMSNorm over the last axis, float64
    return _gamma * _x / _np.sqrt((_x * _x).mean(axis=-1, keepdims=True) + _eps)


# visible test: x = (1, 2, 3, 4), divided by sqrt(7.5 + eps)
_out = _out_of(_np.array([[1.0, 2.0, 3.0, 4.0]]), _np.ones(4), 1e-5)
_want = _np.array([[0.365148, 0.730296, 1.095444, 1.460593]])
_compare("x = (1, 2, 3, 4)", _out, _want, 1e-6)
### BEGIN HIDDEN TESTS
# loud rows (sigma between 3 and 30, |mean| 0.3 to 3 sigma), few features: the
# placement of eps changes the output by < 4e-6 here, the mean-centred statistic by 4%
# or more (normwise errors); tolerance 1e-4 tells them apart
_rng = _np.random.default_rng(2041)
for _D in (2, 3, 5, 16):
    _x = _rng.normal(size=(int(_rng.integers(1, 5)), 3, _D))
    _x = (_x - _x.mean(axis=-1, keepdims=True)) / _x.std(axis=-1, keepdims=True)
    _sig = _rng.uniform(3, 30, size=(*_x.shape[:-1], 1))
    _mu = _rng.choice([-1, 1], size=_sig.shape) * _rng.uniform(0.3, 3, size=_sig.shape)
    _x = _sig * (_x + _mu)
    _g = _rng.normal(size=_D)
    _compare(f"D = {_D}, loud rows", _out_of(_x, _g, 1e-5), _ref_of(_x, _g, 1e-5), 1e-4)
### END HIDDEN TESTS
print("loud rows: correct")"""

_Q4_RMS = """\
# visible test: a quiet zero-mean row (rms = 1e-3, eps = 1e-5) is damped, not blown
# up: its output has root mean square rms / sqrt(rms^2 + eps)
_x = _np.random.default_rng(43).normal(size=(1, 2048))
_x = 1e-3 * (_x - _x.mean()) / _x.std()
_out = _out_of(_x, _np.ones(2048), 1e-5)
_rms = float((_out * _out).mean()) ** 0.5
_want = 1e-3 / _np.sqrt(1e-6 + 1e-5)
assert abs(_rms / _want - 1) < 1e-3, (
    f"quiet row: output rms {_rms:.4f}, expected {_want:.4f}"
)
### BEGIN HIDDEN TESTS
# quiet zero-mean rows (rms^2 near eps), many features: the mean-centred statistic
# changes the output by < 1e-12 here, the placement of eps typically by 10% or more
# (normwise errors); tolerance 2e-3 tells them apart
_rng = _np.random.default_rng(2042)
for _eps in (1e-5, 1e-3):
    _D = int(_rng.integers(1024, 4097))
    _x = _rng.normal(size=(6, _D))
    _x = _x - _x.mean(axis=-1, keepdims=True)
    _sig = _np.sqrt(_eps) * 10 ** _rng.uniform(-1, 1, size=(6, 1))
    _x = _sig * _x / _x.std(axis=-1, keepdims=True)
    _g = _rng.normal(size=_D)
    _out, _ref = _out_of(_x, _g, _eps), _ref_of(_x, _g, _eps)
    _compare(f"eps = {_eps}, quiet rows", _out, _ref, 2e-3)
### END HIDDEN TESTS
print("quiet rows: correct")"""

_T4_GN = r"""### Exercise 2.4: Bug hunt: a GroupNorm ported from PyTorch (6 points)

````{admonition} Task
:class: note
A colleague ported `nn.GroupNorm(G, C)` from PyTorch code to NumPy (below, read-only).
GroupNorm generalizes the channels-first LayerNorm: the $C$ channels of an `(N, C, L)`
array are split into $G$ groups of $C/G$ *consecutive* channels, and each group of each
example is normalized as in {ref}`sec-02-definition`, with one mean and one variance
over its $m=(C/G)\,L$ values; $\boldsymbol\gamma$ and $\boldsymbol\beta$ of shape `(C,)`
act per channel ($G=1$ is LayerNorm over `(C, L)`). It runs, it has the right shapes,
and a network trained with it works.

1. **Find and explain** (answer cell, 4 points) the two places where it deviates from
   this definition. For the first, say which channels it groups together, for which $G$
   it is harmless, and why a network trained from scratch with it works as well while a
   network loaded from a checkpoint trained with `nn.GroupNorm` does not. For the
   second, relate its output to the correct one for $\epsilon\to0$ and give the relative
   change for groups of $m=2$, $32$ and $16384$ values. Why can it survive training, and
   why does a float64 comparison with `nn.GroupNorm` catch it at once?
2. **Fix** it: write `groupnorm_forward_fixed(x, gamma, beta, gn_param)` (`gn_param`
   holds `"G"` and may hold `"eps"`), returning `(out, cache)`, without calling the
   chapter's `layer_norm`, `layernorm_forward` or a library normalization (they are
   unavailable while the tests run). Tests: loud groups of many values (1 point), and
   groups of one channel or of all channels with few values (1 point).
````"""

_P4_GN = '''\
def groupnorm_forward_ported(x, gamma, beta, gn_param):
    """GroupNorm forward for x of shape (N, C, L) with G groups of C // G channels,
    ported from a PyTorch implementation."""
    G, eps = gn_param["G"], gn_param.get("eps", 1e-5)
    N, C, L = x.shape
    xg = x.reshape(N, C // G, G, L)  # the channels of each group
    mu = xg.mean(axis=(1, 3), keepdims=True)
    var = xg.var(axis=(1, 3), ddof=1, keepdims=True)  # as torch.var(xg, dim=(1, 3))
    xhat = ((xg - mu) / np.sqrt(var + eps)).reshape(N, C, L)
    out = gamma[:, None] * xhat + beta[:, None]
    cache = {"x": x, "xhat": xhat, "mu": mu, "var": var, "gamma": gamma, "eps": eps}
    return out, cache'''

_X4_GN = r""":::{dropdown} Solution and mark scheme
**Deviation 1: strided groups.** `x.reshape(N, C // G, G, L)` with statistics over axes
1 and 3 puts channel $c$ in group $c\bmod G$: channels $g, g+G, g+2G,\dots$ share
statistics. `nn.GroupNorm` groups *consecutive* channels, channel $c$ in group $\lfloor
c/(C/G)\rfloor$ (reshape to `(N, G, C // G, L)`, statistics over axes 2 and 3). For
$G=1$ (one group) and $G=C$ (one channel per group) the two groupings coincide, so it is
harmless there. Otherwise the ported layer is the correct GroupNorm applied to the
channels in another order, a fixed permutation. A network trained from scratch does not
care in which order its channels come (the preceding layer's filters simply learn in the
permuted order), so it trains as well. A checkpoint trained with `nn.GroupNorm` expects
consecutive channels to share statistics; with the ported layer every group mixes
channels of different groups, and the activations are wrong.

**Deviation 2: the unbiased variance** (`ddof=1`, `torch.var`'s default) over the $m$
values of a group. It divides by $\sqrt{m/(m-1)}\,\sigma$, so for $\epsilon\to0$ the
output is $\sqrt{(m-1)/m}\,\hat{\mathbf x}$: the correct output times a constant. The
relative change $1-\sqrt{1-1/m}\approx1/(2m)$ is $29\%$ for $m=2$, $1.6\%$ for $m=32$
and $3\times10^{-5}$ for $m=16384$ (16 channels of a $32\times32$ feature map).

**Why the second survives training:** $m$ is the same for every group of a layer, so it
is one constant factor on every output, and the learned $\boldsymbol\gamma$ absorbs it.
**Why the float64 comparison catches it:** even $3\times10^{-5}$ is seven orders of
magnitude above a $10^{-12}$ tolerance.

**Mark scheme (4 points).** 1 pt: both deviations identified; 1 pt: the grouping
($c\bmod G$ against consecutive channels), harmless for $G=1$ and $G=C$; 1 pt: the
permutation argument (from scratch against a checkpoint); 1 pt: the factor
$\sqrt{(m-1)/m}$ with the three values (about $29\%$, $1.6\%$, $3\times10^{-5}$),
$\boldsymbol\gamma$ absorbing it and the tolerance argument.
:::"""

_S4_GN = '''\
def groupnorm_forward_fixed(x, gamma, beta, gn_param):
    """The ported GroupNorm with both deviations fixed; returns (out, cache)."""
    ### BEGIN SOLUTION
    G, eps = gn_param["G"], gn_param.get("eps", 1e-5)
    N, C, L = x.shape
    xg = x.reshape(N, G, C // G, L)  # groups of C // G consecutive channels
    mu = xg.mean(axis=(2, 3), keepdims=True)
    var = ((xg - mu) ** 2).mean(axis=(2, 3), keepdims=True)
    xhat = ((xg - mu) / np.sqrt(var + eps)).reshape(N, C, L)
    out = gamma[:, None] * xhat + beta[:, None]
    cache = {"x": x, "xhat": xhat, "mu": mu, "var": var, "gamma": gamma, "eps": eps}
    return out, cache
    ### END SOLUTION'''

_L4_GN = """\
def _out_of(_x, _gamma, _beta, _G, _eps):
    _res = _call(groupnorm_forward_fixed, _x, _gamma, _beta, {"G": _G, "eps": _eps})
    assert isinstance(_res, tuple) and len(_res) == 2, "return (out, cache)"
    return _res[0]


def _ref_of(_x, _gamma, _beta, _G, _eps):  # nn.GroupNorm, group by group, float64
    _xhat, _size = _x * 0, _x.shape[1] // _G
    for _g in range(_G):
        _xs = _x[:, _g * _size : (_g + 1) * _size]  # consecutive channels
        _mu = _xs.mean(axis=(1, 2), keepdims=True)
        _var = ((_xs - _mu) ** 2).mean(axis=(1, 2), keepdims=True)
        _xhat[:, _g * _size : (_g + 1) * _size] = (_xs - _mu) / _np.sqrt(_var + _eps)
    return _gamma[:, None] * _xhat + _beta[:, None]


# visible test: x = (1, 2, 3, 4) over C = 4 channels in G = 2 groups, {1, 2} and {3, 4}
_x = _np.array([[[1.0], [2.0], [3.0], [4.0]]])
_out = _out_of(_x, _np.ones(4), _np.zeros(4), 2, 1e-5)
_want = _np.array([[[-0.99998], [0.99998], [-0.99998], [0.99998]]])
_compare("x = (1, 2, 3, 4), G = 2", _out, _want, 1e-6)
### BEGIN HIDDEN TESTS
# loud groups (sigma between 3 and 30 per channel, and a mean per channel) of 2 to 4
# channels with L = 8192: the grouping changes the output by 10% or more here, the
# unbiased variance by < 4e-5 (normwise errors); tolerance 1e-4 tells them apart
_rng = _np.random.default_rng(2041)
for _C, _G in ((8, 2), (8, 4), (12, 3), (12, 4)):
    _x = _rng.normal(size=(2, _C, 8192))
    _x = _x * _rng.uniform(3, 30, size=(2, _C, 1)) + _rng.normal(size=(2, _C, 1)) * 10
    _g, _b = _rng.normal(size=_C), _rng.normal(size=_C)
    _out, _ref = _out_of(_x, _g, _b, _G, 1e-5), _ref_of(_x, _g, _b, _G, 1e-5)
    _compare(f"C = {_C}, G = {_G}", _out, _ref, 1e-4)
### END HIDDEN TESTS
print("loud groups: correct")"""

_Q4_GN = """\
# visible test: G = C, one channel per group, L = 2: each pair (a, b) becomes (-1, 1)
# or (1, -1), times 1 / sqrt(1 + eps / sigma^2)
_x = _np.array([[[1.0, 3.0], [5.0, 4.0], [-2.0, -2.5]]])
_out = _out_of(_x, _np.ones(3), _np.zeros(3), 3, 1e-5)
_s2 = _np.array([1.0, 0.25, 0.0625])[None, :, None]  # the channels' variances
_want = _np.array([[[-1.0, 1.0], [1.0, -1.0], [1.0, -1.0]]]) / _np.sqrt(1 + 1e-5 / _s2)
_compare("G = C, L = 2", _out, _want, 1e-6)
### BEGIN HIDDEN TESTS
# groups of one channel (G = C) or of all channels (G = 1), of m = 2 to 36 values,
# where consecutive and strided groups coincide: the unbiased variance changes the
# output by 1% or more here (normwise errors); tolerance 1e-6
_rng = _np.random.default_rng(2042)
for _trial in range(8):
    _C, _L = int(_rng.integers(1, 7)), int(_rng.integers(2, 7))
    _G = int(_rng.choice([1, _C]))
    _x = _rng.normal(size=(int(_rng.integers(1, 4)), _C, _L)) * _rng.uniform(0.5, 5)
    _g, _b = _rng.normal(size=_C), _rng.normal(size=_C)
    _out, _ref = _out_of(_x, _g, _b, _G, 1e-5), _ref_of(_x, _g, _b, _G, 1e-5)
    _compare(f"C = {_C}, G = {_G}, L = {_L}", _out, _ref, 1e-6)
### END HIDDEN TESTS
print("small groups: correct")"""


def _bug_hunt(task, ported, explanation, solution, loud, quiet):
    return (
        Edit("42e9cbac", _T4, task),
        Edit("02-ex4-ported-readonly", _P4, ported),
        Edit("02-ex4-explanation", _X4, explanation),
        Edit("02-ex4-solution", _S4, solution),
        Edit("02-ex4-loud", _L4, loud),
        Edit("02-ex4-quiet", _Q4, quiet),
    )


_EX4 = [
    Variant(
        "channels-first",
        "bug hunt: channels-first LayerNorm with a one-pass variance and a clamped eps",
        _bug_hunt(_T4_CF, _P4_CF, _X4_CF, _S4_CF, _L4_CF, _Q4_CF),
    ),
    Variant(
        "rmsnorm-port",
        "bug hunt: an RMSNorm with a mean-centred statistic and eps outside the root",
        _bug_hunt(_T4_RMS, _P4_RMS, _X4_RMS, _S4_RMS, _L4_RMS, _Q4_RMS),
    ),
    Variant(
        "groupnorm-port",
        "bug hunt: a GroupNorm with strided channel groups and the unbiased variance",
        _bug_hunt(_T4_GN, _P4_GN, _X4_GN, _S4_GN, _L4_GN, _Q4_GN),
    ),
]

BANK = {
    "02-ex1": _EX1,
    "02-ex2": _EX2,
    "02-ex3": _EX3,
    "02-ex4": _EX4,
}
