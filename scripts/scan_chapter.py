"""Scan every assertion of a chapter over many seed lists (run by hand, not by the tests).

  python scripts/scan_chapter.py NB [--windows 200] [--first 0] [--jobs 1] [--json OUT]

For each window the chapter's SEEDS become `list(range(s, s + n))` (n: the length of the
chapter's own SEEDS, windows side by side from --first) and every code cell runs in a
fresh IPython namespace, except the grade cells (they test the exercises on fixed seeds)
and the interactive figures' frames (not drawn). Every `assert` is rewritten so that it
records instead of raising, and the window runs to its end:

- `assert a < b` (or <=, >, >=, and chains such as `lo < x < hi`) records how close a
  came to b: the ratio a/b (b/a for >) when both are positive, else the headroom b - a;
- any other assert records pass or fail.

The report gives, for every assertion, the windows that failed and its worst and median
value over the windows, with the window of the worst: the numbers an assertion's
comment quotes ("scan: 200 windows of 5 seeds (0..999): worst 0.72 (SEEDS from 340)").
scripts/scan_seeds.py scans one cell, with any expression reported.
"""

import argparse
import ast
import concurrent.futures
import json
import operator
import os
import statistics
import sys
import time
from pathlib import Path

import nbformat
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_variant import defaults  # noqa: E402
from scan_seeds import run_cells  # noqa: E402

OPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}


class Probe(ast.NodeTransformer):
    """Rewrite each `assert test` as `assert _probe_(site, ...)`, which records and
    returns True. Sites are numbered in the order they are met."""

    def __init__(self, cell, sites):
        self.cell, self.sites = cell, sites

    def visit_Assert(self, node):
        site = len(self.sites)
        test = node.test
        self.sites.append((self.cell, node.lineno, ast.unparse(test)))
        if isinstance(test, ast.Compare) and all(type(op) in OPS for op in test.ops):
            values = ast.List([test.left, *test.comparators], ast.Load())
            ops = ast.List([ast.Constant(OPS[type(op)]) for op in test.ops], ast.Load())
            args = [ast.Constant(site), values, ops]
        else:
            args = [ast.Constant(site), test]
        node.test = ast.Call(ast.Name("_probe_", ast.Load()), args, [])
        return node


def probe_source(shell, source, cell, sites):
    python = shell.transform_cell(source)
    tree = Probe(cell, sites).visit(ast.parse(python))
    return ast.unparse(ast.fix_missing_locations(tree))


def measure(values, ops):
    """The worst of each comparison in a chain: (passed, value) where value is the
    ratio toward failure (< 1 passes) or, for non-positive operands, the headroom."""
    passed, worst = True, None
    for a, op, b in zip(values, ops, values[1:]):
        a, b = float(a), float(b)
        if op in (">", ">="):
            a, b = b, a
        passed &= a < b or (op in ("<=", ">=") and a == b)
        value = a / b if a > 0 and b > 0 else b - a
        kind = "ratio" if a > 0 and b > 0 else "headroom"
        if worst is None or (kind, value) > worst:  # ratios sort after headrooms
            worst = (kind, value)
    return passed, worst


def chapter_sources(shell, path, sites):
    """(kind, python) for every code cell that a scan runs, asserts rewritten."""
    cells, sources = nbformat.read(path, as_version=4).cells, []
    for k, cell in enumerate(cells):
        if cell.cell_type != "code" or cell.metadata.get("nbgrader", {}).get("grade"):
            continue
        tags = cell.metadata.get("tags", [])
        kind = "parameters" if "parameters" in tags else ""
        sources.append((kind, probe_source(shell, cell.source, k, sites)))
        if "sync:figures" in tags:  # no frames: only the figure's numbers matter here
            sources.append(("", "def interactive_figure(*args, **kwargs):\n    pass"))
    return sources


def run_window(path, seeds):
    """Run the chapter once with SEEDS = seeds; return {site: [passed, worst]} and the
    cells that raised."""
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shell.reset(new_session=False)
    sites, records, raised = [], {}, []
    sources = chapter_sources(shell, path, sites)

    def probe(site, values, ops=None):
        try:
            passed, worst = (
                (bool(values), None) if ops is None else measure(values, ops)
            )
        except (TypeError, ValueError):  # arrays, non-numbers: pass or fail only
            passed, worst = bool(eval_chain(values, ops)), None
        seen = records.setdefault(site, [True, None])
        seen[0] &= passed
        if worst is not None and (seen[1] is None or worst > seen[1]):
            seen[1] = worst
        return True

    shell.user_ns["_probe_"] = probe
    for result in run_cells(shell, sources, seeds):
        if not result.success:
            error = result.error_before_exec or result.error_in_exec
            raised.append(f"{type(error).__name__}: {str(error)[:120]}")
        shell.run_cell("import matplotlib.pyplot as _plt\n_plt.close('all')")
    return sites, records, raised


def eval_chain(values, ops):
    """A chain of comparisons of arrays: true where every element satisfies it."""
    compare = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}
    return all(np.all(compare[op](a, b)) for a, op, b in zip(values, ops, values[1:]))


def scan(path, firsts, length):
    out = []
    for first in firsts:
        sites, records, raised = run_window(path, list(range(first, first + length)))
        out.append((first, sites, records, raised))
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebook")
    parser.add_argument("--windows", type=int, default=200)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--json", help="also write the per-window results here")
    args = parser.parse_args(argv)
    os.environ.setdefault("MPLBACKEND", "Agg")

    path = Path(args.notebook)
    length = len(defaults(path)["SEEDS"])
    firsts = [args.first + w * length for w in range(args.windows)]
    start, results = time.perf_counter(), []
    batches = [firsts[j :: args.jobs] for j in range(args.jobs)]
    with concurrent.futures.ProcessPoolExecutor(args.jobs) as pool:
        for batch in pool.map(scan, [path] * args.jobs, batches, [length] * args.jobs):
            results += batch
    results.sort()
    sites = results[0][1]
    last = firsts[-1] + length - 1
    print(
        f"{path.name}: {len(firsts)} windows of {length} seeds ({args.first}..{last}), "
        f"{time.perf_counter() - start:.0f} s"
    )
    for first, _, _, raised in results:
        for error in raised:
            print(f"  SEEDS from {first}: a cell raised {error}")
    summary = []
    for site, (cell, line, text) in enumerate(sites):
        hits = [(first, rec[site]) for first, _, rec, _ in results if site in rec]
        failed = [first for first, (passed, _) in hits if not passed]
        worst = [(w[1], w[0], first) for first, (_, w) in hits if w is not None]
        row = {"cell": cell, "line": line, "assert": text, "windows": len(hits)}
        row["failed"] = failed
        note = f"{len(failed)} failed" + (
            f" (SEEDS from {failed[:5]})" if failed else ""
        )
        if worst:
            value, kind, first = max(worst)
            median = statistics.median(v for v, _, _ in worst)
            row.update(kind=kind, worst=value, worst_from=first, median=median)
            note += (
                f"; {kind} worst {value:.3g} (SEEDS from {first}), median {median:.3g}"
            )
        summary.append(row)
        print(f"cell {cell} line {line}: {text[:70]}\n    {len(hits)} windows, {note}")
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=1))
    return 1 if any(row["failed"] for row in summary) else 0


if __name__ == "__main__":
    sys.exit(main())
