"""Variants of chapter 06's coding exercises (grading/bank/__init__.py)."""

from grading.bank import Edit, Variant

# The book's model answers of the written parts (the text inside the dropdown).
_BOOK_EX1_ANSWER = r"""The law gives $t^2 = (1+\alpha^2)^L$, so $\alpha^2 = t^{2/L} - 1 = e^{2\ln t/L} - 1
\approx 2\ln t / L$ for large $L$: $c = 2\ln t$. A pre-norm stack needs
$1 + \alpha^2 L = t^2$, that is $\alpha^2 = (t^2-1)/L$. Both shrink like $1/L$
($\alpha \propto 1/\sqrt L$), and their ratio tends to

$$
\begin{aligned}
\frac{\alpha^2_{\text{none}}}{\alpha^2_{\text{pre}}} &\to \frac{2\ln t}{t^2-1}, \\
t = \sqrt 2:&\quad \ln 2 \approx 0.69, \qquad t = 4:\quad \frac{2 \ln 4}{15} \approx 0.18 .
\end{aligned}
$$

For a modest target the unnormalized stack needs branches only about 17% smaller in $\alpha$
($\sqrt{0.69} \approx 0.83$); the more growth one allows, the larger the gap, because
unnormalized growth compounds. At initialization a depth-dependent scale removes the drift
with or without a norm; what pre-norm adds is that the *trained* branches, whose scale is no
longer controlled, still add variance instead of multiplying it.

**Mark scheme (2 points).** 1 pt: $\alpha^2 = t^{2/L}-1 \approx 2\ln t/L$ with the expansion
shown; 1 pt: the pre-norm $\alpha^2 = (t^2-1)/L$, both ratios (about 0.69 and 0.18) and a
correct reading of them."""
_BOOK_EX2_ANSWER = r"""Write $g = \partial\mathcal L/\partial\,\text{out}$. Then $\partial\mathcal L/\partial\hat y =
\gamma \odot g$ and, through the LayerNorm ({doc}`03-layernorm-backward`),

$$
\frac{\partial\mathcal L}{\partial y} = \frac1\sigma\Big(\gamma\odot g
- \overline{\gamma\odot g} - \hat y\; \overline{(\gamma\odot g)\odot \hat y}\Big),
\qquad \sigma = \sqrt{\operatorname{Var}(y) + \epsilon}.
$$

With $u = xW_1$, $a = \operatorname{relu}(u)$ and $dy = \partial\mathcal L/\partial y$:
$dW_2 = a^\top dy$, $du = (dy\, W_2^\top) \odot [u > 0]$, $dW_1 = x^\top du$ and

$$
\frac{\partial\mathcal L}{\partial x} = \omega\, dy + du\, W_1^\top ,
$$

plus $d\gamma = \sum_n g \odot \hat y$ and $d\beta = \sum_n g$. The skip path contributes
$\omega\,dy$, and $dy$ carries the factor $1/\sigma$ with
$\sigma \approx \sqrt{\omega^2 q(x) + q(f)}$. For a unit-scale $x$ and a branch of gain
$\alpha^2$ the skip path passes the gradient with a factor of about
$\omega/\sqrt{\omega^2 + \alpha^2}$ (times the projection), which grows toward 1 as $\omega$
grows: at $\omega = 1$ every LayerNorm shrinks the skip path's gradient by
$1/\sqrt{1+\alpha^2}$, and these factors compound over the layers; a larger $\omega$ makes each
block closer to the identity.

**Mark scheme (2 points).** 1 pt: the chain $\gamma\odot g \to dy$ (LayerNorm backward) $\to
dx = \omega\,dy + du\,W_1^\top$, with $du$ and the ReLU mask correct; 1 pt: the factor
$\omega/\sqrt{\omega^2+\alpha^2}$ (or an equivalent argument) and why it compounds over layers."""
_BOOK_EX3_ANSWER = r"""- `dW1 = xhat.T @ du` uses the normalized input $\hat x$ where the first layer reads
  $z = \gamma\odot\hat x + \beta$: the right line is `dW1 = z.T @ du`.
- `normalize_rows_backward(dz, ln_cache)` is the chapter's LayerNorm backward with $\gamma = 1$,
  fed the
  gradient with respect to $z$; the gradient with respect to $\hat x$ is
  $\gamma \odot dz$: the right line is
  `dx = dout + normalize_rows_backward(gamma * dz, ln_cache)`.

At initialization $\gamma = 1$ and $\beta = 0$, so $z = \hat x$ and $\gamma \odot dz = dz$: both
wrong lines compute exactly the right numbers there, and a gradient check at that point passes
to machine precision. A check must use parameter values where the code paths it tests make a
difference (random $\gamma$ and $\beta$), not the initialization.

**Mark scheme (2 points).** 1 pt: both bugs identified with what each line should compute;
1 pt: why they are invisible at $\gamma = 1$, $\beta = 0$ (or an equivalent lesson about where
to check)."""


def _answer(cell, old, new):
    return Edit(cell, old, new)


# ---------------------------------------------------------------------------------
# Exercise 6.1: the branch scale alpha for a target output scale.

_EX1_STACK = """\
   **without** normalization, built with `make_mlp_weights(depth, d, hidden, alpha)`
   (He initialization), ends with a stream of standard deviation `target_std` when its input
   has standard deviation 1."""
_EX1_COMPARE = """\
a *pre-norm* stack needs for the same target
   $t$, give the ratio of the two for $t = \\sqrt2$ and $t = 4$, and say what it means for how
   much smaller the branches of an unnormalized stack must be."""
_EX1_SOLUTION = """\
    # alpha such that (1 + alpha^2)^depth = target_std^2.
    ### BEGIN SOLUTION
    return math.sqrt(target_std ** (2.0 / depth) - 1.0)"""
_EX1_VISIBLE = """\
# visible test: the law (1 + alpha^2)^depth = target^2 at one setting
_a = no_norm_branch_scale(7, 3.0)
assert isinstance(_a, float), "a Python float expected"
_err = abs((1 + _a * _a) ** 7 / 9.0 - 1)
assert _err < 1e-9, f"(1 + alpha^2)^7 should be 3^2: relative error {_err:.1e}\""""
_EX1_REF = "    _ref = _math.sqrt(_t ** (2 / _L) - 1)"
_EX1_SIM_HEAD = "    # A no-norm He-initialized ReLU stack, simulated inside this cell."
_EX1_SIM_WEIGHTS = """\
        _W1 = _rng.standard_normal((_d, 2 * _d)) * (2 / _d) ** 0.5
        _W2 = _rng.standard_normal((2 * _d, _d)) * _alpha / (2 * _d) ** 0.5"""

