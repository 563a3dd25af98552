"""Variants of chapter 01's coding exercises (grading/bank/__init__.py)."""

from grading.bank import Edit, Variant

# The book's cells that a variant rewrites whole (Task, model answers, tests, written
# answers), as the book has them.
EX1_TASK = r"""## Exercises

(sec-01-ex1)=
### Exercise 1.1: Kaiming initialization for leaky ReLU (5 points)

```{admonition} Task
Leaky ReLU is $\phi(h) = h$ for $h > 0$ and $\phi(h) = \alpha h$ otherwise, with slope
$0 \le \alpha \le 1$.

1. **Derive** (answer cell below, 2 points) the weight standard deviation $\sigma$, as a
   function of the fan-in $n$ and of $\alpha$, that keeps the second moment of the
   pre-activations constant through a deep stack. Hint: compute $\mathbb E[\phi(h)^2]$ for a
   symmetric $h$ with variance $v$.
2. **Implement** (3 points) `leaky_relu(h, slope)` for NumPy arrays of any shape and
   `kaiming_std(fan_in, slope)` from your formula, without calling PyTorch's initialization
   helpers (`torch.nn.init`), which are unavailable while the tests run. The tests compare
   with your formula's exact value on random fan-ins and slopes, and run a 30-layer
   leaky-ReLU stack with your initialization.
```"""

EX1_DERIVATION = r""":::{dropdown} Solution and mark scheme
For a symmetric $h$ with variance $v$, each sign has probability $\tfrac12$, and by symmetry
$\mathbb E[h^2 \mid h > 0] = \mathbb E[h^2 \mid h < 0] = v$. So

$$
\mathbb E[\phi(h)^2] = \tfrac12 v + \tfrac12 \alpha^2 v = \frac{1 + \alpha^2}{2}\, v .
$$

The next pre-activation has variance $n\sigma^2\,\mathbb E[\phi(h)^2]$, which equals $v$ when

$$
\sigma = \sqrt{\frac{2}{(1 + \alpha^2)\, n}} .
$$

For $\alpha = 0$ this is Kaiming's $\sqrt{2/n}$; for $\alpha = 1$ the activation is the
identity and $\sigma = 1/\sqrt n$ (Xavier for square layers).

**Mark scheme (2 points).** 1 pt: $\mathbb E[\phi(h)^2] = \tfrac{1+\alpha^2}{2}v$ with the
symmetry argument; 1 pt: solving $n\sigma^2 \tfrac{1+\alpha^2}{2} = 1$ for $\sigma$ and
checking a special case ($\alpha = 0$ or $\alpha = 1$).
:::"""

EX1_SOLUTION = '''\
def leaky_relu(h, slope):
    """h where h > 0, slope * h elsewhere (NumPy array of any shape)."""
    ### BEGIN SOLUTION
    return np.where(h > 0, h, slope * h)
    ### END SOLUTION


def kaiming_std(fan_in, slope=0.0):
    """Standard deviation of N(0, std^2) weights that preserves the second moment."""
    ### BEGIN SOLUTION
    return math.sqrt(2.0 / ((1.0 + slope**2) * fan_in))
    ### END SOLUTION'''

EX1_LEAKY_TESTS = """\
import numpy as _np

# visible test: a small example
_out = leaky_relu(_np.array([-2.0, 0.0, 3.0]), 0.1)
_err = float(abs(_out - _np.array([-0.2, 0.0, 3.0])).max())
assert _err < 1e-15, f"leaky_relu([-2, 0, 3], 0.1): max error {_err:.1e}, expected 0"
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(1011)
for _shape in [(7,), (3, 5), (2, 3, 4)]:
    _h = _rng.standard_normal(_shape) * 3
    _slope = float(_rng.uniform(0, 1))
    _out = leaky_relu(_h.copy(), _slope)
    assert isinstance(_out, _np.ndarray) and _out.shape == _shape, "wrong type or shape"
    _ref = _h * ((_h > 0) + (_h <= 0) * _slope)
    _err = float(abs(_out - _ref).max())
    assert _err < 1e-12, f"leaky_relu on shape {_shape}: max error {_err:.1e}"
### END HIDDEN TESTS
print("leaky_relu: tests passed")"""

EX1_STD_TESTS = """\
import math as _math


def _std(*_args):
    # kaiming_std with torch.nn.init's functions unavailable: use your own formula
    return _call_without(("torch.nn.init",), kaiming_std, *_args)


# visible test: a 30-layer leaky-ReLU stack keeps the second moment of its
# pre-activations (up to the random drift of a finite width)
_rng = _np.random.default_rng(10)
_a = _rng.standard_normal((512, 256))
_moments = []
for _ in range(30):
    _h = _a @ (_std(256, 0.5) * _rng.standard_normal((256, 256)))
    _moments.append(float((_h**2).mean()))
    _a = _h * ((_h > 0) + 0.5 * (_h <= 0))
_r = _moments[-1] / _moments[0]
assert 0.5 < _r < 2, f"30 layers changed the second moment by {_r:.3g}, expected ~1"
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(1012)
for _ in range(20):
    _fan_in = int(_rng.integers(1, 5000))
    _slope = float(_rng.uniform(0, 1))
    _ref = _math.sqrt(2.0 / ((1.0 + _slope**2) * _fan_in))
    _out = float(_std(_fan_in, _slope))
    _err = abs(_out - _ref) / _ref
    assert _err < 1e-10, (
        f"kaiming_std({_fan_in}, {_slope:.3f}): relative error {_err:.1e},"
        " expected < 1e-10"
    )
### END HIDDEN TESTS
print("kaiming_std: tests passed")"""

EX2_TASK = r"""(sec-01-ex2)=
### Exercise 1.2: the forward-preserving gain and its backward factor (7 points)

```{admonition} Task
For a smooth activation like tanh the "linear range" argument of {ref}`sec-01-stack` is only
approximate. A cleaner forward rule: choose $g$ so that if the pre-activations of one layer
are $\mathcal N(0, 1)$, those of the next layer again have second moment 1, i.e.
$g^2\, \mathbb E_{z \sim \mathcal N(0,1)}[\phi(z)^2] = 1$. Call it the *forward-preserving
gain*. It says nothing about gradients: at that gain each layer multiplies the variance of the
backward signal by the **backward factor** $\chi = g^2\, \mathbb E_{z}[\phi'(z)^2]$.

1. (2 points) Implement `forward_gain(phi)` for a vectorized activation `phi`.
2. (2 points) Implement `backward_factor(dphi, gain)`, where `dphi` is the derivative
   $\phi'$.

Compute the expectations with Gauss–Hermite quadrature
(`np.polynomial.hermite_e.hermegauss`, whose weights sum to $\sqrt{2\pi}$, so divide them by
$\sqrt{2\pi}$); the tests ask for a relative error below $10^{-6}$ on activations you have not
seen, which a Monte Carlo average cannot reach.

3. (3 points, answer cell below) Evaluate both for tanh. By what factor does the gradient's
   standard deviation grow over the 49 layers between layer 50 and layer 1 at that gain?
   Which gain makes $\chi = 1$ for tanh, and what happens to the forward signal there?
   Why can ReLU satisfy both conditions with one gain and tanh cannot?
```"""

EX2_SOLUTION = '''\
def forward_gain(phi, n_nodes=101):
    """g with g^2 * E[phi(z)^2] = 1 for z ~ N(0, 1)."""
    ### BEGIN SOLUTION
    z, w = np.polynomial.hermite_e.hermegauss(n_nodes)
    second_moment = np.sum(w * phi(z) ** 2) / math.sqrt(2 * math.pi)
    return 1.0 / math.sqrt(second_moment)
    ### END SOLUTION


def backward_factor(dphi, gain, n_nodes=101):
    """chi = gain^2 * E[dphi(z)^2] for z ~ N(0, 1)."""
    ### BEGIN SOLUTION
    z, w = np.polynomial.hermite_e.hermegauss(n_nodes)
    return gain**2 * np.sum(w * dphi(z) ** 2) / math.sqrt(2 * math.pi)
    ### END SOLUTION


g_tanh = forward_gain(np.tanh)
chi_tanh = backward_factor(lambda z: 1 - np.tanh(z) ** 2, g_tanh)
print(f"tanh: forward-preserving gain {g_tanh:.4f}, backward factor {chi_tanh:.4f}")'''

EX2_GAIN_TESTS = """\
import math as _math

import numpy as _np

# visible tests: two gains from the chapter, and a 50-layer tanh stack
_err = abs(forward_gain(lambda z: z) - 1.0)
assert _err < 1e-6, f"identity: gain off by {_err:.1e}, expected 1"
_err = abs(forward_gain(lambda z: z * (z > 0)) - _math.sqrt(2)) / _math.sqrt(2)
assert _err < 1e-2, f"ReLU: relative error {_err:.1e} against sqrt(2)"
_g = float(forward_gain(_np.tanh))
_rng = _np.random.default_rng(12)
_a = _rng.standard_normal((512, 256))
for _ in range(50):
    _h = _a @ (_g / 16 * _rng.standard_normal((256, 256)))
    _a = _np.tanh(_h)
_m = float((_h**2).mean())
assert 0.8 < _m < 1.25, f"50 tanh layers at your gain: E[h^2] = {_m:.3f}, expected ~1"
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(1021)
for _ in range(5):  # phi(z) = sin(c z): E[phi^2] = (1 - exp(-2 c^2)) / 2
    _c = float(_rng.uniform(0.3, 2.0))
    _ref = 1 / _math.sqrt((1 - _math.exp(-2 * _c**2)) / 2)
    _out = float(forward_gain(lambda z, c=_c: _np.sin(c * z)))
    _err = abs(_out - _ref) / _ref
    assert _err < 1e-6, f"sin({_c:.3f} z): relative error {_err:.1e}, expected < 1e-6"
for _ in range(5):  # phi(z) = a z + b z^2: E[phi^2] = a^2 + 3 b^2
    _p, _q = _rng.uniform(-2, 2, 2)
    _ref = 1 / _math.sqrt(_p**2 + 3 * _q**2)
    _out = float(forward_gain(lambda z, p=_p, q=_q: p * z + q * z**2))
    _err = abs(_out - _ref) / _ref
    assert _err < 1e-6, f"{_p:.2f} z + {_q:.2f} z^2: relative error {_err:.1e}"
### END HIDDEN TESTS
print("forward_gain: tests passed")"""

