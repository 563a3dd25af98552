"""grading/scan.py flags attacks and only attacks: hand-outs are built in
memory with make_student, filled with the instructor's solutions (the honest student),
then tampered with one attack at a time. Nothing is executed."""

import copy
import functools
import subprocess
import sys

import nbformat
import pytest

from conftest import NOTEBOOKS, ROOT, read_notebook

from grading import scan as check_submissions
from grading.handouts import student_version
from upkeep.cells import grading

pytestmark = pytest.mark.static

CHAPTERS = {p.stem[:2]: p for p in NOTEBOOKS}


@functools.lru_cache(maxsize=None)
def chapter(number):
    """(instructor notebook, hand-out, checker's view of the hand-out with --source)."""
    source = read_notebook(CHAPTERS[number])
    handout = student_version(copy.deepcopy(source))
    return source, handout, check_submissions.Handout(handout, source)


def honest(number):
    """The hand-out with every solution cell filled from the instructor notebook."""
    source, handout, _ = chapter(number)
    solutions = {
        grading(c)["grade_id"]: c.source
        for c in source.cells
        if grading(c).get("solution")
    }
    submission = copy.deepcopy(handout)
    for cell in submission.cells:
        if grading(cell).get("grade_id") in solutions:
            cell.source = solutions[grading(cell)["grade_id"]]
    return submission


def cell(notebook, grade_id):
    return next(c for c in notebook.cells if grading(c).get("grade_id") == grade_id)


def add_cell(notebook, after, source):
    """Insert a student's own code cell after the cell `after`; returns its number as
    the checker reports it (`added cell N`, counted from 1)."""
    index = notebook.cells.index(cell(notebook, after)) + 1
    notebook.cells.insert(index, nbformat.v4.new_code_cell(source))
    return index + 1


def problems(notebook, number="03", source=True):
    handout = chapter(number)[2] if source else chapter(number)[1]
    return check_submissions.check(handout, notebook)


# -- The honest student: never flagged. -------------------------------------------------


@pytest.mark.parametrize("number", ["03", "04", "05"])
def test_instructor_solutions_are_ok(number):
    assert problems(honest(number), number) == []


def test_typed_written_answers_are_ok():
    submission = honest("05")
    answers = [
        c
        for c in submission.cells
        if grading(c).get("solution") and c.cell_type == "markdown"
    ]
    assert answers
    for answer in answers:
        answer.source = "The batch statistics couple the examples: $\\mu = x.mean(0)$."
    assert problems(submission, "05") == []


def test_renamed_locals_and_local_shadows_are_ok():
    submission = honest("03")
    cell(submission, "03-ex3-solution").source = """\
def layernorm_backward_fixed(dout, cache):
    normed, inv_std, scale = cache["xhat"], cache["rstd"], cache["gamma"]
    axes = tuple(range(dout.ndim - 1))
    rel_error = dout * scale  # a local name, not the chapter's rel_error
    centered = rel_error - rel_error.mean(axis=-1, keepdims=True)
    centered -= normed * (rel_error * normed).mean(axis=-1, keepdims=True)
    return centered * inv_std, (dout * normed).sum(axis=axes), dout.sum(axis=axes)
"""
    assert problems(submission) == []


def test_einsum_solution_is_ok():
    submission = honest("03")
    cell(submission, "03-ex3-solution").source = """\
import numpy as np


def layernorm_backward_fixed(dout, cache):
    xhat, rstd, gamma = cache["xhat"], cache["rstd"], cache["gamma"]
    d = xhat.shape[-1]
    g = dout * gamma
    dx = rstd * (g - np.einsum("...i->...", g)[..., None] / d
                 - xhat * np.einsum("...i,...i->...", g, xhat)[..., None] / d)
    flat = lambda a: a.reshape(-1, d)
    return dx, np.einsum("ni,ni->i", flat(dout), flat(xhat)), flat(dout).sum(0)
"""
    assert problems(submission) == []


