"""Re-execute notebooks in place, each in a fresh kernel, and store their outputs.

Usage: python scripts/execute_notebooks.py [notebooks/NN-name.ipynb ...]  (default: all)

Widget state is not stored: the book shows each figure's kernel-free fallback, and a
stored state would make the book load the ipywidgets JavaScript from a CDN. Nor are the
cells' execution timestamps: they would change every line of a re-run's diff.
"""

import subprocess
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent


def execute(path: Path) -> float:
    notebook = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    NotebookClient(
        notebook,
        timeout=900,
        kernel_name="python3",
        store_widget_state=False,
        resources={"metadata": {"path": str(path.parent)}},
    ).execute()
    notebook.metadata.pop("widgets", None)
    for cell in notebook.cells:
        cell.metadata.pop("execution", None)
    nbformat.write(notebook, path)
    return time.perf_counter() - start


def main(paths):
    paths = [Path(p).resolve() for p in paths] or sorted(
        (ROOT / "notebooks").glob("*.ipynb")
    )
    if any("load_mnist(" in path.read_text() for path in paths):
        # only the chapters that train on MNIST need it (fetched once, then a no-op)
        subprocess.run(
            [sys.executable, str(ROOT / "scripts" / "fetch_mnist.py")], check=True
        )
    for path in paths:
        print(f"executing {path.name} ...", flush=True)
        print(f"  done in {execute(path):.1f} s", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
