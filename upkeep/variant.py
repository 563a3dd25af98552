"""Run copies of chapters with other parameters; the stored notebooks are not touched.

Every chapter has one code cell tagged `parameters` (the papermill convention) that
holds what a run may change: SEEDS, the AUTOGRADING switch and, where a chapter uses
them, FULL_SCALE and BENCHMARK. A variant appends assignments to that cell and runs the
copy alone in an empty folder, as Colab would.

  python -m upkeep.variant seeds NB [FIRST ...]  every assertion must hold with
      SEEDS of the same length starting at each FIRST (default 9001 and 123456)
  python -m upkeep.variant full-scale            chapter 07 at the papers' step
      counts (FULL_SCALE = True), written to _build/full-scale/ (about an hour)
  python -m upkeep.variant bench [NB ...]        each chapter's run time, written to
      book/assets/measurements/run-times.json, and the measurements it publishes
      (BENCHMARK names a file the chapter writes them to)
  python -m upkeep.variant run-times REPORT      the run times of the chapters in a
      test report of `make test` (_build/test-report.xml): the sum of each chapter's
      cell times as nbval ran them, written to run-times.json

With NBGRADER_EXECUTION=autograde in the environment, chapters run as nbgrader's
autograde runs them (AUTOGRADING = True: heavy cells shrink).
"""

import ast
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path
from xml.etree import ElementTree

import nbformat
from nbclient.exceptions import CellExecutionError

from upkeep.cells import CHAPTERS, ROOT, run_notebook
from upkeep.execute import record_run_time


def parameters_cell(notebook, name):
    cells = [c for c in notebook.cells if "parameters" in c.metadata.get("tags", [])]
    if len(cells) != 1:
        raise SystemExit(f"{name}: expected one cell tagged `parameters`")
    return cells[0]


def defaults(path):
    """The parameters a chapter defines, with their default values (literals only)."""
    cell = parameters_cell(nbformat.read(path, as_version=4), Path(path).name)
    values = {}
    for node in ast.parse(cell.source).body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            try:
                values[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                pass  # computed, e.g. AUTOGRADING from the environment
    return values


def run(path, overrides, folder, timeout=1800):
    """Execute a copy of `path` in `folder` with `overrides` set; return the notebook
    and the seconds it took. Raises CellExecutionError if a cell fails."""
    path = Path(path)
    notebook = nbformat.read(path, as_version=4)
    cell = parameters_cell(notebook, path.name)
    unknown = set(overrides) - set(defaults(path)) - {"AUTOGRADING"}
    if unknown:
        raise SystemExit(f"{path.name} has no parameter {', '.join(sorted(unknown))}")
    lines = [f"{name} = {value!r}" for name, value in overrides.items()]
    cell.source += "\n\n# set for this run\n" + "\n".join(lines)
    return notebook, run_notebook(notebook, folder, timeout=timeout)


def seeds(path, firsts):
    count = len(defaults(path)["SEEDS"])
    failed = False
    for first in firsts or [9001, 123456]:
        new = list(range(first, first + count))
        start = time.perf_counter()
        with tempfile.TemporaryDirectory() as folder:
            try:
                run(path, {"SEEDS": new}, folder)
                verdict = "every cell ran, every assertion held"
            except CellExecutionError as error:
                failed, verdict = True, "FAILED\n" + str(error)[-1500:]
        seconds = time.perf_counter() - start
        print(f"{Path(path).name} with SEEDS = {new} ({seconds:.0f} s): {verdict}")
    return 1 if failed else 0


def full_scale():
    path = ROOT / "notebooks" / "07-mnist.ipynb"
    out = ROOT / "_build" / "full-scale"
    out.mkdir(parents=True, exist_ok=True)
    notebook, seconds = run(path, {"FULL_SCALE": True}, out, timeout=4 * 3600)
    nbformat.write(notebook, out / path.name)
    print(f"07-mnist at full scale: ran in {seconds / 60:.1f} min; {out / path.name}")
    return 0


def bench(paths):
    os.environ.setdefault("MNIST_DIR", str(ROOT / "data" / "mnist"))
    print(f"{'notebook':<32}{'seconds':>10}", flush=True)
    measured, total = {}, 0.0
    for path in [Path(p).resolve() for p in paths] or sorted(CHAPTERS.glob("*.ipynb")):
        with tempfile.TemporaryDirectory() as folder:
            report = Path(folder) / "measured.json"
            overrides = (
                {"BENCHMARK": str(report)} if "BENCHMARK" in defaults(path) else {}
            )
            _, seconds = run(path, overrides, folder)
            results = json.loads(report.read_text()) if report.exists() else {}
        total += seconds
        notebook = nbformat.read(path, as_version=4)
        record_run_time(
            path, notebook, seconds, "make bench (upkeep/variant.py), alone"
        )
        measured.update({f"{path.stem[:2]}: {k}": v for k, v in results.items()})
        print(f"{path.name:<32}{seconds:>10.1f}", flush=True)
    print(f"{'total':<32}{total:>10.1f}")
    if measured:
        print(f"\n{'measurement':<64}{'value':>12}  unit")
        for name, (value, unit) in measured.items():
            print(f"{name:<64}{value:>12,.3g}  {unit}")
    return 0


def run_times(report):
    """Each chapter's run time from a test report: its nbval cells' times, summed."""
    seconds = {}
    for case in ElementTree.parse(report).iter("testcase"):
        found = re.match(r"_build\.standalone\.([\w-]+)\.", case.get("classname", ""))
        if found:
            seconds[found[1]] = seconds.get(found[1], 0.0) + float(case.get("time"))
    for chapter, total in sorted(seconds.items()):
        path = CHAPTERS / f"{chapter}.ipynb"
        notebook = nbformat.read(path, as_version=4)
        record_run_time(path, notebook, total, "nbval in make test, two at a time")
        print(f"{chapter:<32}{total:>10.1f}")
    return 0


if __name__ == "__main__":
    command, args = (sys.argv[1], sys.argv[2:]) if len(sys.argv) > 1 else ("", [])
    if command == "seeds" and args:
        sys.exit(seeds(args[0], [int(a) for a in args[1:]]))
    if command == "full-scale":
        sys.exit(full_scale())
    if command == "bench":
        sys.exit(bench(args))
    if command == "run-times" and len(args) == 1:
        sys.exit(run_times(args[0]))
    raise SystemExit(__doc__)
