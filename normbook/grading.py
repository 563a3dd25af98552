# The grading harness. Every grade cell that needs it carries this block, so it runs
# where a solution cannot edit it. References and comparisons use private names and
# ndarray operators only: a solution cell can rebind NumPy's functions and the
# chapter's globals, but not the operators of an array the test made itself.
import numpy as _np
import torch as _torch

_AUTOGRAD = (
    (_torch.autograd, "backward"),
    (_torch.autograd, "grad"),
    (_torch.Tensor, "backward"),
)


def _unavailable(*_args, **_kwargs):
    raise RuntimeError("this exercise rules out autograd and the chapter's solution")


def _call_without(_forbidden, _fn, *_args, **_kwargs):
    # Call _fn with autograd and the notebook globals named in _forbidden unavailable.
    _g = globals()
    _saved = {_n: _g[_n] for _n in _forbidden if _n in _g}
    _hooks = [getattr(_m, _n) for _m, _n in _AUTOGRAD]
    try:
        _g.update(dict.fromkeys(_saved))
        for _m, _n in _AUTOGRAD:
            setattr(_m, _n, _unavailable)
        return _fn(*_args, **_kwargs)
    finally:
        _g.update(_saved)
        for (_m, _n), _hook in zip(_AUTOGRAD, _hooks):
            setattr(_m, _n, _hook)


def _normwise_error(_a, _b):
    # The chapters' normwise_error: ||a - b|| / max(1e-8, ||a|| + ||b||).
    def _norm(_t):
        return float((_t * _t).sum()) ** 0.5

    return _norm(_a - _b) / max(1e-8, _norm(_a) + _norm(_b))


def _compare(_name, _got, _ref, _tol, _dtype=_np.float64):
    # _got: a NaN-free ndarray of _ref's shape (and of dtype _dtype unless None),
    # within _tol of _ref in normwise error.
    _kind = type(_got).__name__
    assert type(_got) is _np.ndarray, f"{_name}: expected a NumPy array, got {_kind}"
    assert _got.shape == _ref.shape, (
        f"{_name}: shape {_got.shape}, expected {_ref.shape}"
    )
    assert _dtype is None or _got.dtype == _dtype, (
        f"{_name}: dtype {_got.dtype}, expected {_dtype.__name__}"
    )
    assert (_got == _got).all(), f"{_name}: contains NaN"
    _err = _normwise_error(_got, _ref)
    assert _err < _tol, f"{_name}: normwise error {_err:.1e}, expected < {_tol:.0e}"