_EX1_PYTORCH_ANSWER = r"""With PyTorch's initialization a branch multiplies the mean square by $\alpha^2/18$
({ref}`sec-06-placements`), so the law gives $t^2 = (1+\alpha^2/18)^L$ and
$\alpha^2 = 18\,(t^{2/L} - 1) = 18\,(e^{2\ln t/L} - 1) \approx 36\ln t / L$ for large $L$:
$c = 36\ln t$. A pre-norm stack with the same initialization needs
$1 + \alpha^2 L/18 = t^2$, that is $\alpha^2 = 18\,(t^2-1)/L$. Both shrink like $1/L$
($\alpha \propto 1/\sqrt L$), the factor 18 cancels, and their ratio tends to

$$
\begin{aligned}
\frac{\alpha^2_{\text{none}}}{\alpha^2_{\text{pre}}} &\to \frac{2\ln t}{t^2-1}, \\
t = \sqrt 2:&\quad \ln 2 \approx 0.69, \qquad t = 4:\quad \frac{2 \ln 4}{15} \approx 0.18 .
\end{aligned}
$$

The initialization changes the $\alpha$ one passes (by $\sqrt{18} \approx 4.2$), not the
comparison: for a modest target the unnormalized stack needs branches only about 17% smaller
in $\alpha$ ($\sqrt{0.69} \approx 0.83$); the more growth one allows, the larger the gap,
because unnormalized growth compounds. At initialization a depth-dependent scale removes the
drift with or without a norm; what pre-norm adds is that the *trained* branches, whose scale
is no longer controlled, still add variance instead of multiplying it.

**Mark scheme (2 points).** 1 pt: $\alpha^2 = 18\,(t^{2/L}-1) \approx 36\ln t/L$ with the
expansion shown; 1 pt: the pre-norm $\alpha^2 = 18\,(t^2-1)/L$, both ratios (about 0.69 and
0.18) and a correct reading of them."""

_EX1_TWO_ANSWER = r"""A block of two branches multiplies the mean square by $(1+\alpha^2)^2$, so the law gives
$t^2 = (1+\alpha^2)^{2L}$ and $\alpha^2 = t^{1/L} - 1 = e^{\ln t/L} - 1 \approx \ln t / L$
for large $L$: $c = \ln t$, half of what one branch a block allows. A pre-norm stack of such
blocks adds $\alpha^2$ twice a block: $1 + 2\alpha^2 L = t^2$, that is
$\alpha^2 = (t^2-1)/(2L)$. Both shrink like $1/L$ ($\alpha \propto 1/\sqrt L$), and their
ratio tends to

$$
\begin{aligned}
\frac{\alpha^2_{\text{none}}}{\alpha^2_{\text{pre}}} &\to \frac{2\ln t}{t^2-1}, \\
t = \sqrt 2:&\quad \ln 2 \approx 0.69, \qquad t = 4:\quad \frac{2 \ln 4}{15} \approx 0.18 .
\end{aligned}
$$

What counts is the number of residual additions, $2L$, not the number of blocks. For a
modest target the unnormalized stack needs branches only about 17% smaller in $\alpha$
($\sqrt{0.69} \approx 0.83$); the more growth one allows, the larger the gap, because
unnormalized growth compounds. At initialization a depth-dependent scale removes the drift
with or without a norm; what pre-norm adds is that the *trained* branches, whose scale is no
longer controlled, still add variance instead of multiplying it.

**Mark scheme (2 points).** 1 pt: $\alpha^2 = t^{1/L}-1 \approx \ln t/L$ with the expansion
shown; 1 pt: the pre-norm $\alpha^2 = (t^2-1)/(2L)$, both ratios (about 0.69 and 0.18) and a
correct reading of them."""

_EX1_PRE_ANSWER = r"""With pre-norm every branch adds $\alpha^2$ to the mean square, so the law gives
$t^2 = 1 + \alpha^2 L$ and $\alpha^2 = (t^2-1)/L$ exactly, at every depth: $c = t^2 - 1$.
A stack without normalization needs $(1+\alpha^2)^L = t^2$, that is
$\alpha^2 = t^{2/L} - 1 = e^{2\ln t/L} - 1 \approx 2\ln t/L$ for large $L$. Both shrink like
$1/L$ ($\alpha \propto 1/\sqrt L$), and their ratio tends to

$$
\begin{aligned}
\frac{\alpha^2_{\text{pre}}}{\alpha^2_{\text{none}}} &\to \frac{t^2-1}{2\ln t}, \\
t = \sqrt 2:&\quad \frac{1}{\ln 2} \approx 1.44, \qquad
t = 4:\quad \frac{15}{2 \ln 4} \approx 5.4 .
\end{aligned}
$$

For a modest target the pre-norm branches may be only about 20% larger in $\alpha$
($\sqrt{1.44} \approx 1.2$); the more growth one allows, the larger the gap (about 2.3 in
$\alpha$ for $t = 4$), because unnormalized growth compounds while pre-norm's adds up. At
initialization a depth-dependent scale removes the drift with or without a norm; what
pre-norm adds is that the *trained* branches, whose scale is no longer controlled, still add
variance instead of multiplying it.

**Mark scheme (2 points).** 1 pt: $\alpha^2 = (t^2-1)/L$, so $c = t^2-1$; 1 pt: the
unnormalized $\alpha^2 = t^{2/L}-1 \approx 2\ln t/L$, both ratios (about 1.44 and 5.4) and a
correct reading of them."""