EX2_BACKWARD_TESTS = """\
# visible tests: the identity at gain 1, and phi(z) = z^2 (phi' = 2 z) at gain 1
_out = float(backward_factor(lambda z: _np.ones_like(z), 1.0))
assert abs(_out - 1) < 1e-9, (
    f"identity at gain 1: backward factor {_out:.6f}, expected 1"
)
_out = float(backward_factor(lambda z: 2 * z, 1.0))
assert abs(_out - 4) < 1e-8, (
    f"phi = z^2 at gain 1: backward factor {_out:.6f}, expected 4"
)
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(1022)
for _ in range(5):  # dphi(z) = c cos(c z): E[dphi^2] = c^2 (1 + exp(-2 c^2)) / 2
    _c, _g = float(_rng.uniform(0.3, 2.0)), float(_rng.uniform(0.5, 3.0))
    _ref = _g**2 * _c**2 * (1 + _math.exp(-2 * _c**2)) / 2
    _out = float(backward_factor(lambda z, c=_c: c * _np.cos(c * z), _g))
    _err = abs(_out - _ref) / _ref
    assert _err < 1e-6, (
        f"c cos(c z), c={_c:.3f}, gain {_g:.3f}: relative error {_err:.1e}"
    )
for _ in range(5):  # dphi(z) = p + q z: E[dphi^2] = p^2 + q^2
    _p, _q = _rng.uniform(-2, 2, 2)
    _g = float(_rng.uniform(0.5, 3.0))
    _ref = _g**2 * (_p**2 + _q**2)
    _out = float(backward_factor(lambda z, p=_p, q=_q: p + q * z, _g))
    _err = abs(_out - _ref) / _ref
    assert _err < 1e-6, f"{_p:.2f} + {_q:.2f} z: relative error {_err:.1e}"
### END HIDDEN TESTS
print("backward_factor: tests passed")"""

EX2_ANSWER = r""":::{dropdown} Solution and mark scheme
The solution cell prints $g \approx 1.593$ and $\chi \approx 1.178$ for tanh. The gradient's
*variance* is multiplied by $\chi$ per layer, its standard deviation by $\sqrt\chi$, so over
49 layers the standard deviation grows by $\chi^{49/2} \approx 1.178^{24.5} \approx 55$. The
forward-preserving gain is therefore not "balanced": it holds the activations but not the
gradients (compare the interactive figure at $g = 1.41$ and $1.67$, which bracket it).

$\chi = 1$ needs $g^2\,\mathbb E[\tanh'(\sqrt q\, z)^2] = 1$ at the second moment $q$ the
signal actually settles at. For $g \le 1$ the forward map shrinks every $q > 0$
($\tanh(h)^2 < h^2$), so the signal decays toward $q = 0$, where $\tanh' = 1$ and
$\chi = g^2$: the boundary is $g = 1$, the order/chaos boundary of
{cite:t}`schoenholz2017deep`. For $g < 1$ gradients vanish (ordered phase); for $g > 1$ the
signal settles at some $q > 0$ and $\chi > 1$ (chaotic phase). At $g = 1$ gradients are
preserved only asymptotically, while the forward signal decays slowly toward zero (the Xavier
+ tanh row of the tables: the standard deviation falls by a factor of about 7 over 50
layers), so no single gain preserves both for tanh at a non-zero signal.

ReLU is positively homogeneous, so the forward factor $g^2\,\mathbb E[\operatorname{relu}(h)^2]/q
= g^2/2$ does not depend on the scale $q$, and $\mathbb E[\operatorname{relu}'^2] = \tfrac12$
too: both factors equal $g^2/2$, and $g = \sqrt2$ makes both 1. Tanh's slope depends on
where the signal sits, so the two factors differ.

**Mark scheme (3 points).** 1 pt: the two values ($g \approx 1.59$, $\chi \approx 1.18$)
and the growth factor $\chi^{49/2} \approx 55$ (accept $\chi^{25} \approx 60$); 1 pt: $g = 1$ as
the gain with $\chi = 1$, with the decaying forward signal there; 1 pt: the homogeneity
argument for ReLU.
:::"""

# The variants' new cells.
UNIFORM_TASK = r"""## Exercises

(sec-01-ex1)=
### Exercise 1.1: Kaiming's uniform initialization for leaky ReLU (5 points)

```{admonition} Task
Leaky ReLU is $\phi(h) = h$ for $h > 0$ and $\phi(h) = \alpha h$ otherwise, with slope
$0 \le \alpha \le 1$. Many libraries draw the initial weights not from a Gaussian but
uniformly, $W_{ij} \sim \mathcal U(-b, b)$.

1. **Derive** (answer cell below, 2 points) the bound $b$, as a function of the fan-in
   $n$ and of $\alpha$, for which uniform weights keep the second moment of the
   pre-activations constant through a deep stack. Hint: compute $\mathbb E[\phi(h)^2]$
   for a symmetric $h$ with variance $v$, then the variance of $\mathcal U(-b, b)$.
2. **Implement** (3 points) `leaky_relu(h, slope)` for NumPy arrays of any shape and
   `kaiming_bound(fan_in, slope)` from your formula, without calling PyTorch's
   initialization helpers (`torch.nn.init`), which are unavailable while the tests run.
   The tests compare with your formula's exact value on random fan-ins and slopes, and
   run a 30-layer leaky-ReLU stack of uniform weights with your bound.
```
"""

UNIFORM_DERIVATION = r""":::{dropdown} Solution and mark scheme
For a symmetric $h$ with variance $v$, each sign has probability $\tfrac12$, and by
symmetry $\mathbb E[h^2 \mid h > 0] = \mathbb E[h^2 \mid h < 0] = v$. So

$$
\mathbb E[\phi(h)^2] = \tfrac12 v + \tfrac12 \alpha^2 v = \frac{1 + \alpha^2}{2}\, v .
$$

The next pre-activation has variance
$n\,\operatorname{Var}(W_{ij})\,\mathbb E[\phi(h)^2]$, which equals $v$ when
$\operatorname{Var}(W_{ij}) = 2/((1 + \alpha^2)\, n)$. Only the variance of the weights
enters, not their distribution. A uniform variable on $[-b, b]$ has variance
$\frac{1}{2b}\int_{-b}^{b} w^2\, dw = b^2/3$, so

$$
b = \sqrt{3}\,\sigma = \sqrt{\frac{6}{(1 + \alpha^2)\, n}} .
$$

For $\alpha = 0$ this is $\sqrt{6/n}$, the bound of PyTorch's `kaiming_uniform_` for
ReLU; for $\alpha = 1$ (the identity) it is $\sqrt{3/n}$.

**Mark scheme (2 points).** 1 pt: $\mathbb E[\phi(h)^2] = \tfrac{1+\alpha^2}{2}v$ with
the symmetry argument; 1 pt: the variance $b^2/3$ of the uniform law and
$b = \sqrt{6/((1+\alpha^2)n)}$, with a special case checked ($\alpha = 0$ or
$\alpha = 1$).
:::
"""

UNIFORM_SOLUTION = '''\
def leaky_relu(h, slope):
    """h where h > 0, slope * h elsewhere (NumPy array of any shape)."""
    ### BEGIN SOLUTION
    return np.where(h > 0, h, slope * h)
    ### END SOLUTION


def kaiming_bound(fan_in, slope=0.0):
    """Bound b of U(-b, b) weights that preserves the second moment."""
    ### BEGIN SOLUTION
    # Var U(-b, b) = b^2 / 3 must equal 2 / ((1 + slope^2) fan_in)
    return math.sqrt(6.0 / ((1.0 + slope**2) * fan_in))
    ### END SOLUTION
'''

UNIFORM_STD_TESTS = """\
import math as _math


def _bound(*_args):
    # kaiming_bound with torch.nn.init's functions unavailable: use your own formula
    return _call_without(("torch.nn.init",), kaiming_bound, *_args)


# visible test: a 30-layer leaky-ReLU stack of uniform weights keeps the second
# moment of its pre-activations (up to the random drift of a finite width)
_rng = _np.random.default_rng(10)
_a = _rng.standard_normal((512, 256))
_moments = []
for _ in range(30):
    _b = float(_bound(256, 0.5))
    _h = _a @ _rng.uniform(-_b, _b, (256, 256))
    _moments.append(float((_h**2).mean()))
    _a = _h * ((_h > 0) + 0.5 * (_h <= 0))
_r = _moments[-1] / _moments[0]
assert 0.5 < _r < 2, f"30 layers changed the second moment by {_r:.3g}, expected ~1"
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(1012)
for _ in range(20):
    _fan_in = int(_rng.integers(1, 5000))
    _slope = float(_rng.uniform(0, 1))
    _ref = _math.sqrt(6.0 / ((1.0 + _slope**2) * _fan_in))
    _out = float(_bound(_fan_in, _slope))
    _err = abs(_out - _ref) / _ref
    assert _err < 1e-10, (
        f"kaiming_bound({_fan_in}, {_slope:.3f}): relative error {_err:.1e},"
        " expected < 1e-10"
    )
### END HIDDEN TESTS
print("kaiming_bound: tests passed")
"""

FANOUT_TASK = r"""## Exercises

(sec-01-ex1)=
### Exercise 1.1: Kaiming's fan-out initialization for leaky ReLU (5 points)

```{admonition} Task
Leaky ReLU is $\phi(h) = h$ for $h > 0$ and $\phi(h) = \alpha h$ otherwise, with slope
$0 \le \alpha \le 1$. Take a deep stack whose layers $W_l$ have shape
$n_{\text{in}} \times n_{\text{out}}$ (not square in general), and ask for the
*gradients* to keep their scale rather than the activations (Kaiming's "fan-out" mode).

1. **Derive** (answer cell below, 2 points) the weight standard deviation $\sigma$, as a
   function of the layer's widths and of $\alpha$, that keeps the second moment of the
   backward signal $\boldsymbol\delta_l = \partial\mathcal L / \partial\mathbf h_l$
   constant through a deep stack. Hint: write $\boldsymbol\delta_{l-1}$ in terms of
   $\boldsymbol\delta_l$ as in {ref}`sec-01-stack`, and compute
   $\mathbb E[\phi'(h)^2]$ for a symmetric $h$.
2. **Implement** (3 points) `leaky_relu_grad(h, slope)`, the derivative $\phi'(h)$ (1
   for $h > 0$, $\alpha$ otherwise) for NumPy arrays of any shape, and
   `kaiming_std(fan_in, fan_out, slope)` from your formula, without calling PyTorch's
   initialization helpers (`torch.nn.init`), which are unavailable while the tests run.
   The tests compare with your formula's exact value on random widths and slopes, and
   run the backward pass of a 30-layer leaky-ReLU stack of alternating widths with your
   initialization.
```
"""

