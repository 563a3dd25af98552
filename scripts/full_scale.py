"""Run chapter 07 at the papers' step counts: `FULL_SCALE = True`, into _build/full-scale/.

The stored notebook is not touched: a copy with the switch flipped is executed (about an
hour on one core) and written, with its outputs and run time, to _build/full-scale/.
"""

import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
CHAPTER = ROOT / "notebooks" / "07-mnist.ipynb"
OUT = ROOT / "_build" / "full-scale"


def main():
    notebook = nbformat.read(CHAPTER, as_version=4)
    switches = [c for c in notebook.cells if "FULL_SCALE = False" in c.source]
    if len(switches) != 1:
        raise SystemExit("07-mnist.ipynb: expected one cell with `FULL_SCALE = False`")
    switches[0].source = switches[0].source.replace(
        "FULL_SCALE = False", "FULL_SCALE = True"
    )
    OUT.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    NotebookClient(
        notebook,
        timeout=4 * 3600,
        kernel_name="python3",
        resources={"metadata": {"path": str(OUT)}},
    ).execute()
    minutes = (time.perf_counter() - start) / 60
    nbformat.write(notebook, OUT / CHAPTER.name)
    print(f"07-mnist at full scale: ran in {minutes:.1f} min; {OUT / CHAPTER.name}")


if __name__ == "__main__":
    main()