_EX1 = [
    Variant(
        "pytorch-init",
        "no-norm branch scale for a target std with PyTorch's default initialization",
        (
            Edit(
                "69663764",
                _EX1_STACK,
                """\
   **without** normalization, built with
   `make_mlp_weights(depth, d, hidden, alpha, init="pytorch")` (PyTorch's default
   initialization, $\\alpha^2/18$ per branch), ends with a stream of standard deviation
   `target_std` when its input has standard deviation 1.""",
            ),
            Edit(
                "69663764",
                _EX1_COMPARE,
                """\
a *pre-norm* stack with the same
   initialization needs for the same target $t$, give the ratio of the two for $t = \\sqrt2$
   and $t = 4$, and say what it means for how much smaller the branches of an unnormalized
   stack must be.""",
            ),
            Edit(
                "06-ex1-solution",
                _EX1_SOLUTION,
                """\
    # alpha such that (1 + alpha^2 / 18)^depth = target_std^2 (PyTorch's init).
    ### BEGIN SOLUTION
    return math.sqrt(18.0 * (target_std ** (2.0 / depth) - 1.0))""",
            ),
            Edit(
                "06-ex1-formula",
                _EX1_VISIBLE,
                """\
# visible test: the law (1 + alpha^2 / 18)^depth = target^2 at one setting
_a = no_norm_branch_scale(7, 3.0)
assert isinstance(_a, float), "a Python float expected"
_err = abs((1 + _a * _a / 18) ** 7 / 9.0 - 1)
assert _err < 1e-9, f"(1 + alpha^2/18)^7 should be 3^2: relative error {_err:.1e}\"""",
            ),
            Edit(
                "06-ex1-formula",
                _EX1_REF,
                "    _ref = _math.sqrt(18 * (_t ** (2 / _L) - 1))",
            ),
            Edit(
                "06-ex1-simulation",
                _EX1_SIM_HEAD,
                "    # A no-norm ReLU stack with nn.Linear's init, simulated inside this cell.",
            ),
            Edit(
                "06-ex1-simulation",
                _EX1_SIM_WEIGHTS,
                """\
        _W1 = _rng.uniform(-1, 1, (_d, 2 * _d)) / _d**0.5
        _W2 = _rng.uniform(-1, 1, (2 * _d, _d)) * _alpha / (2 * _d) ** 0.5""",
            ),
            _answer("06-ex1-answer", _BOOK_EX1_ANSWER, _EX1_PYTORCH_ANSWER),
        ),
    ),
    Variant(
        "two-branches",
        "no-norm branch scale for a target std with two residual branches per block",
        (
            Edit(
                "69663764",
                _EX1_STACK,
                """\
   **without** normalization, built with
   `make_mlp_weights(2 * depth, d, hidden, alpha)` (He initialization) and run as `depth`
   blocks of **two** residual branches each (a transformer block has an attention and an
   MLP branch, each with its own residual addition), ends with a stream of standard
   deviation `target_std` when its input has standard deviation 1.""",
            ),
            Edit(
                "69663764",
                _EX1_COMPARE,
                """\
a *pre-norm* stack of such
   blocks needs for the same target $t$, give the ratio of the two for $t = \\sqrt2$ and
   $t = 4$, and say what it means for how much smaller the branches of an unnormalized stack
   must be.""",
            ),
            Edit(
                "06-ex1-solution",
                _EX1_SOLUTION,
                """\
    # alpha such that (1 + alpha^2)^(2 depth) = target_std^2: two branches a block.
    ### BEGIN SOLUTION
    return math.sqrt(target_std ** (1.0 / depth) - 1.0)""",
            ),
            Edit(
                "06-ex1-formula",
                _EX1_VISIBLE,
                """\
# visible test: the law (1 + alpha^2)^(2 depth) = target^2 at one setting
_a = no_norm_branch_scale(7, 3.0)
assert isinstance(_a, float), "a Python float expected"
_err = abs((1 + _a * _a) ** 14 / 9.0 - 1)
assert _err < 1e-9, f"(1 + alpha^2)^14 should be 3^2: relative error {_err:.1e}\"""",
            ),
            Edit(
                "06-ex1-formula", _EX1_REF, "    _ref = _math.sqrt(_t ** (1 / _L) - 1)"
            ),
            Edit(
                "06-ex1-simulation",
                _EX1_SIM_HEAD,
                "    # A no-norm He-initialized stack of two-branch blocks, simulated here.",
            ),
            Edit(
                "06-ex1-simulation",
                "    for _ in range(_depth):",
                "    for _ in range(2 * _depth):  # two residual branches a block",
            ),
            _answer("06-ex1-answer", _BOOK_EX1_ANSWER, _EX1_TWO_ANSWER),
        ),
    ),
    Variant(
        "pre-norm",
        "branch scale for a target std of a pre-norm stack (compared with no norm)",
        (
            Edit(
                "69663764",
                "Branch scale for a fixed output scale without a norm",
                "Branch scale for a fixed output scale with pre-norm",
            ),
            Edit(
                "69663764",
                "Without any normalization one can do the same with a smaller $\\alpha$.",
                "One can aim at any final scale instead, with $\\alpha$ chosen for the "
                "depth.",
            ),
            Edit(
                "69663764",
                """\
   `no_norm_branch_scale(depth, target_std)`: the branch scale $\\alpha$ for which a stack
"""
                + _EX1_STACK,
                """\
   `pre_norm_branch_scale(depth, target_std)`: the branch scale $\\alpha$ for which a
   **pre-norm** stack, built with `make_mlp_weights(depth, d, hidden, alpha)`
   (He initialization), ends with a stream of standard deviation `target_std` when its input
   has standard deviation 1.""",
            ),
            Edit(
                "69663764",
                """\
2. In the answer cell: show that for large depth $L$ your $\\alpha^2$ behaves like
   $c/L$ and find $c$; compare with the $\\alpha^2$ a *pre-norm* stack needs for the same target
   $t$, give the ratio of the two for $t = \\sqrt2$ and $t = 4$, and say what it means for how
   much smaller the branches of an unnormalized stack must be.""",
                """\
2. In the answer cell: show that your $\\alpha^2$ is $c/L$ and find $c$; compare with the
   $\\alpha^2$ a stack *without* normalization needs for the same target $t$ at large depth
   $L$, give the ratio of the two for $t = \\sqrt2$ and $t = 4$, and say what it means for how
   much larger the branches of a pre-norm stack may be.""",
            ),
            Edit(
                "06-ex1-solution",
                "def no_norm_branch_scale(depth, target_std):\n" + _EX1_SOLUTION,
                """\
def pre_norm_branch_scale(depth, target_std):
    # alpha such that 1 + alpha^2 depth = target_std^2 (pre-norm).
    ### BEGIN SOLUTION
    return math.sqrt((target_std**2 - 1.0) / depth)""",
            ),
            Edit(
                "06-ex1-formula",
                _EX1_VISIBLE,
                """\
# visible test: the law 1 + alpha^2 depth = target^2 at one setting
_a = pre_norm_branch_scale(7, 3.0)
assert isinstance(_a, float), "a Python float expected"
_err = abs((1 + 7 * _a * _a) / 9.0 - 1)
assert _err < 1e-9, f"1 + 7 alpha^2 should be 3^2: relative error {_err:.1e}\"""",
            ),
            Edit(
                "06-ex1-formula",
                "    _a = no_norm_branch_scale(_L, _t)\n" + _EX1_REF,
                """\
    _a = pre_norm_branch_scale(_L, _t)
    _ref = _math.sqrt((_t * _t - 1) / _L)""",
            ),
            Edit(
                "06-ex1-simulation",
                _EX1_SIM_HEAD,
                "    # A pre-norm He-initialized ReLU stack, simulated inside this cell.",
            ),
            Edit(
                "06-ex1-simulation",
                "        _x = _x + _np.maximum(_x @ _W1, 0.0) @ _W2",
                """\
        _c = _x - _x.mean(axis=-1, keepdims=True)  # LayerNorm, eps = 1e-5
        _z = _c / ((_c * _c).mean(axis=-1, keepdims=True) + 1e-5) ** 0.5
        _x = _x + _np.maximum(_z @ _W1, 0.0) @ _W2""",
            ),
            Edit(
                "06-ex1-simulation",
                "    _alpha = no_norm_branch_scale(_depth, _target)",
                "    _alpha = pre_norm_branch_scale(_depth, _target)",
            ),
            _answer("06-ex1-answer", _BOOK_EX1_ANSWER, _EX1_PRE_ANSWER),
        ),
    ),
]