FANOUT_DERIVATION = r""":::{dropdown} Solution and mark scheme
Backward, $\boldsymbol\delta_{l-1} = \phi'(\mathbf h_{l-1}) \odot
(\boldsymbol\delta_l W_l^\top)$: one entry is a sum over the $n_{\text{out}}$ units of
layer $l$, so under the gradient-independence assumption of {ref}`sec-01-stack`

$$
\operatorname{Var}(\delta_{l-1}) = n_{\text{out}}\,\sigma^2\,
\mathbb E\big[\phi'(h)^2\big]\,\operatorname{Var}(\delta_l).
$$

For a symmetric $h$ each sign has probability $\tfrac12$, and $\phi'$ is 1 on one side
and $\alpha$ on the other, so
$\mathbb E[\phi'(h)^2] = \tfrac12 + \tfrac12\alpha^2 = \frac{1 + \alpha^2}{2}$ (whatever
the variance of $h$). The factor is 1 when

$$
\sigma = \sqrt{\frac{2}{(1 + \alpha^2)\, n_{\text{out}}}} ,
$$

the fan-in formula with $n_{\text{out}}$ in place of $n_{\text{in}}$: the fan-in does
not enter. For $\alpha = 0$ it is He et al.'s $\sqrt{2/n_{\text{out}}}$; for square
layers the forward and backward choices agree.

**Mark scheme (2 points).** 1 pt: the backward recursion with the sum over
$n_{\text{out}}$ and $\mathbb E[\phi'(h)^2] = \tfrac{1+\alpha^2}{2}$; 1 pt: solving for
$\sigma$ with $n_{\text{out}}$, and checking a special case ($\alpha = 0$, $\alpha = 1$
or a square layer).
:::
"""

FANOUT_SOLUTION = '''\
def leaky_relu_grad(h, slope):
    """The derivative of leaky ReLU: 1 where h > 0, slope elsewhere (any shape)."""
    ### BEGIN SOLUTION
    return np.where(h > 0, 1.0, slope)
    ### END SOLUTION


def kaiming_std(fan_in, fan_out, slope=0.0):
    """Standard deviation of N(0, std^2) weights that preserves the gradients."""
    ### BEGIN SOLUTION
    # the backward pass sums over the fan-out: fan_in does not enter
    return math.sqrt(2.0 / ((1.0 + slope**2) * fan_out))
    ### END SOLUTION
'''

FANOUT_LEAKY_TESTS = """\
import numpy as _np

# visible test: a small example
_out = leaky_relu_grad(_np.array([-2.0, 0.0, 3.0]), 0.1)
_err = float(abs(_out - _np.array([0.1, 0.1, 1.0])).max())
assert _err < 1e-15, f"leaky_relu_grad([-2, 0, 3], 0.1): max error {_err:.1e}"
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(1011)
for _shape in [(7,), (3, 5), (2, 3, 4)]:
    _h = _rng.standard_normal(_shape) * 3
    _slope = float(_rng.uniform(0, 1))
    _out = leaky_relu_grad(_h.copy(), _slope)
    assert isinstance(_out, _np.ndarray) and _out.shape == _shape, "wrong type or shape"
    _ref = (_h > 0) + (_h <= 0) * _slope
    _err = float(abs(_out - _ref).max())
    assert _err < 1e-12, f"leaky_relu_grad on shape {_shape}: max error {_err:.1e}"
### END HIDDEN TESTS
print("leaky_relu_grad: tests passed")
"""

FANOUT_STD_TESTS = """\
import math as _math


def _std(*_args):
    # kaiming_std with torch.nn.init's functions unavailable: use your own formula
    return _call_without(("torch.nn.init",), kaiming_std, *_args)


# visible test: the backward pass of a 30-layer leaky-ReLU stack of widths 256 and
# 384 in turn keeps the second moment of dL/dh (up to the drift of a finite width)
_rng = _np.random.default_rng(10)
_widths = [256, 384] * 15 + [256]
_a, _slopes, _weights = _rng.standard_normal((512, 256)), [], []
for _n, _m in zip(_widths[:-1], _widths[1:]):
    _weights.append(_std(_n, _m, 0.5) * _rng.standard_normal((_n, _m)))
    _h = _a @ _weights[-1]
    _slopes.append((_h > 0) + 0.5 * (_h <= 0))
    _a = _h * _slopes[-1]
_d = _rng.standard_normal(_h.shape) * _slopes[-1]  # dL/dh at the top
_moments = [float((_d**2).mean())]
for _l in range(29, 0, -1):
    _d = (_d @ _weights[_l].T) * _slopes[_l - 1]
    _moments.append(float((_d**2).mean()))
_r = _moments[-1] / _moments[0]
assert 0.5 < _r < 2, f"30 layers changed the gradients' moment by {_r:.3g}, expected ~1"
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(1012)
for _ in range(20):
    _fan_in, _fan_out = (int(_v) for _v in _rng.integers(1, 5000, 2))
    _slope = float(_rng.uniform(0, 1))
    _ref = _math.sqrt(2.0 / ((1.0 + _slope**2) * _fan_out))
    _out = float(_std(_fan_in, _fan_out, _slope))
    _err = abs(_out - _ref) / _ref
    assert _err < 1e-10, (
        f"kaiming_std({_fan_in}, {_fan_out}, {_slope:.3f}): relative error {_err:.1e},"
        " expected < 1e-10"
    )
### END HIDDEN TESTS
print("kaiming_std: tests passed")
"""

RRELU_TASK = r"""## Exercises

(sec-01-ex1)=
### Exercise 1.1: Kaiming initialization for randomized leaky ReLU (5 points)

```{admonition} Task
Randomized leaky ReLU (RReLU) is $\phi(h) = h$ for $h > 0$ and $\phi(h) = \alpha h$
otherwise, where in training every entry draws its own slope
$\alpha \sim \mathcal U(l, u)$, $0 \le l \le u \le 1$, independently of $h$ and of the
other entries. In evaluation it uses the mean slope $(l + u)/2$ instead.

1. **Derive** (answer cell below, 2 points) the weight standard deviation $\sigma$, as a
   function of the fan-in $n$ and of $l$ and $u$, that keeps the second moment of the
   pre-activations constant through a deep stack *in training*. Hint: compute
   $\mathbb E[\phi(h)^2]$ for a symmetric $h$ with variance $v$ and a random slope.
2. **Implement** (3 points) `rrelu_eval(h, lower, upper)`, the evaluation-mode
   activation, for NumPy arrays of any shape, and `kaiming_std(fan_in, lower, upper)`
   from your formula, without calling PyTorch's initialization helpers
   (`torch.nn.init`), which are unavailable while the tests run. The tests compare with
   your formula's exact value on random fan-ins and slope ranges, and run a 30-layer
   RReLU stack in training mode (a fresh random slope per entry) with your
   initialization.
```
"""

RRELU_DERIVATION = r""":::{dropdown} Solution and mark scheme
For a symmetric $h$ with variance $v$, each sign has probability $\tfrac12$, and by
symmetry $\mathbb E[h^2 \mid h > 0] = \mathbb E[h^2 \mid h < 0] = v$. The slope is
independent of $h$, so on the negative side
$\mathbb E[\alpha^2 h^2 \mid h < 0] = \mathbb E[\alpha^2]\, v$, with, for
$\alpha \sim \mathcal U(l, u)$,

$$
\mathbb E[\alpha^2] = \frac{1}{u - l}\int_l^u a^2\, da = \frac{l^2 + lu + u^2}{3}
$$

(the variance $(u-l)^2/12$ plus the squared mean $(l+u)^2/4$). So
$\mathbb E[\phi(h)^2] = \tfrac12 \big(1 + \mathbb E[\alpha^2]\big) v$, and the next
pre-activation keeps the variance $v$ when

$$
\sigma = \sqrt{\frac{2}{\big(1 + \frac{l^2 + lu + u^2}{3}\big)\, n}} .
$$

For $l = u = \alpha$ this is the leaky-ReLU formula $\sqrt{2/((1+\alpha^2) n)}$; note
that it is *not* the leaky formula at the mean slope $(l+u)/2$, since
$\mathbb E[\alpha^2] > (\mathbb E\alpha)^2$ when $l < u$.

**Mark scheme (2 points).** 1 pt:
$\mathbb E[\phi(h)^2] = \tfrac12(1 + \mathbb E[\alpha^2])v$ with
$\mathbb E[\alpha^2] = (l^2 + lu + u^2)/3$; 1 pt: solving for $\sigma$ and checking a
special case ($l = u$, or $l = u = 0$ for ReLU).
:::
"""

RRELU_SOLUTION = '''\
def rrelu_eval(h, lower, upper):
    """RReLU in evaluation mode: h where h > 0, (lower + upper) / 2 * h elsewhere."""
    ### BEGIN SOLUTION
    return np.where(h > 0, h, 0.5 * (lower + upper) * h)
    ### END SOLUTION


def kaiming_std(fan_in, lower, upper):
    """Standard deviation of N(0, std^2) weights for RReLU in training mode."""
    ### BEGIN SOLUTION
    mean_square_slope = (lower**2 + lower * upper + upper**2) / 3.0  # E[alpha^2]
    return math.sqrt(2.0 / ((1.0 + mean_square_slope) * fan_in))
    ### END SOLUTION
'''

RRELU_LEAKY_TESTS = """\
import numpy as _np

# visible test: a small example
_out = rrelu_eval(_np.array([-2.0, 0.0, 3.0]), 0.1, 0.3)
_err = float(abs(_out - _np.array([-0.4, 0.0, 3.0])).max())
assert _err < 1e-15, f"rrelu_eval([-2, 0, 3], 0.1, 0.3): max error {_err:.1e}"
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(1011)
for _shape in [(7,), (3, 5), (2, 3, 4)]:
    _h = _rng.standard_normal(_shape) * 3
    _lower, _upper = sorted(float(_v) for _v in _rng.uniform(0, 1, 2))
    _out = rrelu_eval(_h.copy(), _lower, _upper)
    assert isinstance(_out, _np.ndarray) and _out.shape == _shape, "wrong type or shape"
    _ref = _h * ((_h > 0) + (_h <= 0) * (_lower + _upper) / 2)
    _err = float(abs(_out - _ref).max())
    assert _err < 1e-12, f"rrelu_eval on shape {_shape}: max error {_err:.1e}"
### END HIDDEN TESTS
print("rrelu_eval: tests passed")
"""