def test_module_level_names_and_self_tests_are_ok():
    submission = honest("03")
    solution = cell(submission, "03-ex3-solution")
    solution.source += """
x = np.ones(3)
results = {}


def helper(a):
    return a + 1


# a self-test against the lecture's (forbidden) backward, outside the function
_x, _gamma, _beta, _dout = make_problem((4, 8), "randn", 0)
_cache = layernorm_forward(_x, _gamma, _beta, {"eps": 1e-5})[1]
ref = layernorm_backward(_dout, _cache)
print(rel_error(layernorm_backward_fixed(_dout, _cache)[0], ref[0]))
print(check_backward(lambda t: layernorm_forward(t, _gamma, _beta, {})[0], helper, [_x]))
"""
    assert problems(submission) == []


def test_added_cells_that_print_plot_and_self_test_are_ok():
    submission = honest("03")
    add_cell(submission, "03-ex3-solution", 'print("shapes", x.shape)')
    add_cell(
        submission,
        "03-ex3-solution",
        """\
%matplotlib inline
%config InlineBackend.figure_format = "svg"
import matplotlib.pyplot as plt
import torch
x = np.ones((2, 3))
def helper(a):
    return a * 2
plt.plot(helper(x).ravel())
%time out = layernorm_backward_fixed(dout, cache)
t = torch.ones(3, requires_grad=True)
(t * t).sum().backward()
print(rel_error(layernorm_backward(dout, cache)[0], out[0]), t.grad)
np.random.seed(0)
torch.backends.cudnn.deterministic = True
""",
    )
    assert problems(submission) == []


def test_an_edited_lecture_cell_is_scanned_but_ok():
    submission = honest("03")
    lecture = next(
        c
        for c in submission.cells
        if c.cell_type == "code" and not grading(c) and "np." in c.source
    )
    lecture.source += "\nprint('my note')"
    assert problems(submission) == []


# -- Attacks: each flagged, with the cell and the reason. -------------------------------