# ---------------------------------------------------------------------------------
# Exercise 6.2: backward pass of a post-norm block with a weighted skip.

_EX2_FORWARD_HEAD = (
    "    # out = gamma * LN(omega * x + relu(x W1) W2) + beta, x of shape (N, d)."
)
_EX2_LN_BACKWARD = """\
    dy = rstd * (
        g
        - g.mean(axis=-1, keepdims=True)
        - yhat * (g * yhat).mean(axis=-1, keepdims=True)
    )"""
_EX2_BRANCH_BACKWARD = """\
    dW2 = a.T @ dy
    du = (dy @ W2.T) * (u > 0)
    dW1 = x.T @ du
    dx = omega * dy + du @ W1.T"""
_EX2_TORCH_Y = "    _y = _omega * _t[0] + _torch.relu(_t[0] @ _t[1]) @ _t[2]"
_EX2_NUMPY_Y = "    _yy = _omega * _x + _a @ _W2"

_EX2_BRANCH_ANSWER = r"""Write $g = \partial\mathcal L/\partial\,\text{out}$. Then $\partial\mathcal L/\partial\hat y =
\gamma \odot g$ and, through the LayerNorm ({doc}`03-layernorm-backward`),

$$
\frac{\partial\mathcal L}{\partial y} = \frac1\sigma\Big(\gamma\odot g
- \overline{\gamma\odot g} - \hat y\; \overline{(\gamma\odot g)\odot \hat y}\Big),
\qquad \sigma = \sqrt{\operatorname{Var}(y) + \epsilon}.
$$

With $u = xW_1$, $a = \operatorname{relu}(u)$ and $dy = \partial\mathcal L/\partial y$: the
branch weight multiplies everything that flows through the branch, $dW_2 = \omega\, a^\top dy$,
$du = \omega\,(dy\, W_2^\top) \odot [u > 0]$, $dW_1 = x^\top du$ and

$$
\frac{\partial\mathcal L}{\partial x} = dy + du\, W_1^\top ,
$$

plus $d\gamma = \sum_n g \odot \hat y$ and $d\beta = \sum_n g$. The skip path contributes
$dy$ itself, and $dy$ carries the factor $1/\sigma$ with
$\sigma \approx \sqrt{q(x) + \omega^2 q(f)}$. For a unit-scale $x$ and a branch of gain
$\alpha^2$ the skip path passes the gradient with a factor of about
$1/\sqrt{1 + \omega^2\alpha^2}$ (times the projection), which grows toward 1 as $\omega$
shrinks: at $\omega = 1$ every LayerNorm shrinks the skip path's gradient by
$1/\sqrt{1+\alpha^2}$, and these factors compound over the layers; a smaller $\omega$ makes
each block closer to the identity (at $\omega = 0$ the block is $\operatorname{LN}(x)$ alone).

**Mark scheme (2 points).** 1 pt: the chain $\gamma\odot g \to dy$ (LayerNorm backward) $\to
dx = dy + du\,W_1^\top$, with $du = \omega\,(dy\,W_2^\top)\odot[u>0]$, the ReLU mask and
$dW_2 = \omega\,a^\top dy$ correct; 1 pt: the factor $1/\sqrt{1+\omega^2\alpha^2}$ (or an
equivalent argument) and why it compounds over layers."""

_EX2_RMS_ANSWER = r"""Write $g = \partial\mathcal L/\partial\,\text{out}$. Then $\partial\mathcal L/\partial\hat y =
\gamma \odot g$ and, through the RMSNorm $\hat y = y/r$ (no mean is subtracted, so the
LayerNorm backward of {doc}`03-layernorm-backward` loses its mean term),

$$
\frac{\partial\mathcal L}{\partial y} = \frac1r\Big(\gamma\odot g
- \hat y\; \overline{(\gamma\odot g)\odot \hat y}\Big),
\qquad r = \sqrt{\operatorname{mean}(y^2) + \epsilon}.
$$

With $u = xW_1$, $a = \operatorname{relu}(u)$ and $dy = \partial\mathcal L/\partial y$:
$dW_2 = a^\top dy$, $du = (dy\, W_2^\top) \odot [u > 0]$, $dW_1 = x^\top du$ and

$$
\frac{\partial\mathcal L}{\partial x} = \omega\, dy + du\, W_1^\top ,
$$

plus $d\gamma = \sum_n g \odot \hat y$ and $d\beta = \sum_n g$. The skip path contributes
$\omega\,dy$, and $dy$ carries the factor $1/r$ with
$r \approx \sqrt{\omega^2 q(x) + q(f)}$. For a unit-scale $x$ and a branch of gain
$\alpha^2$ the skip path passes the gradient with a factor of about
$\omega/\sqrt{\omega^2 + \alpha^2}$ (times the projection), which grows toward 1 as $\omega$
grows: at $\omega = 1$ every RMSNorm shrinks the skip path's gradient by
$1/\sqrt{1+\alpha^2}$, and these factors compound over the layers; a larger $\omega$ makes each
block closer to the identity.

**Mark scheme (2 points).** 1 pt: the chain $\gamma\odot g \to dy$ (RMSNorm backward, without
the mean term) $\to dx = \omega\,dy + du\,W_1^\top$, with $du$ and the ReLU mask correct;
1 pt: the factor $\omega/\sqrt{\omega^2+\alpha^2}$ (or an equivalent argument) and why it
compounds over layers."""

_EX2_ONE_PLUS_ANSWER = r"""Write $g = \partial\mathcal L/\partial\,\text{out}$. The gain is $1+\gamma$, so
$\partial\mathcal L/\partial\hat y = \tilde g = (1+\gamma) \odot g$ and, through the
LayerNorm ({doc}`03-layernorm-backward`),

$$
\frac{\partial\mathcal L}{\partial y} = \frac1\sigma\Big(\tilde g
- \overline{\tilde g} - \hat y\; \overline{\tilde g\odot \hat y}\Big),
\qquad \sigma = \sqrt{\operatorname{Var}(y) + \epsilon}.
$$

With $u = xW_1$, $a = \operatorname{relu}(u)$ and $dy = \partial\mathcal L/\partial y$:
$dW_2 = a^\top dy$, $du = (dy\, W_2^\top) \odot [u > 0]$, $dW_1 = x^\top du$ and

$$
\frac{\partial\mathcal L}{\partial x} = \omega\, dy + du\, W_1^\top ,
$$

plus $d\gamma = \sum_n g \odot \hat y$ (the derivative of $1+\gamma$ is 1) and
$d\beta = \sum_n g$. The skip path contributes $\omega\,dy$, and $dy$ carries the factor
$1/\sigma$ with $\sigma \approx \sqrt{\omega^2 q(x) + q(f)}$. For a unit-scale $x$ and a
branch of gain $\alpha^2$ the skip path passes the gradient with a factor of about
$\omega/\sqrt{\omega^2 + \alpha^2}$ (times the projection), which grows toward 1 as $\omega$
grows: at $\omega = 1$ every LayerNorm shrinks the skip path's gradient by
$1/\sqrt{1+\alpha^2}$, and these factors compound over the layers; a larger $\omega$ makes each
block closer to the identity.

**Mark scheme (2 points).** 1 pt: the chain $(1+\gamma)\odot g \to dy$ (LayerNorm backward)
$\to dx = \omega\,dy + du\,W_1^\top$, with $du$ and the ReLU mask correct; 1 pt: the factor
$\omega/\sqrt{\omega^2+\alpha^2}$ (or an equivalent argument) and why it compounds over
layers."""