RRELU_STD_TESTS = """\
import math as _math


def _std(*_args):
    # kaiming_std with torch.nn.init's functions unavailable: use your own formula
    return _call_without(("torch.nn.init",), kaiming_std, *_args)


# visible test: a 30-layer RReLU stack in training mode (slopes U(0.1, 0.9), a fresh
# one per entry) keeps the second moment of its pre-activations (up to the random
# drift of a finite width)
_rng = _np.random.default_rng(10)
_a = _rng.standard_normal((512, 256))
_moments = []
for _ in range(30):
    _h = _a @ (_std(256, 0.1, 0.9) * _rng.standard_normal((256, 256)))
    _moments.append(float((_h**2).mean()))
    _a = _h * ((_h > 0) + _rng.uniform(0.1, 0.9, _h.shape) * (_h <= 0))
_r = _moments[-1] / _moments[0]
assert 0.5 < _r < 2, f"30 layers changed the second moment by {_r:.3g}, expected ~1"
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(1012)
for _ in range(20):
    _fan_in = int(_rng.integers(1, 5000))
    _lower, _upper = sorted(float(_v) for _v in _rng.uniform(0, 1, 2))
    _ref = _math.sqrt(
        2.0 / ((1.0 + (_lower**2 + _lower * _upper + _upper**2) / 3) * _fan_in)
    )
    _out = float(_std(_fan_in, _lower, _upper))
    _err = abs(_out - _ref) / _ref
    assert _err < 1e-10, (
        f"kaiming_std({_fan_in}, {_lower:.3f}, {_upper:.3f}): relative error"
        f" {_err:.1e}, expected < 1e-10"
    )
### END HIDDEN TESTS
print("kaiming_std: tests passed")
"""

BGAIN_TASK = r"""(sec-01-ex2)=
### Exercise 1.2: the backward-preserving gain and its forward factor (7 points)

```{admonition} Task
For a smooth activation like tanh the "linear range" argument of {ref}`sec-01-stack` is
only approximate. A cleaner rule, this time for the gradients: choose $g$ so that if the
pre-activations of one layer are $\mathcal N(0, 1)$, each layer multiplies the variance
of the backward signal by 1, i.e.
$g^2\, \mathbb E_{z \sim \mathcal N(0,1)}[\phi'(z)^2] = 1$. Call it the
*backward-preserving gain*. It says nothing about the forward signal: at that gain a
layer multiplies the second moment of $\mathcal N(0, 1)$ pre-activations by the
**forward factor** $\rho = g^2\, \mathbb E_{z}[\phi(z)^2]$.

1. (2 points) Implement `backward_gain(dphi)`, where `dphi` is the (vectorized)
   derivative $\phi'$ of the activation.
2. (2 points) Implement `forward_factor(phi, gain)` for a vectorized activation `phi`.

Compute the expectations with Gauss–Hermite quadrature
(`np.polynomial.hermite_e.hermegauss`, whose weights sum to $\sqrt{2\pi}$, so divide
them by $\sqrt{2\pi}$); the tests ask for a relative error below $10^{-6}$ on
activations you have not seen, which a Monte Carlo average cannot reach.

3. (3 points, answer cell below) Evaluate both for tanh. Layer after layer, the second
   moment $q$ of the pre-activations follows
   $q \mapsto g^2\,\mathbb E[\tanh(\sqrt q\, z)^2]$: where does it settle at that gain,
   and what is the backward factor $g^2\,\mathbb E[\tanh'(\sqrt q\, z)^2]$ there? By
   what factor does the gradient's standard deviation then grow over 49 layers? Why can
   ReLU satisfy both conditions with one gain and tanh cannot?
```
"""

BGAIN_SOLUTION = '''\
def backward_gain(dphi, n_nodes=101):
    """g with g^2 * E[dphi(z)^2] = 1 for z ~ N(0, 1)."""
    ### BEGIN SOLUTION
    z, w = np.polynomial.hermite_e.hermegauss(n_nodes)
    mean_square_slope = np.sum(w * dphi(z) ** 2) / math.sqrt(2 * math.pi)
    return 1.0 / math.sqrt(mean_square_slope)
    ### END SOLUTION


def forward_factor(phi, gain, n_nodes=101):
    """rho = gain^2 * E[phi(z)^2] for z ~ N(0, 1)."""
    ### BEGIN SOLUTION
    z, w = np.polynomial.hermite_e.hermegauss(n_nodes)
    return gain**2 * np.sum(w * phi(z) ** 2) / math.sqrt(2 * math.pi)
    ### END SOLUTION


g_tanh = backward_gain(lambda z: 1 - np.tanh(z) ** 2)
rho_tanh = forward_factor(np.tanh, g_tanh)
print(f"tanh: backward-preserving gain {g_tanh:.4f}, forward factor {rho_tanh:.4f}")
q = 1.0  # the second moment of the pre-activations, layer after layer
for _ in range(100):
    q = forward_factor(lambda z, q=q: np.tanh(math.sqrt(q) * z), g_tanh)
chi_q = g_tanh**2 / backward_gain(lambda z: 1 - np.tanh(math.sqrt(q) * z) ** 2) ** 2
print(f"settles at q = {q:.4f}, backward factor there {chi_q:.4f}")
print(f"gradient std over 49 layers: x {chi_q**24.5:.3g}")
'''

BGAIN_GAIN_TESTS = """\
import math as _math

import numpy as _np

# visible tests: two exact gains, and one tanh layer at N(0, 1)
_err = abs(backward_gain(lambda z: _np.ones_like(z)) - 1.0)
assert _err < 1e-6, f"identity: gain off by {_err:.1e}, expected 1"
_err = abs(backward_gain(lambda z: 2 * z) - 0.5)  # phi = z^2: E[(2 z)^2] = 4
assert _err < 1e-6, f"phi = z^2: gain off by {_err:.1e}, expected 1/2"
_g = float(backward_gain(lambda z: 1 - _np.tanh(z) ** 2))
_rng = _np.random.default_rng(12)
_h, _d = _rng.standard_normal((2, 512, 256))  # N(0, 1) pre-activations, a unit signal
_d = (_d @ (_g / 16 * _rng.standard_normal((256, 256))).T) * (1 - _np.tanh(_h) ** 2)
_m = float((_d**2).mean())
assert 0.9 < _m < 1.1, f"a tanh layer at your gain: E[delta^2] = {_m:.3f}, expected ~1"
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(1021)
for _ in range(5):  # dphi(z) = c cos(c z): E[dphi^2] = c^2 (1 + exp(-2 c^2)) / 2
    _c = float(_rng.uniform(0.3, 2.0))
    _ref = 1 / _math.sqrt(_c**2 * (1 + _math.exp(-2 * _c**2)) / 2)
    _out = float(backward_gain(lambda z, c=_c: c * _np.cos(c * z)))
    _err = abs(_out - _ref) / _ref
    assert _err < 1e-6, f"c cos(c z), c={_c:.3f}: relative error {_err:.1e}"
for _ in range(5):  # dphi(z) = p + q z: E[dphi^2] = p^2 + q^2
    _p, _q = _rng.uniform(-2, 2, 2)
    _ref = 1 / _math.sqrt(_p**2 + _q**2)
    _out = float(backward_gain(lambda z, p=_p, q=_q: p + q * z))
    _err = abs(_out - _ref) / _ref
    assert _err < 1e-6, f"{_p:.2f} + {_q:.2f} z: relative error {_err:.1e}"
### END HIDDEN TESTS
print("backward_gain: tests passed")
"""

BGAIN_BACKWARD_TESTS = """\
# visible tests: the identity at gain 1, and phi(z) = z^2 (E[z^4] = 3) at gain 1
_out = float(forward_factor(lambda z: z, 1.0))
assert abs(_out - 1) < 1e-9, (
    f"identity at gain 1: forward factor {_out:.6f}, expected 1"
)
_out = float(forward_factor(lambda z: z**2, 1.0))
assert abs(_out - 3) < 1e-8, (
    f"phi = z^2 at gain 1: forward factor {_out:.6f}, expected 3"
)
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(1022)
for _ in range(5):  # phi(z) = sin(c z): E[phi^2] = (1 - exp(-2 c^2)) / 2
    _c, _g = float(_rng.uniform(0.3, 2.0)), float(_rng.uniform(0.5, 3.0))
    _ref = _g**2 * (1 - _math.exp(-2 * _c**2)) / 2
    _out = float(forward_factor(lambda z, c=_c: _np.sin(c * z), _g))
    _err = abs(_out - _ref) / _ref
    assert _err < 1e-6, (
        f"sin(c z), c={_c:.3f}, gain {_g:.3f}: relative error {_err:.1e}"
    )
for _ in range(5):  # phi(z) = p z + q z^2: E[phi^2] = p^2 + 3 q^2
    _p, _q = _rng.uniform(-2, 2, 2)
    _g = float(_rng.uniform(0.5, 3.0))
    _ref = _g**2 * (_p**2 + 3 * _q**2)
    _out = float(forward_factor(lambda z, p=_p, q=_q: p * z + q * z**2, _g))
    _err = abs(_out - _ref) / _ref
    assert _err < 1e-6, f"{_p:.2f} z + {_q:.2f} z^2: relative error {_err:.1e}"
### END HIDDEN TESTS
print("forward_factor: tests passed")
"""

BGAIN_ANSWER = r""":::{dropdown} Solution and mark scheme
The solution cell prints $g \approx 1.467$ and $\rho \approx 0.849$ for tanh: the gain
that holds the gradients at $q = 1$ is below the forward-preserving gain of about 1.59,
so the forward signal shrinks, by about 15 % in the first layer.

Iterating the length map from $q = 1$ gives 0.849, 0.785, 0.755, … and, within about ten
layers, the fixed point $q^\ast \approx 0.725$ of
$q = g^2\,\mathbb E[\tanh(\sqrt q\, z)^2]$. There the signal sits closer to tanh's
linear range, where the slopes are larger, and the backward factor is
$\chi \approx 1.126$, not 1: the gain was tuned for $q = 1$, which the signal leaves.
The gradient's standard deviation grows by $\chi^{49/2} \approx 18$ over 49 layers (less
than the factor 55 at the forward-preserving gain, but not 1). Since $g > 1$, the stack
is in the chaotic phase of {cite:t}`schoenholz2017deep`: only $g = 1$ would hold the
gradients, at a forward signal that decays toward zero.

ReLU is positively homogeneous, so the forward factor
$g^2\,\mathbb E[\operatorname{relu}(h)^2]/q = g^2/2$ does not depend on the scale $q$,
and $\mathbb E[\operatorname{relu}'^2] = \tfrac12$ too: both factors equal $g^2/2$, and
$g = \sqrt2$ makes both 1 at every $q$. Tanh's slope depends on where the signal sits,
so the two factors differ, and fixing one moves the signal to where the other is off.

**Mark scheme (3 points).** 1 pt: the two values ($g \approx 1.47$,
$\rho \approx 0.85$); 1 pt: the settled $q^\ast \approx 0.72$ with $\chi \approx 1.13$
there and a growth of about 18 (accept 15 to 22); 1 pt: the homogeneity argument for
ReLU.
:::
"""

