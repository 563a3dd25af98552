"""Scan one assertion of a chapter over many seed lists (run by hand, not by the tests).

  python -m upkeep.scan_seeds NB CELL [--windows 200] [--first 0] [--stride N]
      [--report EXPR ...] [--all-before]

CELL is a cell's 0-based index or its id. For each window the chapter's SEEDS become
`list(range(s, s + n))` (n: the length of the chapter's own SEEDS; s = first, first +
stride, ...; the stride defaults to n, so windows do not overlap). The code cells that
CELL depends on (found by static name analysis, or all earlier code cells with
--all-before) run in a fresh IPython namespace, then CELL itself. The scan records
whether CELL raised, and the value of each --report expression evaluated afterwards,
and prints the failing windows and the range of each expression: what an assertion's
comment quotes ("scan: 200 windows of 5 seeds (0..999): worst ... (SEEDS from ...)").
"""

import argparse
import contextlib
import io
import os
import statistics
import sys
import time
from pathlib import Path

import nbformat

from upkeep.cells import cells_needed
from upkeep.variant import defaults


def find_cell(cells, key):
    if key.isdigit():
        return int(key)
    for k, cell in enumerate(cells):
        if cell.get("id") == key:
            return k
    raise SystemExit(f"no cell with id {key}")


def dependencies(cells, target, every_earlier):
    """Indices of the code cells before `target` that it needs, in notebook order."""
    if every_earlier:
        return [k for k in range(target) if cells[k].cell_type == "code"]
    sources = [cell.source for cell in cells]
    return sorted(cells_needed(cells, sources, "scan", target))


def run_cells(shell, sources, seeds):
    """Run (kind, source) cells in order, their output swallowed, with SEEDS = seeds
    set right after the parameters cell; yield each cell's result."""
    quiet = io.StringIO()
    with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
        for kind, source in sources:
            result = shell.run_cell(source, silent=True, store_history=False)
            if kind == "parameters":
                shell.run_cell(f"SEEDS = {seeds!r}", silent=True)
            yield result


def run_window(shell, sources, target_source, seeds, reports):
    """Run the cells with SEEDS = seeds; return (error or None, report values)."""
    shell.reset(new_session=False)
    for k, result in enumerate(
        run_cells(shell, [*sources, ("", target_source)], seeds)
    ):
        error = result.error_before_exec or result.error_in_exec
        if error is not None and k < len(sources):
            return f"dependency failed: {error!r}", {}
    values = {}
    for expression in reports:
        try:
            values[expression] = float(shell.ev(expression))
        except Exception as exc:  # noqa: BLE001 - a report must not stop the scan
            values[expression] = f"unavailable ({type(exc).__name__})"
    return (None if error is None else repr(error)), values


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebook")
    parser.add_argument("cell")
    parser.add_argument("--windows", type=int, default=200)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--stride", type=int)
    parser.add_argument("--report", action="append", default=[])
    parser.add_argument("--all-before", action="store_true")
    args = parser.parse_args(argv)

    os.environ.setdefault("MPLBACKEND", "Agg")
    from IPython.core.interactiveshell import InteractiveShell

    path = Path(args.notebook)
    cells = nbformat.read(path, as_version=4).cells
    target = find_cell(cells, args.cell)
    length = len(defaults(path)["SEEDS"])
    stride = args.stride or length
    needed = dependencies(cells, target, args.all_before)
    print(f"{path.name}: cell {target}, running cells {needed} before it")
    sources = [
        (
            "parameters" if "parameters" in cells[k].metadata.get("tags", []) else "",
            cells[k].source,
        )
        for k in needed
    ]
    shell = InteractiveShell.instance()
    failures, values, start = [], {r: [] for r in args.report}, time.perf_counter()
    for w in range(args.windows):
        first = args.first + w * stride
        seeds = list(range(first, first + length))
        error, got = run_window(
            shell, sources, cells[target].source, seeds, args.report
        )
        if error:
            failures.append((first, error))
            print(f"  SEEDS from {first}: {error[:200]}")
        for expression, value in got.items():
            if isinstance(value, float):
                values[expression].append((value, first))
    last = args.first + (args.windows - 1) * stride + length - 1
    print(
        f"scan: {args.windows} windows of {length} seeds ({args.first}..{last}), "
        f"stride {stride}: {len(failures)} failed, {time.perf_counter() - start:.0f} s"
    )
    for expression, pairs in values.items():
        if not pairs:
            print(f"  {expression}: no value")
            continue
        low, high = min(pairs), max(pairs)
        median = statistics.median(v for v, _ in pairs)
        print(
            f"  {expression}: min {low[0]:.4g} (SEEDS from {low[1]}), median "
            f"{median:.4g}, max {high[0]:.4g} (SEEDS from {high[1]}), {len(pairs)} values"
        )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