ATTACKS = {
    "module attribute": ("np.allclose = lambda *a, **k: True", "rebinds np.allclose"),
    "setattr on a module": (
        "setattr(np, 'isclose', lambda *a, **k: True)",
        "calls setattr on np",
    ),
    "alias of a module": (
        "import numpy as foo\nfoo.allclose = lambda *a, **k: True",
        "rebinds foo.allclose (numpy.allclose)",
    ),
    "alias by assignment": (
        "t = torch.testing\nt.assert_close = print",
        "rebinds t.assert_close (torch.testing.assert_close)",
    ),
    "torch class attribute": (
        "torch.Tensor.__eq__ = lambda a, b: True",
        "rebinds torch.Tensor.__eq__",
    ),
    "function code": (
        "rel_error.__code__ = (lambda a, b: 0.0).__code__",
        "rel_error.__code__",
    ),
    "builtins import": ("import builtins\nbuiltins.abs = abs", "builtins"),
    "__builtins__": ("__builtins__.print = None", "__builtins__"),
    "sys.modules": (
        "import sys\nsys.modules['numpy'] = None",
        "touches sys.modules",
    ),
    "from sys import modules": (
        "from sys import modules\nmodules.clear()",
        "sys.modules",
    ),
    "sys.excepthook": ("import sys\nsys.excepthook = print", "sys.excepthook"),
    "sys.settrace": ("import sys\nsys.settrace(print)", "sys.settrace"),
    "sys.setprofile": ("import sys\nsys.setprofile(print)", "sys.setprofile"),
    "sys.meta_path": ("import sys\nsys.meta_path.insert(0, object())", "sys.meta_path"),
    "sys._getframe": ("import sys\nf = sys._getframe(1)", "sys._getframe"),
    "inspect.currentframe": (
        "import inspect\nf = inspect.currentframe()",
        "inspect.currentframe",
    ),
    "inspect.stack alias": (
        "from inspect import stack as s\nframes = s()",
        "inspect.stack",
    ),
    "inspect.getouterframes": (
        "import inspect as i\ni.getouterframes(None)",
        "inspect.getouterframes",
    ),
    "f_back": ("def up(frame):\n    return frame.f_back", "f_back"),
    "f_globals": ("def g(frame):\n    return frame.f_globals", "f_globals"),
    "f_locals": ("def g(frame):\n    return frame.f_locals", "f_locals"),
    "gi_frame": ("g = (i for i in [])\nframe = g.gi_frame", "gi_frame"),
    "tb_frame": (
        "try:\n    1 / 0\nexcept Exception as e:\n    f = e.__traceback__.tb_frame",
        "tb_frame",
    ),
    "getattr spelling": ("import sys\nf = getattr(sys, '_getframe')(0)", "_getframe"),
    "gc.get_referrers": ("import gc\ngc.get_referrers(np)", "gc.get_referrers"),
    "gc.get_objects": ("import gc\nobjs = gc.get_objects()", "gc.get_objects"),
    "get_ipython": ("get_ipython().ast_transformers.append(None)", "get_ipython"),
    "IPython events": (
        "ip = get_ipython()\nip.events.register('pre_run_cell', print)",
        "get_ipython",
    ),
    "IPython import": (
        "from IPython import get_ipython as gi\ngi().set_custom_exc((), None)",
        "get_ipython",
    ),
    "input transformers": (
        "shell.input_transformers_post.append(str.upper)",
        "input_transformers_post",
    ),
    "hook magic": ("%load_ext tricks\nx = 1", "%load_ext"),
    "run magic": ("%run other.py", "%run"),
    "shell escape": ("!pip install tricks", "shell command"),
    "exec": ("exec('np.allclose = None')", "exec"),
    "eval": ("y = eval('1 + 1')", "eval"),
    "compile": ("code = compile('1', 'x', 'eval')", "compile"),
    "__import__": ("m = __import__('numpy')", "__import__"),
    "importlib": (
        "import importlib\nm = importlib.import_module('numpy')",
        "importlib",
    ),
    "ctypes": ("import ctypes", "ctypes"),
    "globals() subscript": (
        "globals()['rel_error'] = lambda a, b: 0.0",
        "writes to globals()",
    ),
    "globals().update": ("globals().update(rel_error=None)", "writes to globals()"),
    "globals() alias": (
        "g = globals()\ng['normwise_error'] = abs",
        "writes to globals()",
    ),
    "del a locked name": ("del normwise_error", "deletes normwise_error"),
    "redefine a locked function": (
        "def normwise_error(a, b):\n    return 0.0",
        "redefines normwise_error, defined in locked cell",
    ),
    "rebind the hand-out's np": ("np = None", "rebinds np"),
    "lying ndarray": (
        "class Liar(np.ndarray):\n    def __eq__(self, other):\n        return True",
        "subclass of np.ndarray",
    ),
    "lying tensor": (
        "from torch import Tensor\nclass Liar(Tensor):\n    pass",
        "subclass of Tensor",
    ),
    "torch function override": (
        "class Spy:\n    def __torch_function__(self, *a):\n        pass",
        "overrides __torch_function__",
    ),
}


@pytest.mark.parametrize("where", ["solution", "added"])
@pytest.mark.parametrize("attack", ATTACKS, ids=str)
def test_attack_is_flagged(attack, where):
    code, reason = ATTACKS[attack]
    submission = honest("03")
    if where == "solution":
        cell(submission, "03-ex3-solution").source += "\n\n" + code + "\n"
        label = "solution cell 03-ex3-solution: "
    else:
        label = f"added cell {add_cell(submission, '03-ex3-solution', code)}"
    found = problems(submission)
    assert any(p.startswith(label) and reason in p for p in found), found


# Seen for the instructor's eye: flagged, but the grader takes no points for them (its
# sandbox keeps files, the network and other processes out of reach).
LOOK_AT = {
    "a file read": ("text = open('notes.txt').read()", "reads or writes files (open)"),
    "a listing": ("import os\nnames = os.listdir('.')", "reads or writes files"),
    "a system path": ("p = '/proc/self/cmdline'", "names a file path"),
    "site-packages": ("where = 'lib/site-packages'", "names a file path"),
    "pathlib": ("from pathlib import Path\nPath('x').write_text('y')", "pathlib"),
    "a new module": ("import socket", "imports socket, which the hand-out does not"),
    "the network": ("import urllib.request", "uses the network (urllib)"),
    "sys.path": ("import sys\nsys.path.insert(0, '.')", "sys.path"),
    "a fork": ("import os\npid = os.fork()", "starts processes (os.fork)"),
}