_EX2 = [
    Variant(
        "weighted-branch",
        "backward of a post-norm block y = x + omega f(x) (weighted branch, not skip)",
        (
            Edit("4d72202a", "with a weighted skip", "with a weighted branch"),
            Edit(
                "4d72202a",
                """\
{cite:t}`liu2020understanding` stabilize post-norm by weighting the skip connection: a block
computes $y = \\omega x + f(x)$ with $f(x) = \\operatorname{relu}(x W_1) W_2$ and""",
                """\
{cite:t}`liu2020understanding` stabilize post-norm by weighting the skip connection; one can
instead weight the residual branch: a block computes $y = x + \\omega f(x)$ with
$f(x) = \\operatorname{relu}(x W_1) W_2$ and""",
            ),
            Edit(
                "4d72202a",
                """\
explain why a skip
   weight $\\omega > 1$ lets""",
                """\
explain why a branch
   weight $\\omega < 1$ lets""",
            ),
            Edit(
                "06-ex2-forward-readonly",
                _EX2_FORWARD_HEAD,
                "    # out = gamma * LN(x + omega * relu(x W1) W2) + beta, x of shape (N, d).",
            ),
            Edit(
                "06-ex2-forward-readonly",
                "    y = omega * x + a @ W2",
                "    y = x + omega * (a @ W2)",
            ),
            Edit(
                "06-ex2-solution",
                _EX2_BRANCH_BACKWARD,
                """\
    dW2 = omega * (a.T @ dy)
    du = omega * (dy @ W2.T) * (u > 0)
    dW1 = x.T @ du
    dx = dy + du @ W1.T""",
            ),
            Edit(
                "06-ex2-dx",
                "    _omega = float(_rng.uniform(0.5, 3.0))",
                "    _omega = float(_rng.uniform(0.1, 2.0))",
            ),
            Edit(
                "06-ex2-dx",
                _EX2_TORCH_Y,
                "    _y = _t[0] + _omega * (_torch.relu(_t[0] @ _t[1]) @ _t[2])",
            ),
            Edit("06-ex2-dx", _EX2_NUMPY_Y, "    _yy = _x + _omega * (_a @ _W2)"),
            _answer("06-ex2-answer", _BOOK_EX2_ANSWER, _EX2_BRANCH_ANSWER),
        ),
    ),
    Variant(
        "rmsnorm",
        "backward of a weighted-skip post-norm block whose norm is RMSNorm, not LN",
        (
            Edit(
                "4d72202a",
                "a post-norm block with a weighted skip",
                "a post-RMSNorm block with a weighted skip",
            ),
            Edit(
                "4d72202a",
                """\
$\\text{out} = \\gamma \\odot \\operatorname{LN}(y) + \\beta$ (LayerNorm over the last axis,
$\\epsilon = 10^{-5}$ inside the root).""",
                """\
$\\text{out} = \\gamma \\odot \\operatorname{RMSNorm}(y) + \\beta$ with
$\\operatorname{RMSNorm}(y) = y/\\sqrt{\\operatorname{mean}(y^2) + \\epsilon}$ (over the last
axis, no mean subtracted, $\\epsilon = 10^{-5}$ inside the root).""",
            ),
            Edit(
                "4d72202a",
                "through the LayerNorm to $x$",
                "through the RMSNorm to $x$",
            ),
            Edit(
                "06-ex2-forward-readonly",
                _EX2_FORWARD_HEAD,
                "    # out = gamma * RMSNorm(omega * x + relu(x W1) W2) + beta, x: (N, d).",
            ),
            Edit(
                "06-ex2-forward-readonly",
                """\
    rstd = 1.0 / np.sqrt(y.var(axis=-1, keepdims=True) + eps)
    yhat = (y - y.mean(axis=-1, keepdims=True)) * rstd""",
                """\
    rstd = 1.0 / np.sqrt((y * y).mean(axis=-1, keepdims=True) + eps)
    yhat = y * rstd  # no mean subtracted""",
            ),
            Edit(
                "06-ex2-solution",
                _EX2_LN_BACKWARD,
                "    dy = rstd * (g - yhat * (g * yhat).mean(axis=-1, keepdims=True))",
            ),
            Edit(
                "06-ex2-dx",
                "    _yhat = _torch.nn.functional.layer_norm(_y, (_d,), eps=1e-5)",
                "    _yhat = _y / _torch.sqrt((_y * _y).mean(-1, keepdim=True) + 1e-5)",
            ),
            Edit(
                "06-ex2-dx",
                """\
    _rstd = 1.0 / _np.sqrt(_yy.var(axis=-1, keepdims=True) + 1e-5)
    _yh = (_yy - _yy.mean(axis=-1, keepdims=True)) * _rstd""",
                """\
    _rstd = 1.0 / _np.sqrt((_yy * _yy).mean(axis=-1, keepdims=True) + 1e-5)
    _yh = _yy * _rstd""",
            ),
            _answer("06-ex2-answer", _BOOK_EX2_ANSWER, _EX2_RMS_ANSWER),
        ),
    ),
    Variant(
        "one-plus-gamma",
        "backward of the weighted-skip post-norm block with a zero-centred gain 1 + gamma",
        (
            Edit(
                "4d72202a",
                "$\\text{out} = \\gamma \\odot \\operatorname{LN}(y) + \\beta$ (LayerNorm",
                "$\\text{out} = (1 + \\gamma) \\odot \\operatorname{LN}(y) + \\beta$, a "
                "zero-centred gain\n($\\gamma = 0$ at initialization; LayerNorm",
            ),
            Edit(
                "06-ex2-forward-readonly",
                _EX2_FORWARD_HEAD,
                "    # out = (1 + gamma) * LN(omega * x + relu(x W1) W2) + beta, x: (N, d).",
            ),
            Edit(
                "06-ex2-forward-readonly",
                "    out = gamma * yhat + beta",
                "    out = (1 + gamma) * yhat + beta",
            ),
            Edit(
                "06-ex2-solution",
                "    g = dout * gamma\n",
                "    g = dout * (1 + gamma)\n",
            ),
            Edit(
                "06-ex2-dx",
                "    (_t[3] * _yhat + _t[4]).backward(_torch.tensor(_dout))",
                "    ((1 + _t[3]) * _yhat + _t[4]).backward(_torch.tensor(_dout))",
            ),
            _answer("06-ex2-answer", _BOOK_EX2_ANSWER, _EX2_ONE_PLUS_ANSWER),
        ),
    ),
]


