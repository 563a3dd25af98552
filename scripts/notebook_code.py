"""Small notebook utilities shared by the scripts and tests.

The MNIST loader lives in a cell of notebooks/07-mnist.ipynb tagged "mnist-loader"; the loader
tests and scripts/fetch_mnist.py execute that very cell, so the notebook stays its one source.
"""
import json
from pathlib import Path

import nbformat

CHAPTERS = Path(__file__).resolve().parent.parent / "notebooks"


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


def update_chapters(update, write):
    """Apply `update(notebook, path) -> changed` to every chapter; save the changed ones if `write`.

    Returns the names of the chapters that needed a change.
    """
    changed = []
    for path in sorted(CHAPTERS.glob("*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        if update(notebook, path):
            changed.append(path.name)
            if write:
                nbformat.write(notebook, path)
    return changed