@pytest.mark.parametrize("what", LOOK_AT)
def test_what_the_sandbox_stops_is_flagged_but_costs_nothing(what):
    code, reason = LOOK_AT[what]
    submission = honest("03")
    cell(submission, "03-ex3-solution").source += "\n\n" + code + "\n"
    found = [p for p in problems(submission) if reason in p]
    assert found, problems(submission)
    assert not any(check_submissions.zeroes(p) for p in found), found


FORBIDDEN = {
    "direct call": """\
def layernorm_backward_fixed(dout, cache):
    return layernorm_backward(dout, cache)
""",
    "default argument": """\
def layernorm_backward_fixed(dout, cache, _impl=layernorm_backward):
    return _impl(dout, cache)
""",
    "module-level reference": """\
_impl = layernorm_backward


def layernorm_backward_fixed(dout, cache):
    return _impl(dout, cache)
""",
    "partial": """\
from functools import partial

_impl = partial(layernorm_backward)
""",
    "globals lookup": """\
def layernorm_backward_fixed(dout, cache):
    return globals()["layernorm_backward"](dout, cache)
""",
}


@pytest.mark.parametrize("variant", FORBIDDEN)
def test_forbidden_name_in_a_solution_cell_is_flagged(variant):
    submission = honest("03")
    cell(submission, "03-ex3-solution").source = FORBIDDEN[variant]
    found = problems(submission)
    assert (
        "solution cell 03-ex3-solution: uses layernorm_backward, which this exercise "
        "forbids"
    ) in found, found


def test_forbidden_names_come_from_the_hidden_tests_via_source():
    """In 03 the hidden tests hold _FORBIDDEN: the hand-out alone cannot know it."""
    submission = honest("03")
    cell(submission, "03-ex3-solution").source = FORBIDDEN["direct call"]
    assert problems(submission, source=False) == []
    assert problems(submission, source=True)


def test_forbidden_names_are_allowed_in_added_cells():
    submission = honest("03")
    add_cell(submission, "03-ex3-solution", "_impl = layernorm_backward\nprint(_impl)")
    assert problems(submission) == []


AUTOGRAD = {
    ".backward(": """\
import torch


def layernorm_backward_fixed(dout, cache):
    x = torch.tensor(cache["x"], requires_grad=True)
    (x * torch.tensor(dout)).sum().backward()
    return x.grad.numpy(), None, None
""",
    "torch.autograd.grad": """\
def layernorm_backward_fixed(dout, cache):
    return torch.autograd.grad(cache["y"], cache["x"], dout)
""",
    "captured import": """\
from torch.autograd import grad as g


def layernorm_backward_fixed(dout, cache):
    return g(cache["y"], cache["x"], dout)
""",
    "torch.func": """\
def layernorm_backward_fixed(dout, cache):
    return torch.func.vjp(cache["f"], cache["x"])[1](dout)
""",
    "functorch": """\
import functorch


def layernorm_backward_fixed(dout, cache):
    return functorch.vjp(cache["f"], cache["x"])[1](dout)
""",
}


@pytest.mark.parametrize("variant", AUTOGRAD)
def test_autograd_in_a_solution_cell_is_flagged(variant):
    submission = honest("03")
    cell(submission, "03-ex3-solution").source = AUTOGRAD[variant]
    found = problems(submission)
    assert any(
        p.startswith("solution cell 03-ex3-solution: uses autograd") for p in found
    ), found


def test_autograd_in_05_is_flagged_in_its_solution_cell():
    submission = honest("05")
    solution = cell(submission, "05-ex4-solution")
    solution.source = AUTOGRAD[".backward("].replace(
        "layernorm_backward_fixed", "groupnorm_backward"
    )
    found = problems(submission, "05")
    assert any("05-ex4-solution: uses autograd (.backward)" in p for p in found), found