# ---------------------------------------------------------------------------------
# Exercise 6.3: bug hunt in a pre-norm block. Each variant changes the block (so the
# book's corrected backward is wrong for it) and plants two other bugs, both invisible
# at initialization.

_EX3_FORWARD = """\
def prenorm_block_forward(x, gamma, beta, W1, W2, eps=1e-5):
    # out = x + relu((gamma * LN(x) + beta) W1) W2, x of shape (N, d).
    xhat, ln_cache = normalize_rows(x, eps)
    z = gamma * xhat + beta
    u = z @ W1
    a = np.maximum(u, 0.0)
    return x + a @ W2, (ln_cache, z, u, a, gamma, W1, W2)
"""
_EX3_BUGGY_BODY = """\
    dW2 = a.T @ dout
    du = (dout @ W2.T) * (u > 0)
    dW1 = xhat.T @ du
    dz = du @ W1.T
    dgamma = (dz * xhat).sum(axis=0)
    dbeta = dz.sum(axis=0)
    dx = dout + normalize_rows_backward(dz, ln_cache)
"""
_EX3_FIXED_BODY = """\
    dW2 = a.T @ dout
    du = (dout @ W2.T) * (u > 0)
    dW1 = z.T @ du
    dz = du @ W1.T
    dgamma = (dz * xhat).sum(axis=0)
    dbeta = dz.sum(axis=0)
    dx = dout + normalize_rows_backward(gamma * dz, ln_cache)
"""
_EX3_AUTHOR_CHECK = """\
dx_b, dW1_b = prenorm_block_backward_buggy(
    doutb, prenorm_block_forward(xb, gb, bb, W1b, W2b)[1]
)[:2]
f_x = lambda v: prenorm_block_forward(v, gb, bb, W1b, W2b)[0]
f_W1 = lambda v: prenorm_block_forward(xb, gb, bb, v, W2b)[0]
err_dx = rel_error(dx_b, eval_numerical_gradient_array(f_x, xb, doutb))
err_dW1 = rel_error(dW1_b, eval_numerical_gradient_array(f_W1, W1b, doutb))
print(f"dx : {err_dx:.1e}")
print(f"dW1: {err_dW1:.1e}")"""
_EX3_AUTHOR_ASSERT = "assert max(err_dx, err_dW1) < TOL"
_EX3_DEMO = """\
    dx_r, dW1_r = fixed(doutb, cache_r)[:2]
    fx = lambda v: prenorm_block_forward(v, gr, br, W1b, W2b)[0]
    fw = lambda v: prenorm_block_forward(xb, gr, br, v, W2b)[0]
    err_dx = rel_error(dx_r, eval_numerical_gradient_array(fx, xb, doutb))
    err_dW1 = rel_error(dW1_r, eval_numerical_gradient_array(fw, W1b, doutb))
    print(f"{name}: dx {err_dx:.1e}, dW1 {err_dW1:.1e}")
    if name == "buggy":
        assert min(err_dx, err_dW1) > 100 * TOL
    else:
        assert max(err_dx, err_dW1) < TOL"""
# Which gradient each check compares: index in the returned tuple, the argument the
# numerical gradient perturbs, and where it sits in prenorm_block_forward's call.
_EX3_GRADS = {
    "dx": (0, "x", "prenorm_block_forward(v, {g}, {b}, W1b, W2b)[0]"),
    "dW1": (1, "W1b", "prenorm_block_forward(xb, {g}, {b}, v, W2b)[0]"),
    "dgamma": (3, "{g}", "prenorm_block_forward(xb, v, {b}, W1b, W2b)[0]"),
    "dbeta": (4, "{b}", "prenorm_block_forward(xb, {g}, v, W1b, W2b)[0]"),
}


def _fit(head, args, tail):
    """A call as one line if it fits in 88 characters, else as three."""
    line = head + args + tail.strip()
    if len(line) <= 88:
        return [line]
    return [head, " " * (len(tail) - 1 + 4) + args, tail]


def _ex3_author_check(first, second):
    """The author's check at initialization, of the gradients `first` and `second`."""
    lines = [
        "grads_b = prenorm_block_backward_buggy(",
        "    doutb, prenorm_block_forward(xb, gb, bb, W1b, W2b)[1]",
        ")",
    ]
    for name in (first, second):
        k, arg, call = _EX3_GRADS[name]
        arg = "xb" if arg == "x" else arg.format(g="gb", b="bb")
        lines += [
            f"f_{name} = lambda v: {call.format(g='gb', b='bb')}",
            *_fit(
                f"err_{name} = rel_error(",
                f"grads_b[{k}], eval_numerical_gradient_array(f_{name}, {arg}, doutb)",
                ")",
            ),
        ]
    width = max(len(first), len(second))
    lines += [
        f'print(f"{name:<{width}}: {{err_{name}:.1e}}")' for name in (first, second)
    ]
    return "\n".join(lines)


def _ex3_demo(first, second):
    """The model answer's check with random gamma and beta, of `first` and `second`."""
    lines = ["    grads_r = fixed(doutb, cache_r)"]
    for name in (first, second):
        k, arg, call = _EX3_GRADS[name]
        arg = "xb" if arg == "x" else arg.format(g="gr", b="br")
        lines += [
            f"    f_{name} = lambda v: {call.format(g='gr', b='br')}",
            *_fit(
                f"    err_{name} = rel_error(",
                f"grads_r[{k}], eval_numerical_gradient_array(f_{name}, {arg}, doutb)",
                "    )",
            ),
        ]
    pair = f"err_{first}, err_{second}"
    lines += [
        f'    print(f"{{name}}: {first} {{err_{first}:.1e}}, '
        f'{second} {{err_{second}:.1e}}")',
        '    if name == "buggy":',
        f"        assert min({pair}) > 100 * TOL",
        "    else:",
        f"        assert max({pair}) < TOL",
    ]
    return "\n".join(lines)


def _ex3_checks(first, second):
    return [
        Edit(
            "06-ex3-buggy-readonly", _EX3_AUTHOR_CHECK, _ex3_author_check(first, second)
        ),
        Edit(
            "06-ex3-buggy-readonly-checks",
            _EX3_AUTHOR_ASSERT,
            f"assert max(err_{first}, err_{second}) < TOL",
        ),
        Edit("06-ex3-solution", _EX3_DEMO, _ex3_demo(first, second)),
    ]


_EX3_TASK_BLOCK = r"""The block below is a pre-norm block whose LayerNorm has learned parameters:
$\text{out} = x + \operatorname{relu}(z W_1) W_2$ with
$z = \gamma \odot \operatorname{LN}(x) + \beta$. Its author wrote the backward pass, ran a"""
_EX3_TORCH_Z = (
    "    _z = _t[3] * _torch.nn.functional.layer_norm(_t[0], (_d,), eps=1e-5) + _t[4]"
)

