# The grading harness: one locked cell per chapter, before its exercises. The grader
# (grading/grade.py) runs the grade cells in a process of its own with its own copy of
# this module, so a solution cannot edit it there. References and comparisons use
# private names and ndarray operators only: in a notebook, a solution cell can rebind
# NumPy's functions and the chapter's globals, but not the operators of an array the
# test made itself.
import numpy as _np
import torch as _torch

# Every way to differentiate that torch offers: the tape, torch.func's transforms and
# torch.autograd.functional (which calls the tape, but may be held under other names).
_AUTOGRAD = (
    (_torch.autograd, "backward"),
    (_torch.autograd, "grad"),
    (_torch.Tensor, "backward"),
    *[
        (_torch.func, _n)
        for _n in (
            "grad",
            "grad_and_value",
            "vjp",
            "jvp",
            "jacrev",
            "jacfwd",
            "hessian",
        )
    ],
    *[
        (_torch.autograd.functional, _n)
        for _n in ("vjp", "jvp", "jacobian", "hessian", "vhp", "hvp")
    ],
)


def _unavailable(*_args, **_kwargs):
    raise RuntimeError("this exercise rules out autograd and the chapter's solution")


def _hide(_g, _forbidden, _autograd=True):
    # Make what _forbidden names unavailable: globals of namespace _g
    # ("layernorm_backward"), a module's own functions ("torch.nn.init") or one
    # function of a module ("torch.nn.functional.layer_norm"), and autograd, also
    # under other names in _g. Returns what _restore puts back.
    _hidden = {}
    for _name in _forbidden:
        if "." in _name:
            try:
                _module = __import__(_name, fromlist=["_"])
                for _n, _f in vars(_module).items():
                    if callable(_f) and getattr(_f, "__module__", None) == _name:
                        _hidden[_module, _n] = _f
            except ImportError:
                _path, _, _n = _name.rpartition(".")
                _module = __import__(_path, fromlist=["_"])
                _hidden[_module, _n] = getattr(_module, _n)
        elif _name in _g:
            _hidden[None, _name] = _g[_name]
    if _autograd:
        _hidden.update({(_m, _n): getattr(_m, _n) for _m, _n in _AUTOGRAD})
    _fns = list(_hidden.values())
    _saved = {_k: _v for _k, _v in _g.items() if any(_v is _f for _f in _fns)}
    _g.update(dict.fromkeys(_saved))
    for _m, _n in _hidden:
        if _m is not None:
            setattr(_m, _n, _unavailable)
    return _hidden, _saved


def _restore(_g, _state):
    _hidden, _saved = _state
    _g.update(_saved)
    for (_m, _n), _f in _hidden.items():
        if _m is not None:
            setattr(_m, _n, _f)


def _call_without(_forbidden, _fn, *_args, **_kwargs):
    # Call _fn with autograd and what _forbidden names unavailable.
    _state = _hide(globals(), _forbidden)
    try:
        return _fn(*_args, **_kwargs)
    finally:
        _restore(globals(), _state)


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