def test_edited_deleted_and_stripped_locked_cells_are_flagged():
    submission = honest("05")
    grade_ids = [
        grading(c)["grade_id"]
        for c in submission.cells
        if grading(c).get("grade") and c.cell_type == "code"
    ]
    cell(submission, grade_ids[0]).source += "\nassert True"
    submission.cells.remove(cell(submission, grade_ids[1]))
    cell(submission, grade_ids[2]).metadata["nbgrader"]["grade"] = False
    readonly = next(
        c
        for c in submission.cells
        if grading(c).get("locked") and not grading(c).get("grade")
    )
    readonly.source = "pass"
    found = problems(submission, "05")
    assert f"locked cell {grade_ids[0]} was edited" in found
    assert f"locked cell {grade_ids[1]} was deleted" in found
    assert f"grade cell {grade_ids[2]} lost its grading metadata" in found
    assert f"locked cell {grading(readonly)['grade_id']} was edited" in found


def test_markdown_answer_cells_are_never_locked():
    submission = honest("05")
    answers = [
        c
        for c in submission.cells
        if grading(c).get("solution") and c.cell_type == "markdown"
    ]
    submission.cells.remove(answers[0])  # loses points, tampers with nothing
    answers[1].source = "A typed answer."
    assert problems(submission, "05") == []


def test_a_solution_cell_without_metadata_is_flagged_and_scanned():
    submission = honest("03")
    solution = cell(submission, "03-ex3-solution")
    del solution.metadata["nbgrader"]
    solution.source += "\nnp.allclose = None\n"
    found = problems(submission)
    assert (
        "solution cell 03-ex3-solution was deleted or lost its nbgrader metadata"
    ) in found
    assert any(p.startswith("added cell") and "np.allclose" in p for p in found)


def test_a_duplicated_grade_cell_is_flagged():
    submission = honest("03")
    grade = next(c for c in submission.cells if grading(c).get("grade"))
    submission.cells.append(copy.deepcopy(grade))
    found = problems(submission)
    assert f"cell {grading(grade)['grade_id']} appears 2 times" in found


def test_what_test_instructors_expects():
    """The adversarial submission of tests/submissions/c03.py, and an edited grade
    cell: the monkeypatch and the edit are both reported."""
    namespace = {}
    exec((ROOT / "tests" / "submissions" / "c03.py").read_text(), namespace)
    submission = copy.deepcopy(chapter("03")[1])
    for c in submission.cells:
        if grading(c).get("grade_id") in namespace["SUBMISSION"]:
            c.source = namespace["SUBMISSION"][grading(c)["grade_id"]]
    grade = next(
        c for c in submission.cells if grading(c).get("grade") and c.cell_type == "code"
    )
    grade.source += "\nassert True"
    found = problems(submission, source=False)
    assert any("rebinds np.allclose" in p for p in found), found
    assert f"locked cell {grading(grade)['grade_id']} was edited" in found


def test_command_line(tmp_path, capsys):
    """Same command line as before, plus --source: one line per submission, then the
    reasons; exit status 1 if anything is flagged."""
    source, handout, _ = chapter("03")
    released, instructor = tmp_path / "released.ipynb", tmp_path / "source.ipynb"
    nbformat.write(handout, released)
    nbformat.write(source, instructor)
    good, bad = tmp_path / "good.ipynb", tmp_path / "bad.ipynb"
    nbformat.write(honest("03"), good)
    tampered = honest("03")
    cell(tampered, "03-ex3-solution").source = FORBIDDEN["default argument"]
    nbformat.write(tampered, bad)

    assert check_submissions.main([str(released), str(good)]) == 0
    assert capsys.readouterr().out == f"{good}: ok\n"

    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "grading.scan",
            "--source",
            str(instructor),
            str(released),
            str(good),
            str(bad),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1, result
    assert result.stdout.splitlines() == [
        f"{good}: ok",
        f"{bad}: FLAGGED",
        "  - solution cell 03-ex3-solution: uses layernorm_backward, which this "
        "exercise forbids",
    ]
