"""Run one tagged code cell of a notebook outside Jupyter.

The MNIST loader lives in a cell of notebooks/07-mnist.ipynb tagged "mnist-loader"; the loader
tests and scripts/fetch_mnist.py execute that very cell, so the notebook stays its one source.
"""
import json
from pathlib import Path


def cell_source(notebook, tag):
    """Source of the single code cell of `notebook` (a path) whose metadata tags include `tag`."""
    cells = [cell for cell in json.loads(Path(notebook).read_text(encoding="utf-8"))["cells"]
             if cell["cell_type"] == "code" and tag in cell.get("metadata", {}).get("tags", [])]
    if len(cells) != 1:
        raise LookupError(f"{notebook}: expected one code cell tagged {tag!r}, found {len(cells)}")
    source = cells[0]["source"]
    return source if isinstance(source, str) else "".join(source)


def exec_cell(notebook, tag):
    """Execute that cell in a fresh namespace and return the namespace (a dict)."""
    namespace = {"__name__": f"notebook_cell_{tag.replace('-', '_')}"}
    exec(compile(cell_source(notebook, tag), f"{Path(notebook).name}[{tag}]", "exec"), namespace)
    return namespace
