"""Benchmark: each notebook's execution time, and the measurements chapters publish.

Runs copies of the notebooks (the stored ones are not touched), one at a time in fresh kernels,
and prints a table. A benchmark, not a test: it asserts nothing, so compare its figures over time.
Usage: python scripts/bench.py [notebooks/NN-name.ipynb ...]
With NBGRADER_EXECUTION=autograde in the environment (`make bench-autograde`) the chapters run
as nbgrader's autograde runs them, with their heavy cells shrunk.
"""

import json
import os
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
# A chapter publishes measurements in a dict BENCHMARK = {"what is measured": (value, "unit")}
# (chapter 09: bandwidths and kernel speeds; chapter 07: training throughput).
REPORT = "import json; print(json.dumps(globals().get('BENCHMARK', {})))"


def run(path: Path):
    notebook = nbformat.read(path, as_version=4)
    notebook.cells.append(nbformat.v4.new_code_cell(REPORT))
    with (
        tempfile.TemporaryDirectory() as tmp
    ):  # run outside the repository, as a reader would
        start = time.perf_counter()
        NotebookClient(
            notebook,
            timeout=1800,
            kernel_name="python3",
            resources={"metadata": {"path": tmp}},
        ).execute()
        seconds = time.perf_counter() - start
    report = "".join(o.get("text", "") for o in notebook.cells[-1].outputs)
    return seconds, json.loads(report or "{}")


def main(paths):
    os.environ.setdefault("MNIST_DIR", str(ROOT / "data" / "mnist"))
    paths = [Path(p).resolve() for p in paths] or sorted(
        (ROOT / "notebooks").glob("*.ipynb")
    )
    print(f"{'notebook':<32}{'seconds':>10}", flush=True)
    measured, total = {}, 0.0
    for path in paths:
        seconds, results = run(path)
        total += seconds
        measured.update({f"{path.stem[:2]}: {name}": v for name, v in results.items()})
        print(f"{path.name:<32}{seconds:>10.1f}", flush=True)
    print(f"{'total':<32}{total:>10.1f}")
    if measured:
        print(f"\n{'measurement':<64}{'value':>12}  unit")
        for name, (value, unit) in measured.items():
            print(f"{name:<64}{value:>12,.3g}  {unit}")


if __name__ == "__main__":
    main(sys.argv[1:])
