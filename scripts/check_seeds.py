"""Run a chapter with other seeds: every assertion must still hold.

Usage: python scripts/check_seeds.py notebooks/NN-name.ipynb [first_seed ...]

The chapter's one `SEEDS = [...]` line is replaced by a list of the same length starting at
each `first_seed` (default: 100 and 200, i.e. [100, 101, ...] and [200, 201, ...]), and the
copy is executed alone in an empty folder. The stored notebook is not touched. Prints, per
seed list, whether every cell ran and how long it took; exits non-zero if one failed.
"""

import re
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

SEEDS_LINE = re.compile(r"^SEEDS = \[[0-9, ]*\]", re.MULTILINE)


def with_seeds(notebook, seeds):
    cells = [c for c in notebook.cells if SEEDS_LINE.search(c.source)]
    if len(cells) != 1 or len(SEEDS_LINE.findall(cells[0].source)) != 1:
        raise SystemExit("expected exactly one `SEEDS = [...]` line in the chapter")
    old = SEEDS_LINE.search(cells[0].source).group(0)
    count = len(re.findall(r"[0-9]+", old))
    new = [seeds + k for k in range(count)]
    cells[0].source = SEEDS_LINE.sub(f"SEEDS = {new}", cells[0].source)
    return new


def main(path, firsts):
    failed = False
    for first in firsts:
        notebook = nbformat.read(path, as_version=4)
        seeds = with_seeds(notebook, first)
        start = time.perf_counter()
        with tempfile.TemporaryDirectory() as folder:
            client = NotebookClient(
                notebook,
                timeout=1800,
                kernel_name="python3",
                resources={"metadata": {"path": folder}},
            )
            try:
                client.execute()
                verdict = "every cell ran, every assertion held"
            except CellExecutionError as error:
                failed = True
                verdict = "FAILED\n" + str(error)[-1500:]
        seconds = time.perf_counter() - start
        print(f"{Path(path).name} with SEEDS = {seeds} ({seconds:.0f} s): {verdict}")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    sys.exit(main(sys.argv[1], [int(s) for s in sys.argv[2:]] or [100, 200]))