_EX3_RMS_ANSWER = r"""- `dgamma = (dz * z).sum(axis=0)` multiplies by the branch's input
  $z = \gamma\odot\hat x + \beta$ where $\partial z/\partial\gamma = \hat x$: the right line is
  `dgamma = (dz * xhat).sum(axis=0)`.
- `rms_rows_backward(dz, ln_cache)` is the RMSNorm backward with $\gamma = 1$, fed the gradient
  with respect to $z$; the gradient with respect to $\hat x$ is $\gamma \odot dz$: the right
  line is `dx = dout + rms_rows_backward(gamma * dz, ln_cache)`.

At initialization $\gamma = 1$ and $\beta = 0$, so $z = \hat x$ and $\gamma \odot dz = dz$: both
wrong lines compute exactly the right numbers there, and a gradient check at that point passes
to machine precision. A check must use parameter values where the code paths it tests make a
difference (random $\gamma$ and $\beta$), not the initialization.

**Mark scheme (2 points).** 1 pt: both bugs identified with what each line should compute;
1 pt: why they are invisible at $\gamma = 1$, $\beta = 0$ (or an equivalent lesson about where
to check)."""

_EX3_ONE_PLUS_ANSWER = r"""- `dW1 = xhat.T @ du` uses the normalized input $\hat x$ where the first layer reads
  $z = (1+\gamma)\odot\hat x + \beta$: the right line is `dW1 = z.T @ du`.
- `dbeta = ((1 + gamma) * dz).sum(axis=0)` multiplies by the gain, but $\beta$ enters $z$ with
  the factor 1 ($\partial z/\partial\beta = 1$): the right line is `dbeta = dz.sum(axis=0)`.

At initialization $\gamma = 0$ and $\beta = 0$, so $z = \hat x$ and $(1+\gamma) \odot dz = dz$:
both wrong lines compute exactly the right numbers there, and a gradient check at that point
passes to machine precision. With a zero-centred gain the initialization is exactly the point
where the gain is 1. A check must use parameter values where the code paths it tests make a
difference (random $\gamma$ and $\beta$), not the initialization.

**Mark scheme (2 points).** 1 pt: both bugs identified with what each line should compute;
1 pt: why they are invisible at $\gamma = 0$, $\beta = 0$ (or an equivalent lesson about where
to check)."""

_EX3_SQUARED_ANSWER = r"""- `dgamma = (dz * z).sum(axis=0)` multiplies by the branch's input
  $z = \gamma\odot\hat x + \beta$ where $\partial z/\partial\gamma = \hat x$: the right line is
  `dgamma = (dz * xhat).sum(axis=0)`.
- `dbeta = (gamma * dz).sum(axis=0)` multiplies by $\gamma$, but $\beta$ enters $z$ with the
  factor 1 ($\partial z/\partial\beta = 1$): the right line is `dbeta = dz.sum(axis=0)`.

The squared ReLU's own line, $du = (dout\,W_2^\top) \odot 2\operatorname{relu}(u)$, is right.
At initialization $\gamma = 1$ and $\beta = 0$, so $z = \hat x$ and $\gamma \odot dz = dz$: both
wrong lines compute exactly the right numbers there, and a gradient check at that point passes
to machine precision. A check must use parameter values where the code paths it tests make a
difference (random $\gamma$ and $\beta$), not the initialization.

**Mark scheme (2 points).** 1 pt: both bugs identified with what each line should compute;
1 pt: why they are invisible at $\gamma = 1$, $\beta = 0$ (or an equivalent lesson about where
to check)."""