SCALE_TASK = r"""(sec-01-ex2)=
### Exercise 1.2: the forward-preserving gain at a given scale (7 points)

```{admonition} Task
For a smooth activation like tanh the "linear range" argument of {ref}`sec-01-stack` is
only approximate, and what a tanh layer does depends on the scale of its input. A
cleaner forward rule for a signal of second moment $q$: choose $g$ so that if the
pre-activations of one layer are $\mathcal N(0, q)$, those of the next layer again have
second moment $q$, i.e.
$g^2\, \mathbb E_{z \sim \mathcal N(0,1)}[\phi(\sqrt q\, z)^2] = q$. Call it the
*forward-preserving gain at $q$*. It says nothing about gradients: at that gain each
layer multiplies the variance of the backward signal by the **backward factor**
$\chi = g^2\, \mathbb E_{z}[\phi'(\sqrt q\, z)^2]$.

1. (2 points) Implement `forward_gain(phi, q)` for a vectorized activation `phi`.
2. (2 points) Implement `backward_factor(dphi, gain, q)`, where `dphi` is the derivative
   $\phi'$.

Compute the expectations with Gauss–Hermite quadrature
(`np.polynomial.hermite_e.hermegauss`, whose weights sum to $\sqrt{2\pi}$, so divide
them by $\sqrt{2\pi}$); the tests ask for a relative error below $10^{-6}$ on
activations and scales you have not seen, which a Monte Carlo average cannot reach.

3. (3 points, answer cell below) Evaluate both for tanh at $q = 0.25$, $1$ and $4$. By
   what factor does the gradient's standard deviation grow over 49 layers at each? For
   which $q$, and which gain, would $\chi$ be 1? Why do ReLU's gain and backward factor
   not depend on $q$, and tanh's do?
```
"""

SCALE_SOLUTION = '''\
def forward_gain(phi, q, n_nodes=101):
    """g with g^2 * E[phi(sqrt(q) z)^2] = q for z ~ N(0, 1)."""
    ### BEGIN SOLUTION
    z, w = np.polynomial.hermite_e.hermegauss(n_nodes)
    second_moment = np.sum(w * phi(math.sqrt(q) * z) ** 2) / math.sqrt(2 * math.pi)
    return math.sqrt(q / second_moment)
    ### END SOLUTION


def backward_factor(dphi, gain, q, n_nodes=101):
    """chi = gain^2 * E[dphi(sqrt(q) z)^2] for z ~ N(0, 1)."""
    ### BEGIN SOLUTION
    z, w = np.polynomial.hermite_e.hermegauss(n_nodes)
    return gain**2 * np.sum(w * dphi(math.sqrt(q) * z) ** 2) / math.sqrt(2 * math.pi)
    ### END SOLUTION


for q in [0.25, 1.0, 4.0]:
    g_tanh = forward_gain(np.tanh, q)
    chi_tanh = backward_factor(lambda z: 1 - np.tanh(z) ** 2, g_tanh, q)
    print(
        f"tanh at q = {q}: forward-preserving gain {g_tanh:.4f}, backward factor "
        f"{chi_tanh:.4f}, gradient std over 49 layers x {chi_tanh**24.5:.3g}"
    )
'''

SCALE_GAIN_TESTS = """\
import math as _math

import numpy as _np

# visible tests: two gains from the chapter (at any scale), and a 50-layer tanh stack
_err = abs(forward_gain(lambda z: z, 0.5) - 1.0)
assert _err < 1e-6, f"identity at q = 0.5: gain off by {_err:.1e}, expected 1"
_err = abs(forward_gain(lambda z: z * (z > 0), 3.0) - _math.sqrt(2)) / _math.sqrt(2)
assert _err < 1e-2, f"ReLU at q = 3: relative error {_err:.1e} against sqrt(2)"
_g = float(forward_gain(_np.tanh, 4.0))
_rng = _np.random.default_rng(12)
_a = _rng.standard_normal((512, 256))
for _ in range(50):
    _h = _a @ (_g / 16 * _rng.standard_normal((256, 256)))
    _a = _np.tanh(_h)
_m = float((_h**2).mean())
assert 3.2 < _m < 5, f"50 tanh layers at your gain for q = 4: E[h^2] = {_m:.3f}"
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(1021)
for _ in range(5):  # phi(z) = sin(c z): E[phi(sqrt(q) z)^2] = (1 - exp(-2 c^2 q)) / 2
    _c, _q = float(_rng.uniform(0.3, 1.5)), float(_rng.uniform(0.25, 4.0))
    _ref = _math.sqrt(_q / ((1 - _math.exp(-2 * _c**2 * _q)) / 2))
    _out = float(forward_gain(lambda z, c=_c: _np.sin(c * z), _q))
    _err = abs(_out - _ref) / _ref
    assert _err < 1e-6, (
        f"sin({_c:.3f} z) at q = {_q:.3f}: relative error {_err:.1e}, expected < 1e-6"
    )
for _ in range(5):  # phi(z) = a z + b z^2: E[phi(sqrt(q) z)^2] = a^2 q + 3 b^2 q^2
    _p, _s = _rng.uniform(-2, 2, 2)
    _q = float(_rng.uniform(0.25, 4.0))
    _ref = _math.sqrt(_q / (_p**2 * _q + 3 * _s**2 * _q**2))
    _out = float(forward_gain(lambda z, p=_p, s=_s: p * z + s * z**2, _q))
    _err = abs(_out - _ref) / _ref
    assert _err < 1e-6, f"{_p:.2f} z + {_s:.2f} z^2 at q = {_q:.3f}: error {_err:.1e}"
### END HIDDEN TESTS
print("forward_gain: tests passed")
"""

SCALE_BACKWARD_TESTS = """\
# visible tests: the identity at gain 1, and phi(z) = z^2 (phi' = 2 z) at gain 1, q = 2
_out = float(backward_factor(lambda z: _np.ones_like(z), 1.0, 0.5))
assert abs(_out - 1) < 1e-9, (
    f"identity at gain 1, q = 0.5: backward factor {_out:.6f}, expected 1"
)
_out = float(backward_factor(lambda z: 2 * z, 1.0, 2.0))
assert abs(_out - 8) < 1e-8, (
    f"phi = z^2 at gain 1, q = 2: backward factor {_out:.6f}, expected 8"
)
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(1022)
# dphi(z) = c cos(c z): E[dphi(sqrt(q) z)^2] = c^2 (1 + exp(-2 c^2 q)) / 2
for _ in range(5):
    _c, _g = float(_rng.uniform(0.3, 1.5)), float(_rng.uniform(0.5, 3.0))
    _q = float(_rng.uniform(0.25, 4.0))
    _ref = _g**2 * _c**2 * (1 + _math.exp(-2 * _c**2 * _q)) / 2
    _out = float(backward_factor(lambda z, c=_c: c * _np.cos(c * z), _g, _q))
    _err = abs(_out - _ref) / _ref
    assert _err < 1e-6, (
        f"c cos(c z), c={_c:.3f}, gain {_g:.3f}, q = {_q:.3f}: error {_err:.1e}"
    )
for _ in range(5):  # dphi(z) = a + b z: E[dphi(sqrt(q) z)^2] = a^2 + b^2 q
    _p, _s = _rng.uniform(-2, 2, 2)
    _g, _q = float(_rng.uniform(0.5, 3.0)), float(_rng.uniform(0.25, 4.0))
    _ref = _g**2 * (_p**2 + _s**2 * _q)
    _out = float(backward_factor(lambda z, p=_p, s=_s: p + s * z, _g, _q))
    _err = abs(_out - _ref) / _ref
    assert _err < 1e-6, f"{_p:.2f} + {_s:.2f} z at q = {_q:.3f}: error {_err:.1e}"
### END HIDDEN TESTS
print("backward_factor: tests passed")
"""

SCALE_ANSWER = r""":::{dropdown} Solution and mark scheme
The solution cell prints, for tanh:

| $q$ | gain $g$ | $\chi$ | $\chi^{49/2}$ |
| --- | --- | --- | --- |
| 0.25 | 1.200 | 1.034 | 2.2 |
| 1 | 1.593 | 1.178 | 55 |
| 4 | 2.509 | 1.612 | $1.2 \times 10^5$ |

The gradient's *variance* is multiplied by $\chi$ per layer, its standard deviation by
$\sqrt\chi$, hence $\chi^{49/2}$ over 49 layers. The larger the signal, the further it
reaches into tanh's flat tails, the larger the gain needed to hold it, and the more the
gradients grow: the stack is chaotic at every $q > 0$.

$\chi = 1$ only in the limit $q \to 0$, where tanh is the identity on the whole signal,
$g \to 1$ and $\chi \to 1$: the order/chaos boundary $g = 1$ of
{cite:t}`schoenholz2017deep`. There the forward signal is a vanishing one (the Xavier +
tanh row of the tables decays slowly toward zero), so no scale $q > 0$ holds both the
activations and the gradients.

ReLU is positively homogeneous: $\mathbb E[\operatorname{relu}(\sqrt q\, z)^2] = q/2$,
so $g = \sqrt2$ at every $q$, and $\operatorname{relu}'$ does not depend on the scale at
all, $\mathbb E[\operatorname{relu}'^2] = \tfrac12$, so $\chi = 1$ at every $q$. Tanh's
slope depends on where the signal sits, so both its numbers move with $q$.

**Mark scheme (3 points).** 1 pt: the three pairs of values with the growth factors (the
order of magnitude of each); 1 pt: $\chi = 1$ only as $q \to 0$, with $g \to 1$ and the
vanishing forward signal there; 1 pt: the homogeneity argument for ReLU.
:::
"""

