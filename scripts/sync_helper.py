"""Copy scripts/interactive_figure.py into every notebook cell tagged "interactive-figure-helper".

Notebooks must run alone (as Colab opens them), so each chapter carries the helper;
this file is its single source.  `--check` only reports notebooks that are out of sync.
"""
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
TAG = "interactive-figure-helper"


def helper_source() -> str:
    return (ROOT / "scripts" / "interactive_figure.py").read_text().rstrip("\n")


def helper_cells(notebook):
    return [c for c in notebook.cells if TAG in c.get("metadata", {}).get("tags", [])]


def main(check: bool) -> int:
    source, stale = helper_source(), []
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        cells = [c for c in helper_cells(notebook) if c.source != source]
        if cells and check:
            stale.append(path.name)
        elif cells:
            for cell in cells:
                cell.source = source
            nbformat.write(notebook, path)
            print(f"updated {path.name} (re-run `make execute` to refresh its outputs)")
    for name in stale:
        print(f"{name}: interactive-figure helper differs from scripts/interactive_figure.py; run `make sync-helper`")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main("--check" in sys.argv))
