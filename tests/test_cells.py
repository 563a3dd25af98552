"""The cell-dependency walk (upkeep/cells.py) that decides which lecture cells the
grader runs: a cell depends on the names it reads before it sets them."""

import nbformat
import pytest

from upkeep.cells import cells_needed, names_of


@pytest.mark.static
def test_a_cell_that_fills_in_an_object_may_define_it():
    defined, surely, reads = names_of("results['a', 1] = f()\ncfg.lr += 2")
    assert {"results", "cfg"} <= defined and not {"results", "cfg"} & surely
    assert {"results", "cfg", "f"} <= reads


@pytest.mark.static
@pytest.mark.parametrize(
    "source, reads",
    [
        ("fig, ax = plt.subplots()\nax.plot(x)", {"plt", "x"}),  # set, then read
        ("x = x + 1", {"x"}),  # the value is read before the name is set
        ("total += step", {"total", "step"}),
        ("for name in NAMES:\n    print(name)", {"NAMES", "print"}),
        ("if ready:\n    y = 1\nprint(y)", {"ready", "print", "y"}),  # maybe unset
        ("def f():\n    return W @ v\nW = 2", {"v"}),  # read when called
        ("def f():\n    return W\n", {"W"}),
        ("squares = [i * i for i in range(n)]", {"range", "n"}),
        ("with open(p) as h:\n    text = h.read()", {"open", "p"}),
        (
            "try:\n    import numba\nexcept ImportError as e:\n    print(e)",
            {"print", "ImportError"},
        ),
        ("a, (b, *c) = f()\nprint(a, b, c)", {"f", "print"}),
    ],
)
def test_a_cell_reads_what_it_reads_before_it_sets_it(source, reads):
    assert names_of(source)[2] == reads


@pytest.mark.static
def test_the_walk_takes_only_the_lecture_cells_a_side_depends_on():
    cells = [
        nbformat.v4.new_code_cell("import numpy as np\nSEEDS = [0]"),
        nbformat.v4.new_code_cell("def norm(x):\n    return x / np.abs(x).max()"),
        nbformat.v4.new_code_cell("fig, ax = plt.subplots()\nax.plot(norm(xs))"),
        nbformat.v4.new_code_cell("rng = np.random.default_rng(SEEDS[0])"),
        nbformat.v4.new_code_cell(
            "def mine(x):\n    return norm(x) * 2",
            metadata={"nbgrader": {"solution": True, "grade_id": "ex"}},
        ),
        nbformat.v4.new_code_cell(
            "x = rng.standard_normal(3)\nassert np.allclose(mine(x), 2 * norm(x))",
            metadata={"nbgrader": {"grade": True, "grade_id": "ex-check"}},
        ),
    ]
    sources = [c.source for c in cells]
    assert cells_needed(cells, sources, "student") == {0, 1}  # norm, and np for it
    assert cells_needed(cells, sources, "grader") == {0, 1, 3}  # not the figure
    filled = [
        nbformat.v4.new_code_cell("results = {}"),
        nbformat.v4.new_code_cell("results['a'] = 1"),
        nbformat.v4.new_code_cell("print(results['a'])"),
    ]
    sources = [c.source for c in filled]
    assert cells_needed(filled, sources, "scan", 2) == {0, 1}
