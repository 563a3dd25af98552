"""Copy scripts/interactive_figure.py into every notebook cell tagged "interactive-figure-helper".

Notebooks must run alone (as Colab opens them), so each chapter carries the helper;
this file is its single source.  `--check` only reports notebooks that are out of sync.
"""
import sys
from pathlib import Path

from notebook_code import update_chapters

SOURCE = Path(__file__).resolve().parent / "interactive_figure.py"
TAG = "interactive-figure-helper"


def sync(notebook, _path):
    source = SOURCE.read_text().rstrip("\n")
    cells = [c for c in notebook.cells if TAG in c.get("metadata", {}).get("tags", []) and c.source != source]
    for cell in cells:
        cell.source = source
    return bool(cells)


def main(check: bool) -> int:
    changed = update_chapters(sync, write=not check)
    for name in changed:
        print(f"{name}: interactive-figure helper differs from scripts/interactive_figure.py; run `make sync-helper`"
              if check else f"updated {name} (re-run `make execute` to refresh its outputs)")
    return 1 if check and changed else 0


if __name__ == "__main__":
    sys.exit(main("--check" in sys.argv))
