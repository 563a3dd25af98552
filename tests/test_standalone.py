"""Notebooks run alone, as Colab opens them: they import only what Colab preinstalls.

Execution in isolation is covered by nbval, which `make test` runs on copies of the notebooks,
each alone in an empty folder (so an import of a repository file or a relative path fails).
"""

import ast
import sys

import pytest

from conftest import NOTEBOOKS, read_notebook
from upkeep.cells import without_magics

pytestmark = pytest.mark.static

# What Colab preinstalls and the chapters may import (numba: chapter 09's kernels;
# transformers: chapter 11's atlas; diffusers: chapter 14's check of adaLN-Zero, which
# env/colab.txt pins and the chapter asks a reader without it to install).
# Colab installs triton with its torch (GPU and CPU runtimes alike).
RUNTIME = {
    "numpy",
    "torch",
    "matplotlib",
    "ipywidgets",
    "IPython",
    "PIL",
    "numba",
    "triton",
    "transformers",
    "diffusers",
}


def imported_modules(source):
    for node in ast.walk(ast.parse(without_magics(source))):
        if isinstance(node, ast.Import):
            yield from (alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                yield "." * node.level + (node.module or "")
            else:
                yield node.module.split(".")[0]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_only_runtime_imports(path):
    notebook = read_notebook(path)
    modules = {
        m
        for cell in notebook.cells
        if cell.cell_type == "code"
        for m in imported_modules(cell.source)
    }
    foreign = sorted(
        m for m in modules if m not in RUNTIME and m not in sys.stdlib_module_names
    )
    assert not foreign, f"imports beyond Colab's preinstalled packages: {foreign}"


# Standard-library names added in Python 3.11 or later; the notebooks support 3.10+.
NEWER_THAN_310 = {
    "tomllib",
    "ExceptionGroup",
    "BaseExceptionGroup",
    "StrEnum",
    "Self",
    "LiteralString",
    "TaskGroup",
    "reveal_type",
    "assert_never",
    "Never",
    "UTC",
    "batched",
    "override",
}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_python_310_compatible(path):
    notebook = read_notebook(path)
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        source = without_magics(cell.source)
        tree = ast.parse(
            source, feature_version=(3, 10)
        )  # rejects except*, and other newer syntax
        names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        names |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        names |= {
            a.name.split(".")[0]
            for n in ast.walk(tree)
            if isinstance(n, (ast.Import, ast.ImportFrom))
            for a in n.names
        }
        names |= {
            n.module
            for n in ast.walk(tree)
            if isinstance(n, ast.ImportFrom) and n.module
        }
        assert not names & NEWER_THAN_310, (
            f"uses {names & NEWER_THAN_310}, newer than Python 3.10"
        )


# NumPy names removed in 2.0 (and deprecated ones that warn): a chapter using one fails or
# warns on some supported NumPy. Newer deprecations are caught by the Colab-stack and
# newest-release runs, which fail on any DeprecationWarning printed.
REMOVED_IN_NUMPY_2 = {
    "float_",
    "complex_",
    "product",
    "cumproduct",
    "alltrue",
    "sometrue",
    "round_",
    "Inf",
    "Infinity",
    "NaN",
    "NINF",
    "PINF",
    "NZERO",
    "PZERO",
    "infty",
    "asfarray",
    "trapz",
    "in1d",
    "row_stack",
    "msort",
    "find_common_type",
    "cast",
    "source",
    "lookfor",
    "who",
    "safe_eval",
    "set_string_function",
    "deprecate",
    "byte_bounds",
    "compare_chararrays",
    "format_parser",
    "issubclass_",
    "maximum_sctype",
    "obj2sctype",
    "sctype2char",
    "sctypes",
    "issctype",
    "mat",
    "recfromcsv",
    "recfromtxt",
    "tracemalloc_domain",
    "unicode_",
    "string_",
    "longfloat",
    "singlecomplex",
    "cfloat",
    "longcomplex",
    "clongfloat",
    "disp",
    "geterrobj",
    "seterrobj",
    "add_newdoc_ufunc",
}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_numpy_api_removed_in_numpy_2(path):
    used = set()
    for cell in read_notebook(path).cells:
        if cell.cell_type != "code":
            continue
        source = without_magics(cell.source)
        for node in ast.walk(ast.parse(source)):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in ("np", "numpy")
                and node.attr in REMOVED_IN_NUMPY_2
            ):
                used.add(f"np.{node.attr}")
    assert not used, f"uses NumPy API removed or deprecated in NumPy 2: {sorted(used)}"