_EX3 = [
    Variant(
        "rmsnorm-block",
        "bug hunt in a pre-RMSNorm block (bugs: dgamma reads z, dx misses gamma)",
        (
            Edit(
                "b06ff68e",
                "Bug hunt in a pre-norm block",
                "Bug hunt in a pre-RMSNorm block",
            ),
            Edit(
                "b06ff68e",
                _EX3_TASK_BLOCK,
                r"""The block below is a pre-norm block whose RMSNorm has learned parameters:
$\text{out} = x + \operatorname{relu}(z W_1) W_2$ with
$z = \gamma \odot \operatorname{RMSNorm}(x) + \beta$, where
$\operatorname{RMSNorm}(x) = x/\sqrt{\operatorname{mean}(x^2) + \epsilon}$ over the last axis
(`rms_rows` below; its backward `rms_rows_backward` is correct). Its author wrote the
backward pass, ran a""",
            ),
            Edit(
                "06-ex3-buggy-readonly",
                _EX3_FORWARD,
                """\
def rms_rows(x, eps=1e-5):
    # (xhat, cache) with xhat = x / sqrt(mean(x^2) + eps) over the last axis.
    rstd = 1.0 / np.sqrt((x * x).mean(axis=-1, keepdims=True) + eps)
    xhat = x * rstd
    return xhat, {"xhat": xhat, "rstd": rstd}


def rms_rows_backward(dout, cache):
    # dx of rms_rows (no mean term: RMSNorm does not centre).
    xhat, rstd = cache["xhat"], cache["rstd"]
    return rstd * (dout - xhat * (dout * xhat).mean(axis=-1, keepdims=True))


def prenorm_block_forward(x, gamma, beta, W1, W2, eps=1e-5):
    # out = x + relu((gamma * RMSNorm(x) + beta) W1) W2, x of shape (N, d).
    xhat, ln_cache = rms_rows(x, eps)
    z = gamma * xhat + beta
    u = z @ W1
    a = np.maximum(u, 0.0)
    return x + a @ W2, (ln_cache, z, u, a, gamma, W1, W2)
""",
            ),
            Edit(
                "06-ex3-buggy-readonly",
                _EX3_BUGGY_BODY,
                """\
    dW2 = a.T @ dout
    du = (dout @ W2.T) * (u > 0)
    dW1 = z.T @ du
    dz = du @ W1.T
    dgamma = (dz * z).sum(axis=0)
    dbeta = dz.sum(axis=0)
    dx = dout + rms_rows_backward(dz, ln_cache)
""",
            ),
            Edit(
                "06-ex3-solution",
                _EX3_FIXED_BODY,
                """\
    dW2 = a.T @ dout
    du = (dout @ W2.T) * (u > 0)
    dW1 = z.T @ du
    dz = du @ W1.T
    dgamma = (dz * xhat).sum(axis=0)
    dbeta = dz.sum(axis=0)
    dx = dout + rms_rows_backward(gamma * dz, ln_cache)
""",
            ),
            *_ex3_checks("dx", "dgamma"),
            Edit(
                "06-ex3-dx",
                _EX3_TORCH_Z,
                """\
    _r = _torch.sqrt((_t[0] * _t[0]).mean(-1, keepdim=True) + 1e-5)
    _z = _t[3] * (_t[0] / _r) + _t[4]  # RMSNorm""",
            ),
            Edit(
                "06-ex3-dx",
                """\
    _rstd = 1.0 / _np.sqrt(_x.var(axis=-1, keepdims=True) + 1e-5)
    _xh = (_x - _x.mean(axis=-1, keepdims=True)) * _rstd""",
                """\
    _rstd = 1.0 / _np.sqrt((_x * _x).mean(axis=-1, keepdims=True) + 1e-5)
    _xh = _x * _rstd""",
            ),
            _answer("06-ex3-answer", _BOOK_EX3_ANSWER, _EX3_RMS_ANSWER),
        ),
    ),
    Variant(
        "one-plus-gamma",
        "bug hunt in a pre-norm block with gain 1 + gamma (bugs: dW1 reads xhat, dbeta)",
        (
            Edit(
                "b06ff68e",
                r"""$z = \gamma \odot \operatorname{LN}(x) + \beta$. Its author wrote the backward pass, ran a
gradient check at initialization ($\gamma = 1$, $\beta = 0$), saw it pass, and shipped it. It
contains two bugs.""",
                r"""$z = (1 + \gamma) \odot \operatorname{LN}(x) + \beta$, a zero-centred gain. Its author wrote
the backward pass, ran a gradient check at initialization ($\gamma = 0$, $\beta = 0$), saw it
pass, and shipped it. It contains two bugs.""",
            ),
            Edit(
                "b06ff68e",
                r"$\gamma$ and $\beta$ away from 1 and 0",
                r"$\gamma$ and $\beta$ away from 0",
            ),
            Edit(
                "06-ex3-buggy-readonly",
                """\
    # out = x + relu((gamma * LN(x) + beta) W1) W2, x of shape (N, d).
    xhat, ln_cache = normalize_rows(x, eps)
    z = gamma * xhat + beta""",
                """\
    # out = x + relu(((1 + gamma) * LN(x) + beta) W1) W2, x of shape (N, d).
    xhat, ln_cache = normalize_rows(x, eps)
    z = (1 + gamma) * xhat + beta""",
            ),
            Edit(
                "06-ex3-buggy-readonly",
                _EX3_BUGGY_BODY,
                """\
    dW2 = a.T @ dout
    du = (dout @ W2.T) * (u > 0)
    dW1 = xhat.T @ du
    dz = du @ W1.T
    dgamma = (dz * xhat).sum(axis=0)
    dbeta = ((1 + gamma) * dz).sum(axis=0)
    dx = dout + normalize_rows_backward((1 + gamma) * dz, ln_cache)
""",
            ),
            Edit(
                "06-ex3-buggy-readonly",
                "gb, bb = np.ones(5), np.zeros(5)",
                "gb, bb = np.zeros(5), np.zeros(5)",
            ),
            Edit(
                "06-ex3-solution",
                _EX3_FIXED_BODY,
                """\
    dW2 = a.T @ dout
    du = (dout @ W2.T) * (u > 0)
    dW1 = z.T @ du
    dz = du @ W1.T
    dgamma = (dz * xhat).sum(axis=0)
    dbeta = dz.sum(axis=0)
    dx = dout + normalize_rows_backward((1 + gamma) * dz, ln_cache)
""",
            ),
            *_ex3_checks("dW1", "dbeta"),
            Edit(
                "06-ex3-dx",
                "    # Random inputs (gamma, beta far from 1, 0) and",
                "    # Random inputs (gamma, beta far from 0) and",
            ),
            Edit(
                "06-ex3-dx",
                _EX3_TORCH_Z,
                """\
    _lnx = _torch.nn.functional.layer_norm(_t[0], (_d,), eps=1e-5)
    _z = (1 + _t[3]) * _lnx + _t[4]""",
            ),
            Edit(
                "06-ex3-dx",
                "    _zz = _gamma * _xh + _beta",
                "    _zz = (1 + _gamma) * _xh + _beta",
            ),
            _answer("06-ex3-answer", _BOOK_EX3_ANSWER, _EX3_ONE_PLUS_ANSWER),
        ),
    ),
    Variant(
        "squared-relu",
        "bug hunt in a pre-norm block with a squared-ReLU branch (bugs: dgamma, dbeta)",
        (
            Edit(
                "b06ff68e",
                r"$\text{out} = x + \operatorname{relu}(z W_1) W_2$ with",
                r"$\text{out} = x + \operatorname{relu}(z W_1)^2 W_2$ (a squared-ReLU "
                "branch) with",
            ),
            Edit(
                "06-ex3-buggy-readonly",
                """\
    # out = x + relu((gamma * LN(x) + beta) W1) W2, x of shape (N, d).""",
                """\
    # out = x + relu((gamma * LN(x) + beta) W1)^2 W2, x of shape (N, d).""",
            ),
            Edit(
                "06-ex3-buggy-readonly",
                "    a = np.maximum(u, 0.0)\n",
                "    a = np.maximum(u, 0.0) ** 2  # squared ReLU\n",
            ),
            Edit(
                "06-ex3-buggy-readonly",
                _EX3_BUGGY_BODY,
                """\
    dW2 = a.T @ dout
    du = (dout @ W2.T) * 2.0 * np.maximum(u, 0.0)
    dW1 = z.T @ du
    dz = du @ W1.T
    dgamma = (dz * z).sum(axis=0)
    dbeta = (gamma * dz).sum(axis=0)
    dx = dout + normalize_rows_backward(gamma * dz, ln_cache)
""",
            ),
            Edit(
                "06-ex3-solution",
                _EX3_FIXED_BODY,
                """\
    dW2 = a.T @ dout
    du = (dout @ W2.T) * 2.0 * np.maximum(u, 0.0)
    dW1 = z.T @ du
    dz = du @ W1.T
    dgamma = (dz * xhat).sum(axis=0)
    dbeta = dz.sum(axis=0)
    dx = dout + normalize_rows_backward(gamma * dz, ln_cache)
""",
            ),
            *_ex3_checks("dgamma", "dbeta"),
            Edit(
                "06-ex3-dx",
                "    (_t[0] + _torch.relu(_z @ _t[1]) @ _t[2]).backward(_torch.tensor(_dout))",
                "    (_t[0] + _torch.relu(_z @ _t[1]) ** 2 @ _t[2]).backward("
                "_torch.tensor(_dout))",
            ),
            Edit(
                "06-ex3-dx",
                "    _cache = (_ln, _zz, _u, _np.maximum(_u, 0.0), _gamma, _W1, _W2)",
                "    _cache = (_ln, _zz, _u, _np.maximum(_u, 0.0) ** 2, _gamma, _W1, _W2)",
            ),
            _answer("06-ex3-answer", _BOOK_EX3_ANSWER, _EX3_SQUARED_ANSWER),
        ),
    ),
]

BANK = {"06-ex1": _EX1, "06-ex2": _EX2, "06-ex3": _EX3}
