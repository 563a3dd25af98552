"""The grade cells' harness (normbook/grading.py) and the grader's child process
(grading/runner.py) rule out every way torch offers to differentiate."""

import pytest
import torch


from grading import runner as grade_runner
from normbook import grading

pytestmark = pytest.mark.static


def square(t):
    return (t**2).sum()


WAYS = {
    "Tensor.backward": lambda x: square(x).backward(),
    "autograd.grad": lambda x: torch.autograd.grad(square(x), x),
    "func.grad": lambda x: torch.func.grad(square)(x),
    "func.vjp": lambda x: torch.func.vjp(square, x),
    "func.jacrev": lambda x: torch.func.jacrev(square)(x),
    "func.jacfwd": lambda x: torch.func.jacfwd(square)(x),
    "autograd.functional.jacobian": lambda x: torch.autograd.functional.jacobian(
        square, x
    ),
    "autograd.functional.vjp": lambda x: torch.autograd.functional.vjp(square, x),
}


@pytest.mark.parametrize("way", WAYS)
def test_every_way_to_differentiate_is_ruled_out(way):
    x = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="rules out autograd"):
        grading._call_without([], WAYS[way], x)
    with pytest.raises(RuntimeError, match="rules out autograd"):
        with grade_runner.Blocked({}, [], autograd=True):
            WAYS[way](x)
    WAYS[way](torch.ones(3, requires_grad=True))  # and works again afterwards