SLOPE_TASK = r"""(sec-01-ex2)=
### Exercise 1.2: the forward-preserving gain and its stability (7 points)

```{admonition} Task
For a smooth activation like tanh the "linear range" argument of {ref}`sec-01-stack` is
only approximate. A cleaner forward rule: choose $g$ so that if the pre-activations of
one layer are $\mathcal N(0, 1)$, those of the next layer again have second moment 1,
i.e. $g^2\, \mathbb E_{z \sim \mathcal N(0,1)}[\phi(z)^2] = 1$. Call it the
*forward-preserving gain*. It makes $q = 1$ a fixed point of the *length map*
$q \mapsto g^2\, \mathbb E_z[\phi(\sqrt q\, z)^2]$, which takes the second moment of one
layer's pre-activations to the next one's; whether a stack returns to that fixed point
after a small error in the scale depends on the map's slope there,
$\lambda = g^2\, \mathbb E_{z}[z\, \phi(z)\, \phi'(z)]$ (differentiate under the
expectation at $q = 1$).

1. (2 points) Implement `forward_gain(phi)` for a vectorized activation `phi`.
2. (2 points) Implement `length_map_slope(phi, dphi, gain)`, where `dphi` is the
   derivative $\phi'$.

Compute the expectations with Gauss–Hermite quadrature
(`np.polynomial.hermite_e.hermegauss`, whose weights sum to $\sqrt{2\pi}$, so divide
them by $\sqrt{2\pi}$); the tests ask for a relative error below $10^{-6}$ on
activations you have not seen, which a Monte Carlo average cannot reach.

3. (3 points, answer cell below) Evaluate both for tanh. A stack at that gain receives
   pre-activations whose second moment is 10 % too large: how large is the error 10
   layers later, and is the fixed point stable? What is $\lambda$ for ReLU at
   $g = \sqrt 2$, and what does it mean for the scale of a deep ReLU stack's signal?
```
"""

SLOPE_SOLUTION = '''\
def forward_gain(phi, n_nodes=101):
    """g with g^2 * E[phi(z)^2] = 1 for z ~ N(0, 1)."""
    ### BEGIN SOLUTION
    z, w = np.polynomial.hermite_e.hermegauss(n_nodes)
    second_moment = np.sum(w * phi(z) ** 2) / math.sqrt(2 * math.pi)
    return 1.0 / math.sqrt(second_moment)
    ### END SOLUTION


def length_map_slope(phi, dphi, gain, n_nodes=101):
    """lambda = gain^2 * E[z phi(z) dphi(z)] for z ~ N(0, 1)."""
    ### BEGIN SOLUTION
    # d/dq E[phi(sqrt(q) z)^2] = E[phi(sqrt(q) z) dphi(sqrt(q) z) z / sqrt(q)]
    z, w = np.polynomial.hermite_e.hermegauss(n_nodes)
    return gain**2 * np.sum(w * z * phi(z) * dphi(z)) / math.sqrt(2 * math.pi)
    ### END SOLUTION


g_tanh = forward_gain(np.tanh)
slope_tanh = length_map_slope(np.tanh, lambda z: 1 - np.tanh(z) ** 2, g_tanh)
print(f"tanh: forward-preserving gain {g_tanh:.4f}, length-map slope {slope_tanh:.4f}")
print(f"a 10% error in the second moment, 10 layers later: {0.1 * slope_tanh**10:.1e}")
'''

SLOPE_BACKWARD_TESTS = """\
# visible tests: the identity at gain 1 (E[z^2] = 1), phi(z) = z^2 (E[2 z^4] = 6) at
# gain 1, and ReLU at gain sqrt(2)
_out = float(length_map_slope(lambda z: z, lambda z: _np.ones_like(z), 1.0))
assert abs(_out - 1) < 1e-9, f"identity at gain 1: slope {_out:.6f}, expected 1"
_out = float(length_map_slope(lambda z: z**2, lambda z: 2 * z, 1.0))
assert abs(_out - 6) < 1e-8, f"phi = z^2 at gain 1: slope {_out:.6f}, expected 6"
_out = float(length_map_slope(lambda z: z * (z > 0), lambda z: 1.0 * (z > 0), 2**0.5))
assert abs(_out - 1) < 1e-2, f"ReLU at gain sqrt(2): slope {_out:.6f}, expected 1"
### BEGIN HIDDEN TESTS
_rng = _np.random.default_rng(1022)
for _ in range(5):  # phi = sin(c z), dphi = c cos(c z): E[z phi dphi] = c^2 exp(-2 c^2)
    _c, _g = float(_rng.uniform(0.3, 1.2)), float(_rng.uniform(0.5, 3.0))
    _ref = _g**2 * _c**2 * _math.exp(-2 * _c**2)
    _out = float(
        length_map_slope(
            lambda z, c=_c: _np.sin(c * z), lambda z, c=_c: c * _np.cos(c * z), _g
        )
    )
    _err = abs(_out - _ref) / _ref
    assert _err < 1e-6, (
        f"sin(c z), c={_c:.3f}, gain {_g:.3f}: relative error {_err:.1e}"
    )
for _ in range(5):  # phi = p z + q z^2, dphi = p + 2 q z: E[z phi dphi] = p^2 + 6 q^2
    _p, _q = _rng.uniform(-2, 2, 2)
    _g = float(_rng.uniform(0.5, 3.0))
    _ref = _g**2 * (_p**2 + 6 * _q**2)
    _out = float(
        length_map_slope(
            lambda z, p=_p, q=_q: p * z + q * z**2,
            lambda z, p=_p, q=_q: p + 2 * q * z,
            _g,
        )
    )
    _err = abs(_out - _ref) / _ref
    assert _err < 1e-6, f"{_p:.2f} z + {_q:.2f} z^2: relative error {_err:.1e}"
### END HIDDEN TESTS
print("length_map_slope: tests passed")
"""

SLOPE_ANSWER = r""":::{dropdown} Solution and mark scheme
The solution cell prints $g \approx 1.593$ and $\lambda \approx 0.461$ for tanh. Near
the fixed point the length map is linear, $q_{l+1} - 1 \approx \lambda\, (q_l - 1)$, so
an error of 0.1 in the second moment becomes
$0.1 \cdot 0.461^{10} \approx 4 \times 10^{-5}$ after 10 layers (iterating the exact map
gives $4.0 \times 10^{-5}$). $\lambda < 1$: the fixed point is stable, and a tanh
stack at this gain forgets the scale of its input within a few layers. This is tanh's
saturation at work: a larger signal is squashed more, a smaller one less.

For ReLU at $g = \sqrt 2$,

$$
\lambda = 2\,\mathbb E[z \operatorname{relu}(z) \operatorname{relu}'(z)]
= 2\,\mathbb E[z^2\, \mathbb 1_{z > 0}] = 1
$$

exactly. ReLU is positively homogeneous, so the length map is
$q \mapsto \tfrac{g^2}{2} q = q$, the identity: every scale is a fixed point, and none
attracts. A deep ReLU stack at $g = \sqrt 2$ keeps whatever scale its input had, and
nothing pulls back the fluctuations of a finite width, which add up layer after layer
(the random walk of the Kaiming + ReLU rows in {ref}`sec-01-stack`).

**Mark scheme (3 points).** 1 pt: the two values ($g \approx 1.59$,
$\lambda \approx 0.46$); 1 pt: the error $0.1\,\lambda^{10} \approx 4 \times 10^{-5}$
and "stable" because $\lambda < 1$; 1 pt: $\lambda = 1$ for ReLU from its homogeneity,
with every scale a neutral fixed point.
:::
"""

# Exercise 1.5: targeted edits of the Task, the solution, the tests and the answer.
EX5_TASK, EX5_SOLUTION = "8e188e35", "01-ex5-solution"
EX5_STATS, EX5_DIAGNOSE, EX5_ANSWER = (
    "01-ex5-statistics",
    "01-ex5-diagnose",
    "01-ex5-answer",
)

BOOK_ACT_STD_TASK = (
    r'   - `"act_std"`: the standard deviation of $\mathbf a_l$ over all its entries'
    " (`np.std`);\n"
)
BOOK_ACT_STD_SOLUTION = '        "act_std": np.array([a.std() for a in acts]),\n'
BOOK_ACT_STD_REF = '        "act_std": _np.array([float(_a.std()) for _a in _acts]),\n'
BOOK_DIAGNOSE_ACT = (
    '    act = stats["act_std"][-1] / stats["act_std"][0]  # top over first layer\n'
)
BOOK_KEYS = (
    'assert sorted(_out) == ["act_std", "grad_std", "saturated"], '
    'f"keys: {sorted(_out)}"\n'
)
BOOK_GRAD_DIAGNOSE = """\
    act = stats["act_std"][-1] / stats["act_std"][0]  # top over first layer
    grad = stats["grad_std"][0] / stats["grad_std"][-1]  # first layer over top
    if act < 1e-2 or grad < 1e-2:
        return "vanishing"
    if act > 1e2 or grad > 1e2:
        return "exploding"
"""
BOOK_VISIBLE_RELU = """\
# visible tests: ReLU with identity weights passes positive inputs and the readout
# through unchanged; tanh with weights 10 I saturates every unit of inputs +-1
_rng = _np.random.default_rng(15)
_x, _readout = _rng.uniform(0.5, 2.0, (6, 4)), _rng.standard_normal((6, 4))
_out = _statistics(_x, [_np.eye(4)] * 3, "relu", _readout)
assert sorted(_out) == ["act_std", "grad_std", "saturated"], f"keys: {sorted(_out)}"
_compare("relu act_std", _out["act_std"], _np.full(3, _x.std()), 1e-12)
_compare("relu saturated", _out["saturated"], _np.zeros(3), 1e-12)
_compare("relu grad_std", _out["grad_std"], _np.full(3, _readout.std() / 6), 1e-12)
"""
BOOK_PLAN_RELU = """\
    ("vanishing", "relu", 0.1, 0.4),
    ("vanishing", "relu", 1.0, 1.0),  # Xavier with ReLU, 30 to 40 layers
    ("exploding", "relu", 4.0, 10.0),
    ("exploding", "relu", 4.0, 10.0),
"""
BOOK_SCAN_NOTE = """\
# scan: this generator with seeds 0..299 in place of 1052 (3000 networks), judged by
# the model solution and three other threshold sets: no wrong verdict. Worst margins:
# a vanishing or exploding network changes by 10^3.7 or more (seed 224), a healthy one
# by 10^0.83 at most (seed 184); saturated networks have 63% or more of their units
# saturated on average, healthy ones 6.9% at most in any layer.
"""
BOOK_XAVIER_QUESTION = """\
   chapter's tables justify them? Which verdict does Xavier initialization get with ReLU,
   and why not the verdict it gets with tanh?
"""
BOOK_XAVIER_ANSWER = (
    "**Xavier with ReLU**"
    + r""" is *vanishing*: ReLU zeroes half of the pre-activations, so each layer
keeps half the second moment at $g = 1$, a factor $2^{-49/2} \approx 10^{-7.4}$ in standard
deviation over 50 layers (the solution cell prints the verdict of all eight stacks). With
tanh, whose slope at 0 is 1, $g = 1$ is the linear-range gain and the decay is slow.

**Mark scheme (2 points).** 1 pt: thresholds between the healthy and the broken rows, with
the numbers of the tables that justify them (any threshold that passes the tests, argued);
1 pt: vanishing for Xavier + ReLU, with the half of the variance that ReLU removes per
layer.
"""
)


RMS_BULLET = r"""   - `"act_rms"`: the root mean square
     $\sqrt{\overline{\mathbf a_l^2}}$ over all the entries of $\mathbf a_l$ (the
     second moment, which sets the next layer's variance in {ref}`sec-01-stack`; not the
     standard deviation);
"""

BOOK_GRAD_BULLET = (
    '   - `"grad_std"`: the standard deviation of'
    " $\\partial\\mathcal L / \\partial\\mathbf h_l$.\n"
)
WGRAD_BULLET = r"""   - `"wgrad_std"`: the standard deviation of the weight gradient
     $\partial\mathcal L / \partial W_l = \mathbf a_{l-1}^\top\,
     \partial\mathcal L / \partial\mathbf h_l$, the gradient an optimizer sees.
"""

LEAKY_ANSWER = r"""**Xavier with leaky ReLU** is *vanishing*: for a symmetric
pre-activation of variance $v$, leaky ReLU of slope $\alpha = 0.2$ keeps
$\mathbb E[\phi(h)^2] = \tfrac{1+\alpha^2}{2}v = 0.52\,v$, so at $g = 1$ each layer
keeps 52 % of the second moment, a factor $0.52^{49/2} \approx 10^{-7.0}$ in standard
deviation over 50 layers, almost as bad as ReLU's $2^{-49/2}$. With tanh, whose slope at
0 is 1, $g = 1$ is the linear-range gain and the decay is slow. Leaky ReLU's own Kaiming
gain is $\sqrt{2/(1+\alpha^2)} \approx 1.39$.

**Mark scheme (2 points).** 1 pt: thresholds between the healthy and the broken rows,
with the numbers of the tables that justify them (any threshold that passes the tests,
argued); 1 pt: vanishing for Xavier + leaky ReLU, with the factor
$(1+\alpha^2)/2 = 0.52$ of the second moment that each layer keeps.
"""

WGRAD_ANSWER = r"""**Weight gradients.**
$\partial\mathcal L/\partial W_l = \mathbf a_{l-1}^\top \boldsymbol\delta_l$. In the
regimes the variance calculation covers, the activations change by a factor $(g\sqrt c)$
per layer going up and the backward signal $\boldsymbol\delta_l$ by about the same
factor per layer going down (for ReLU exactly $g^2/2$ in variance both ways; for tanh in
its linear range $g^2$). So $\mathbf a_{l-1} \propto (g\sqrt c)^{l-1}$ and
$\boldsymbol\delta_l \propto (g\sqrt c)^{L-l}$, and their product scales as
$(g\sqrt c)^{L-1}$ in *every* layer: the weight gradients of the first and the last
layer have about the same size whether the network vanishes, explodes or is healthy (the
visible test's vanishing stack has the same weight gradient in all 20 layers). What goes
wrong is their size relative to the weights, which the ratio does not see. The solution
therefore reads the activations, which change by $10^{7}$ or more in the broken stacks.

**Mark scheme (2 points).** 1 pt: thresholds between the healthy and the broken rows,
with the numbers of the tables that justify them (any threshold that passes the tests,
argued); 1 pt: the argument that $\mathbf a_{l-1}$ and $\boldsymbol\delta_l$ change by
inverse factors, so that the weight gradients' ratio between layers stays near 1.
"""


def scan_note(variant):
    return f"""\
# scan ({variant} variant): this generator with seeds 0..59 in place of 1052 (600
# networks): a vanishing or exploding network changes by 10^3.9 or more in what the
# model solution reads, a healthy one by 10^0.81 at most; saturated networks have 63%
# or more of their units saturated on average, healthy ones 6.7% at most in any layer.
"""


ACT_RMS = (
    Edit(
        EX5_TASK,
        BOOK_ACT_STD_TASK,
        RMS_BULLET,
    ),
    Edit(
        EX5_SOLUTION,
        '    """Per layer: std of a_l,',
        '    """Per layer: RMS of a_l,',
    ),
    Edit(
        EX5_SOLUTION,
        BOOK_ACT_STD_SOLUTION,
        '        "act_rms": np.array([np.sqrt(np.mean(a**2)) for a in acts]),\n',
    ),
    Edit(
        EX5_SOLUTION,
        BOOK_DIAGNOSE_ACT,
        '    act = stats["act_rms"][-1] / stats["act_rms"][0]  # top over first '
        "layer\n",
    ),
    Edit(
        EX5_STATS,
        BOOK_KEYS,
        'assert sorted(_out) == ["act_rms", "grad_std", "saturated"], f"keys: '
        '{sorted(_out)}"\n',
    ),
    Edit(
        EX5_STATS,
        '_compare("relu act_std", _out["act_std"], _np.full(3, _x.std()), 1e-12)\n',
        "_rms = float((_x * _x).mean()) ** 0.5\n"
        '_compare("relu act_rms", _out["act_rms"], _np.full(3, _rms), 1e-12)\n',
    ),
    Edit(
        EX5_STATS,
        BOOK_ACT_STD_REF,
        '        "act_rms": _np.array([float((_a * _a).mean()) ** 0.5 for _a in '
        "_acts]),\n",
    ),
    Edit(
        EX5_DIAGNOSE,
        '    "act_std": 0.16 * 0.16**_layers,',
        '    "act_rms": 0.16 * 0.16**_layers,',
    ),
    Edit(
        EX5_DIAGNOSE,
        '    "act_std": 0.8 * _np.exp(0.05 * _np.sin(_layers)),',
        '    "act_rms": 0.8 * _np.exp(0.05 * _np.sin(_layers)),',
    ),
    Edit(EX5_DIAGNOSE, BOOK_SCAN_NOTE, scan_note("RMS")),
    Edit(
        EX5_ANSWER,
        "Xavier + tanh keeps about 0.15 of its activations' standard\ndeviation,",
        "Xavier + tanh keeps about 0.15 of its activations' RMS (for\n"
        "tanh, whose activations have mean about 0, the RMS is the standard "
        "deviation; for\n"
        "ReLU the two differ by a factor of about 1.7 that is the same in every layer "
        "and\n"
        "cancels in a ratio between layers),",
    ),
)

LEAKY = (
    Edit(
        EX5_TASK,
        r"""$\phi$ tanh or ReLU, no
biases, and the loss $\mathcal L = \sum (R \odot \mathbf a_L) / N$ for a readout $R$ of the
shape of $\mathbf a_L$.""",
        r"""$\phi$ tanh or leaky
ReLU of slope 0.2, $\phi(h) = \max(h, 0.2\,h)$, no biases, and the loss
$\mathcal L = \sum (R \odot \mathbf a_L) / N$ for a readout $R$ of the shape of
$\mathbf a_L$.""",
    ),
    Edit(
        EX5_TASK,
        '`activation` is `"tanh"` or `"relu"`',
        '`activation` is `"tanh"` or `"leaky"`',
    ),
    Edit(EX5_TASK, "$|a| > 0.99$; for ReLU, 0;", "$|a| > 0.99$; for leaky ReLU, 0;"),
    Edit(
        EX5_TASK,
        BOOK_XAVIER_QUESTION,
        """\
   chapter's tables justify them? Which verdict does Xavier initialization get with
   leaky ReLU of slope 0.2, and why not the verdict it gets with tanh?
""",
    ),
    Edit(
        EX5_SOLUTION,
        '        a = np.tanh(h) if activation == "tanh" else np.maximum(h, 0.0)\n',
        '        a = np.tanh(h) if activation == "tanh" else np.maximum(h, 0.2 * h)\n',
    ),
    Edit(
        EX5_SOLUTION,
        '        dphi = 1.0 - a**2 if activation == "tanh" else (a > '
        "0).astype(float)\n",
        '        dphi = 1.0 - a**2 if activation == "tanh" else np.where(a > 0, 1.0, '
        "0.2)\n",
    ),
    Edit(
        EX5_SOLUTION,
        "  # ReLU has no flat tail at the top",
        "  # leaky ReLU has no flat tail",
    ),
    Edit(
        EX5_SOLUTION,
        "# The chapter's eight stacks again: 50 layers, one seed (width 128, 64 "
        "examples)\n",
        "# The chapter's eight stacks again, leaky ReLU for ReLU: 50 layers, one seed "
        "(width\n"
        "# 128, 64 examples)\n",
    ),
    Edit(
        EX5_SOLUTION,
        'for activation in ["tanh", "relu"]:',
        'for activation in ["tanh", "leaky"]:',
    ),
    Edit(
        EX5_STATS,
        BOOK_VISIBLE_RELU,
        """\
# visible tests: leaky ReLU with identity weights passes positive inputs and the
# readout through unchanged, and multiplies negative ones by 0.2 per layer; tanh with
# weights 10 I saturates every unit of inputs +-1
_rng = _np.random.default_rng(15)
_x, _readout = _rng.uniform(0.5, 2.0, (6, 4)), _rng.standard_normal((6, 4))
_out = _statistics(_x, [_np.eye(4)] * 3, "leaky", _readout)
assert sorted(_out) == ["act_std", "grad_std", "saturated"], f"keys: {sorted(_out)}"
_compare("leaky act_std", _out["act_std"], _np.full(3, _x.std()), 1e-12)
_compare("leaky saturated", _out["saturated"], _np.zeros(3), 1e-12)
_compare("leaky grad_std", _out["grad_std"], _np.full(3, _readout.std() / 6), 1e-12)
_out = _statistics(-_x, [_np.eye(4)] * 3, "leaky", _readout)
_want = _x.std() * 0.2 ** _np.arange(1.0, 4.0)
_compare("leaky act_std, x < 0", _out["act_std"], _want, 1e-12)
_want = _readout.std() / 6 * 0.2 ** _np.arange(3.0, 0.0, -1.0)
_compare("leaky grad_std, x < 0", _out["grad_std"], _want, 1e-12)
""",
    ),
    Edit(
        EX5_STATS,
        '        _a = _np.tanh(_h) if _activation == "tanh" else _h * (_h > 0)\n',
        '        _a = _np.tanh(_h) if _activation == "tanh" else _h * (0.2 + 0.8 * '
        "(_h > 0))\n",
    ),
    Edit(
        EX5_STATS,
        '        _d = _g * (1 - _a * _a) if _activation == "tanh" else _g * (_a > 0)\n',
        '        _d = _g * (1 - _a * _a if _activation == "tanh" else 0.2 + 0.8 * (_a '
        "> 0))\n",
    ),
    Edit(
        EX5_STATS,
        '    ("relu", [10, 24, 24, 24, 24, 6], 1.4),\n    ("relu", [32] * 8, 0.3),\n',
        '    ("leaky", [10, 24, 24, 24, 24, 6], 1.4),\n    ("leaky", [32] * 8, 0.3),\n',
    ),
    Edit(
        EX5_DIAGNOSE,
        "_kaiming = {  # ReLU, g = sqrt(2): a random walk around a constant",
        "_kaiming = {  # leaky ReLU, g = sqrt(2 / 1.04): a random walk around a "
        "constant",
    ),
    Edit(
        EX5_DIAGNOSE,
        '_check(_kaiming, "healthy", "a 20-layer ReLU stack at gain sqrt(2)")',
        '_check(_kaiming, "healthy", "a 20-layer leaky-ReLU stack at gain sqrt(2 / '
        '1.04)")',
    ),
    Edit(EX5_DIAGNOSE, BOOK_SCAN_NOTE, scan_note("leaky-ReLU")),
    Edit(
        EX5_DIAGNOSE,
        BOOK_PLAN_RELU,
        """\
    ("vanishing", "leaky", 0.1, 0.4),
    ("vanishing", "leaky", 1.0, 1.0),  # Xavier with leaky ReLU, 30 to 40 layers
    ("exploding", "leaky", 4.0, 10.0),
    ("exploding", "leaky", 4.0, 10.0),
""",
    ),
    Edit(
        EX5_DIAGNOSE,
        '    ("healthy", "relu", 2**0.5, 2**0.5),  # Kaiming with ReLU\n',
        '    ("healthy", "leaky", (2 / 1.04) ** 0.5, (2 / 1.04) ** 0.5),  # Kaiming, '
        "leaky\n",
    ),
    Edit(
        EX5_DIAGNOSE,
        '_xavier_relu = _gain == 1.0 and _activation == "relu"',
        '_xavier_relu = _gain == 1.0 and _activation == "leaky"',
    ),
    Edit(
        EX5_ANSWER,
        BOOK_XAVIER_ANSWER,
        LEAKY_ANSWER,
    ),
)

WEIGHT_GRADS = (
    Edit(
        EX5_TASK,
        BOOK_GRAD_BULLET,
        WGRAD_BULLET,
    ),
    Edit(
        EX5_TASK,
        BOOK_XAVIER_QUESTION,
        """\
   chapter's tables justify them? Why can the ratio of the weight gradients of the first
   and the last layer not tell a vanishing network from a healthy one?
""",
    ),
    Edit(
        EX5_SOLUTION,
        "fraction of saturated tanh units, std of dL/dh_l.",
        "fraction of saturated tanh units, std of dL/dW_l.",
    ),
    Edit(
        EX5_SOLUTION,
        '        "grad_std": np.array([d.std() for d in grads]),\n',
        """\
        "wgrad_std": np.array(
            [(a_in.T @ d).std() for a_in, d in zip([x] + acts[:-1], grads)]
        ),  # dL/dW_l = a_{l-1}^T dL/dh_l
""",
    ),
    Edit(
        EX5_SOLUTION,
        BOOK_GRAD_DIAGNOSE,
        """\
    # dL/dW_l = a_{l-1}^T delta_l: where the activations shrink layer by layer, delta
    # grows toward the input by the same factor, so the weight gradients have about
    # one scale in every layer. Only the activations tell the regimes apart.
    act = stats["act_std"][-1] / stats["act_std"][0]  # top over first layer
    if act < 1e-2:
        return "vanishing"
    if act > 1e2:
        return "exploding"
""",
    ),
    Edit(
        EX5_STATS,
        BOOK_KEYS,
        'assert sorted(_out) == ["act_std", "saturated", "wgrad_std"], f"keys: '
        '{sorted(_out)}"\n',
    ),
    Edit(
        EX5_STATS,
        '_compare("relu grad_std", _out["grad_std"], _np.full(3, _readout.std() / 6), '
        "1e-12)\n",
        "_want = _np.full(3, (_x.T @ _readout).std() / 6)  # dL/dW_l = x^T R / N\n"
        '_compare("relu wgrad_std", _out["wgrad_std"], _want, 1e-12)\n',
    ),
    Edit(
        EX5_STATS,
        '        "grad_std": _np.array([float(_d.std()) for _d in _grads]),\n',
        """\
        "wgrad_std": _np.array(
            [float((_p.T @ _d).std()) for _p, _d in zip([_x] + _acts[:-1], _grads)]
        ),
""",
    ),
    Edit(
        EX5_DIAGNOSE,
        '    "grad_std": 1e-3 * 0.16 ** (19 - _layers),\n',
        '    "wgrad_std": 1e-3 * _np.ones(20),  # a_{l-1} shrinks as dL/dh_l grows\n',
    ),
    Edit(
        EX5_DIAGNOSE,
        '    "grad_std": 1e-3 * _np.exp(0.05 * _np.cos(_layers)),\n',
        '    "wgrad_std": 1e-3 * _np.exp(0.05 * _np.cos(_layers)),\n',
    ),
    Edit(EX5_DIAGNOSE, BOOK_SCAN_NOTE, scan_note("weight-gradient")),
    Edit(
        EX5_ANSWER,
        "for the activations (top over first layer) and the\n"
        "gradients (first layer over top).",
        "for the activations (top over first layer); the weight\n"
        "gradients cannot serve (below).",
    ),
    Edit(
        EX5_ANSWER,
        BOOK_XAVIER_ANSWER,
        WGRAD_ANSWER,
    ),
)
EX1_TASK_CELL, EX1_DERIVATION_CELL = "5adc08fe", "01-ex1-derivation"
EX1_SOLUTION_CELL = "01-ex1-solution"
EX1_LEAKY_CELL, EX1_STD_CELL = "01-ex1-leaky-relu", "01-ex1-kaiming-std"
EX2_TASK_CELL, EX2_SOLUTION_CELL = "28389367", "01-ex2-solution"
EX2_GAIN_CELL, EX2_BACKWARD_CELL = "01-ex2-gain", "01-ex2-backward"
EX2_ANSWER_CELL, EX2_FIGURE_CELL = "01-ex2-answer", "43bd42b8"


def ex1(task, derivation, solution, std_tests, leaky_tests=None):
    edits = [
        Edit(EX1_TASK_CELL, EX1_TASK, task),
        Edit(EX1_DERIVATION_CELL, EX1_DERIVATION, derivation),
        Edit(EX1_SOLUTION_CELL, EX1_SOLUTION, solution),
        Edit(EX1_STD_CELL, EX1_STD_TESTS, std_tests),
    ]
    if leaky_tests:
        edits.append(Edit(EX1_LEAKY_CELL, EX1_LEAKY_TESTS, leaky_tests))
    return tuple(edits)


def ex2(task, solution, answer, backward_tests, gain_tests=None):
    edits = [
        Edit(EX2_TASK_CELL, EX2_TASK, task),
        Edit(EX2_SOLUTION_CELL, EX2_SOLUTION, solution),
        Edit(EX2_ANSWER_CELL, EX2_ANSWER, answer),
        Edit(EX2_BACKWARD_CELL, EX2_BACKWARD_TESTS, backward_tests),
    ]
    if gain_tests:
        edits.append(Edit(EX2_GAIN_CELL, EX2_GAIN_TESTS, gain_tests))
    return tuple(edits)


# The interactive figure's text says that Exercise 1.2 computes the forward gain.
BGAIN_FIGURE = (
    Edit(EX2_FIGURE_CELL, "constant ({ref}`sec-01-ex2`), so", "constant, so"),
    Edit(
        EX2_FIGURE_CELL,
        "and {ref}`sec-01-ex2` computes it, together\nwith what it does to the "
        "gradients.",
        "and {ref}`sec-01-ex2` computes the gain\n"
        "that holds the gradients instead, and what it does to the forward signal.",
    ),
)

BANK = {
    "01-ex1": [
        Variant(
            "uniform-bound",
            "the bound b of uniform U(-b, b) weights for leaky ReLU (kaiming_bound)",
            ex1(UNIFORM_TASK, UNIFORM_DERIVATION, UNIFORM_SOLUTION, UNIFORM_STD_TESTS),
        ),
        Variant(
            "fan-out",
            "leaky ReLU's derivative, and the std that preserves the gradients",
            ex1(
                FANOUT_TASK,
                FANOUT_DERIVATION,
                FANOUT_SOLUTION,
                FANOUT_STD_TESTS,
                FANOUT_LEAKY_TESTS,
            ),
        ),
        Variant(
            "rrelu",
            "randomized leaky ReLU: its evaluation mode, and the std for training mode",
            ex1(
                RRELU_TASK,
                RRELU_DERIVATION,
                RRELU_SOLUTION,
                RRELU_STD_TESTS,
                RRELU_LEAKY_TESTS,
            ),
        ),
    ],
    "01-ex2": [
        Variant(
            "backward-gain",
            "the gain that preserves the gradients, and its forward factor",
            ex2(
                BGAIN_TASK,
                BGAIN_SOLUTION,
                BGAIN_ANSWER,
                BGAIN_BACKWARD_TESTS,
                BGAIN_GAIN_TESTS,
            )
            + BGAIN_FIGURE,
        ),
        Variant(
            "scale-q",
            "the forward-preserving gain and backward factor at scale q",
            ex2(
                SCALE_TASK,
                SCALE_SOLUTION,
                SCALE_ANSWER,
                SCALE_BACKWARD_TESTS,
                SCALE_GAIN_TESTS,
            ),
        ),
        Variant(
            "length-map-slope",
            "the forward-preserving gain and the slope of the length map at q = 1",
            ex2(SLOPE_TASK, SLOPE_SOLUTION, SLOPE_ANSWER, SLOPE_BACKWARD_TESTS),
        ),
    ],
    "01-ex5": [
        Variant(
            "act-rms",
            "per-layer statistics with the activations' RMS in place of their std",
            ACT_RMS,
        ),
        Variant(
            "leaky-relu",
            "per-layer statistics and diagnosis for tanh or leaky ReLU (slope 0.2)",
            LEAKY,
        ),
        Variant(
            "weight-grads",
            "statistics with the weight gradients' std; diagnose without dL/dh",
            WEIGHT_GRADS,
        ),
    ],
}
